"""`citesum train` and `bench/bench_train.py` on N processes (torchrun, accelerate launch), proven with two real processes
on the CPU (gloo), the bundled sample build and tiny models: each training example once per epoch across the processes,
steps of similar work, rank 0 writing every file once, the loss curve of one process with the same step, and the
predictions of one process, complete and in order."""
import json, os, re, socket, subprocess, sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT

torch = pytest.importorskip("torch")
from citesum_nb import models as M
from citesum_nb import train as T
from citesum_nb.core import read_jsonl
from citesum_nb.data import load_split

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def _launch(cmd: list, log: Path | None = None, timeout: int = 300, **env):
    "Run a launcher command (two processes on this machine, a free port); its output is kept in the assertion message"
    e = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "PET_MASTER_PORT": str(_free_port()), **env}
    r = subprocess.run(cmd, cwd=ROOT, env=e, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}"
    return r


def _params(path: Path, **kv) -> Path:
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in kv.items()))
    return path


SMALL = dict(max_source_length=128, max_target_length=64, num_beams=1, min_length=2, max_length=12, disable_tqdm=True, lr=1e-3)


@pytest.fixture(scope="module")
def budget_run(tmp_path_factory):
    "`citesum train` on 2 processes under the probe: data and model empty (rank 0 builds the bundled sample and makes the tiny model), token budgets, 2 epochs"
    tmp = tmp_path_factory.mktemp("dist")
    out, log = tmp / "run", tmp / "log"
    log.mkdir()
    p = _params(tmp / "p.yaml", out_dir=str(out), max_tokens_per_batch=640, max_steps=-1, epochs=2, eval_steps=8, save_total_limit=10,
                max_eval_examples=2, eval_batch_size=2, predict_batch_size=1, **SMALL)
    _launch([BIN / "torchrun", "--nproc_per_node", "2", ROOT / "tests" / "dist_probe.py", "train", "--params", p],
            CITESUM_PROBE_LOG=str(log), CITESUM_PROBE_ROOT=str(out))
    return out, log


def test_each_example_once_per_epoch_across_processes_in_steps_of_similar_work(budget_run):
    out, log = budget_run
    m = json.loads((out / "metrics.json").read_text())
    seen = {r: read_jsonl(log / f"batches.{r}") for r in (0, 1)}
    assert len(seen[0]) == len(seen[1]) == m["global_step"] > 0                # the same number of steps on both processes
    per_epoch = m["global_step"] // 2
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(out / "tiny_model")
    train, _ = M.build_examples(load_split(m["data_dir"], "train").to_list(), "abs", "tldr")
    ds = T.tokenized(train, tok, T.TrainSettings(max_source_length=128, max_target_length=64))
    every = Counter(zip(map(tuple, ds["input_ids"]), map(tuple, ds["labels"])))
    assert m["n_train"] == len(train) == sum(every.values()) > 40
    for epoch in (0, 1):
        got = Counter((tuple(i), tuple(l)) for r in (0, 1) for b in seen[r] if b["step"] // per_epoch == epoch
                      for i, l in zip(b["input_ids"], b["labels"]))
        assert got == every, f"epoch {epoch}: missing {every - got}, repeated {got - every}"
    # the two batches of a step cost about the same (padded tokens), so neither process waits long at the all-reduce
    cost = lambda b: b["shape"][0][0] * (b["shape"][0][1] + b["shape"][1][1])
    work = [(cost(a), cost(b)) for a, b in zip(seen[0], seen[1])]
    assert sum(max(w) for w in work) <= 1.06 * sum(sum(w) / 2 for w in work), work   # measured 1.04; the epoch order dealt in turn: 1.10
    assert m["processes"] == 2 and m["examples_per_step"] == round(len(train) / per_epoch, 2)


