"""Signals and processes, by mechanism: a Ctrl-C or SIGTERM while the local workers start is recorded whichever thread
the system hands it to (never ignored, never lost), the workers start with Ctrl-C blocked and their standard error in a
log file, and every wait on a cluster is bounded by `worker_wait` with the progress bars on too. One real `citesum build`
is interrupted as a terminal does it (the whole process group, during the workers' start-up)."""
import os, random, signal, subprocess, sys, threading, time
from pathlib import Path

import pytest


@pytest.mark.parametrize("seed", range(12))
def test_a_signal_to_any_thread_during_start_up_is_recorded(seed, ctrl_c_as_in_a_terminal):
    "SIGINT/SIGTERM sent to a random thread (main or not) while the workers start ends in `held`, and the handlers come back"
    from citesum_nb.engine import _signals_held
    rng = random.Random(seed); sigs = [rng.choice([signal.SIGINT, signal.SIGTERM]) for _ in range(rng.randint(1, 3))]
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    stop = threading.Event()
    threads = [threading.Thread(target=stop.wait, daemon=True) for _ in range(rng.randint(1, 6))]
    for t in threads: t.start()
    try:
        with _signals_held() as held:
            for n, s in enumerate(sigs, 1):
                target = rng.choice([threading.main_thread(), *threads])
                if rng.random() < 0.3: os.kill(os.getpid(), s)          # process-directed, as `kill -INT <pid>` and a terminal do
                else: signal.pthread_kill(target.ident, s)              # to one thread: the one the system chose
                deadline = time.monotonic() + 5
                while len(held) < n and time.monotonic() < deadline: time.sleep(0.01)   # the handler runs in the main thread
            assert held == sigs, (held, sigs)
    finally: stop.set()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_an_ignored_ctrl_c_stays_ignored(ctrl_c_as_in_a_terminal):
    "A process started with SIGINT ignored (a background job) keeps it so through the start-up"
    from citesum_nb.engine import _signals_held
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _signals_held() as held: os.kill(os.getpid(), signal.SIGINT); time.sleep(0.05)
        assert held == [] and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally: signal.signal(signal.SIGINT, old)


def _fine(x): return x


def test_waits_with_progress_bars_are_bounded_when_no_worker_is_left(capfd):
    "The bars on (a user's default): a persist, then a compute, with no worker alive each end in one line after worker_wait"
    import dask
    from citesum_nb.core import CitesumError
    from citesum_nb.engine import Engine
    with Engine("local", workers=1, progress=True, worker_wait=2, preload=()) as eng:   # a worker that loads nothing: it goes at once
        eng.cluster.scale(0)
        for how in ("persist", "compute"):
            t0 = time.monotonic()
            with pytest.raises(CitesumError, match="no Dask worker alive for 2 s") as e: getattr(eng, how)(dask.delayed(_fine)(1), label="a step")
            assert time.monotonic() - t0 < 60 and "\n" not in str(e.value), how
    import citesum_nb.engine as E
    path, kept = E._WORKER_LOG
    E._WORKER_LOG[1] = False; E._drop_worker_log()
    assert kept and path in str(e.value)   # the message names the workers' log, which is kept for it
    assert "Traceback" not in capfd.readouterr().err


