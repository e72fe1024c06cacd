"""The Python parts of bench/gpu_check.sh: what is installed, a BART-large-shaped random model for the real-data run, and the
summary of issue 32's goals (GPU name; ex/s, tokens/s and % of the bf16 peak of every row; met or not).

    python bench/gpu_check.py env                                   # torch, CUDA, the GPU, the project's imports: what is missing
    python bench/gpu_check.py make-model --data DIR --out DIR [--tiny]
    python bench/gpu_check.py summary --bench FILE.json [--train RUN_DIR] [--compile FILE.json]
"""
import argparse, importlib, json, sys
from pathlib import Path

NEEDED = ("torch", "transformers", "accelerate", "datasets", "tokenizers", "yaml", "rouge_score", "citesum_nb.train", "citesum_nb.cards")
GOALS = dict(fast_trainer=700, fast_stretch=1000, paper_batch=200, greedy_fixed=400, beams4_fixed=120)   # issue 32, one H100/H200, BART-large, 100 new tokens


def env() -> int:
    "Print the versions and the GPU; every missing module on its own line; exit 1 when something needed is missing"
    missing = []
    for m in NEEDED:
        try: importlib.import_module(m)
        except Exception as e: missing.append(f"{m} ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
    if "torch" not in [x.split()[0] for x in missing]:
        import torch
        cuda = torch.cuda.is_available()
        print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, GPU: {torch.cuda.get_device_name(0) if cuda else 'none'}"
              + (f", bf16 {torch.cuda.is_bf16_supported()}" if cuda else ""))
    for m in ("transformers", "accelerate", "datasets"):
        try: print(f"{m} {importlib.import_module(m).__version__}")
        except Exception: pass
    for m in missing: print(f"MISSING: {m}")
    return 1 if missing else 0


def make_model(data: str, out: str, tiny: bool = False) -> int:
    "A randomly initialised model with BART-large's shape (d_model 1024, 12+12 layers, 16 heads, FFN 4096) and a tokenizer trained on `data`"
    import torch
    from transformers import AutoConfig, BartForConditionalGeneration
    from citesum_nb.models import make_tiny_model
    if tiny:
        d = make_tiny_model(data, out, vocab_size=2000)
    else:
        d = make_tiny_model(data, out, vocab_size=50265, d_model=1024, n_layers=2)   # the tokenizer and the config's ids, then BART-large's shape
        cfg = AutoConfig.from_pretrained(d)
        cfg.update(dict(encoder_layers=12, decoder_layers=12, encoder_attention_heads=16, decoder_attention_heads=16,
                        encoder_ffn_dim=4096, decoder_ffn_dim=4096))
        torch.manual_seed(0)
        BartForConditionalGeneration(cfg).save_pretrained(d)
    cfg = json.loads((Path(d)/"config.json").read_text())
    print(f"model {d}: d_model {cfg['d_model']}, {cfg['encoder_layers']}+{cfg['decoder_layers']} layers, vocabulary {cfg['vocab_size']} (random weights)")
    return 0


def _row_line(r: dict) -> str:
    setting = r.get("setting") or r.get("padding") or f"generate, {r['num_beams']} beam(s), lengths {r.get('lengths', '10:100')}"
    share = r.get("share_of_bf16_peak")
    f = lambda k, fmt: format(r[k], fmt) if r.get(k) is not None else "-"
    return (f"| {r['kind']} {r.get('path', '')} | {setting} | {f('examples_per_s', ',.1f')} | {f('tokens_per_s', ',.0f')} | "
            f"{f('useful_tflops', '.1f')} | {format(100 * share, '.1f') if share is not None else '-'} | {f('peak_gpu_mem_gib', '.1f')} |")