def test_rank0_writes_each_file_once(budget_run):
    out, log = budget_run
    w0, w1 = Counter((log / "writes.0").read_text().split()), Counter((log / "writes.1").read_text().split())
    # process 1 writes only its own random state into each checkpoint (the Trainer's format for resuming every process)
    assert w1 and all(re.fullmatch(r"checkpoints/checkpoint-\d+/rng_state_1\.pth", f) for f in w1), sorted(w1)
    assert all(n == 1 for f, n in w0.items() if f != ".citesum-output.json"), {f: n for f, n in w0.items() if n > 1}   # the marker: rewritten as the run grows
    for f in ("metrics.json", "predictions.jsonl", "val_predictions.jsonl", "trainer_log.jsonl", "params_used.yaml", "train_settings.json",
              "best/README.md", "best/config.json", "best/tokenizer_config.json", "tiny_model/config.json"):
        assert w0[f] == 1 and (out / f).exists(), f
    # the bundled sample, built by rank 0 alone (into a temporary folder, then renamed)
    assert [f for f in w0 if f.startswith("data/") and f.endswith("/train.jsonl")] and (out / "data" / "dataset" / "train.jsonl").exists()
    cks = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert cks and all(w0[f"checkpoints/{c}/trainer_state.json"] == 1 and w0[f"checkpoints/{c}/rng_state_0.pth"] == 1 for c in cks)
    assert "not-pretrained" in (out / "best" / "README.md").read_text()   # the model card, by citesum train on rank 0


def test_predictions_complete_in_order_and_as_one_process_makes_them(budget_run):
    out, _ = budget_run
    m = json.loads((out / "metrics.json").read_text())
    for split, f, n in (("test", "predictions.jsonl", m["n_predict"]), ("val", "val_predictions.jsonl", m["n_val_full"])):
        ids = [r["id"] for r in M.build_examples(load_split(m["data_dir"], split).to_list(), "abs", "tldr")[0]]
        preds = read_jsonl(out / f)
        assert [p["id"] for p in preds] == ids and len(ids) == n == 3 and all(isinstance(p["prediction"], str) for p in preds), f
    # 3 test sources in batches of 1 over 2 processes (batches 0 and 2 on rank 0, batch 1 on rank 1), gathered: what one process generates
    preds = read_jsonl(out / "predictions.jsonl")
    one = M.generate(out / "best", [p["source"] for p in preds], num_beams=1, min_length=2, max_length=12, batch_size=1,
                     max_source_length=128, device="cpu")
    assert [p["prediction"] for p in preds] == one
    assert m["n_val_generated_at_end"] == 1   # the third validation pair, generated by the Trainer on 2 processes (one repeats it)


@pytest.fixture(scope="module")
def sample_and_tiny(tmp_path_factory):
    "The bundled sample build and a tiny BART without dropout (so that 1 and 2 processes compute the same thing)"
    from citesum_nb.build import build_sample_dataset
    tmp = tmp_path_factory.mktemp("sample")
    data = build_sample_dataset(tmp / "data")
    tiny = M.make_tiny_model(load_split(str(data), "train").to_list(), tmp / "tiny", vocab_size=600)
    cfg = json.loads((tiny / "config.json").read_text())
    (tiny / "config.json").write_text(json.dumps({**cfg, "dropout": 0.0, "attention_dropout": 0.0, "activation_dropout": 0.0}))
    return data, tiny


def _readme_command() -> re.Match:
    m = re.search(r"^torchrun --nproc_per_node (\d+) --no-python citesum train --params (\S+)(?:\s+#.*)?$", (ROOT / "README.md").read_text(), re.M)
    assert m, "README: the command line for N GPUs"
    return m


