"""The project's wheel installed alone in a fresh virtual environment, as a user who has only the wheel gets it.

`make_wheel_env(folder)` builds the wheel from a copy of the checkout (`copy_checkout`: tracked files and new files git
does not ignore), makes a venv without pip, links into it only the installed distributions that the wheel's own
requirements need (no extras: no Sphinx, no pytest, no JupyterLab), nothing downloaded, and installs the wheel there.
The tests (tests/conftest.py) make it once per run; `python tools/wheel_env.py DIR` makes one by hand."""
import os, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(dest:Path)->Path:
    "The project's files as a fresh clone has them (tracked files and new files git does not ignore), nothing else"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if (ROOT/rel).is_file(): (dest/rel).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(ROOT/rel, dest/rel)
    return dest


def _dependency_closure(requires:list)->dict:
    "{name: Distribution} of the installed distributions that `requires` (Requires-Dist lines, no extras) needs, transitively"
    import importlib.metadata as md
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    seen, done, todo = {}, set(), [(r, "") for r in requires]
    while todo:
        line, extra = todo.pop()
        r = Requirement(line)
        if r.marker and not r.marker.evaluate({"extra": extra}): continue
        name = canonicalize_name(r.name)
        for want in ("", *sorted(r.extras)):      # the distribution itself, then each extra asked of it
            if (name, want) in done: continue
            done.add((name, want))
            try: d = seen.get(name) or md.distribution(r.name)
            except md.PackageNotFoundError: break  # an optional or platform dependency this environment does not have
            seen[name] = d
            todo += [(x, want) for x in d.requires or []]
    return seen


def make_wheel_env(folder:Path)->dict:
    """The project's wheel, built from a copy of the checkout, installed alone in a fresh environment that sees only the
    wheel's own dependencies (no extras: no Sphinx, no pytest, no JupyterLab), linked from this environment, not downloaded"""
    import sysconfig, zipfile
    src = copy_checkout(folder/"src")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder/"dist"), str(src)],
                   check=True, capture_output=True, text=True)
    whl = next((folder/"dist").glob("citesum_nb-*.whl"))
    venv = folder/"venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv/"bin"/"python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    with zipfile.ZipFile(whl) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = [l.split(":", 1)[1].strip() for l in z.read(meta).decode().splitlines() if l.startswith("Requires-Dist:")]
    deps = _dependency_closure(requires)
    here = Path(sysconfig.get_paths()["purelib"])
    tops = {Path(str(f)).parts[0] for d in deps.values() for f in (d.files or []) if not str(f).startswith("..")}
    tops |= {Path(d._path).name for d in deps.values()}                      # each distribution's .dist-info folder
    for t in sorted(tops):
        if (here/t).exists() and not (site/t).exists() and not t.endswith(".pth"): (site/t).symlink_to(here/t)
    for f in (str(f) for d in deps.values() for f in (d.files or []) if str(f).startswith("..")):   # data files: share/jupyter, etc/
        src, dst = Path(os.path.normpath(here/f)), Path(os.path.normpath(site/f))
        if src.is_file() and dst.relative_to(venv).parts[0] in ("share", "etc") and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True); dst.symlink_to(src)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv/"bin"/"python"), "install", "--no-deps", "--no-compile", "-q", str(whl)],
                   check=True, capture_output=True, text=True)
    return {"venv": str(venv), "wheel": str(whl), "requires": requires, "linked": sorted(deps)}


if __name__ == "__main__":
    if len(sys.argv) != 2: sys.exit("usage: python tools/wheel_env.py DIR   (DIR: a new folder for the wheel and its venv)")
    print(make_wheel_env(Path(sys.argv[1]).resolve()))
