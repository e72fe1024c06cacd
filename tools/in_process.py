"""`citesum ARGS` as the tests run it: in this process by default (`citesum_nb.cli.main`, its output captured at the file
descriptors, so what C code and child processes write is caught too), or as the installed console script in a child
process (`process=True`, for what is about the process: exit status as the shell sees it, signals).

The tests (tests/conftest.py) use `citesum` in fixtures of every scope: pytest's `capfd` and `monkeypatch` serve one test
function, while a session's shared docs site or a module's build is made by the same call."""
import contextlib, io, os, subprocess, sys, tempfile, traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def citesum_exe()->str:
    "The installed `citesum` console script (the one beside this Python, else the one on PATH)"
    exe = Path(sys.executable).with_name("citesum")
    return str(exe) if exe.exists() else "citesum"


@contextlib.contextmanager
def _captured_fds():
    "Standard output and error of this process, Python objects and file descriptors 1 and 2 alike, into two files"
    files = [tempfile.TemporaryFile(mode="w+b") for _ in range(2)]
    texts = [io.StringIO(), io.StringIO()]
    for s in (sys.stdout, sys.stderr): s.flush()
    saved = [os.dup(1), os.dup(2)]
    old = sys.stdout, sys.stderr
    try:
        os.dup2(files[0].fileno(), 1); os.dup2(files[1].fileno(), 2)
        sys.stdout, sys.stderr = texts
        result = {}
        yield result
    finally:
        for s in (sys.stdout, sys.stderr): s.flush()
        sys.stdout, sys.stderr = old
        os.dup2(saved[0], 1); os.dup2(saved[1], 2)
        for fd in saved: os.close(fd)
        for k, f, t in zip(("stdout", "stderr"), files, texts):
            f.seek(0)
            result[k] = t.getvalue() + f.read().decode("utf-8", "replace")   # what Python printed, then what C code and children wrote
            f.close()


def _in_process(args:list, cwd, input:str|None)->tuple:
    "`citesum ARGS` as `citesum_nb.cli.main(ARGS)` in this process: (exit status, stdout, stderr); the working folder,"
    "standard input and the environment are set for the call and restored after it"
    from citesum_nb.cli import main
    env, here, stdin = dict(os.environ), os.getcwd(), sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO((input or "").encode()), encoding="utf-8")
    try:
        os.chdir(cwd)
        with _captured_fds() as out:
            try: rc = main(args)
            except SystemExit as e:                          # argparse's errors and --help; sys.exit("message") as Python shows it
                rc = e.code if isinstance(e.code, int) or e.code is None else 1
                if rc == 1 and not isinstance(e.code, int): print(e.code, file=sys.stderr)
            except Exception: traceback.print_exc(); rc = 1    # what the console script would show: a traceback, status 1
    finally:
        os.chdir(here); sys.stdin = stdin
        os.environ.clear(); os.environ.update(env)
    return int(rc or 0), out["stdout"], out["stderr"]


def citesum(*args, check=True, cwd=ROOT, timeout=900, input:str|None=None, process=False)->subprocess.CompletedProcess:
    """`citesum ARGS`, by default in this process (`citesum_nb.cli.main`, output captured): what a command does.
    `process=True` runs the installed console script in a child process with `timeout`: for what is about the process
    itself (its exit status as the shell sees it, signals, the console script)."""
    args = [str(a) for a in args]
    if process:
        cmd = [citesum_exe(), *args]
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, input=input)
    else:
        rc, out, err = _in_process(args, cwd, input)
        r = subprocess.CompletedProcess(["citesum", *args], rc, out, err)
    if check and r.returncode != 0:
        raise AssertionError(f"citesum {' '.join(args)} exited {r.returncode}\nstdout:\n{r.stdout[-3000:]}\nstderr:\n{r.stderr[-3000:]}")
    return r