def train_figures(run: Path) -> dict:
    "ex/s of a `citesum train` run: training (evaluations excluded) and evaluation inside training"
    m = json.loads((run/"metrics.json").read_text())
    log = [json.loads(l) for l in (run/"trainer_log.jsonl").read_text().splitlines()]
    evals = [r for r in log if "eval_runtime" in r]
    eval_s = sum(r["eval_runtime"] for r in evals)
    n_ex = m["global_step"] * m["examples_per_step"]
    train_s = max(1e-9, m["train_runtime_s"] - eval_s)
    return dict(steps=m["global_step"], examples_per_step=m["examples_per_step"], train_s=train_s, train_examples_per_s=n_ex / train_s,
                eval_examples_per_s=(sum(r.get("eval_samples_per_second", 0) * r["eval_runtime"] for r in evals) / eval_s) if eval_s else None,
                best_val_rouge2=m.get("best_val_rouge2"), precision=m.get("precision"))


def summary(bench: str, train: str = "", compiled: str = "") -> int:
    "Print the table of issue 32 and its goals, met or not, with the GPU's name"
    b = json.loads(Path(bench).read_text())
    rows = b["rows"] + (json.loads(Path(compiled).read_text())["rows"] if compiled and Path(compiled).exists() else [])
    print(f"\n## Issue 32 on {b['device']} ({b['model']})\n")
    print("| row | setting | ex/s | tokens/s | useful TFLOP/s | % of bf16 peak | GiB |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows: print(_row_line(r))
    fast = max((r["examples_per_s"] for r in rows if r["kind"] == "train" and r.get("path") == "trainer" and "fast" in (r.get("setting") or "")), default=None)
    paper = max((r["examples_per_s"] for r in rows if r["kind"] == "train" and r.get("path") == "trainer" and r.get("batch_size") == 8
                 and not r.get("token_budget")), default=None)
    fixed = [r for r in rows if r["kind"] == "generate" and str(r.get("lengths", "")).startswith("fixed")]
    new_tokens = fixed[0]["lengths"][5:] if fixed else "100"
    gen = lambda beams: max((r["examples_per_s"] for r in fixed if r["num_beams"] == beams), default=None)
    t = train_figures(Path(train)) if train and (Path(train)/"metrics.json").exists() else None
    goals = [("FAST trainer row (ex/s)", fast, GOALS["fast_trainer"]), ("paper's batch 8, trainer (ex/s)", paper, GOALS["paper_batch"]),
             (f"generate greedy, {new_tokens} new tokens (ex/s)", gen(1), GOALS["greedy_fixed"]),
             (f"generate 4 beams, {new_tokens} new tokens (ex/s)", gen(4), GOALS["beams4_fixed"])]
    if t:
        goals.append(("citesum train FAST on SciTLDR-A, training (ex/s)", t["train_examples_per_s"], GOALS["fast_trainer"]))
        goals.append(("evaluation inside training vs generate greedy (ex/s)", t["eval_examples_per_s"], None))
    print(f"\n| goal | measured | target | met |\n| --- | ---: | ---: | --- |")
    for name, v, target in goals:
        met = "-" if v is None or target is None else ("yes" if v >= target else "**no**")
        print(f"| {name} | {format(v, ',.1f') if v is not None else 'not measured'} | {target if target else '>= generate'} | {met} |")
    if t: print(f"\ncitesum train: {t['steps']} steps of {t['examples_per_step']} examples, {t['train_s']:.1f} s of training "
                f"(evaluations excluded; the checkpoint written at the last step included), {t['precision']}, best val ROUGE-2 {t['best_val_rouge2']}")
    if not b.get("gpu_figures_measured"): print("\nNOTE: no GPU in this run: these are CPU smoke figures, not GPU figures.")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("env")
    mm = sub.add_parser("make-model"); mm.add_argument("--data", required=True); mm.add_argument("--out", required=True); mm.add_argument("--tiny", action="store_true")
    sm = sub.add_parser("summary"); sm.add_argument("--bench", required=True); sm.add_argument("--train", default=""); sm.add_argument("--compile", default="")
    a = ap.parse_args(argv)
    if a.cmd == "env": return env()
    if a.cmd == "make-model": return make_model(a.data, a.out, a.tiny)
    return summary(a.bench, a.train, a.compile)


if __name__ == "__main__":
    sys.exit(main())
