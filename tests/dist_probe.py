"""`citesum` under a distributed launch, watched: `torchrun --nproc_per_node 2 tests/dist_probe.py train --params FILE`.

Runs the `citesum` command (`citesum_nb.cli.main`, what the console script calls) in each process and logs, into the
folder `$CITESUM_PROBE_LOG`, per process (`<what>.<rank>`):
  writes.<rank>      every file under `$CITESUM_PROBE_ROOT` that the process opens for writing (Python's "open" audit event:
                     `open`, `io.open`, `os.open`, so `json`, `yaml` and the JSON files of every `save_pretrained`) or
                     writes with `torch.save` (optimizer, scheduler, random states, training arguments), or renames onto
                     (a file written beside under a temporary name and renamed into place); the weights and
                     tokenizer.json, written by Rust code, always come with such a JSON file beside them;
  batches.<rank>     one JSON line per training batch: the optimizer step it belongs to, its input ids and labels
                     (padding removed) and its padded shape.
Used by tests/test_distributed.py; it changes nothing in what the command does.
"""
import json, os, sys

LOG, ROOT, RANK = os.environ["CITESUM_PROBE_LOG"], os.path.realpath(os.environ["CITESUM_PROBE_ROOT"]), os.environ.get("RANK", "0")
_writes = open(os.path.join(LOG, f"writes.{RANK}"), "a", buffering=1)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _audit(event, args):
    if event in ("os.rename", "os.replace"):   # a file written beside under another name and renamed into place: a write of its name
        return _audit("open", (args[1], "w", None))
    if event != "open" or not isinstance(args[0], (str, bytes, os.PathLike)): return
    path, mode, flags = args
    writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
    if writing:
        p = os.path.realpath(os.fsdecode(path))
        if p.startswith(ROOT + os.sep): _writes.write(os.path.relpath(p, ROOT) + "\n")


sys.addaudithook(_audit)

import torch  # noqa: E402
import transformers  # noqa: E402

_save = torch.save


def save(obj, f, *args, **kwargs):
    if isinstance(f, (str, os.PathLike)): _audit("open", (f, "wb", None))
    return _save(obj, f, *args, **kwargs)


torch.save = save

_batches = open(os.path.join(LOG, f"batches.{RANK}"), "a", buffering=1)
_step = transformers.Trainer.training_step


def training_step(self, model, inputs, *args, **kwargs):
    ids, labels = inputs["input_ids"], inputs["labels"]
    pad = self.processing_class.pad_token_id
    _batches.write(json.dumps({"step": self.state.global_step, "shape": [list(ids.shape), list(labels.shape)],
                               "input_ids": [[t for t in row if t != pad] for row in ids.tolist()],
                               "labels": [[t for t in row if t != -100] for row in labels.tolist()]}) + "\n")
    return _step(self, model, inputs, *args, **kwargs)


transformers.Trainer.training_step = training_step

from citesum_nb.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
