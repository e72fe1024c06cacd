"""The output claim judges content, not names, over generated instances (seeded): a marker lists every file its command
wrote at every depth, `--overwrite` removes exactly those or is refused naming the first file it did not write, a marker
owns only what it lists (never a user's file below it), a marker that is not a regular file is never opened, and
`citesum transfer` claims its folder like every other command. The mechanism is called in this process; the commands
only where the claim must come before their work (a tripwire stands for the work)."""
import contextlib, io, json, os, random, threading
from pathlib import Path

import pytest

from citesum_nb.core import CitesumError
from citesum_nb.outputs import (OUTPUT_MARKER, claim_folder, files_below, folder_in_place, marked_folder, note_output, output_folder,
                                owned_output, read_marker, real_path)

SEEDS = range(24)
NAMES = ["README.md", "NOTES.md", "report.json", "train.jsonl", "data.arrow", "x", "état.txt", "a b", ".hidden", "experiment.json"]


def random_tree(rng:random.Random, root:Path, n:int)->set:
    "`n` files at random depths (0-3) below `root`, random names; their relative paths"
    made = set()
    for _ in range(n):
        parts = [rng.choice(["hf", "train", "sub", "checkpoint-2", "results", "p q"]) for _ in range(rng.randint(0, 3))]
        p = root.joinpath(*parts, rng.choice(NAMES) + str(rng.randint(0, 9)))
        if any(q.is_file() for q in [*p.parents][:len(parts)]): continue   # a file where a folder would go
        p.parent.mkdir(parents=True, exist_ok=True); p.write_text("written")
        made.add(p.relative_to(root).as_posix())
    return made


def user_file_inside(rng:random.Random, out:Path)->str:
    "A user's file added at a random place inside a previous output (a folder of it, at any depth); its relative path"
    folders = [out, *(p for p in out.rglob("*") if p.is_dir())]
    d = rng.choice(folders); p = d/f"{rng.choice(['NOTES', 'mine', 'README', 'keep me'])}-{rng.randint(0, 999)}.md"
    p.write_text("the user's own")
    return p.relative_to(out).as_posix()


@pytest.mark.parametrize("seed", SEEDS)
def test_overwrite_removes_exactly_what_it_wrote(seed, tmp_path):
    "A previous output: its marker lists every file at every depth; a user's file added anywhere inside refuses --overwrite, naming it"
    rng = random.Random(seed); cmd = rng.choice(["build", "cloze build", "resolve", "tiny-model", "crosseval"])
    with output_folder(tmp_path/"out", cmd) as tmp: wrote = random_tree(rng, tmp, rng.randint(1, 12))
    m = read_marker(tmp_path/"out")
    assert m["command"] == cmd and set(m["files"]) == wrote == files_below(tmp_path/"out")
    mine = user_file_inside(rng, tmp_path/"out")
    with pytest.raises(CitesumError, match="did not write") as e: claim_folder(tmp_path/"out", cmd, overwrite=True)
    assert "\n" not in str(e.value) and (mine in str(e.value) or "..." in str(e.value)), str(e.value)
    (tmp_path/"out"/mine).unlink()
    with output_folder(tmp_path/"out", cmd, overwrite=True) as tmp: (tmp/"new.jsonl").write_text("{}\n")
    assert files_below(tmp_path/"out") == {"new.jsonl"}   # exactly the previous files are gone


