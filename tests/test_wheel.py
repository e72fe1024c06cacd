"""`pip install` of the wheel is enough: the wheel alone (no extras, no clone) ran the demo (the shared demo run: README
command 1's job, run by the installed wheel's `citesum`), wrote nothing outside its folder, and `citesum init DIR`
gives a folder where the same demo is planned step for step."""
import hashlib, json, re, subprocess, sys, zipfile
from pathlib import Path

import pytest

from citesum_nb.project import nbdev_settings
from conftest import DEMO, ROOT, documents, user_env

# Library caches a fresh HOME may get from the tools the demo runs (IPython's profile, matplotlib's font cache, ...):
# they are the libraries' own, outside our control; anything else outside the working folder is ours, and a bug.
LIBRARY_CACHES = {".ipython", ".cache", ".config", ".local", ".jupyter"}
EXTRAS_ONLY = ("sphinx", "myst_nb", "sphinx_book_theme", "pytest", "jupyterlab", "jupytext", "bm25s")   # docs and dev extras


def _tree(p:Path)->set:
    return {str(f.relative_to(p)) for f in p.rglob("*")} if p.exists() else set()


def _run(cmd, **kw)->subprocess.CompletedProcess:
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _sha(p:Path)->str: return hashlib.sha256(p.read_bytes()).hexdigest()


