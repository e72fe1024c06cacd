"""Speed of CiTES training and generation: BART-large architecture on CiteSum-shaped batches.

Measures, for each precision (fp32, bf16) and padding scheme (pad every batch to the max length vs dynamic padding
of length-grouped batches, as `group_by_length` does):
  * training throughput in target+source tokens/s (real tokens, padding excluded) and in examples/s,
  * peak GPU memory (CUDA only),
and generation examples/s with greedy search vs 4 beams (min/max length 10/100), then projects the time of one
CiTES training run over the full CiteSum training split (~83k examples; the CiteSum paper reports about 6.5 h on
one RTX A6000; our target is under 1.5 h on one H100).

The model is facebook/bart-large when its weights are available locally (HF_HUB_OFFLINE is respected), otherwise a
randomly initialised model with the same architecture (speed does not depend on the weights). `--tiny` uses a
small BART config so the whole script runs on a CPU in about a minute; its figures are CPU smoke-test figures only.

Batch shapes: source/target lengths are drawn from log-normal distributions matching CiteSum's averages (abstracts
of ~300 BPE tokens, citation sentences of ~40), or measured from a built dataset with `--data DIR` (word counts
x 1.3 as a BPE estimate).

    python bench/bench_train.py --tiny                      # CPU smoke run
    python bench/bench_train.py --steps 30 --gen-examples 64  # GPU, full BART-large
"""
import argparse, json, math, os, platform, random, time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np
import torch
from transformers import AutoModelForSeq2SeqLM, BartConfig, BartForConditionalGeneration

N_TRAIN_CITESUM = 82_653  # CiteSum training split size (the CiteSum paper; ~83k)


def lengths(n, data=None, seed=0, max_src=1024, max_tgt=128):
    "Source/target token lengths of n examples (from a built dataset, or CiteSum-like log-normals)"
    rng = np.random.default_rng(seed)
    if data:
        recs = [json.loads(l) for l in open(Path(data) / "train.jsonl")]
        s = np.array([len(str(r["src"]).split()) * 1.3 for r in recs])
        t = np.array([len(str(r["tgt"] if isinstance(r["tgt"], str) else r["tgt"][0]).split()) * 1.3 for r in recs])
        idx = rng.integers(0, len(recs), n)
        src, tgt = s[idx], t[idx]
    else:
        src = rng.lognormal(math.log(280), 0.4, n)
        tgt = rng.lognormal(math.log(38), 0.35, n)
    return np.clip(src, 16, max_src).astype(int), np.clip(tgt, 6, max_tgt).astype(int)


def batches(src, tgt, bs, dynamic, max_src, max_tgt, seed=0):
    "List of (src_len, tgt_len, real_src_tokens, real_tgt_tokens) per batch, group_by_length style when dynamic"
    idx = list(range(len(src)))
    random.Random(seed).shuffle(idx)
    if dynamic:  # like transformers' LengthGroupedSampler: mega-batches of 50 batches sorted by length
        mb = bs * 50
        idx = [i for k in range(0, len(idx), mb) for i in sorted(idx[k:k + mb], key=lambda i: -src[i])]
    out = []
    for k in range(0, len(idx) - bs + 1, bs):
        b = idx[k:k + bs]
        s, t = src[b], tgt[b]
        out.append((int(s.max()) if dynamic else max_src, int(t.max()) if dynamic else max_tgt, s, t))
    random.Random(seed + 1).shuffle(out)  # timed steps are a random sample of batches in both modes
    return out


def make_batch(vocab, s_len, t_len, s_real, t_real, device):
    bs = len(s_real)
    ids = torch.randint(5, vocab, (bs, s_len), device=device)
    att = (torch.arange(s_len, device=device)[None] < torch.as_tensor(s_real, device=device)[:, None]).long()
    ids = ids.masked_fill(att == 0, 1)
    lab = torch.randint(5, vocab, (bs, t_len), device=device)
    lab = lab.masked_fill(torch.arange(t_len, device=device)[None] >= torch.as_tensor(t_real, device=device)[:, None], -100)
    return dict(input_ids=ids, attention_mask=att, labels=lab)


def load_model(tiny, device):
    if tiny:
        cfg = BartConfig(vocab_size=8000, d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                         decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024, max_position_embeddings=1024)
        return BartForConditionalGeneration(cfg).to(device), "tiny BART (d_model 256, 2+2 layers, random init)"
    try:
        return AutoModelForSeq2SeqLM.from_pretrained("facebook/bart-large").to(device), "facebook/bart-large (pretrained weights)"
    except Exception as e:  # offline: same architecture, random weights (speed is the same)
        print(f"facebook/bart-large weights not available ({type(e).__name__}); using a random init of the same architecture")
        return BartForConditionalGeneration(BartConfig()).to(device), "BART-large architecture (random init)"


def sync(device):
    if device.type == "cuda": torch.cuda.synchronize()


def bench_train(model, bl, device, dtype, warmup):
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    if device.type == "cuda": torch.cuda.reset_peak_memory_stats()
    vocab = model.config.vocab_size
    real = n_ex = 0
    t0 = None
    for k, (sl, tl, s, t) in enumerate(bl):
        if k == warmup: sync(device); t0 = time.perf_counter(); real = n_ex = 0
        b = make_batch(vocab, sl, tl, s, t, device)
        with torch.autocast(device.type, dtype=dtype, enabled=dtype != torch.float32):
            loss = model(**b).loss
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        real += int(s.sum() + t.sum()); n_ex += len(s)
    sync(device)
    dt = time.perf_counter() - t0
    peak = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else None
    del opt
    return dict(tokens_per_s=real / dt, examples_per_s=n_ex / dt, peak_gpu_mem_gib=peak, timed_steps=len(bl) - warmup)


