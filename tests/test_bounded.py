"""Every failure ends in bounded time with one line: settings checked before any work, the launch environment of a
distributed run, damaged model folders, `citesum summarize` on a stream, and records that cannot stop a build.

The instances are generated: each class prints how many it tried (`-s` shows them)."""
import gzip, json, os, random, subprocess, sys
from pathlib import Path

import pytest

from conftest import ROOT, citesum
from citesum_nb.cli import main
from test_bad_values import meta_2020, pdf_2020, _write


def _one_error(capsys, rc, code=2):
    "The one stderr line of a command that failed with `code`, and nothing on stdout"
    out, err = capsys.readouterr()
    assert rc == code, (rc, out[-500:], err[-2000:])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citesum ") and "Traceback" not in err, err[-2000:]
    return lines[0]


# ---------------------------------------------------------------- settings, before any work
SEED_COMMANDS = {"build": ["build", "--out", "{tmp}/out", "--scheduler", "synchronous"], "cloze build": ["cloze", "build", "--out", "{tmp}/out"],
                 "train": ["train", "--set", "out_dir={tmp}/out"], "crosseval": ["crosseval", "--set", "out_dir={tmp}/out"]}
BAD_SEEDS = ["-1", "-2", "-4294967296", "4294967296", "18446744073709551616", "99999999999999999999999"]


@pytest.mark.parametrize("seed", BAD_SEEDS)
@pytest.mark.parametrize("command", list(SEED_COMMANDS))
def test_a_seed_out_of_range_fails_before_any_work(tmp_path, capsys, command, seed):
    argv = [a.format(tmp=tmp_path) for a in SEED_COMMANDS[command]] + ["--set", f"seed={seed}"]
    msg = _one_error(capsys, main(argv))
    assert f"seed={int(seed)}: a seed is an integer from 0 to 4294967295" in msg, msg
    assert not (tmp_path/"out").exists()


def test_seeds_of_a_transfer_row_are_checked_too(capsys):
    msg = _one_error(capsys, main(["transfer", "--set", "seeds=[0, -3]"]))
    assert "seeds=[0, -3]: a seed is an integer" in msg, msg


def _dup_yaml_cases():
    "Params files with one key given twice, at the top or deeper, in block or flow style"
    rng = random.Random(3)
    keys = ["seed", "thresholds", "workers", "license", "fmt", "splitter"]
    vals = {"seed": "1", "thresholds": "[50, 20, 40]", "workers": "1", "license": "odc-by", "fmt": "auto", "splitter": "fast"}
    alt = {"seed": "2", "thresholds": "[1, 2, 3]", "workers": "2", "license": "cc-by-4.0", "fmt": "s2-api", "splitter": "spacy"}
    cases = []
    for k in keys:
        others = [o for o in keys if o != k]
        rng.shuffle(others)
        body = [f"{k}: {vals[k]}"] + [f"{o}: {vals[o]}" for o in others[:2]]
        cases.append("\n".join(body + [f"{k}: {vals[k]}"]) + "\n")                   # the same value twice
        cases.append("\n".join([f"{k}: {vals[k]}", f"{k}: {alt[k]}"]) + "\n")   # a second value
    cases.append("{seed: 1, seed: 2}\n")
    return cases


@pytest.mark.parametrize("k", range(len(_dup_yaml_cases())))
def test_a_params_file_with_a_key_given_twice_is_refused(tmp_path, capsys, k):
    f = tmp_path/"03b_build.dup.yaml"; f.write_text(_dup_yaml_cases()[k])
    msg = _one_error(capsys, main(["build", "--params", str(f), "--out", str(tmp_path/"out"), "--scheduler", "synchronous"]))
    assert str(f) in msg and "is given twice" in msg, msg
    assert not (tmp_path/"out").exists()
    msg = _one_error(capsys, main(["run", "--dry-run", str(f)]))
    assert "is given twice" in msg, msg