def test_two_processes_give_the_loss_curve_of_one_with_the_same_step(sample_and_tiny, tmp_path):
    "README's N-GPU command with N=2 and batch 4 per process against one process with batch 8 (group_by_length, fp32, no dropout)"
    data, tiny = sample_and_tiny
    assert (ROOT / _readme_command().group(2)).exists()
    kw = dict(data_dir=str(data), model_name_or_path=str(tiny), max_steps=6, eval_steps=6, logging_steps=1, precision="fp32",
              max_eval_examples=2, **SMALL)
    one = T.train_cites(T.TrainParams.from_dict({**kw, "out_dir": str(tmp_path / "one"), "batch_size": 8}))
    p = _params(tmp_path / "p.yaml", out_dir=str(tmp_path / "two"), **kw)
    _launch([BIN / "torchrun", "--nproc_per_node", "2", "--no-python", BIN / "citesum", "train", "--params", p, "--set", "batch_size=4"])
    two = json.loads((tmp_path / "two" / "metrics.json").read_text())
    curve = lambda run, k: [r[k] for r in read_jsonl(tmp_path / run / "trainer_log.jsonl") if "loss" in r]
    assert len(curve("one", "loss")) == len(curve("two", "loss")) == 6
    assert curve("two", "loss") == pytest.approx(curve("one", "loss"), rel=1e-5)          # measured: equal to ~1e-7
    assert curve("two", "grad_norm") == pytest.approx(curve("one", "grad_norm"), rel=1e-4)
    assert curve("one", "loss")[-1] < curve("one", "loss")[0]   # it trains
    assert (one["processes"], two["processes"], one["examples_per_step"], two["examples_per_step"]) == (1, 2, 8, 8)


def test_bench_train_takes_the_same_launch_and_reports_examples_per_gpu(tmp_path):
    "accelerate launch (as torchrun) of bench_train.py: the trainer row trains on both processes, rank 0 writes the figures"
    out = tmp_path / "bench.json"
    _launch([BIN / "accelerate", "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
             "--dynamo_backend", "no", "--main_process_port", str(_free_port()), ROOT / "bench" / "bench_train.py", "--tiny",
             "--steps", "2", "--warmup", "1", "--trainer", "batch_size=4", "--gen-examples", "4", "--gen-batch-size", "2", "--out", out,
             # what the launch needs and no more: 48 records (3 steps x 8 examples, twice), short sources and summaries
             "--records", "48", "--max-src", "128", "--max-tgt", "32", "--gen-lengths", "2:6"])
    res = json.loads(out.read_text())
    assert res["processes"] == 2 and [r["kind"] for r in res["rows"]] == ["train", "generate", "generate"]   # bare rows: one device, left out
    tr = res["rows"][0]
    assert tr["batch_size"] == tr["examples_per_step"] == 8                      # 4 per process, both processes counted
    for r in res["rows"]: assert r["processes"] == 2 and r["examples_per_s_per_gpu"] == pytest.approx(r["examples_per_s"] / 2)


def test_every_bench_train_command_in_bench_readme_is_valid():
    "The GPU command lines (not runnable here) and the others: each `bench/bench_train.py` command of bench/README.md parses, its trainer settings too"
    import importlib.util, shlex
    from citesum_nb.params import parse_set
    spec = importlib.util.spec_from_file_location("bench_train", ROOT / "bench" / "bench_train.py")
    bt = importlib.util.module_from_spec(spec); spec.loader.exec_module(bt)
    text = (ROOT / "bench" / "README.md").read_text().replace("\\\n", " ")
    fast = re.search(r'^FAST="([^"]+)"$', text, re.M).group(1)
    cmds = [l.split("#")[0].replace("$FAST", fast).replace("$bs", "128") for l in text.splitlines() if "bench/bench_train.py " in l and "`" not in l]
    assert len(cmds) >= 9, cmds
    for c in cmds:
        words = shlex.split(c)
        a = bt.parse_args(words[words.index("bench/bench_train.py") + 1:])
        for s in a.trainer or []:
            if s != "none": parse_set([kv for kv in bt.expand_spec(s).split(";") if kv.strip()], T.TrainSettings, "--trainer")   # `fast`: params/06b_train.gpu.yaml
    assert "torchrun --nproc_per_node" in bt.parse_args.__globals__["__doc__"]