def test_ctrl_c_while_the_workers_start_ends_the_build(tmp_path, ctrl_c_as_in_a_terminal):
    "A terminal's Ctrl-C (SIGINT to the whole process group) once the first worker process exists: exit 130, one line, --out untouched"
    import psutil
    exe = str(Path(sys.executable).with_name("citesum"))
    out = tmp_path/"out"
    p = subprocess.Popen([exe, "build", "--out", str(out), "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:   # a worker process: the start-up is under way
            if any("spawn_main" in " ".join(c.cmdline()) for c in psutil.Process(p.pid).children(recursive=True) if c.is_running()): break
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    lines = [l for l in err.splitlines() if l.strip()]
    assert p.returncode == 130, err[-3000:]
    assert len(lines) == 1 and "interrupted" in lines[0] and "Traceback" not in err, err[-3000:]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("after", ["numpy", "pandas", "citesum_nb.core", "citesum_nb.params", "citesum_nb.tools"])
def test_ctrl_c_while_citesum_loads_is_one_line(after, tmp_path, ctrl_c_as_in_a_terminal):
    """A terminal's Ctrl-C at points through the command's imports (`start` imports them; each point read from
    `-X importtime`): status 130, one line"""
    exe = str(Path(sys.executable).with_name("citesum"))
    p = subprocess.Popen([sys.executable, "-X", "importtime", exe, "build", "--out", str(tmp_path/"out")], stderr=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path)
    try:
        for line in p.stderr:   # `import time: self | cumulative | name`, as each import ends
            if line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == after: break
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    said = [l for l in err.splitlines() if l.strip() and not l.startswith("import time:")]
    assert p.returncode == 130 and len(said) == 1 and "interrupted" in said[0], (p.returncode, said[-30:])
    assert not (tmp_path/"out").exists()


def test_ctrl_c_once_the_command_has_ended_is_ignored(ctrl_c_as_in_a_terminal):
    "A Ctrl-C while Python runs the exit clean-up (atexit) of a finished command: its status, no traceback"
    code = ("import atexit, sys, time\nfrom citesum_nb.entry import start\n"
            "atexit.register(lambda: (print('cleaning up', flush=True), time.sleep(3)))\n"
            "sys.argv = ['citesum', '--version']\nsys.exit(start())")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for line in p.stdout:
            if line.startswith("cleaning up"): break
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    assert p.returncode == 0 and err.strip() == "", (p.returncode, err[-2000:])


def _launch(tmp_path, wait:str)->tuple:
    "`citesum train` as rank 0 of a two-process launch whose other process never comes (its port, its process)"
    import socket
    with socket.socket() as s: s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    env = {**os.environ, "WORLD_SIZE": "2", "RANK": "0", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
           "CITESUM_LAUNCH_WAIT": wait}
    exe = str(Path(sys.executable).with_name("citesum"))
    p = subprocess.Popen([exe, "train", "--out-dir", str(tmp_path/"run")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=tmp_path, start_new_session=True)
    return p, port


def test_a_launch_without_its_peer_ends_in_bounded_time(tmp_path):
    "The full launcher set (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and no other process: one line after the wait"
    p, port = _launch(tmp_path, "3")
    try: _, err = p.communicate(timeout=240)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    lines = [l for l in err.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1 and f"did not join at 127.0.0.1:{port} within 3 s" in lines[0], err[-2000:]
    assert not (tmp_path/"run").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_launch_waiting_for_its_peer_honours_ctrl_c(tmp_path, sig, ctrl_c_as_in_a_terminal):
    "While rank 0 waits for the others (its port open), a Ctrl-C or SIGTERM ends it at once: exit 128 + the signal, as a shell expects, one line"
    import psutil
    p, port = _launch(tmp_path, "600")
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and p.poll() is None:   # waiting: it listens on MASTER_PORT
            with __import__("contextlib").suppress(psutil.Error):
                if any(c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN for c in psutil.Process(p.pid).net_connections()): break
            time.sleep(0.1)
        t0 = time.monotonic(); os.killpg(p.pid, sig)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    lines = [l for l in err.splitlines() if l.strip()]
    assert p.returncode == 128 + sig and len(lines) == 1 and f"interrupted by {sig.name}" in lines[0], err[-2000:]
    assert time.monotonic() - t0 < 30


def _slow_project(tmp_path:Path, steps=("slow",), jobs:int=1)->tuple:
    "A project whose one notebook (stem 00_core, for its parameter class) notes that its cell started, sleeps 3 s, and then, however the"
    "cell ends, notes that its clean-up ran and logs an error on the kernel's own standard error, as a kernel does on its way down;"
    "the run spec runs it as each of `steps`, `jobs` at once (none needs another)"
    import nbformat, yaml
    from nbformat.v4 import new_code_cell, new_notebook
    (tmp_path/"proj"/"nbs").mkdir(parents=True)
    cells = [new_code_cell("#| default_exp core"), new_code_cell("out_dir = ''", metadata={"tags": ["parameters"]}),
             new_code_cell("import os, time\nos.makedirs(out_dir, exist_ok=True)\nopen(os.path.join(out_dir, 'started'), 'w').close()\n"
                           "try: time.sleep(3)\nfinally:\n    open(os.path.join(out_dir, 'cleaned_up'), 'w').close()\n    get_ipython().kernel.log.error('Exception in message handler')")]
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}}),
                   tmp_path/"proj"/"nbs"/"00_core.ipynb")
    spec = tmp_path/"slow.yaml"
    spec.write_text(yaml.safe_dump({"run_dir": str(tmp_path/"run"), "jobs": jobs,
                                    "steps": [{"notebook": "00_core", "name": n, "needs": [], "parameters": {"out_dir": f"{{run_dir}}/{n}"}} for n in steps]}))
    return spec, tmp_path/"proj"


