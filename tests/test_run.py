"`citesum run`: the main job in a clone without the shared data folder, and what `--only` / `--kernel` do to a run folder."
import json, os, shutil, subprocess, sys
from pathlib import Path

import yaml

from conftest import ROOT, citesum


def _user_env(clone:Path)->dict:
    "The environment of a user's shell: no CI flag, no test runner, no pointer to shared data; the clone's library first"
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_CURRENT_TEST", "IN_TEST", "CITESUM_SHARED_DATA")}
    env["PYTHONPATH"] = str(clone)
    return env


def _copy_checkout(dest:Path)->Path:
    "The project's files as a fresh clone has them (tracked files and new files git does not ignore), nothing else"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT/rel
        if src.is_file():
            (dest/rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest/rel)
    return dest


def test_demo_runs_in_a_clone_without_shared_data(tmp_path):
    "README command 1 on a user's clone: no ../shared beside it, every stage runs, skipped steps say so in one line"
    clone = _copy_checkout(tmp_path/"user"/"citesum-nb")
    assert not any((p/"shared"/"data").exists() for p in clone.parents), "the temporary clone must have no shared/data above it"
    exe = Path(sys.executable).with_name("citesum")
    r = subprocess.run([str(exe), "run", "params/runs/demo.yaml"], cwd=clone, env=_user_env(clone), capture_output=True,
                       text=True, timeout=1500)
    assert r.returncode == 0, f"demo failed in a clone without shared data:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    run = clone/"runs"/"demo_run"
    plan = yaml.safe_load((run/"run.yaml").read_text())["steps"]
    for step in plan: assert (run/f"{step['name']}.ipynb").exists(), f"step {step['name']} left no executed notebook"
    log = [json.loads(l) for l in (run/"run_log.jsonl").read_text().splitlines()]
    assert log[-1]["status"] == "ok" and log[-1]["steps_run"] == [s["name"] for s in plan]
    analysis = (run/"04_analysis.ipynb").read_text()
    assert "skipped the SciTLDR rows" in analysis and "allenai/scitldr" in analysis   # one line that says where to get it
    assert (run/"04_analysis"/"figures"/"04_extractiveness.png").exists()
    assert "run folder:" in r.stdout and "03_build/dataset/report.md" in r.stdout


def _tiny_spec(tmp_path:Path)->Path:
    spec = tmp_path/"two_steps.yaml"
    spec.write_text(yaml.safe_dump({"run_dir": str(tmp_path/"run"), "steps": [
        {"notebook": "00_core", "parameters": {"out_dir": "{run_dir}/00_core"}},
        {"notebook": "00a_params", "parameters": {"out_dir": "{run_dir}/00a_params"}}]}))
    return spec


def test_only_runs_some_steps_and_keeps_the_whole_plan(tmp_path):
    spec = _tiny_spec(tmp_path)
    citesum("run", spec, "--project", ROOT)
    r = citesum("run", spec, "--project", ROOT, "--only", "00a_params")
    run = tmp_path/"run"
    test_plan = yaml.safe_load((run/"run.yaml").read_text())["steps"]
    assert [s["name"] for s in test_plan] == ["00_core", "00a_params"]        # --only never shrinks the plan
    log = [json.loads(l) for l in (run/"run_log.jsonl").read_text().splitlines()]
    assert [l["steps_run"] for l in log] == [["00_core", "00a_params"], ["00a_params"]]
    assert "00a_params.ipynb" in r.stdout and "00_core.ipynb" not in r.stdout  # the summary lists what this invocation wrote


def test_unknown_step_and_unknown_kernel_are_one_line_errors(tmp_path):
    spec = _tiny_spec(tmp_path)
    r = citesum("run", spec, "--project", ROOT, "--only", "00_cor", check=False)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "unknown step(s) 00_cor; the steps of this run are: 00_core, 00a_params" in r.stderr
    r = citesum("run", spec, "--project", ROOT, "--kernel", "bogus", check=False, timeout=60)
    assert r.returncode == 2 and "unknown Jupyter kernel 'bogus'" in r.stderr and r.stderr.strip().count("\n") == 0
    assert not (tmp_path/"run"/"00_core.ipynb").exists()                        # nothing ran
