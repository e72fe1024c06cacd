"""`citesum run`: the main job in a clone without the shared data folder, a documented run in a clone beside it, what
`--only` / `--kernel` do to a run folder, names and links that would lead a run out of its folder, and every command's help."""
import json, re, subprocess, sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, citesum
from citesum_nb.run import step_modules


PROGRESS = re.compile(r"\d+%\|[^|\n]*\||\] \| *\d+% Completed")   # a tqdm bar, a Dask bar
ALLOWED_STDERR = (                                                     # warnings a reader of the demo is meant to see, or cannot be spared
    "[transformers] mtime may not be reliable on this filesystem",)    # transformers' rotate_checkpoints, when a tiny model saves two checkpoints within a second


def noisy_outputs(nb:Path)->list:
    "What an executed notebook should not show: stderr warnings outside ALLOWED_STDERR, and cells with more than one progress output"
    found = []
    for i, c in enumerate(json.loads(nb.read_text())["cells"]):
        errs = ["".join(o["text"]) for o in c.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stderr"]
        if sum(bool(PROGRESS.search(t)) for t in errs) > 1: found.append(f"{nb.stem} cell {i}: {len(errs)} progress outputs")
        for line in (l for t in errs for l in t.splitlines() if l.strip() and not l[:1].isspace()):   # a warning's source line is indented
            if not PROGRESS.search(line) and not any(a in line for a in ALLOWED_STDERR) and re.search(r"warn|IProgress|encryption|error", line, re.I):
                found.append(f"{nb.stem} cell {i}: {line[:160]}")
    return found


def test_noisy_outputs_finds_what_it_looks_for(tmp_path):
    out = lambda t: {"output_type": "stream", "name": "stderr", "text": t}
    cells = [{"cell_type": "code", "outputs": [out("\rMap: 100%|####| 12/12 [00:00<00:00]"), out("\rLoading: 100%|##| 2/2 [00:00<00:00]")]},
             {"cell_type": "code", "outputs": [out("/x/tqdm/auto.py:21: TqdmWarning: IProgress not found. Please update jupyter\n")]},
             {"cell_type": "code", "outputs": [out("build, pass 1: [########] | 100% Completed | 2.1s\n"), out("[transformers] mtime may not be reliable on this filesystem, falling back to numerical ordering\n")]}]
    (tmp_path/"n.ipynb").write_text(json.dumps({"cells": cells}))
    assert noisy_outputs(tmp_path/"n.ipynb") == ["n cell 0: 2 progress outputs", "n cell 1: /x/tqdm/auto.py:21: TqdmWarning: IProgress not found. Please update jupyter"]


def test_plain_papermill_shows_no_iprogress_warning(tmp_path):
    "A notebook that imports the library and then tqdm.auto (as datasets and transformers do), run by plain papermill: text bars, no IProgress warning"
    import nbformat, papermill as pm
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config
    nb = new_notebook(cells=[new_code_cell("import citesum_nb.core"), new_code_cell("from tqdm.auto import tqdm\nfor _ in tqdm(range(3)): pass")],
                      metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}})
    nbformat.write(nb, tmp_path/"t.ipynb")
    pm.execute_notebook(str(tmp_path/"t.ipynb"), str(tmp_path/"o.ipynb"), kernel_name="python3", progress_bar=False, cwd=str(tmp_path),
                        config=Config({"KernelManager": {"transport": "ipc"}}))
    errs = ["".join(o["text"]) for c in json.loads((tmp_path/"o.ipynb").read_text())["cells"] for o in c["outputs"] if o.get("name") == "stderr"]
    assert errs and "100%" in "".join(errs) and not any("IProgress" in t or "Warning" in t for t in errs)   # the text bars, alone


def _tiny_spec(tmp_path:Path)->Path:
    spec = tmp_path/"two_steps.yaml"
    spec.write_text(yaml.safe_dump({"run_dir": str(tmp_path/"run"), "steps": [
        {"notebook": "00_core", "parameters": {"out_dir": "{run_dir}/00_core"}},
        {"notebook": "00a_params", "parameters": {"out_dir": "{run_dir}/00a_params"}}]}))
    return spec


