"`pip install citesum-nb` is enough: the wheel alone (no extras, no clone) runs the demo in an empty folder and writes only there."
import json, os, shutil, subprocess, sys, time
from pathlib import Path

import pytest

from conftest import ROOT

# Library caches a fresh HOME may get from the tools the demo runs (IPython's profile, matplotlib's font cache, ...):
# they are the libraries' own, outside our control; anything else outside the working folder is ours, and a bug.
LIBRARY_CACHES = {".ipython", ".cache", ".config", ".local", ".jupyter"}


def _run(cmd, **kw)->subprocess.CompletedProcess:
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _wheel(tmp:Path)->Path:
    "The project's wheel, built from a copy of the checkout's files (git's view: tracked and new files, nothing ignored)"
    src = tmp/"src"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if (ROOT/rel).is_file(): (src/rel).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(ROOT/rel, src/rel)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp/"dist", src])
    return next((tmp/"dist").glob("citesum_nb-*.whl"))


def _tree(p:Path)->set:
    return {str(f.relative_to(p)) for f in p.rglob("*")} if p.exists() else set()


@pytest.mark.slow
def test_wheel_alone_runs_the_demo_in_an_empty_folder(tmp_path):
    t0 = time.time()
    whl = _wheel(tmp_path)
    venv = tmp_path/"venv"
    _run([sys.executable, "-m", "venv", venv])                  # a fresh environment: nothing of the checkout's
    pip = [venv/"bin"/"python", "-m", "pip", "install", "-q", "--no-compile"]
    _run(pip + ["torch==2.13.0"])                               # the local CPU wheel first, as the README says
    _run(pip + [whl])                                           # the wheel and its dependencies, no extras
    t1 = time.time()
    work, home, tmpdir = tmp_path/"work", tmp_path/"home", tmp_path/"tmpdir"
    for d in (work, home, tmpdir): d.mkdir()
    before = set(p.name for p in tmp_path.iterdir())
    env = {"PATH": f"{venv/'bin'}:/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(tmpdir), "LANG": "C.UTF-8",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg"}
    where = _run([venv/"bin"/"python", "-c", "import citesum_nb, sys; print(citesum_nb.__file__); print(sys.path)"], cwd=work, env=env).stdout
    assert where.startswith(str(venv)) and str(ROOT) not in where, where   # the installed library, the clone nowhere on sys.path
    assert not (venv/"bin"/"spacy").exists() and _run([venv/"bin"/"python", "-c", "import importlib.util as u; print(u.find_spec('spacy'), u.find_spec('sphinx'))"], env=env).stdout.split() == ["None", "None"]
    init = _run([venv/"bin"/"citesum", "init", "."], cwd=work, env=env)
    assert "citesum run params/runs/demo.yaml" in init.stdout and (work/"nbs"/"06_train.ipynb").is_file()
    r = _run([venv/"bin"/"citesum", "run", "params/runs/demo.yaml"], cwd=work, env=env, timeout=2400)
    t2 = time.time()
    print(f"wheel and install: {t1 - t0:.0f} s; init and demo: {t2 - t1:.0f} s")
    run = work/"runs"/"demo_run"
    log = [json.loads(l) for l in (run/"run_log.jsonl").read_text().splitlines()]
    assert log[-1]["status"] == "ok" and len(log[-1]["steps_run"]) >= 10, log[-1]
    assert "skipped the spaCy splitter example" in (run/"02_citations.ipynb").read_text()   # an extra, and the step says so
    assert (run/"index.html").is_file() and "run folder:" in r.stdout
    assert set(p.name for p in tmp_path.iterdir()) == before                  # nothing new beside the working folder
    assert {Path(f).parts[0] for f in _tree(home)} <= LIBRARY_CACHES, _tree(home)
    assert _tree(work) >= {"nbs", "params", "runs"} and {Path(f).parts[0] for f in _tree(work)} <= {"nbs", "params", "runs"}, sorted(_tree(work))[:20]


def test_core_imports_without_papermill_jupyter_or_the_docs_tools():
    "Building, loading and evaluating need no papermill, Jupyter, nbconvert or Sphinx: with them blocked, the modules import"
    blocked = ["papermill", "nbformat", "nbconvert", "jupyter_client", "ipykernel", "IPython", "sphinx", "myst_nb"]
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None\n"
            "import citesum_nb.core, citesum_nb.s2orc, citesum_nb.citations, citesum_nb.build, citesum_nb.data, citesum_nb.evaluate, "
            "citesum_nb.metrics, citesum_nb.cards, citesum_nb.docs, citesum_nb.cli\nprint('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