@pytest.mark.parametrize("seed", SEEDS)
def test_a_continued_folder_lists_what_it_wrote(seed, tmp_path):
    "A folder a command keeps adding to (train, run): after each invocation, however it ends, the marker lists all it wrote; a user's file refuses the next claim"
    rng = random.Random(seed); cmd = rng.choice(["train", "run"]); out = tmp_path/"run"
    wrote = set()
    for i in range(rng.randint(2, 4)):
        with contextlib.suppress(KeyboardInterrupt, OSError):
            with marked_folder(claim_folder(out, cmd, reuse=True), cmd):
                wrote |= {f"inv{i}/{p}" for p in random_tree(rng, out/f"inv{i}", rng.randint(1, 5))}
                if rng.random() < 0.5: raise rng.choice([KeyboardInterrupt, OSError])   # interrupted, or a failure
        assert set(read_marker(out)["files"]) == wrote == files_below(out)
    mine = user_file_inside(rng, out)
    for overwrite in (False, True):
        with pytest.raises(CitesumError, match="did not write") as e: claim_folder(out, cmd, overwrite=overwrite, reuse=True)
        assert mine in str(e.value) or "..." in str(e.value)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_marker_owns_only_what_it_lists(seed, tmp_path):
    "A user's index.html / README.md at any depth below a marked folder is not the marker's, and a card or a run index refuses it"
    from citesum_nb.cards import _card_file
    from citesum_nb.run_index import _check_index
    rng = random.Random(seed)
    with output_folder(tmp_path/"out", rng.choice(["build", "docs", "resolve"])) as tmp: wrote = random_tree(rng, tmp, rng.randint(1, 6))
    sub = tmp_path/"out"
    for _ in range(rng.randint(1, 3)): sub = sub/rng.choice(["site", "mine", "hf", "deep"])
    sub.mkdir(parents=True, exist_ok=True)
    for name in ("index.html", "README.md"):
        if (sub/name).relative_to(tmp_path/"out").as_posix() in wrote: continue
        (sub/name).write_text("<p>the user's own</p>"); assert owned_output(sub/name) is None
    with pytest.raises(CitesumError, match="not a card citesum wrote"):
        with _card_file(sub/"README.md"): pass
    with pytest.raises(CitesumError, match="not a run index citesum wrote"): _check_index(sub/"index.html")
    assert (sub/"README.md").read_text() == (sub/"index.html").read_text() == "<p>the user's own</p>"
    for p in rng.sample(sorted(wrote), min(3, len(wrote))): assert owned_output(tmp_path/"out"/p) is not None   # its own files stay its own
    (sub/"README.md").unlink()
    with _card_file(sub/"README.md") as tmp: tmp.write_text("card")   # a card citesum writes there is listed once written
    assert owned_output(sub/"README.md") is not None and (sub/"README.md").relative_to(tmp_path/"out").as_posix() in read_marker(tmp_path/"out")["files"]


def _special_markers(folder:Path, kind:str):
    "A marker that must not be trusted, of kind `kind`"
    f = folder/OUTPUT_MARKER; good = {"command": "build", "files": ["train.jsonl"]}
    if kind == "fifo": os.mkfifo(f)
    elif kind == "link": (folder/"m.json").write_text(json.dumps(good)); f.symlink_to(folder/"m.json")
    elif kind == "dangling": f.symlink_to(folder/"nowhere")
    elif kind == "folder": f.mkdir()
    elif kind == "null": f.write_text(json.dumps({"command": "build", "files": None}))
    elif kind == "not strings": f.write_text(json.dumps({"command": "build", "files": [1, None]}))
    elif kind == "no command": f.write_text(json.dumps({"files": ["train.jsonl"]}))
    elif kind == "deep": f.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "not utf-8": f.write_bytes(b"\xff\xfe{}")
    elif kind == "list": f.write_text(json.dumps([good]))
    elif kind == "nested": f.write_text(json.dumps(good)[:-1] + ', "x": ' + "[" * 150 + "]" * 150 + "}")   # ours nest 2 levels: the JSON reader's bound