@pytest.fixture(scope="module")
def two_step_run(tmp_path_factory)->tuple:
    "`citesum run` of the two-step spec, once for the module: (its folder, its output); only the `--only` test runs it again"
    folder = tmp_path_factory.mktemp("two_steps")
    (folder/"tmpdir").mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TMPDIR", str(folder/"tmpdir"))   # the kernels' temporary folder, to see what they leave there
        return folder, citesum("run", _tiny_spec(folder), "--project", ROOT)


def test_steps_leave_nothing_in_the_temporary_folder(two_step_run):
    "00_core's examples make folders outside any run folder (claims, umask): they are gone when the step ends"
    assert sorted(p.name for p in (two_step_run[0]/"tmpdir").iterdir()) == []


def test_only_runs_some_steps_and_keeps_the_whole_plan(two_step_run):
    folder = two_step_run[0]
    r = citesum("run", folder/"two_steps.yaml", "--project", ROOT, "--only", "00a_params")   # again, one step of the same run
    run = folder/"run"
    test_plan = yaml.safe_load((run/"run.yaml").read_text())["steps"]
    assert [s["name"] for s in test_plan] == ["00_core", "00a_params"]        # --only never shrinks the plan
    log = [json.loads(l) for l in (run/"run_log.jsonl").read_text().splitlines()]
    assert [l["steps_run"] for l in log] == [["00_core", "00a_params"], ["00a_params"]]
    assert re.search(r"^\[1/1\] 00a_params ok ", r.stdout, re.M) and "00_core" not in r.stdout   # a line for each step this invocation ran
    assert "(files written by this run): 1 executed notebooks" in r.stdout
    core = step_modules(run/"00_core.ipynb")                                      # what the step's kernel loaded, kept in its notebook
    assert "citesum_nb.core" in core and "citesum_nb.run_index" not in core, core
    assert "citesum-modules" not in (run/"00_core.ipynb").read_text()            # the cell that printed it is gone


TIME = re.compile(r" \((\d+ min )?\d+ s\)$")   # a step's time, as `format_seconds` writes it


def test_citesum_run_prints_a_line_per_step_and_where_to_browse(two_step_run):
    "`citesum run`'s output, stdout and stderr (the kernels' included): a line per step with its time, one of what it wrote, where to browse"
    folder, r = two_step_run
    lines, run = (r.stdout + r.stderr).splitlines(), folder/"run"
    assert [TIME.sub(" (T)", l) for l in lines] == [
        "[1/2] 00_core ok (T)", "[2/2] 00a_params ok (T)",
        f"run folder: {run} (files written by this run): 2 executed notebooks, 1 results tables", f"browse the run: {run/'index.html'}"], lines


def test_the_demo_prints_at_most_25_lines(tmp_path, monkeypatch):
    """README command 1 (`citesum run params/runs/demo.yaml`) as `run_cli` prints it, its steps replaced by a stand-in that
    writes a one-cell executed notebook (and, for the steps that build a dataset, the build's report from the bundled
    sample): 16 step lines, one line of what the run wrote, two on its dataset reports, one on where to browse"""
    import nbformat
    from citesum_nb import run as run_mod
    builds = {"03b_build": "03b_build/dataset", "10_cloze": "10_cloze/dataset", "07_transfer.scitldr_oracle": "07_transfer.scitldr_oracle/sample_build/dataset"}
    def fake_step(s, rdir, *_):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {s['name']}")]), rdir/f"{s['name']}.ipynb")
        if s["name"] in builds:
            d = rdir/builds[s["name"]]; d.mkdir(parents=True)
            (d/"report.json").write_text(json.dumps({"input": {"bundled_sample": True}, "stages_add_up": True, "leaked_cited_papers": 0, "damaged_input": {}}))
            (d/"report.md").write_text("# CiteSum build report\n" + "| stage | count |\n" * 80)
    monkeypatch.setattr(run_mod, "_execute_step", fake_step)
    r = citesum("run", ROOT/"params"/"runs"/"demo.yaml", "--run-dir", tmp_path/"demo_run")
    lines = (r.stdout + r.stderr).splitlines()
    steps = yaml.safe_load((tmp_path/"demo_run"/"run.yaml").read_text())["steps"]
    assert sorted(TIME.sub("", l) for l in lines[:len(steps)]) == sorted(f"[{i}/{len(steps)}] {s['name']} ok" for i, s in enumerate(steps, 1))   # as they end (jobs: 2)
    assert lines[len(steps)].startswith(f"run folder: {tmp_path/'demo_run'} (files written by this run): {len(steps)} executed notebooks")
    assert lines[len(steps) + 1] == "dataset reports (3, in the run index): 03b_build/dataset/report.md, 07_transfer.scitldr_oracle/sample_build/dataset/report.md, 10_cloze/dataset/report.md"
    assert lines[len(steps) + 2].startswith("note: all 3 built from the bundled sample, written for the tests")
    assert lines[len(steps) + 3:] == [f"browse the run: {tmp_path/'demo_run'/'index.html'}"]
    assert len(lines) == len(steps) + 4 <= 25, lines


