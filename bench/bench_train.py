"""Speed of CiTES training and generation: BART-large architecture on CiteSum-shaped batches, bare loop and `citesum train`'s path.

Two kinds of training rows:
  * bare: a plain PyTorch loop (forward, backward, AdamW step; fused AdamW on a GPU) over batches of random token ids,
    in one of four batching modes, each the order and padding the training path would use:
      max_length       every batch padded to --max-src / --max-tgt (random order);
      dynamic          random order (group_by_length false), each batch padded to its longest example, rounded up to the
                       collator's multiple (citesum_nb.train.pad_multiple: 64 on a GPU, none on CPU);
      group_by_length  transformers' LengthGroupedSampler order (what `group_by_length: true` gives the Trainer), padded as
                       in dynamic;
      token_budget     the library's token-budget batches (citesum_nb.train.token_budget_batches / TokenBudgetSampler,
                       --max-tokens padded source+target tokens), padded as in dynamic.
  * trainer: the real path of `citesum train` (citesum_nb.train.make_trainer: CitesTrainer, the collator, the sampler,
    the TrainingArguments of TrainSettings), one row per --trainer "k=v;k=v" (TrainSettings fields; default: the paper's
    batch_size 8, and token budgets of --max-tokens). Texts are synthetic words w5 w17 ... of a word-level tokenizer with
    the model's vocabulary, so token counts are exact. Checkpoint writing is switched off; nothing else is changed.

Printed per row: examples/s, tokens/s (real source+target tokens, padding excluded), useful TFLOP/s and their share of the
GPU's dense bf16 peak (H100/H200 989, A100 312 TFLOP/s; other devices: not shown), peak GPU memory. Useful FLOPs are
approximate: 6 x (encoder parameters x real source tokens + decoder parameters incl. the LM head x real target tokens),
embeddings excluded, attention's L^2 terms and padding not counted. Generation rows: examples/s of the library's
`generate` (length-sorted batches) with greedy search and 4 beams at each --gen-lengths (the authors' min/max 10:100, and
fixed100: exactly 100 new tokens, the steady speed of a full-length summary). --ops: aten operations per training step of
the FAST profile and of today's fp32 parameters (tiny BART on the CPU, torch.profiler) against bench/train_step_ops.json. Then the projected time of one CiteSum epoch (82,653 examples) per row, and
of the paper's full run (params/experiments/table5.yaml t5_bart: 200,000 steps x batch 8 = 1.6M examples plus 40
evaluations of the 4,721 validation examples, greedy; early stopping may end it sooner).

The model is facebook/bart-large when its weights are available locally (HF_HUB_OFFLINE is respected), otherwise a
randomly initialised model with the same architecture (speed does not depend on the weights). `--tiny` uses a small BART
config so the whole script runs on a CPU in a few minutes; its figures are CPU smoke-test figures only.

    python bench/bench_train.py --tiny                                   # CPU smoke run
    python bench/bench_train.py                                          # GPU, BART-large: every mode, both trainer rows
    python bench/bench_train.py --modes token_budget --trainer "max_tokens_per_batch=12288;dataloader_num_workers=4"
    python bench/bench_train.py --trainer fast --ops                     # the FAST profile (params/06b_train.gpu.yaml) and aten ops per step
    torchrun --nproc_per_node 8 bench/bench_train.py --trainer "max_tokens_per_batch=12288"   # 8 GPUs, as `citesum train` runs on them

Under a distributed launch (torchrun, accelerate launch: WORLD_SIZE > 1) the trainer rows train with every process, as
`citesum train` does on N GPUs (DistributedDataParallel, the batches dealt to the processes), and generation runs with
every process (citesum_nb.train.generate_sharded); each row reports examples/s in total and per GPU. The bare rows time
one device and are skipped there (run them without a launcher). Only rank 0 prints and writes the results.
"""
import argparse, gc, json, math, os, platform, shutil, time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
import numpy as np
import torch
from transformers import AutoModelForSeq2SeqLM, BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast, TrainerCallback
from transformers.trainer_pt_utils import LengthGroupedSampler