def test_the_wheel_holds_the_library_notebooks_and_parameter_files(wheel_env):
    "Every module, the bundled sample, the published tables, every notebook and parameter file of the checkout, byte for byte"
    with zipfile.ZipFile(wheel_env["wheel"]) as z:
        shipped = {n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist() if not n.endswith("/")}
    tracked = subprocess.run(["git", "ls-files", "citesum_nb", "nbs", "params"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    want = {}
    for rel in tracked:
        p = Path(rel)
        if p.parts[0] == "citesum_nb" and p.suffix in (".py", ".yaml", ".gz", ".json", ".jsonl", ".md", ".txt"): want[rel] = rel
        elif p.parts[0] == "nbs" and p.suffix == ".ipynb" and len(p.parts) == 2 and (p.name[0].isdigit() or p.name == "index.ipynb"):
            want[rel] = f"citesum_nb/project/nbs/{p.name}"
        elif p.parts[0] == "params" and p.suffix == ".yaml": want[rel] = "citesum_nb/project/" + rel
    want["pyproject.toml"] = "citesum_nb/project/pyproject.toml"    # its [tool.nbdev] table: the settings of an init project
    missing = [f"{src} -> {dst}" for src, dst in want.items() if shipped.get(dst) != _sha(ROOT/src)]
    assert missing == [], missing[:20]
    assert any(n.startswith("citesum_nb/sample/") for n in shipped) and "citesum_nb/published/citesum_tables.yaml" in shipped


def test_the_wheel_asks_for_no_extra(wheel_env):
    "The docs and dev tools are extras only; the environment the demo ran in could import none of them"
    plain = [r for r in wheel_env["requires"] if "extra ==" not in r]
    assert not [r for r in plain if r.split()[0].split("[")[0].split(">")[0].split("=")[0].lower() in ("sphinx", "myst-nb", "pytest", "jupyterlab")]
    code = "import importlib.util as u, json, sys; print(json.dumps([m for m in sys.argv[1:] if u.find_spec(m)]))"
    found = json.loads(_run([Path(wheel_env["venv"])/"bin"/"python", "-c", code, *EXTRAS_ONLY], cwd="/").stdout)
    assert found == [], f"the wheel's environment can import {found}"


def test_the_installed_wheel_ran_the_demo_and_wrote_only_its_folder(demo, wheel_env):
    "The shared demo run was made by the wheel's own `citesum`, in a user's environment, and left nothing outside its folder"
    venv, clone, run = Path(wheel_env["venv"]), Path(demo["clone"]), Path(demo["run"])
    env = user_env(Path(demo["home"]), Path(demo["tmpdir"]), venv/"bin")
    where = _run([venv/"bin"/"python", "-c", "import citesum_nb, sys; print(citesum_nb.__file__); print(sys.path)"], cwd=clone/"nbs", env=env).stdout
    assert where.startswith(str(venv)) and str(ROOT) not in where, where   # kernels run in nbs/: the installed library, the clone nowhere on sys.path
    log = [json.loads(l) for l in (run/"run_log.jsonl").read_text().splitlines()]
    assert log[-1]["status"] == "ok" and len(log[-1]["steps_run"]) >= 10, log[-1]
    assert "Taigman et al. [8] proposed DeepFace." in (run/"02_citations.ipynb").read_text()   # spaCy's sentencizer ran: no model download
    assert (run/"index.html").is_file() and "run folder:" in demo["stdout"]
    assert demo["beside_after"] == demo["beside_before"]                              # nothing new beside the working folder
    home = _tree(Path(demo["home"]))
    assert {Path(f).parts[0] for f in home} <= LIBRARY_CACHES, home
    assert demo["outside_runs_after"] == demo["outside_runs_before"], "the demo wrote outside runs/ in the clone"
    left = [p.name for p in Path(demo["tmpdir"]).iterdir() if not p.name.startswith("torchinductor")   # torch's own cache folder
            and not (p.name == "dask-scratch-space" and all(f.suffix == ".lock" for f in p.iterdir()))]  # Dask's, its workers' folders gone
    assert left == [], f"the demo left {left} in its TMPDIR (06b_train once left a 14 MB folder at every run)"


def _missing_images(nbs:Path)->list:
    "Local images that the notebooks' Markdown cells show and that are not in the project (a reader sees them broken)"
    found = []
    for nb in sorted(nbs.rglob("*.ipynb")):
        for c in json.loads(nb.read_text())["cells"]:
            text = "".join(c["source"]) if c["cell_type"] == "markdown" else ""
            for src in re.findall(r"!\[[^\]]*\]\(([^)\s]+)|<img [^>]*src=\"([^\"]+)\"", text):
                src = next(filter(None, src))
                if not re.match(r"^[a-z]+:", src) and not (nb.parent/src).is_file(): found.append(f"{nb.relative_to(nbs)}: {src}")
    return found


def _plan(folder:Path, env:dict, venv:Path)->list:
    "`citesum run params/runs/demo.yaml --dry-run` in `folder`: each step's notebook and parameters, the folder's path made relative"
    out = _run([venv/"bin"/"citesum", *DEMO.split()[1:], "--dry-run"], cwd=folder, env=env).stdout
    return out.replace(str(folder.resolve()), "<project>").splitlines()


@documents("citesum init DIR")
def test_init_gives_a_folder_where_the_same_demo_is_planned(demo, wheel_env, tmp_path):
    "`citesum init .` in an empty folder writes the checkout's notebooks and parameter files, and the demo's plan there is the clone's"
    venv = Path(wheel_env["venv"])
    work, home, tmp = tmp_path/"work", tmp_path/"home", tmp_path/"tmpdir"
    for d in (work, home, tmp): d.mkdir()
    env = user_env(home, tmp, venv/"bin")
    init = _run([venv/"bin"/"citesum", "init", "."], cwd=work, env=env)
    assert DEMO in init.stdout and (work/"nbs"/"06b_train.ipynb").is_file()
    written = _tree(work)
    assert {Path(f).parts[0] for f in written} == {"nbs", "params", "pyproject.toml"}, sorted(written)[:20]
    differ = [f for f in written if (work/f).is_file() and f != "pyproject.toml" and _sha(work/f) != _sha(ROOT/f)]
    assert differ == [], differ
    assert (work/"pyproject.toml").read_text() == nbdev_settings(ROOT/"pyproject.toml")     # the wheel carries nbdev's settings
    assert _plan(work, env, venv) == _plan(Path(demo["clone"]), env, venv)
    assert _missing_images(work/"nbs") == []                                         # every image the notebooks show is there too
    assert _tree(work) == written                                                     # planning writes nothing


def test_core_imports_without_papermill_jupyter_or_the_docs_tools():
    "Building, loading and evaluating need no papermill, Jupyter, nbconvert or Sphinx: with them blocked, the modules import"
    blocked = ["papermill", "nbformat", "nbconvert", "jupyter_client", "ipykernel", "IPython", "sphinx", "myst_nb"]
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None\n"
            "import citesum_nb.core, citesum_nb.s2orc, citesum_nb.citations, citesum_nb.build, citesum_nb.data, citesum_nb.evaluate, "
            "citesum_nb.metrics, citesum_nb.cards, citesum_nb.cli\nprint('ok')")   # not citesum_nb.docs: it subclasses nbdev's docs processors
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