SPECIAL = ["fifo", "link", "dangling", "folder", "null", "not strings", "no command", "deep", "not utf-8", "list", "nested"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_marker_that_is_not_one_is_refused_without_waiting(kind, tmp_path):
    "A pipe, a link, a folder or a marker without its list of files: not ours, refused in one line at once (a pipe is never opened)"
    out = tmp_path/"out"; out.mkdir(); (out/"train.jsonl").write_text("{}\n"); _special_markers(out, kind)
    result = {}
    def attempt():
        try: claim_folder(out, "build", overwrite=True)
        except CitesumError as e: result["error"] = str(e)
    t = threading.Thread(target=attempt, daemon=True); t.start(); t.join(20)
    assert not t.is_alive(), f"{kind}: the claim waits (the marker was opened)"
    assert "did not write" in result.get("error", ""), result
    assert read_marker(out) is None and owned_output(out/"train.jsonl") is None


@pytest.mark.parametrize("seed", range(6))
def test_transfer_claims_its_folder(seed, tmp_path, monkeypatch):
    "citesum transfer --out-dir a folder with the user's experiment.json or results/: refused before any work, nothing changed"
    import citesum_nb.transfer
    def tripwire(*a, **k): raise AssertionError("the experiment started")
    monkeypatch.setattr(citesum_nb.transfer, "run_experiment", tripwire)
    from citesum_nb.cli import main
    rng = random.Random(seed); out = tmp_path/"exp"; out.mkdir()
    mine = rng.choice(["experiment.json", "results/table.md", "seed0/metrics.json", "notes.txt"])
    (out/mine).parent.mkdir(parents=True, exist_ok=True); (out/mine).write_text("the user's own")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["transfer", "--out-dir", str(out), *(["--overwrite"] if rng.random() < 0.5 else [])])
    assert rc == 2 and "did not write" in err.getvalue().splitlines()[-1], err.getvalue()
    assert (out/mine).read_text() == "the user's own" and files_below(out) == {mine}


def test_transfer_replaces_only_its_own_output(tmp_path, monkeypatch):
    "A previous output of citesum transfer: refused without --overwrite, replaced with it; a failed run leaves the previous one"
    import citesum_nb.transfer
    from citesum_nb.cli import main
    def fake(p, log=print):
        out = Path(p.out_dir); (out/"results").mkdir(exist_ok=True); (out/"results"/"t.md").write_text("t")
        (out/"experiment.json").write_text("{}")
        if os.environ.get("FAIL_NOW"): raise KeyboardInterrupt
        return {"experiment": "x", "table": 6, "row": "r", "mean": {}, "std": {}, "n_test": 1, "seeds": [0]}
    monkeypatch.setattr(citesum_nb.transfer, "run_experiment", fake)
    out = tmp_path/"exp"; args = ["transfer", "--out-dir", str(out), "--json"]
    with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0, err.getvalue()
        assert set(read_marker(out)["files"]) == {"experiment.json", "results/t.md"}
        assert main(args) == 2 and "--overwrite" in err.getvalue()
        monkeypatch.setenv("FAIL_NOW", "1")
        assert main([*args, "--overwrite"]) == 130   # interrupted: the previous output comes back
    assert files_below(out) == {"experiment.json", "results/t.md"} and read_marker(out)["command"] == "transfer"


def test_build_overwrite_refuses_a_users_file_in_its_subfolder(tmp_path, monkeypatch):
    "citesum build --overwrite over a previous build holding the user's hf/NOTES.md: refused before any work, naming it"
    import citesum_nb.build
    def tripwire(*a, **k): raise AssertionError("the build started")
    monkeypatch.setattr(citesum_nb.build, "run_passes", tripwire)
    from citesum_nb.cli import main
    with output_folder(tmp_path/"ds", "build") as tmp: (tmp/"hf"/"train").mkdir(parents=True); (tmp/"hf"/"train"/"d.arrow").write_text("x")
    (tmp_path/"ds"/"hf"/"NOTES.md").write_text("mine")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["build", "--out", str(tmp_path/"ds"), "--overwrite", "--scheduler", "synchronous", "--quiet"])
    assert rc == 2 and "hf/NOTES.md" in err.getvalue(), err.getvalue()
    assert (tmp_path/"ds"/"hf"/"NOTES.md").read_text() == "mine"


def test_a_run_folder_with_its_index_is_continued(tmp_path):
    "citesum run writes the run index after each invocation: the next invocation takes the index and its pages as the run's own"
    from citesum_nb.run_index import write_run_index
    run = tmp_path/"run"
    with marked_folder(claim_folder(run, "run", reuse=True), "run"): (run/"run_log.jsonl").write_text("")
    write_run_index(run)
    assert "index.html" in read_marker(run)["files"]
    claim_folder(run, "run", reuse=True)   # not refused: every file there is the run's
    (run/"notes.md").write_text("the user's own")
    with pytest.raises(CitesumError, match="notes.md"): claim_folder(run, "run", reuse=True)