from citesum_nb.params import parse_set
from citesum_nb.models import decoder_start_ids
from citesum_nb.train import (TokenBudgetSampler, TrainSettings, generate, generate_sharded, is_main_process, make_trainer, pad_multiple,
                              process_group, resolve_precision, token_budget_batches, tokenized, world)

N_TRAIN_CITESUM, N_VAL_CITESUM = 82_653, 4_721          # CiteSum's train / validation splits
PAPER_STEPS, PAPER_BATCH, PAPER_EVAL_STEPS = 200_000, 8, 5_000   # script/train_citesum.sh (table5.yaml t5_bart)
PEAK_BF16_TFLOPS = {"H100": 989.0, "H200": 989.0, "A100": 312.0}  # dense bf16 tensor-core peaks
MODES = ("max_length", "dynamic", "group_by_length", "token_budget")
ROOT = Path(__file__).resolve().parents[1]
FAST_PARAMS = ROOT / "params" / "06b_train.gpu.yaml"   # the FAST profile: its speed settings make the `--trainer fast` row
SPEED_KEYS = ("precision", "param_dtype", "pad_to_multiple_of", "max_tokens_per_batch", "grad_accum_steps", "optim", "dataloader_num_workers",
              "torch_compile", "eval_generate", "eval_batch_size")
OPS_CEILING = ROOT / "bench" / "train_step_ops.json"   # the committed ceiling of aten operations per step (tests/test_train_fast.py)


def fast_spec(extra: str = "") -> str:
    "The --trainer spec of the FAST profile (the speed settings of params/06b_train.gpu.yaml), then the settings of `extra` (k=v;k=v) on top"
    import yaml
    p = yaml.safe_load(FAST_PARAMS.read_text())
    return ";".join([f"{k}={str(p[k]).lower() if isinstance(p[k], bool) else p[k]}" for k in SPEED_KEYS if k in p] + [kv for kv in extra.split(";") if kv.strip()])


def expand_spec(spec: str) -> str:
    "A --trainer spec with `fast` (alone or first: `fast;k=v`) replaced by the FAST profile's settings"
    head, _, rest = spec.partition(";")
    return fast_spec(rest) if head.strip().lower() == "fast" else spec