def _wrong_specs():
    wrong = ["5", "1.5", "true", "[1]", "{a: 1}", "''"]
    specs = [f"run_dir: {w}\nsteps: [{{notebook: 00_core}}]\n" for w in wrong if w != "[1]"] + [f"steps: {w}\n" for w in wrong if w != "[1]"]
    ok = {"parameters": "{a: 1}", "after": "true"}   # the one value of the list each key accepts
    specs += [f"steps:\n  - {{notebook: 00_core, {k}: {w}}}\n" for k in ("parameters", "rows", "after") for w in wrong if ok.get(k) != w]
    specs += [f"steps:\n  - {{{k}: {w}}}\n" for k in ("notebook", "params", "experiments") for w in wrong if w != "''"]
    specs += ["steps:\n  - {notebook: 00_core, rows: [1, 2]}\n", "steps:\n  - {notebook: 00_core, extra: 1}\n", "steps: [[1]]\n"]
    return specs


def test_run_specs_with_a_field_of_the_wrong_type_are_one_line(tmp_path, capsys):
    (tmp_path/"nbs").mkdir(); (tmp_path/"params").mkdir()
    specs, held = _wrong_specs(), 0
    for k, s in enumerate(specs):
        f = tmp_path/"params"/f"spec{k}.yaml"; f.write_text(s)
        msg = _one_error(capsys, main(["run", "--dry-run", str(f), "--project", str(ROOT)]))
        assert f"spec{k}.yaml" in msg, (s, msg)
        held += 1
    print(f"run specs with a field of the wrong type: {len(specs)} tried, {held} held")