def _stopped_run(tmp_path:Path, steps:tuple, jobs:int, stop)->tuple:
    "`(exit status, stderr, its kernels)` of `citesum run` of `_slow_project` (in a session of its own), `stop(process)` called once"
    "every step's cell has started"
    import psutil
    spec, proj = _slow_project(tmp_path, steps, jobs)
    exe = str(Path(sys.executable).with_name("citesum"))
    p = subprocess.Popen([exe, "run", str(spec), "--project", str(proj)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and p.poll() is None and not all((tmp_path/"run"/n/"started").exists() for n in steps): time.sleep(0.1)
        assert p.poll() is None, p.communicate()
        kernels = [c for c in psutil.Process(p.pid).children(recursive=True) if "ipykernel" in " ".join(c.cmdline())]
        stop(p)
        err = p.communicate(timeout=120)[1]
        return p.returncode, err, kernels
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_stopped_run_ends_in_one_line(tmp_path, sig, ctrl_c_as_in_a_terminal):
    "Ctrl-C (SIGINT to the group, as a terminal sends it) or SIGTERM while a step's cell runs: 128 + the signal, one line naming the"
    "step and nothing the kernel says on its way down, the log and marker kept; the cell's clean-up runs and no kernel is left"
    import json, psutil
    status, err, kernels = _stopped_run(tmp_path, ("slow",), 1, lambda p: os.killpg(p.pid, sig))
    lines = [l for l in err.splitlines() if l.strip()]
    assert status == 128 + sig, err[-3000:]
    assert len(lines) == 1 and lines[0].startswith(f"citesum run: interrupted by {sig.name} in step slow; the run folder ") and "Traceback" not in err, err[-3000:]
    assert json.loads((tmp_path/"run"/"run_log.jsonl").read_text().splitlines()[-1])["status"] == "interrupted in slow"
    assert (tmp_path/"run"/".citesum-output.json").is_file()
    assert kernels and not psutil.wait_procs(kernels, timeout=30)[1]   # the step's kernel ended with the run
    assert (tmp_path/"run"/"slow"/"cleaned_up").exists()               # interrupted, not cut off: the cell's `finally` ran


def test_a_run_of_steps_side_by_side_stopped_by_sigterm_ends_in_one_line(tmp_path):
    "SIGTERM to `citesum run` alone (not to its kernels) while two steps run at once: one line naming both, each kernel interrupted"
    "(its cell's clean-up runs) and ended, the run log says where"
    import json, psutil
    status, err, kernels = _stopped_run(tmp_path, ("slow", "slow2"), 2, lambda p: os.kill(p.pid, signal.SIGTERM))
    lines = [l for l in err.splitlines() if l.strip()]
    assert status == 128 + signal.SIGTERM and len(kernels) == 2, err[-3000:]
    assert len(lines) == 1 and lines[0].startswith("citesum run: interrupted by SIGTERM in steps slow, slow2; the run folder ") and "Traceback" not in err, err[-3000:]
    assert json.loads((tmp_path/"run"/"run_log.jsonl").read_text().splitlines()[-1])["status"] == "interrupted in slow, slow2"
    assert not psutil.wait_procs(kernels, timeout=30)[1]
    assert all((tmp_path/"run"/n/"cleaned_up").exists() for n in ("slow", "slow2"))


@pytest.mark.parametrize("seed", range(6))
def test_stops_are_noted_then_handled_as_before(seed, ctrl_c_as_in_a_terminal):
    "While a run's steps execute, a SIGINT or SIGTERM sets the stop flag, then does what the handler before did; an ignored one stays ignored"
    from citesum_nb.core import STOPS, stops_noted
    rng = random.Random(seed); sig = rng.choice([signal.SIGINT, signal.SIGTERM]); ignored = rng.random() < 0.3
    class Seen(Exception): pass
    def before(signum, frame): raise Seen(signum)
    old = signal.signal(sig, signal.SIG_IGN if ignored else before)
    try:
        with stops_noted():
            if ignored: signal.raise_signal(sig); time.sleep(0.05)
            else:
                with pytest.raises(Seen): signal.raise_signal(sig)
        assert (STOPS.signal == sig) is not ignored
        assert signal.getsignal(sig) is (signal.SIG_IGN if ignored else before)
    finally: signal.signal(sig, old)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_stop_while_the_workers_fail_to_start_keeps_its_signal(sig, monkeypatch, ctrl_c_as_in_a_terminal):
    "A Ctrl-C or SIGTERM held while the workers start, then their start fails: the signal's own handler acts (SIGTERM stays SIGTERM)"
    import distributed
    from citesum_nb import engine
    class Stopped(KeyboardInterrupt): pass
    def failing(*a, **k): signal.raise_signal(sig); raise RuntimeError("Nanny failed to start")   # the stop lands, then a worker dies
    def handler(signum, frame): raise Stopped(signum)
    monkeypatch.setattr(distributed, "LocalCluster", failing)
    old = signal.signal(sig, handler)
    try:
        with pytest.raises(Stopped) as e: engine.local_cluster(1)
        assert e.value.args == (sig,)
    finally: signal.signal(sig, old)


@pytest.mark.parametrize("stop", [None, signal.SIGINT, signal.SIGTERM, "worker killed"], ids=["to_the_end", "SIGINT", "SIGTERM", "worker_killed"])
def test_eval_with_worker_processes_ends_in_one_line_at_most(tmp_path, stop, ctrl_c_as_in_a_terminal):
    """`citesum eval --n-jobs 2` forks scoring workers: run to its end, nothing on stderr; stopped (the whole process group, at once
    or a moment after) while they score, one line and 128 + the signal; one worker killed (as for memory), one line and status 2"""
    import json, psutil
    n = 2_400 if stop is None else 40_000   # parallel from 2,000 examples; long enough to be stopped while the workers score
    (tmp_path/"data.jsonl").write_text("".join(json.dumps({"id": str(i), "src": "we study models of text " * 8, "tgt": f"a paper on models {i}"}) + "\n" for i in range(n)))
    (tmp_path/"pred.txt").write_text("".join(f"this paper studies models {i} of text\n" for i in range(n)))
    exe = str(Path(sys.executable).with_name("citesum"))
    p = subprocess.Popen([exe, "eval", "--pred", "pred.txt", "--data", "data.jsonl", "--n-jobs", "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path)
    try:
        if stop is not None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and p.poll() is None and len(psutil.Process(p.pid).children()) < 2: time.sleep(0.02)
            if stop == "worker killed": os.kill(psutil.Process(p.pid).children()[0].pid, signal.SIGKILL)
            else: time.sleep(random.Random(stop).choice([0, 0.05, 0.3])); os.killpg(p.pid, stop)
        out, err = p.communicate(timeout=180)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    if stop is None: assert p.returncode == 0 and err == "" and f"n = {n}" in out, (p.returncode, err[-3000:])
    elif stop == "worker killed": assert p.returncode == 2 and err.startswith("citesum eval: error: a ROUGE worker process ended without its scores (killed by signal 9") and err.count("\n") == 1, err[-3000:]
    else:
        lines = [l for l in err.splitlines() if l.strip()]
        assert p.returncode == 128 + stop and len(lines) == 1 and f"interrupted by {stop.name}" in lines[0], (p.returncode, err[-3000:])