def count_step_ops(spec: str, max_tokens: int = 1024, step: int = 2, seed: int = 0) -> dict:
    """aten operations of one training step (the `step`-th: the optimizer state exists by then) of `citesum train`'s Trainer with the
    settings of `spec` on a tiny BART on the CPU, counted with torch.profiler. bf16 runs under CPU autocast, as it would on a GPU;
    data loader workers and compilation are left out (they change no operation of the step). Deterministic for one version of torch.
    The count does not depend on the batch's size (token budgets of 1024, 2048 and 4096: 4,002 and 4,626 operations alike, torch 2.13),
    so the budget is the smallest that still makes a padded batch of several examples: bf16 on a CPU is slow."""
    from collections import Counter
    torch.manual_seed(seed)
    model, _ = load_model(True, torch.device("cpu"))
    tok = word_tokenizer(model.config.vocab_size)
    src, tgt = lengths(64, seed=seed, max_src=512, max_tgt=128)
    recs = synthetic_records(src, tgt, model.config.vocab_size, seed=seed)
    kv = parse_set([x for x in expand_spec(spec).split(";") if x.strip()], TrainSettings, "--trainer")
    if kv.get("max_tokens_per_batch"): kv["max_tokens_per_batch"] = max_tokens   # the tiny model's budget
    kv.update(dataloader_num_workers=0, torch_compile=False)
    s = TrainSettings.from_dict({**dict(max_steps=step, eval_steps=step + 1, logging_steps=step + 1, disable_tqdm=True, max_source_length=512,
                                        max_target_length=128, report_to="none", seed=seed), **kv})
    prec = "bf16" if s.precision in ("bf16", "auto") else "fp32"   # a GPU's auto is bf16
    counts = Counter()

    class Profiled(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            if state.global_step == step - 1:
                self.prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]); self.prof.__enter__()
        def on_step_end(self, args, state, control, **kw):
            if state.global_step == step:
                self.prof.__exit__(None, None, None)
                counts.update(e.name for e in self.prof.events() if e.name.startswith("aten::"))

    import tempfile
    with tempfile.TemporaryDirectory() as ck:
        trainer = make_trainer(model, tok, tokenized(recs, tok, s), None, s, Path(ck), prec, callbacks=[Profiled()])
        trainer.args.save_strategy = "no"
        trainer.train()
    casts = sum(v for k, v in counts.items() if k in ("aten::copy_", "aten::_to_copy", "aten::to"))
    return dict(setting=spec, aten_ops=sum(counts.values()), casts_and_copies=casts, matmuls=sum(v for k, v in counts.items() if k in ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")),
                top=dict(counts.most_common(8)), torch=torch.__version__, precision=prec)


def peak_tflops(device_name: str):
    "Dense bf16 peak of a GPU named `device_name`, None when unknown (CPU included)"
    return next((v for k, v in PEAK_BF16_TFLOPS.items() if k in device_name), None)


def lengths(n, data=None, seed=0, max_src=1024, max_tgt=128):
    "Source/target token lengths of n examples (from the training split of a dataset, about 1.3 BPE tokens a word, or CiteSum-like log-normals)"
    rng = np.random.default_rng(seed)
    if data:
        from citesum_nb.data import load_split   # a CiteSum build, SciTLDR-A, local JSONL/CSV/Parquet: the library's one reader
        recs = load_split(data, "train").to_list()
        s = np.array([len(str(r["src"]).split()) * 1.3 for r in recs])
        t = np.array([len(str((r["tgt"] or [""])[0]).split()) * 1.3 for r in recs])
        idx = rng.integers(0, len(recs), n)
        src, tgt = s[idx], t[idx]
    else:
        src = rng.lognormal(math.log(280), 0.4, n)
        tgt = rng.lognormal(math.log(38), 0.35, n)
    return np.clip(src, 16, max_src).astype(int), np.clip(tgt, 6, max_tgt).astype(int)


def word_tokenizer(vocab: int) -> PreTrainedTokenizerFast:
    "A word-level tokenizer over the words w4 ... w{vocab-1} plus BART's specials (ids 0-3): text of n words = n + 2 tokens"
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    words = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{f"w{i}": i for i in range(4, vocab)}}
    tok = Tokenizer(models.WordLevel(words, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
                                   model_max_length=100_000)


def synthetic_records(src, tgt, vocab, seed=0) -> list:
    "Records whose source/target tokenize to exactly src[i] / tgt[i] tokens"
    rng = np.random.default_rng(seed)
    words = lambda n: " ".join(f"w{i}" for i in rng.integers(5, vocab, max(1, n - 2)))
    return [{"src": words(s), "tgt": words(t)} for s, t in zip(src, tgt)]


def flop_params(model) -> tuple:
    "(encoder parameters, decoder parameters + LM head), embeddings excluded: what a token multiplies through"
    emb = {id(p) for m in model.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
    enc = sum(p.numel() for p in model.get_encoder().parameters() if id(p) not in emb)
    dec = sum(p.numel() for p in model.get_decoder().parameters() if id(p) not in emb)
    return enc, dec + model.get_output_embeddings().weight.numel()


def load_model(tiny, device):
    if tiny:
        cfg = BartConfig(vocab_size=8000, d_model=256, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                         decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024, max_position_embeddings=1024)
        return BartForConditionalGeneration(cfg).to(device), "tiny BART (d_model 256, 2+2 layers, random init)"
    try:
        return AutoModelForSeq2SeqLM.from_pretrained("facebook/bart-large", attn_implementation="sdpa").to(device), "facebook/bart-large (pretrained weights)"
    except Exception as e:  # offline: same architecture, random weights (speed is the same)
        print(f"facebook/bart-large weights not available ({type(e).__name__}); using a random init of the same architecture")
        return BartForConditionalGeneration(BartConfig()).to(device), "BART-large architecture (random init)"


def sync(device):
    if device.type == "cuda": torch.cuda.synchronize()


def summed(*xs) -> list:
    "Each number summed over the processes of a distributed run (the numbers themselves in one process)"
    dist = process_group()
    if dist is None: return list(xs)
    dev = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")
    t = torch.tensor([float(x) for x in xs], dtype=torch.float64, device=dev)
    dist.all_reduce(t)   # gloo on CPU, NCCL on the process's GPU
    return t.cpu().tolist()


def peak_memory_gib(device):
    "Peak GPU memory of this process, the largest over the processes of a distributed run; None on CPU"
    if device.type != "cuda": return None
    m = torch.cuda.max_memory_allocated() / 2**30
    dist = process_group()
    if dist is None: return m
    t = torch.tensor([m], device=device); dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def per_gpu(row: dict) -> dict:
    "The row with examples/s per GPU (the total divided by the processes) and the number of processes"
    n = world()[1]
    return dict(row, processes=n, examples_per_s_per_gpu=row["examples_per_s"] / n)


def bare_batches(mode, src, tgt, bs, max_src, max_tgt, multiple, budget, seed=0) -> list:
    "(padded source len, padded target len, real source lens, real target lens) of every batch of one epoch, in a seeded random order"
    up = lambda x: -(-int(x) // multiple) * multiple if multiple else int(x)
    gen = torch.Generator().manual_seed(seed)
    if mode == "token_budget":
        groups = list(TokenBudgetSampler(token_budget_batches(src.tolist(), tgt.tolist(), budget, seed, multiple), seed))
    else:
        order = (list(LengthGroupedSampler(bs, lengths=src.tolist(), generator=gen)) if mode == "group_by_length"
                 else torch.randperm(len(src), generator=gen).tolist())
        groups = [order[k:k + bs] for k in range(0, len(order) - bs + 1, bs)]
    out = [(max_src, max_tgt, src[g], tgt[g]) if mode == "max_length" else (up(src[g].max()), up(tgt[g].max()), src[g], tgt[g])
           for g in groups]
    return [out[i] for i in np.random.default_rng(seed + 1).permutation(len(out))]   # timed steps: a random sample of the epoch's batches


def make_batch(vocab, s_len, t_len, s_real, t_real, device):
    bs = len(s_real)
    ids = torch.randint(5, vocab, (bs, s_len), device=device)
    att = (torch.arange(s_len, device=device)[None] < torch.as_tensor(s_real, device=device)[:, None]).long()
    ids = ids.masked_fill(att == 0, 1)
    lab = torch.randint(5, vocab, (bs, t_len), device=device)
    lab = lab.masked_fill(torch.arange(t_len, device=device)[None] >= torch.as_tensor(t_real, device=device)[:, None], -100)
    return dict(input_ids=ids, attention_mask=att, labels=lab)


def rates(n_ex, src_tok, tgt_tok, dt, fp, peak):
    "examples/s, tokens/s, useful TFLOP/s and share of the bf16 peak"
    tflops = 6 * (fp[0] * src_tok + fp[1] * tgt_tok) / dt / 1e12
    return dict(examples_per_s=n_ex / dt, tokens_per_s=(src_tok + tgt_tok) / dt, useful_tflops=tflops,
                share_of_bf16_peak=tflops / peak if peak else None)


def bench_bare(model, bl, device, dtype, warmup, fp, peak):
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, fused=device.type == "cuda")
    if device.type == "cuda": torch.cuda.reset_peak_memory_stats()
    vocab, n_ex, s_tok, t_tok, t0 = model.config.vocab_size, 0, 0, 0, None
    for k, (sl, tl, s, t) in enumerate(bl):
        if k == warmup: sync(device); t0 = time.perf_counter(); n_ex = s_tok = t_tok = 0
        b = make_batch(vocab, sl, tl, s, t, device)
        with torch.autocast(device.type, dtype=dtype, enabled=dtype != torch.float32):
            loss = model(**b).loss
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        n_ex += len(s); s_tok += int(s.sum()); t_tok += int(t.sum())
    sync(device)
    dt = time.perf_counter() - t0
    peak_mem = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else None
    del opt
    return dict(**rates(n_ex, s_tok, t_tok, dt, fp, peak), peak_gpu_mem_gib=peak_mem, timed_steps=len(bl) - warmup,
                steps_per_s=(len(bl) - warmup) / dt, examples_per_step=n_ex / (len(bl) - warmup),
                padded_tokens_per_batch=float(np.mean([(sl + tl) * len(s) for sl, tl, s, _ in bl])))


class StepClock(TrainerCallback):
    "Time at the end of every optimizer step (after a CUDA sync)"
    def __init__(self, device): self.device, self.t = device, {}
    def on_step_end(self, args, state, control, **kw): sync(self.device); self.t[state.global_step] = time.perf_counter()


def bench_trainer(model, tok, recs, spec, a, device, fp, peak):
    "One row of the real path: make_trainer with the TrainSettings of `spec`, timed over steps warmup+1 .. warmup+steps"
    steps = a.steps_run
    base = dict(max_steps=a.warmup + steps, eval_steps=a.warmup + steps + 1, logging_steps=a.warmup + steps, disable_tqdm=True,
                max_source_length=a.max_src, max_target_length=a.max_tgt, report_to="none", seed=0)
    s = TrainSettings.from_dict({**base, **parse_set([kv for kv in expand_spec(spec).split(";") if kv.strip()], TrainSettings, "--trainer")})
    prec = resolve_precision(s.precision, model.config.model_type)
    ck = Path(a.out).parent / "bench_train_trainer"
    clock, seen = StepClock(device), []
    trainer = make_trainer(model, tok, tokenized(recs, tok, s), None, s, ck, prec, callbacks=[clock])
    trainer.args.save_strategy = "no"   # no checkpoint writing in a benchmark; the training path is unchanged
    step = trainer.training_step
    def counted(model_, inputs, *args, **kw):
        seen.append((trainer.state.global_step, inputs["input_ids"].shape[0], inputs["attention_mask"].sum(), inputs["labels"].ne(-100).sum()))
        return step(model_, inputs, *args, **kw)
    trainer.training_step = counted
    if device.type == "cuda": torch.cuda.reset_peak_memory_stats()
    trainer.train()
    timed = [x for x in seen if x[0] >= a.warmup]
    dt = clock.t[a.warmup + steps] - clock.t[a.warmup]   # every process waits for the others at each step's all-reduce
    n_ex, s_tok, t_tok = summed(sum(x[1] for x in timed), int(sum(x[2] for x in timed)), int(sum(x[3] for x in timed)))   # all processes
    row = dict(kind="train", path="trainer", precision=prec, param_dtype=s.param_dtype, setting=spec or "defaults", **rates(n_ex, s_tok, t_tok, dt, fp, peak),
               peak_gpu_mem_gib=peak_memory_gib(device), timed_steps=steps, examples_per_step=n_ex / steps, steps_per_s=steps / dt,
               batch_size=s.batch_size * s.grad_accum_steps * world()[1], token_budget=s.max_tokens_per_batch)
    del trainer; gc.collect(); shutil.rmtree(ck, ignore_errors=True)
    model.float()   # bf16 parameters (param_dtype) back to fp32 for the next row
    if device.type == "cuda": torch.cuda.empty_cache()
    return row


def gen_lengths(spec: str, n_start: int) -> tuple:
    "(min_length, max_length) in decoder tokens of a --gen-lengths item: 'MIN:MAX' as given, or 'fixedN': exactly N new tokens (start tokens added)"
    if spec.startswith("fixed"):
        n = int(spec[5:] or 100) + n_start
        return n, n
    lo, hi = spec.split(":")
    return int(lo), int(hi)


def bench_generate(model, tok, recs, prec, beams, bs, device, lengths=(10, 100)):
    "examples/s of the library's generate (length-sorted batches) over the sources of `recs`, with every process of a distributed run"
    srcs = [r["src"] for r in recs]
    gen = generate_sharded if world()[1] > 1 else generate   # N processes: each its share of the batches, gathered
    gen(model, srcs[:bs * world()[1]], tokenizer=tok, num_beams=beams, min_length=lengths[0], max_length=lengths[0] + 2, batch_size=bs, device=device, precision=prec)  # warm-up
    sync(device); t0 = time.perf_counter()
    gen(model, srcs, tokenizer=tok, num_beams=beams, min_length=lengths[0], max_length=lengths[1], batch_size=bs, device=device, precision=prec)
    sync(device)
    return len(srcs) / (time.perf_counter() - t0)


def projections(rows):
    "Minutes per CiteSum epoch per training row; hours of the paper's full run at batch 8 (training + greedy evaluations)"
    for r in rows:
        if r["kind"] == "train": r["minutes_per_citesum_epoch"] = N_TRAIN_CITESUM / r["examples_per_s"] / 60
    at8 = [r for r in rows if r["kind"] == "train" and r.get("batch_size") == PAPER_BATCH and not r.get("token_budget")]
    greedy = [r for r in rows if r["kind"] == "generate" and r["num_beams"] == 1]
    if not at8: return None
    best = max(at8, key=lambda r: (r.get("path") == "trainer", r["examples_per_s"]))
    train_h = PAPER_STEPS * PAPER_BATCH / best["examples_per_s"] / 3600
    evals = PAPER_STEPS // PAPER_EVAL_STEPS
    eval_h = evals * N_VAL_CITESUM / max(greedy, key=lambda r: r["examples_per_s"])["examples_per_s"] / 3600 if greedy else None
    return dict(training_row=f"{best.get('path', 'bare')} {best.get('setting') or best.get('padding')} ({best['precision']})",
                train_hours=train_h, evaluations=evals, eval_hours=eval_h, total_hours=train_h + (eval_h or 0),
                note="paper's full run: 200,000 steps x batch 8 + an evaluation every 5,000 steps (early stopping may end it sooner); "
                     "the CiteSum paper reports about 6.5 h on one RTX A6000")


def print_table(rows, proj, name, dev):
    print(f"\nmodel: {name}\ndevice: {dev}" + (f" x {world()[1]} processes" if world()[1] > 1 else ""))
    print(f"{'kind':8} {'path':7} {'prec':5} {'setting':44} {'ex/s':>8} {'ex/s/GPU':>8} {'tokens/s':>9} {'TFLOP/s':>8} {'%peak':>6} {'GiB':>5} {'min/epoch':>9}")
    for r in rows:
        setting = r.get("setting") or r.get("padding") or f"num_beams={r['num_beams']}, length {r.get('lengths', '10:100')}"
        num = lambda k, f: format(r[k], f) if r.get(k) is not None else "-"
        share = f"{100 * r['share_of_bf16_peak']:.1f}" if r.get("share_of_bf16_peak") is not None and r["precision"] == "bf16" else "-"
        print(f"{r['kind']:8} {r.get('path', 'lib'):7} {r['precision']:5} {setting[:44]:44} {num('examples_per_s', '8.1f')} {num('examples_per_s_per_gpu', '8.1f')} "
              f"{num('tokens_per_s', '9.0f')} {num('useful_tflops', '8.2f')} {share:>6} {num('peak_gpu_mem_gib', '5.1f')} "
              f"{num('minutes_per_citesum_epoch', '9.1f')}")
    if proj:
        print(f"\npaper's full run at batch 8 ({proj['training_row']}): {proj['train_hours']:.2f} h training + "
              + (f"{proj['eval_hours']:.2f} h for {proj['evaluations']} greedy evaluations of {N_VAL_CITESUM} examples" if proj["eval_hours"] is not None else "evaluations not measured")
              + f" = {proj['total_hours']:.2f} h ({proj['note']})")


def step_ops_table() -> dict:
    "aten operations per training step (tiny BART, CPU) of today's fp32 parameters and of the FAST profile, with the committed ceiling"
    with torch.random.fork_rng():
        base, fast = count_step_ops("fast;param_dtype=fp32"), count_step_ops("fast")
    return dict(baseline=base, fast=fast, ceiling=json.loads(OPS_CEILING.read_text()) if OPS_CEILING.exists() else None)


def print_ops(ops: dict):
    c = ops["ceiling"] or {}
    print("\naten operations per training step (tiny BART on the CPU, bf16 autocast, torch.profiler; tests/test_train_fast.py checks the ceiling):")
    for k in ("baseline", "fast"):
        r = ops[k]
        print(f"  {k:9} {r['setting']:24} {r['aten_ops']:6} aten ops  ({r['casts_and_copies']} casts/copies, {r['matmuls']} matrix products)")
    if c: print(f"  ceiling   {c['fast_aten_ops_ceiling']:6} (recorded with torch {c['torch']}; FAST {'within' if ops['fast']['aten_ops'] <= c['fast_aten_ops_ceiling'] else 'ABOVE'} it)")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] + " Takes the launch of `citesum train` on N GPUs: "
                                 "torchrun --nproc_per_node N bench/bench_train.py ... (examples/s in total and per GPU).")
    ap.add_argument("--tiny", action="store_true", help="small BART config (CPU smoke run)")
    ap.add_argument("--steps", type=int, default=None, help="timed training steps per row (default 20; tiny 6)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed warm-up steps")
    ap.add_argument("--batch-size", type=int, default=8, help="examples per batch of the bare modes other than token_budget")
    ap.add_argument("--max-tokens", type=int, default=None, help="token budget of the token_budget mode and the default trainer row (default 12288; tiny 4096)")
    ap.add_argument("--modes", default=",".join(MODES), help=f"bare-loop modes, comma-separated ({', '.join(MODES)}); '' for none")
    ap.add_argument("--trainer", action="append", default=None, metavar="K=V;K=V",
                    help="time `citesum train`'s Trainer with these TrainSettings (repeatable; default: 'batch_size=8' and "
                         "'max_tokens_per_batch=<--max-tokens>'; 'none' for no trainer row)")
    ap.add_argument("--max-src", type=int, default=1024, help="max source tokens (padding target of max-length mode)")
    ap.add_argument("--max-tgt", type=int, default=128)
    ap.add_argument("--gen-examples", type=int, default=None, help="examples generated per setting (default 256; tiny 8)")
    ap.add_argument("--gen-batch-size", type=int, default=64)
    ap.add_argument("--gen-lengths", default="10:100", help="generation lengths, comma-separated: MIN:MAX decoder tokens (the authors' 10:100, the default) "
                    "or fixedN (exactly N new tokens: random weights then measure the steady speed); '' for no generation")
    ap.add_argument("--ops", action="store_true", help="also count the aten operations of one training step of the FAST profile and of today's "
                    "fp32 parameters (tiny BART on the CPU, torch.profiler) against the ceiling in bench/train_step_ops.json")
    ap.add_argument("--precisions", default=None, help="precisions of the bare rows and generation (default: bf16 on a GPU, fp32 on CPU)")
    ap.add_argument("--data", default="", help="dataset to take length distributions from (a CiteSum build, ../shared/data/scitldr/SciTLDR-A, ...)")
    ap.add_argument("--records", type=int, default=0, help="synthetic records of the trainer rows and generation (default: max(2000, 256 x steps))")
    ap.add_argument("--out", default="runs/bench/bench_train.json")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    torch.manual_seed(0)
    rank, n_proc = world()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if torch.cuda.is_available() else torch.device("cpu")
    if device.type == "cuda": torch.cuda.set_device(device)
    if n_proc > 1 and a.modes:
        if rank == 0: print(f"{n_proc} processes: the bare rows time one device and are skipped (run them without a launcher)")
        a.modes = ""
    a.steps_run = a.steps or (6 if a.tiny else 20)
    n_gen = a.gen_examples or (8 if a.tiny else 256)
    a.max_tokens = a.max_tokens or (4096 if a.tiny else 12288)
    if a.tiny: a.max_src = min(a.max_src, 512)
    precisions = (a.precisions or ("bf16" if device.type == "cuda" else "fp32")).split(",")
    trainer_specs = [] if a.trainer == ["none"] else (a.trainer or [f"batch_size={a.batch_size}", f"max_tokens_per_batch={a.max_tokens}"])
    for spec in trainer_specs: parse_set([kv for kv in expand_spec(spec).split(";") if kv.strip()], TrainSettings, "--trainer")   # fail before any work
    model, name = load_model(a.tiny, device)
    dev = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
    peak, fp = peak_tflops(dev), flop_params(model)
    src, tgt = lengths(max(6000, 50 * (a.steps_run + a.warmup) * a.batch_size), a.data or None, max_src=a.max_src, max_tgt=a.max_tgt)
    multiple = pad_multiple(TrainSettings())   # what the collator rounds to on this machine (64 on a GPU, none on CPU)
    init = {k: v.clone() for k, v in model.state_dict().items()}
    rows = []
    for prec in precisions:
        dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[prec]
        for mode in [m for m in a.modes.split(",") if m]:
            model.load_state_dict(init)
            bl = bare_batches(mode, src, tgt, a.batch_size, a.max_src, a.max_tgt, multiple, a.max_tokens)[:a.steps_run + a.warmup]
            r = bench_bare(model, bl, device, dtype, a.warmup, fp, peak)
            rows.append(per_gpu(dict(kind="train", path="bare", precision=prec, padding=mode, pad_multiple=multiple,
                             batch_size=None if mode == "token_budget" else a.batch_size, token_budget=a.max_tokens if mode == "token_budget" else 0, **r)))
            print(json.dumps(rows[-1]))
    tok = word_tokenizer(model.config.vocab_size)
    need = a.records or max(2000, 64 * (a.steps_run + a.warmup) * 4)
    recs = synthetic_records(src[:need], tgt[:need], model.config.vocab_size)
    for spec in trainer_specs:
        model.load_state_dict(init)
        rows.append(per_gpu(bench_trainer(model, tok, recs, spec, a, device, fp, peak)))
        if is_main_process(): print(json.dumps(rows[-1]))
    n_start = len(decoder_start_ids(model, tok))
    for prec in precisions:
        for ls in [x for x in a.gen_lengths.split(",") if x.strip()]:
            for beams in (1, 4):
                eps = bench_generate(model, tok, recs[:n_gen], prec, beams, a.gen_batch_size, device, gen_lengths(ls.strip(), n_start))
                rows.append(per_gpu(dict(kind="generate", path="library", precision=prec, num_beams=beams, lengths=ls.strip(), examples_per_s=eps)))
                if is_main_process(): print(json.dumps(rows[-1]))
    proj = projections(rows)
    ops = step_ops_table() if a.ops and is_main_process() else None
    res = dict(model=name, device=dev, bf16_peak_tflops=peak, flop_params={"encoder": fp[0], "decoder_and_lm_head": fp[1]},
               batch_size=a.batch_size, max_tokens=a.max_tokens, max_src=a.max_src, max_tgt=a.max_tgt,
               lengths="from " + a.data if a.data else "synthetic CiteSum-like log-normal (src ~280, tgt ~38 tokens)",
               processes=n_proc, rows=rows, projection=proj, step_ops=ops, gpu_figures_measured=device.type == "cuda")
    if not is_main_process(): return res   # rank 0 prints and writes
    print_table(rows, proj, name, dev)
    if ops: print_ops(ops)
    if device.type != "cuda":
        print("NOTE: measured on CPU" + (" with a tiny model" if a.tiny else "") + "; GPU figures are NOT measured by this run.")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1, default=float))
    return res


if __name__ == "__main__":
    main()
