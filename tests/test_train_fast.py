"""The FAST profile's training path on the CPU (issue 32): fewer aten operations per step than today's (a committed ceiling),
the loss curve of bf16 parameters with fp32 master weights against today's fp32 parameters, and evaluation inside training
through the library's `generate`. GPU speed itself is measured by bench/gpu_check.sh, not here."""
import importlib.util, json, os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
torch = pytest.importorskip("torch")
from citesum_nb import models as M
from citesum_nb import train as T

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_train", ROOT/"bench"/"bench_train.py")
    bt = importlib.util.module_from_spec(spec); spec.loader.exec_module(bt)
    return bt


def _pairs(n:int, k:int=0)->list:
    topics = ["citation graphs", "protein folding", "sparse attention", "crop yield models", "dark matter halos", "speech recognition"]
    return [{"src": f"We study {topics[i % 6]}. Our method {i} improves {topics[i % 6]} on standard benchmarks by a wide margin.",
             "tgt": f"REF proposed method {i} for {topics[i % 6]}."} for i in range(k, k + n)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    texts = [t for r in _pairs(40) for t in (r["src"], r["tgt"])]
    return M.make_tiny_model(texts, tmp_path_factory.mktemp("tiny")/"bart", vocab_size=400)


QUIET = dict(disable_tqdm=True, num_beams=1, min_length=2, max_length=16, batch_size=8, logging_steps=1, lr=3e-3, seed=0, patience=0)


def _losses(out:Path)->list:
    return [r["loss"] for r in map(json.loads, (out/"trainer_log.jsonl").read_text().splitlines()) if "loss" in r]


def test_fast_profile_step_stays_under_the_aten_op_ceiling(bench):
    "The FAST profile's step (bf16 parameters, fused AdamW over fp32 masters) runs fewer aten operations than the committed ceiling"
    c = json.loads((ROOT/"bench"/"train_step_ops.json").read_text())
    assert c["fast_aten_ops_ceiling"] < c["baseline_aten_ops"]   # the ceiling is below today's fp32-parameter step
    r = bench.count_step_ops("fast")
    assert r["aten_ops"] <= c["fast_aten_ops_ceiling"], r
    assert "param_dtype=bf16" in bench.fast_spec() and "eval_generate=library" in bench.fast_spec()   # what params/06b_train.gpu.yaml turns on
    readme = (ROOT/"bench"/"README.md").read_text()
    assert f'FAST="{bench.fast_spec()}"' in readme and f"| {c['baseline_aten_ops']:,} |" in readme and f"| {c['fast_aten_ops']:,} |" in readme


def test_bf16_parameters_follow_the_fp32_loss_curve(tiny, tmp_path):
    "Loss-curve parity: bf16 parameters with fp32 master weights against today's fp32 parameters, the same 24 steps"
    recs = _pairs(32)
    ref = T.train_seq2seq(recs, None, tiny, tmp_path/"fp32", test_ds=[], max_steps=24, eval_steps=24, **QUIET)
    new = T.train_seq2seq(recs, None, tiny, tmp_path/"bf16", test_ds=[], max_steps=24, eval_steps=24, param_dtype="bf16", **QUIET)
    a, b = _losses(tmp_path/"fp32"), _losses(tmp_path/"bf16")
    assert len(a) == len(b) == 24 and a[-1] < 0.6 * a[0]                      # today's path learns
    assert max(abs(x - y) / x for x, y in zip(a, b)) < 0.03, list(zip(a, b))   # and the new one follows it step by step
    assert abs(ref["train_loss"] - new["train_loss"]) / ref["train_loss"] < 0.02
    assert next(M.load_seq2seq(tmp_path/"bf16"/"best").parameters()).dtype in (torch.bfloat16, torch.float32)   # the saved model loads


def test_evaluation_inside_training_through_the_library_generate(tiny, tmp_path):
    "eval_generate: library scores every evaluation (and the rest of the split at the end) with texts of the library's generate"
    recs, ev = _pairs(16), _pairs(6, 100)
    m = T.train_seq2seq(recs, ev[:4], tiny, tmp_path/"run", test_ds=[], full_eval_ds=ev, max_steps=4, eval_steps=2,
                        eval_generate="library", **QUIET)
    log = [json.loads(l) for l in (tmp_path/"run"/"trainer_log.jsonl").read_text().splitlines()]
    evals = [r for r in log if "eval_rouge2" in r]
    assert len(evals) == 2 and all("eval_loss" not in r for r in evals)   # the library path: ROUGE, no validation loss
    assert m["best_val_rouge2"] == max(r["eval_rouge2"] for r in evals) and m["n_val_generated_at_end"] == 2
    preds = [json.loads(l) for l in (tmp_path/"run"/"val_predictions.jsonl").read_text().splitlines()]
    assert [p["source"] for p in preds] == [r["src"] for r in ev] and all(isinstance(p["prediction"], str) for p in preds)


def test_gpu_check_script_parses_and_its_python_parts_run_on_the_cpu(bench, tmp_path, capsys):
    "bench/gpu_check.sh: bash parses it; its --cpu-smoke bench row set (tiny BART, 2 steps) and the goal table run here, in-process"
    import re, subprocess, sys
    sh = (ROOT/"bench"/"gpu_check.sh").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT/"bench"/"gpu_check.sh")], capture_output=True).returncode == 0
    smoke = re.search(r'stage "bench rows \(CPU smoke\)" \d+ \$PY bench/bench_train.py (.*?)--out', sh, re.S).group(1)
    args = [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', smoke.replace("\\\n", " "))]
    out = tmp_path/"bench.json"
    bench.main(args + ["--out", str(out)])
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT/"bench"/"gpu_check.py")
    gc = importlib.util.module_from_spec(spec); spec.loader.exec_module(gc)
    capsys.readouterr()
    assert gc.summary(str(out), str(tmp_path/"no_run")) == 0
    text = capsys.readouterr().out
    assert "| train trainer | fast;dataloader_num_workers=0;max_tokens_per_batch=1024 |" in text and "| goal | measured | target | met |" in text
    assert "generate greedy, 8 new tokens (ex/s)" in text and "CPU smoke figures, not GPU figures" in text


def test_bf16_parameters_checkpoint_their_fp32_masters_and_resume(tiny, tmp_path):
    "A checkpoint of a bf16-parameter run holds the fp32 masters (the model's weights are them rounded); a resumed run restores them"
    out = tmp_path/"run"
    T.train_seq2seq(_pairs(16), None, tiny, out, test_ds=[], max_steps=2, eval_steps=2, param_dtype="bf16", **QUIET)
    ck = out/"checkpoints"/"checkpoint-2"
    st = torch.load(ck/"optimizer.pt", weights_only=True)
    model = M.load_seq2seq(ck)
    assert set(st) == {"adamw", "masters"} and all(m.dtype == torch.float32 for m in st["masters"])
    w = dict(model.named_parameters())["model.encoder.layers.0.fc1.weight"]
    assert any(m.shape == w.shape and torch.equal(m.to(torch.bfloat16), w.detach().to(torch.bfloat16)) for m in st["masters"])
    m = T.train_seq2seq(_pairs(16), None, tiny, out, test_ds=[], max_steps=4, eval_steps=2, param_dtype="bf16",
                        resume_from_checkpoint="latest", **QUIET)
    assert (m["resumed_from_step"], m["global_step"]) == (2, 4)