# ---------------------------------------------------------------- the launch environment of a distributed run
FULL = {"WORLD_SIZE": "2", "RANK": "1", "LOCAL_RANK": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500"}


def _broken_envs():
    out = [{k: v for k, v in FULL.items() if k not in gone} for n in (1, 2, 3, 4) for gone in _subsets(list(FULL), n)]
    out = [e for e in out if e.get("WORLD_SIZE", "1") != "1" or "RANK" in e or "LOCAL_RANK" in e]
    out += [{**FULL, k: v} for k, vs in {"WORLD_SIZE": ["0", "x", "-1", "1.5"], "RANK": ["2", "5", "a"], "LOCAL_RANK": ["2", "-1"],
                                         "MASTER_PORT": ["0", "65536", "port"], "MASTER_ADDR": ["", " "]}.items() for v in vs]
    return out


def _subsets(xs, n):
    if n == 0: yield []; return
    for i, x in enumerate(xs):
        for rest in _subsets(xs[i + 1:], n - 1): yield [x, *rest]


def test_a_launch_environment_that_cannot_start_is_one_line():
    from citesum_nb.core import CitesumError
    from citesum_nb.train import launch_env
    envs = _broken_envs()
    for env in envs:
        with pytest.raises(CitesumError, match="torchrun or accelerate launch"): launch_env(env)
    assert launch_env(FULL) == (1, 2) and launch_env({}) == (0, 1) and launch_env({"WORLD_SIZE": "1", "RANK": "0", "LOCAL_RANK": "0"}) == (0, 1)
    print(f"launch environments that cannot start: {len(envs)} tried, {len(envs)} held")


def test_train_with_world_size_2_and_no_master_ends_at_once(tmp_path):
    "The process itself: it must end (not wait for a partner that cannot find it) with one line naming what is missing"
    env = {k: v for k, v in os.environ.items() if k not in FULL} | {"WORLD_SIZE": "2", "RANK": "0", "LOCAL_RANK": "0"}
    exe = Path(sys.executable).with_name("citesum")
    r = subprocess.run([str(exe), "train", "--set", f"out_dir={tmp_path/'out'}"], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr[-2000:]
    assert "MASTER_ADDR, MASTER_PORT are not set" in r.stderr and not (tmp_path/"out").exists()


# ---------------------------------------------------------------- model folders
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from citesum_nb.models import make_tiny_model
    from citesum_nb.s2orc import load_papers
    texts = [p["abstract"] for p in load_papers() if p["abstract"]]
    return make_tiny_model(texts, tmp_path_factory.mktemp("tiny")/"model", vocab_size=600, d_model=32)


def _damages(tiny):
    import shutil
    n = (tiny/"model.safetensors").stat().st_size
    cut = lambda k: lambda d: os.truncate(d/"model.safetensors", k)
    out = {f"cut at {k}": cut(k) for k in (0, 7, 8, 64, n // 2, n - 1)}
    out |= {"random bytes": lambda d: (d/"model.safetensors").write_bytes(random.Random(1).randbytes(4096)),
            "a text file": lambda d: (d/"model.safetensors").write_text("not a checkpoint\n"),
            "a pickle as .bin": lambda d: ((d/"model.safetensors").unlink(), (d/"pytorch_model.bin").write_bytes(b"\x80\x04K\x01.")),
            "text as .bin": lambda d: ((d/"model.safetensors").unlink(), (d/"pytorch_model.bin").write_text("weights")),
            "a cut zip as .bin": lambda d: ((d/"model.safetensors").unlink(), (d/"pytorch_model.bin").write_bytes(b"PK\x03\x04" + bytes(100))),
            "no weights": lambda d: (d/"model.safetensors").unlink(),
            "config not JSON": lambda d: (d/"config.json").write_text("{oops"),
            "missing shard": lambda d: ((d/"model.safetensors").unlink(),
                                        (d/"model.safetensors.index.json").write_text('{"weight_map": {"w": "model-00001-of-00002.safetensors"}}'))}
    def make(name, damage, root):
        d = root/name.replace(" ", "_"); shutil.copytree(tiny, d); damage(d); return d
    return {k: (lambda root, k=k, f=f: make(k, f, root)) for k, f in out.items()}


@pytest.mark.parametrize("command", ["summarize", "train"])
def test_a_damaged_model_folder_is_one_line(tiny, tmp_path, capsys, command):
    held = 0
    for name, make in _damages(tiny).items():
        d = make(tmp_path/"models")
        argv = (["summarize", "--model", str(d), "--device", "cpu", "We study things."] if command == "summarize"
                else ["train", "--set", f"model_name_or_path={d}", "--set", f"out_dir={tmp_path/'out'}"])
        msg = _one_error(capsys, main(argv))
        assert str(d) in msg, (name, msg)
        assert not (tmp_path/"out").exists()
        held += 1
    print(f"{command}: damaged model folders: {held} tried, {held} held")


# ---------------------------------------------------------------- summarize: a stream in, a stream out
@pytest.mark.parametrize("content", ["", "\n", "\n\n   \n\t\n", "\r\n \r\n"])
@pytest.mark.parametrize("suffix", [".txt", ".jsonl"])
def test_blank_input_is_an_error(tiny, tmp_path, capsys, content, suffix):
    f = tmp_path/f"in{suffix}"; f.write_text(content)
    msg = _one_error(capsys, main(["summarize", "--model", str(tiny), "--file", str(f), "--out", str(tmp_path/"o.txt")]))
    assert f"{f}: no abstracts" in msg and not (tmp_path/"o.txt").exists(), msg


def test_blank_standard_input_is_an_error(tiny):
    # in this process, standard input replaced (conftest.citesum): a new Python would only import the library again
    r = citesum("summarize", "--model", tiny, input="\n \n", check=False)
    assert r.returncode == 2 and "standard input: no abstracts" in r.stderr and r.stderr.strip().count("\n") == 0, r.stderr


def test_a_bad_line_deep_in_the_file_stops_before_the_model_loads(tiny, tmp_path, capsys, monkeypatch):
    import citesum_nb.summarize as S
    monkeypatch.setattr(S, "load_summarizer", lambda *a, **k: pytest.fail("the model was loaded before the input was checked"))
    f = tmp_path/"in.txt"; f.write_bytes(b"An abstract about things.\n" * 500 + b"\xff\xfe binary\n" + b"More.\n" * 10)
    msg = _one_error(capsys, main(["summarize", "--model", str(tiny), "--file", str(f), "--out", str(tmp_path/"o.txt")]))
    assert f"{f}:501: binary data" in msg, msg
    assert not any(tmp_path.glob("*o.txt*"))


def test_tldrs_are_written_as_they_come_and_nothing_is_left_on_failure(tiny, tmp_path, capsys, monkeypatch):
    "A stream: the first blocks are written while later ones are made; an interruption leaves neither the file nor its partial"
    import citesum_nb.summarize as S
    f = tmp_path/"in.txt"; f.write_text("".join(f"Abstract number {i} about graphs and words.\n" for i in range(40)))
    out = tmp_path/"tldrs.jsonl"
    assert main(["summarize", "--model", str(tiny), "--file", str(f), "--out", str(out), "--batch-size", "4", "--max-length", "12"]) == 0
    assert [json.loads(l)["id"] for l in out.read_text().splitlines()] == [str(i) for i in range(1, 41)]
    hidden = lambda: [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # the file being written, beside --out
    assert hidden() == []
    real, calls, seen = S.generate, [], []
    def generate(*a, **k):
        calls.append(1)
        seen.append(sum(p.stat().st_size for p in hidden()))
        if len(calls) == 3: raise KeyboardInterrupt
        return real(*a, **k)
    monkeypatch.setattr(S, "generate", generate)
    monkeypatch.setattr(S, "SORT_BATCHES", 1)
    out.unlink()
    rc = main(["summarize", "--model", str(tiny), "--file", str(f), "--out", str(out), "--batch-size", "4", "--max-length", "12"])
    capsys.readouterr()
    assert rc == 130 and not out.exists() and hidden() == []
    assert seen[2] > 0   # before the third batch was made, the first two were already written


# ---------------------------------------------------------------- one record never stops a build
def _deep(pid, where, n):
    rec = pdf_2020(pid)
    line = json.dumps(rec).encode()
    return line[:-1] + b', "%s": %s}' % (where.encode(), b"[" * n + b"]" * n) if where == "x" else \
        json.dumps({**rec, where: "@@"}).encode().replace(b'"@@"', b"[" * n + b"]" * n)


def _numbers(pid, where, lit):
    rec = pdf_2020(pid)
    if where == "start": rec["body_text"][0]["cite_spans"][0]["start"] = "@@"
    elif where == "year": rec["bib_entries"]["BIBREF0"]["year"] = "@@"
    else: rec[where] = "@@"
    return json.dumps(rec).encode().replace(b'"@@"', lit)


@pytest.mark.parametrize("fmt", ["s2orc-2020"])
def test_no_record_stops_a_build_and_memory_stays_bounded(tmp_path, capsys, fmt):
    "Nesting beyond any decoder, numbers beyond any type, valid lines over the cap, a shard that expands without a newline"
    corpus, lines, expect = tmp_path/"corpus", [], {"json_too_deep": 0, "line_too_long": 0}
    k = 1000
    cap = 1 << 16
    for n in (2_000, 20_000, 200_000):   # the deepest lines are longer than the cap too: that is what they count as
        for where in ("x", "title", "body_text", "bib_entries", "abstract"):
            lines.append(_deep(str(k), where, n)); k += 1; expect["line_too_long" if len(lines[-1]) > cap else "json_too_deep"] += 1
    numbers = [b"1" + b"0" * 400, b"-1" + b"0" * 400, b"1e999", b"-1e999", b"1e-999", b"18446744073709551616", b"-9223372036854775809", b"0.1e400"]
    for lit in numbers:
        for where in ("x", "title", "start", "year", "paper_id"):
            lines.append(_numbers(str(k), where, lit)); k += 1
    for size in (cap + 1, 3 * cap, 40 * cap):   # valid JSON, longer than the cap
        rec = pdf_2020(str(k)); rec["body_text"][1]["text"] = "w " * (size // 2); k += 1
        lines.append(json.dumps(rec).encode()); expect["line_too_long"] += 1
    lines += [json.dumps(pdf_2020("1")).encode(), json.dumps(pdf_2020("2")).encode()]
    random.Random(0).shuffle(lines)
    _write(corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz", lines)
    with gzip.open(corpus/"pdf_parses"/"pdf_parses_1.jsonl.gz", "wb", compresslevel=9) as f:   # a bomb: 64 MiB, no newline
        for _ in range(4): f.write(bytes(1 << 24))
    expect["line_too_long"] += 1
    _write(corpus/"metadata"/"metadata_0.jsonl.gz", [meta_2020("200")])
    _write(corpus/"metadata"/"metadata_1.jsonl.gz", [meta_2020("999")])
    rc = main(["build", "--s2orc", str(corpus), "--out", str(tmp_path/"out"), "--scheduler", "synchronous", "--quiet",
               "--max-line-bytes", str(cap)])
    out, err = capsys.readouterr()
    assert rc == 0, err[-3000:]
    rep = json.loads((tmp_path/"out"/"report.json").read_text())
    bad = rep["bad_input"]["counts"]
    assert {r: bad.get(r, 0) for r in expect} == expect, bad
    assert rep["stages"]["kept"] >= 2 and "Traceback" not in err
    kept = {json.loads(l)["citing_paper_id"] for s in ("train", "validation", "test") for l in (tmp_path/"out"/f"{s}.jsonl").read_text().splitlines()}
    assert {"1", "2"} <= kept
    print(f"records a build must survive: {len(lines) + 1} tried ({expect['json_too_deep']} too deep, {len(numbers) * 5} with numbers "
          f"beyond any type, {expect['line_too_long']} over the cap); the build ended and counted each")


# ---------------------------------------------------------------- Ctrl-C while the local workers start
@pytest.mark.parametrize("moment", ["before", "started"])
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_workers_start_stops_the_build(tmp_path, capsys, monkeypatch, moment, sig, ctrl_c_as_in_a_terminal):
    "The signal is sent from inside the start-up (a hook of `STARTING`), not after a sleep: the build stops, exits 128+N, leaves nothing"
    import signal
    import psutil
    import citesum_nb.engine as E
    signum = getattr(signal, sig)
    monkeypatch.setattr(E, "STARTING", [lambda at: signal.raise_signal(signum) if at == moment else None])
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    rc = main(["build", "--out", str(tmp_path/"out"), "--workers", "1", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 128 + signum, (rc, err[-2000:])
    assert f"interrupted by {sig}" in err and "Traceback" not in err, err[-2000:]
    assert list(tmp_path.iterdir()) == []   # neither the build nor its temporary sibling
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE
            and "resource_tracker" not in " ".join(p.cmdline())]   # multiprocessing's tracker lives as long as this process
    assert not left, left


# ---------------------------------------------------------------- workers that keep dying
def _exit(x): os._exit(1)
def _sigkill(x): import signal; os.kill(os.getpid(), signal.SIGKILL)
def _sigterm(x): import signal; os.kill(os.getpid(), signal.SIGTERM)
def _fine(x): return x


KILLS = {"exit": (_exit, None), "SIGKILL": (_sigkill, None), "SIGTERM": (_sigterm, None), "no workers at all": (_fine, lambda eng: eng.cluster.scale(0))}


@pytest.mark.parametrize("kill", list(KILLS))
def test_workers_that_keep_dying_end_the_computation_in_bounded_time(kill):
    "Each pattern ends with one line (no wait without end): the cluster's workers died, or were never there"
    import dask
    from citesum_nb.core import CitesumError
    from citesum_nb.engine import Engine
    task, before = KILLS[kill]
    # the workers import nothing of the library while they start: each of the (re)starts of a dying worker would import it
    # again (~2 CPU s), and what a worker loads has no part in how its deaths end the computation
    with Engine("local", workers=1, progress=False, worker_wait=2, preload=()) as eng:
        if before: before(eng)
        with pytest.raises(CitesumError, match="no Dask worker alive for 2 s|workers kept dying") as e: eng.compute(dask.delayed(task)(1))
    assert "\n" not in str(e.value)