def test_unknown_step_and_unknown_kernel_are_one_line_errors(tmp_path):
    spec = _tiny_spec(tmp_path)
    r = citesum("run", spec, "--project", ROOT, "--only", "00_cor", check=False)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "unknown step(s) 00_cor; the steps of this run are: 00_core, 00a_params" in r.stderr
    r = citesum("run", spec, "--project", ROOT, "--kernel", "bogus", check=False, timeout=60)
    assert r.returncode == 2 and "unknown Jupyter kernel 'bogus'" in r.stderr and r.stderr.strip().count("\n") == 0
    assert not (tmp_path/"run"/"00_core.ipynb").exists()                        # nothing ran


# --- nothing a run writes leaves its folder -------------------------------------------------------------------------

_TARGETS = ["outside/owned", "owned", "etc/passwd", ".bashrc"]
_PREFIXES = ["../", "../../", "../../../../", "..\\", "..\\..\\", "/", "//", "./../", "~/", "%2e%2e/", "..%2f", "....//", "..;/",
             " ../", "\u2215..\u2215", "..\uff0f", "x/../../", "\\\\server\\share\\", "file:///", "C:\\"]
_ODD = ["", ".", "..", "...", " ", ".hidden", "a b", "-rf", "--only", "a\x00b", "a\nb", "a\tb", "x" * 129, "é", "名前", "a:b", "a|b",
        "a*b", "a?b", "$(touch pwned)", "`id`", "a;b", "x/", "a/b", "a\\b", "a/../../b", "\u202e", "a\u2028b", "${HOME}", "{run_dir}",
        "{run_dir}/../x"]
MALICIOUS = [p + t for p in _PREFIXES for t in _TARGETS] + _ODD
POSITIONS = ("step name", "row id", "notebook", "table step name")


def _spec(where:str, name:str, sandbox:Path)->Path:
    "A run file that puts `name` in one position; the run folder is sandbox/run"
    table = sandbox/"params"/"experiments"/"t.yaml"
    table.parent.mkdir(parents=True, exist_ok=True)
    rows = {name if where == "row id" else "r1": {"out_dir": "{run_dir}/r1"}}
    table.write_text(yaml.safe_dump({"notebook": "00_core", "rows": rows}))
    step = {"step name": {"notebook": "00_core", "name": name}, "notebook": {"notebook": name},
            "row id": {"experiments": str(table)}, "table step name": {"experiments": str(table), "name": name}}[where]
    f = sandbox/"params"/"runs"/"spec.yaml"; f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(yaml.safe_dump({"run_dir": str(sandbox/"run"), "steps": [step]}))
    return f


@pytest.mark.parametrize("where", POSITIONS)
def test_no_name_leads_a_run_out_of_its_folder(tmp_path, where):
    "Every malicious step name, row id or notebook name is refused by the plan (--dry-run too), before anything is written"
    from citesum_nb.core import CitesumError
    from citesum_nb.run import execute_run, run_command
    sandbox = tmp_path/"sandbox"/"a"/"b"/"c"; sandbox.mkdir(parents=True)
    for name in MALICIOUS:
        if not name and where.endswith("step name"): continue   # `name: ""` gives no name: the step keeps its default one
        f = _spec(where, name, sandbox)
        for call in (lambda: run_command([str(f), "--project", str(ROOT), "--dry-run"]), lambda: execute_run(f, root=ROOT, progress=False)):
            with pytest.raises(CitesumError, match="is not an identifier|must be text"): call()   # a blank name: refused by its type
        assert not (sandbox/"run").exists(), repr(name)
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["sandbox/a/b/c/params/experiments/t.yaml", "sandbox/a/b/c/params/runs/spec.yaml"]
    assert len(MALICIOUS) > 100


