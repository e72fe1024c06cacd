"""A full disk, by mechanism: every output is written beside its destination and renamed (`output_folder`, `output_file`,
a training run, `citesum init`), so a write that fails leaves nothing half-written (not even the folders made for it) and
ends in one line that names the destination, whatever raised it (an `OSError` on the temporary path, safetensors'
`SafetensorError`, torch's `file write failed`). The disk is filled by a writer that raises where it would fail, at a
random point of each seeded instance; the commands run in this process with their work replaced by such a writer."""
import contextlib, errno, functools, io, os, random, shutil
from pathlib import Path

import pytest

from citesum_nb.outputs import output_file, output_folder, real_path


def _full(kind:str, where:Path):
    "The exception a writer raises on a full disk, as each kind of writer raises it"
    if kind == "oserror": return OSError(errno.ENOSPC, "No space left on device", str(where))
    if kind == "safetensors":
        from safetensors import SafetensorError
        return SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")
    if kind == "quota": return OSError(errno.EDQUOT, "Disk quota exceeded", str(where))
    if kind == "unnamed": return OSError(errno.ENOSPC, "No space left on device")   # a write to an open file names none
    return RuntimeError("[enforce fail at inline_container.cc:603] . PytorchStreamWriter failed writing file data/0: file write failed")


KINDS = ["oserror", "safetensors", "quota", "torch", "unnamed"]


def _tree(root:Path)->set:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def _write_until_full(rng, folder:Path, kind:str):
    "Write a few files at random depths into `folder`, then fail as a full disk does"
    f = folder
    for _ in range(rng.randint(1, 4)):
        f = f/rng.choice(["hf", "best", "checkpoint-2", "nbs"])
        f.mkdir(exist_ok=True); (f/"part.bin").write_bytes(b"x" * rng.randint(1, 100))
    raise _full(kind, f/"model.safetensors")


@pytest.mark.parametrize("seed", range(16))
def test_a_full_disk_leaves_nothing_and_names_the_destination(seed, tmp_path):
    "output_folder / output_file on a full disk: an OSError naming the destination (never the temporary path); nothing left, not even new parents"
    rng = random.Random(seed); kind = rng.choice(KINDS); root = real_path(tmp_path)
    (root/"mine").mkdir(); (root/"mine"/"notes.md").write_text("kept")
    before = _tree(root)
    dest = root/rng.choice(["mine", "new", "a/b"])/rng.choice(["out", "model", "run x"])
    with pytest.raises(OSError) as e:
        if rng.random() < 0.6:
            with output_folder(dest, "tiny-model") as tmp: _write_until_full(rng, tmp, kind)
        else:
            with output_file(dest.with_suffix(".jsonl")) as tmp: tmp.write_text("half"); raise _full(kind, tmp)
    assert str(e.value.filename).startswith(str(dest)) and ".tmp" not in str(e.value.filename), e.value.filename
    assert _tree(root) == before, _tree(root) ^ before


def main(*args)->tuple:
    from citesum_nb.cli import main as cli_main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = cli_main([str(a) for a in args])
    return rc, err.getvalue()


def _one_line(rc, err, dest):
    lines = [l for l in err.splitlines() if l.strip() and "warning" not in l]
    assert rc == 1 and len(lines) == 1 and "Traceback" not in err, err[-2000:]
    assert (f"cannot write {dest}" in lines[0] or f"{dest}: the write failed" in lines[0]) and ".tmp" not in lines[0], lines[0]


@pytest.mark.parametrize("seed", range(4))
def test_commands_on_a_full_disk(seed, tmp_path, monkeypatch):
    "tiny-model, crosseval, train, build and init with their writes failing at a random point: one line naming the destination, nothing left"
    import citesum_nb.build, citesum_nb.crosseval, citesum_nb.models, citesum_nb.train
    rng = random.Random(seed); kind = rng.choice(KINDS); root = real_path(tmp_path)
    data = root/"data"; data.mkdir(); (data/"train.jsonl").write_text("{}\n")
    before = _tree(root)

    @functools.wraps(citesum_nb.models.make_tiny_model)   # its signature: the parser reads the options from it
    def tiny(texts, out, **k): _write_until_full(rng, Path(out), kind)
    monkeypatch.setattr(citesum_nb.models, "make_tiny_model", tiny)
    rc, err = main("tiny-model", "--data", data, "--out", root/"m"/"tiny"); _one_line(rc, err, root/"m"/"tiny")
    assert _tree(root) == before

    @functools.wraps(citesum_nb.crosseval.run_crosseval)
    def crosseval(p, progress=True): _write_until_full(rng, Path(p.out_dir), kind)
    monkeypatch.setattr(citesum_nb.crosseval, "run_crosseval", crosseval)
    rc, err = main("crosseval", "--out-dir", root/"c"/"ce"); _one_line(rc, err, root/"c"/"ce")
    assert _tree(root) == before

    @functools.wraps(citesum_nb.train.train_cites)
    def train(p): _write_until_full(rng, Path(p.out_dir), kind)
    monkeypatch.setattr(citesum_nb.train, "train_cites", train)
    rc, err = main("train", "--data-dir", data, "--out-dir", root/"run"); _one_line(rc, err, root/"run")
    assert _tree(root) == before   # no half-written run folder

    monkeypatch.setattr(citesum_nb.build, "run_passes", lambda shards, out, p, progress: _write_until_full(rng, Path(out), kind))
    rc, err = main("build", "--out", root/"b"/"built", "--quiet"); _one_line(rc, err, root/"b"/"built")
    assert _tree(root) == before

    import citesum_nb.docs
    n, copy, calls = rng.randint(1, 40), shutil.copyfile, []
    def full_copy(a, b):
        calls.append(b)
        if len(calls) == n: Path(b).write_bytes(b"half"); raise OSError(errno.ENOSPC, "No space left on device", str(a))   # shutil names the source
        return copy(a, b)
    monkeypatch.setattr(citesum_nb.docs.shutil, "copyfile", full_copy)
    rc, err = main("init", root/"proj")
    _one_line(rc, err, root/"proj")
    assert "nbs/" in err or "params/" in err   # the project file it could not write
    assert _tree(root) == before   # nothing half-copied
