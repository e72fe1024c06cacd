import os, signal, subprocess, sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]/"tools"))
from wheel_env import copy_checkout, make_wheel_env   # noqa: E402  (the tool that builds the wheel's environment)
from in_process import ROOT, citesum   # noqa: E402  (`citesum ARGS` in this process, or as a child process)
from citesum_nb.entry import lean_process   # noqa: E402
lean_process()   # the tests run `citesum ARGS` in this process (tools/in_process.py): tuned as the console script tunes its own

for k, v in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg"}.items():
    os.environ.setdefault(k, v)   # offline, no windows: as tools/test.sh sets them, for a test run alone


DOCUMENTED = {}   # README command -> the test that runs it, filled by `documents` as the test files load (tests/test_readme.py)


def documents(command:str):
    "Mark the test that runs `command` of a README: tests/test_readme.py leaves that command to it (when its file is collected)"
    def mark(fn):
        DOCUMENTED[command] = f"{fn.__module__}::{fn.__name__}"
        return pytest.mark.documents(command)(fn)
    return mark


def need_shared(name):
    "The shared data folder `name`; a clear skip outside CI, an error under CI=true (raised by shared_data)"
    from citesum_nb.core import shared_data
    p = shared_data(name, start=ROOT)
    if p is None: pytest.skip(f"shared data folder '{name}' not found next to the project (set CITESUM_SHARED_DATA to run this test)")
    return p


# --- what is made once per test run and shared (with pytest-xdist, by every worker) --------------------------------

def shared_once(factory, name:str, make)->dict:
    """`make(folder)` once per test run: its result (a JSON-able dict) and `folder` are shared by every test and, under
    pytest-xdist, by every worker (the first to ask makes it under a lock; a failure is kept and raised for each asker)"""
    import json
    from filelock import FileLock
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"): root = root.parent
    folder, done = root/f"shared-{name}", root/f"shared-{name}.json"
    with FileLock(str(root/f"shared-{name}.lock")):
        if not done.exists():
            try: result = {"ok": True, **make(folder)}
            except BaseException as e:
                done.write_text(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"[-6000:]})); raise
            done.write_text(json.dumps(result, default=str))
    result = json.loads(done.read_text())
    if not result["ok"]: pytest.fail(f"the shared {name} could not be made (first attempt):\n{result['error']}")
    return result


@pytest.fixture
def ctrl_c_as_in_a_terminal():
    "SIGINT raises KeyboardInterrupt here and starts at its default in child processes, as in a terminal: tests started in"
    "the background (`bash tools/test.sh &`, some CI runners) inherit SIGINT ignored, and a Ctrl-C test would prove nothing"
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try: yield
    finally: signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="session")
def wheel_env(tmp_path_factory)->dict:
    "{venv, wheel, requires, linked}: the wheel installed alone, made once per test run"
    return shared_once(tmp_path_factory, "wheel", make_wheel_env)


def user_env(home:Path, tmp:Path, path_first:Path)->dict:
    "A user's shell: no CI flag, no test runner, no pointer to shared data, no PYTHONPATH; a fresh HOME and TMPDIR"
    keep = ("LANG", "LC_ALL", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "MPLBACKEND", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    return {**env, "HOME": str(home), "TMPDIR": str(tmp), "PATH": f"{path_first}:/usr/local/bin:/usr/bin:/bin", "LANG": env.get("LANG", "C.UTF-8")}


DEMO = "citesum run params/runs/demo.yaml"


def make_demo_run(folder:Path, venv:Path)->dict:
    """README command 1's job as a user runs it: `citesum run params/runs/demo.yaml` in a copy of the checkout with no
    ../shared beside it, by the installed wheel's `citesum` (a user's environment, a fresh HOME and TMPDIR)"""
    import time
    clone = copy_checkout(folder/"work"/"citesum-nb")
    assert not any((p/"shared"/"data").exists() for p in clone.parents), "the copy must have no shared/data above it"
    home, tmp = folder/"home", folder/"tmpdir"
    for d in (home, tmp): d.mkdir()
    before = sorted(p.name for p in folder.iterdir())
    outside_runs = lambda: sorted(str(p.relative_to(clone)) for p in clone.rglob("*") if p.relative_to(clone).parts[0] != "runs")
    outside_before = outside_runs()
    t = time.time()
    r = subprocess.run(DEMO, shell=True, cwd=clone, env=user_env(home, tmp, venv/"bin"), capture_output=True, text=True, timeout=1800)
    seconds = time.time() - t
    (folder/"stdout.txt").write_text(r.stdout); (folder/"stderr.txt").write_text(r.stderr)
    assert r.returncode == 0, f"{DEMO} failed in a clone without shared data:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return {"clone": str(clone), "run": str(clone/"runs"/"demo_run"), "home": str(home), "tmpdir": str(tmp), "seconds": seconds,
            "beside_before": before, "beside_after": sorted(p.name for p in folder.iterdir() if p.name not in ("stdout.txt", "stderr.txt")),
            "outside_runs_before": outside_before, "outside_runs_after": outside_runs(),
            "stdout": r.stdout[-20000:], "stderr": r.stderr[-20000:]}


@pytest.fixture(scope="session")
def demo(tmp_path_factory, wheel_env)->dict:
    "The demo run (README command 1's job), made once per test run and read by the README, wheel, browser and figure tests"
    return shared_once(tmp_path_factory, "demo", lambda f: make_demo_run(f, Path(wheel_env["venv"])))


def make_docs_site(folder:Path)->dict:
    """The whole docs site as a user builds it in a project of their own: `citesum init` into a folder whose name has a
    space, then `citesum docs --out _docs` there (apart from the demo run: the pages show the notebooks' committed outputs)"""
    import time
    project = folder/"my project"
    citesum("init", project)
    t = time.time()
    r = citesum("docs", "--out", "_docs", cwd=project)
    return {"site": str(project/"_docs"), "project": str(project), "stdout": r.stdout, "seconds": time.time() - t}


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory)->dict:
    "{site, project, stdout, seconds}: the docs site of a `citesum init` project, made once per test run (docs and browser tests)"
    return shared_once(tmp_path_factory, "docs", make_docs_site)


# Scheduling only (no test needs another's side effects): under pytest-xdist a test file is a unit of work, so a module's
# fixtures are made once; the files that read the demo run are one unit, first, as they hold the longest chain of the run
# (wheel -> demo); the other worker starts with the docs site. (`--dist loadgroup` is not used: pytest 9.2 drops its marks.)
DEMO_FILES = ("test_readme.py", "test_wheel.py", "test_browser.py", "test_figures.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda i: (i.path.name not in DEMO_FILES, i.path.name != "test_docs.py"))   # stable: the rest keeps its order


def work_unit(nodeid:str)->str:
    "The unit of work of a test under pytest-xdist: its file, or `demo` for the files that read the demo run"
    f = nodeid.split("::")[0]
    return "demo" if Path(f).name in DEMO_FILES else f


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling
    config.option.loadscopereorder = False          # the units in the order above, not largest first
    sched = LoadScopeScheduling(config, log)
    sched._split_scope = work_unit
    return sched