@pytest.mark.parametrize("planted", ["00_core.ipynb", "run.yaml", "run_log.jsonl"])
def test_a_link_in_the_run_folder_leads_no_write_out(tmp_path, planted):
    "A symbolic link planted in the run folder (to a notebook, the plan or the log) is refused, not followed"
    from citesum_nb.core import CitesumError
    from citesum_nb.run import execute_run
    run, outside = tmp_path/"run", tmp_path/"outside"; run.mkdir(); outside.mkdir()
    (run/planted).symlink_to(outside/planted)
    f = tmp_path/"spec.yaml"; f.write_text(yaml.safe_dump({"run_dir": str(run), "steps": [{"notebook": "00_core"}]}))
    with pytest.raises(CitesumError, match="would lie outside the run folder|did not write"): execute_run(f, root=ROOT, progress=False)
    assert list(outside.iterdir()) == []


# --- help -----------------------------------------------------------------------------------------------------------

def _commands()->list:
    from citesum_nb.cli import COMMANDS, command_name
    return [[command_name(f)] for f in COMMANDS if command_name(f) not in ("cloze", "human-eval")] + \
           [["cloze"], ["cloze", "build"], ["cloze", "baseline"], ["human-eval"], ["human-eval", "sample"], ["human-eval", "summarize"]]


STAGE_COMMANDS = {"build": ("citesum_nb.build", "BuildParams"), "train": ("citesum_nb.train_settings", "TrainParams"),
                  "transfer": ("citesum_nb.transfer", "TransferParams"), "resolve": ("citesum_nb.resolve", "ResolveParams"),
                  "cloze build": ("citesum_nb.cloze", "ClozeParams"), "crosseval": ("citesum_nb.crosseval", "CrossEvalParams"),
                  "summarize": ("citesum_nb.summarize", "SummarizeParams")}
_PROBE = """import contextlib, io, json, sys
from citesum_nb.cli import main
for cmd in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try: rc = main(cmd + ["--help"])
        except SystemExit as e: rc = e.code
    heavy = sorted(m for m in ("torch", "transformers") if m in sys.modules)
    print(json.dumps({"cmd": cmd, "rc": rc, "heavy": heavy, "stdout": out.getvalue(), "stderr": err.getvalue()[-2000:]}), flush=True)
"""


@pytest.fixture(scope="module")
def helps()->dict:
    "`citesum <command> --help` for every command, one after another in one fresh process (heavy imports stay in sys.modules:"
    "the first command that imports torch or transformers is the one named)"
    r = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(_commands())], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return {" ".join(d["cmd"]): d for d in map(json.loads, r.stdout.splitlines())}


@pytest.mark.parametrize("cmd", _commands(), ids=" ".join)
def test_help_loads_no_torch_and_lists_every_key(cmd, helps):
    "`citesum <command> --help` in a fresh process: exit 0, no torch or transformers imported, every key --set accepts listed"
    import importlib
    probe = helps[" ".join(cmd)]
    assert probe["rc"] == 0 and probe["stdout"].startswith(f"usage: citesum {' '.join(cmd)}"), probe["stderr"]
    assert probe["heavy"] == [], f"`citesum {' '.join(cmd)} --help` imported {probe['heavy']}"
    if " ".join(cmd) in STAGE_COMMANDS:
        mod, cls = STAGE_COMMANDS[" ".join(cmd)]
        names = getattr(importlib.import_module(mod), cls).names()
        keys = probe["stdout"][probe["stdout"].index("--set KEY=VALUE accepts"):]
        assert [n for n in names if not re.search(rf"\b{n}\b", keys)] == []


def test_no_command_is_a_usage_error():
    r = citesum(check=False)
    assert r.returncode == 2 and r.stderr.startswith("usage: citesum <command>") and r.stdout == ""
