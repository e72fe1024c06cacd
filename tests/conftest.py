import os, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


def citesum(*args, check=True, cwd=ROOT, timeout=900):
    "Run the installed `citesum` command; returns the CompletedProcess"
    exe = Path(sys.executable).with_name("citesum")
    cmd = [str(exe) if exe.exists() else "citesum", *map(str, args)]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {r.returncode}\nstdout:\n{r.stdout[-3000:]}\nstderr:\n{r.stderr[-3000:]}")
    return r


def need_shared(name):
    "The shared data folder `name`; a clear skip outside CI, an error under CI=true (raised by shared_data)"
    from citesum_nb.core import shared_data
    p = shared_data(name, start=ROOT)
    if p is None: pytest.skip(f"shared data folder '{name}' not found next to the project (set CITESUM_SHARED_DATA to run this test)")
    return p