def bench_generate(model, src, device, dtype, n, bs, beams, max_src):
    model.eval()
    vocab = model.config.vocab_size
    order = np.argsort(-src[:n])
    done = 0
    sync(device); t0 = time.perf_counter()
    for k in range(0, n, bs):
        s = src[order[k:k + bs]]
        b = make_batch(vocab, int(s.max()), 2, s, np.full(len(s), 2), device)
        with torch.no_grad(), torch.autocast(device.type, dtype=dtype, enabled=dtype != torch.float32):
            model.generate(input_ids=b["input_ids"], attention_mask=b["attention_mask"], num_beams=beams,
                           min_length=10, max_length=100)
        done += len(s)
    sync(device)
    return done / (time.perf_counter() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiny", action="store_true", help="small BART config (CPU smoke run)")
    ap.add_argument("--steps", type=int, default=None, help="timed training steps per setting (default 20; tiny 6)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed warm-up steps")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-src", type=int, default=1024, help="max source tokens (padding target of max-length mode)")
    ap.add_argument("--max-tgt", type=int, default=128)
    ap.add_argument("--gen-examples", type=int, default=None, help="examples generated per setting (default 64; tiny 8)")
    ap.add_argument("--gen-batch-size", type=int, default=32)
    ap.add_argument("--precisions", default="fp32,bf16")
    ap.add_argument("--data", default="", help="built CiteSum folder to take length distributions from")
    ap.add_argument("--epochs", type=float, default=3.0, help="epochs assumed in the projection")
    ap.add_argument("--n-train", type=int, default=N_TRAIN_CITESUM)
    ap.add_argument("--out", default="runs/bench/bench_train.json")
    a = ap.parse_args(argv)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    steps = a.steps or (6 if a.tiny else 20)
    n_gen = a.gen_examples or (8 if a.tiny else 64)
    if a.tiny: a.max_src = min(a.max_src, 512)
    model, name = load_model(a.tiny, device)
    n_need = (steps + a.warmup) * a.batch_size
    src, tgt = lengths(max(n_need * 4, 2000), a.data or None, max_src=a.max_src, max_tgt=a.max_tgt)
    rows = []
    init = {k: v.clone() for k, v in model.state_dict().items()}
    for prec in a.precisions.split(","):
        dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[prec]
        if dtype == torch.bfloat16 and device.type == "cuda" and not torch.cuda.is_bf16_supported(): continue
        for dynamic in (False, True):
            model.load_state_dict(init)
            bl = batches(src, tgt, a.batch_size, dynamic, a.max_src, a.max_tgt)[:steps + a.warmup]
            r = bench_train(model, bl, device, dtype, a.warmup)
            rows.append(dict(kind="train", precision=prec, padding="dynamic+group_by_length" if dynamic else "max_length", **r))
            print(json.dumps(rows[-1]))
        for beams in (1, 4):
            eps = bench_generate(model, src, device, dtype, n_gen, a.gen_batch_size, beams, a.max_src)
            rows.append(dict(kind="generate", precision=prec, num_beams=beams, examples_per_s=eps))
            print(json.dumps(rows[-1]))
    best = max((r for r in rows if r["kind"] == "train"), key=lambda r: r["examples_per_s"])
    hours_epoch = a.n_train / best["examples_per_s"] / 3600
    proj = dict(setting=f"{best['precision']}, {best['padding']}", n_train=a.n_train, hours_per_epoch=hours_epoch,
                epochs=a.epochs, hours_total_train=hours_epoch * a.epochs,
                paper_reference="about 6.5 h on one RTX A6000 (CiteSum paper)", target="< 1.5 h on one H100")
    dev = torch.cuda.get_device_name(0) if device.type == "cuda" else f"CPU ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
    res = dict(model=name, device=dev, batch_size=a.batch_size, max_src=a.max_src, max_tgt=a.max_tgt,
               lengths="from " + a.data if a.data else "synthetic CiteSum-like log-normal (src ~280, tgt ~38 tokens)",
               rows=rows, projection=proj, gpu_figures_measured=device.type == "cuda")
    print(f"\nmodel: {name}\ndevice: {dev}")
    print(f"{'kind':9} {'precision':9} {'setting':26} {'tokens/s':>10} {'examples/s':>11} {'peak GiB':>9}")
    for r in rows:
        setting = r.get("padding") or f"num_beams={r['num_beams']}"
        tok = f"{r['tokens_per_s']:10.0f}" if "tokens_per_s" in r else f"{'':10}"
        mem = f"{r['peak_gpu_mem_gib']:9.1f}" if r.get("peak_gpu_mem_gib") is not None else f"{'n/a':>9}"
        print(f"{r['kind']:9} {r['precision']:9} {setting:26} {tok} {r['examples_per_s']:11.2f} {mem}")
    print(f"\nprojection ({proj['setting']}): {hours_epoch:.2f} h/epoch over {a.n_train} examples, "
          f"{proj['hours_total_train']:.2f} h for {a.epochs:g} epochs (training steps only, evaluation not included)")
    if device.type != "cuda":
        print("NOTE: measured on CPU" + (" with a tiny model" if a.tiny else "") + "; GPU figures (H100, A6000) are NOT measured by this run.")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
