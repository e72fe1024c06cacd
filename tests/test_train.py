"Tests of citesum_nb.train (and citesum_nb.models, which it trains) on tiny, offline models built on the fly"
import json, os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
torch = pytest.importorskip("torch")
from citesum_nb.core import CitesumError, read_jsonl, write_jsonl
from citesum_nb import models as M
from citesum_nb import train as T
from citesum_nb.citations import post_process
from citesum_nb.cli import train_cli

TOPICS = ["citation graphs", "protein folding", "sparse attention", "crop yield models", "dark matter halos",
          "speech recognition", "graph neural networks", "climate downscaling"]
FIELDS = [["Computer Science"], ["Biology"], ["Computer Science"], ["Agricultural Science"], ["Physics"],
          ["Computer Science", "Linguistics"], ["Computer Science", "Mathematics"], ["Environmental Science"]]


def _record(i: int) -> dict:
    "One CiteSum-format record, written here from templates"
    t, f = TOPICS[i % len(TOPICS)], FIELDS[i % len(FIELDS)]
    return {"id": f"citing{i}:0", "paper_id": f"p{i}", "src": f"We study {t}. Our method {i} improves {t} on standard benchmarks by a wide margin.",
            "tgt": f"REF proposed method {i} for {t}.", "title": "" if i % 5 == 4 else f"Method {i} for {t.title()}",
            "discipline": {"venue": "", "journal": "", "mag_field_of_study": [] if i % 7 == 6 else f},
            "introduction": f"Introduction about {t}.", "conclusion": f"We conclude on {t}."}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("citesum")
    for split, rng in (("train", range(0, 24)), ("val", range(24, 28)), ("test", range(28, 32))):
        write_jsonl([_record(i) for i in rng], d / f"{split}.jsonl")
    return d


@pytest.fixture(scope="module")
def tiny(data_dir, tmp_path_factory):
    return M.make_tiny_model(data_dir, tmp_path_factory.mktemp("tiny") / "bart", vocab_size=400)


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    "Tiny models train fastest on one thread (and the test suite runs side by side with other processes)"
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


QUIET = dict(disable_tqdm=True, num_beams=1, min_length=2, max_length=16, batch_size=4, logging_steps=1)


def test_wrong_names_list_valid_ones():
    with pytest.raises(CitesumError, match="valid: abs, aic, abs\\+title, abs\\+disci"):
        M.model_inputs(_record(0), source="abstract")
    with pytest.raises(CitesumError, match="valid: tldr, title, disci, tldr/title, tldr/title/disci"):
        M.model_inputs(_record(0), target="summary")
    with pytest.raises(CitesumError, match="bart, pegasus, t5"):
        M.make_tiny_model(["text"], "/nonexistent/never", arch="gpt2")


def test_multitask_prefixes_and_drops():
    recs = [_record(i) for i in range(10)]
    ex, cnt = M.build_examples(recs, "abs", "tldr/title/disci")
    assert cnt == {"kept_tldr": 10, "kept_title": 8, "kept_disci": 9, "dropped_no_title": 2, "dropped_no_disci": 1}
    catts = M.CONTROL_TOKENS["catts"]   # the default: SciTLDR's build_ctrl_datasets.py appends the code to the source
    assert all(e["src"].startswith("We study") and e["src"].endswith(" " + catts[e["task"]]) for e in ex)
    ex, _ = M.build_examples(recs, "abs", "tldr/title/disci", control_style="prefix")
    assert all(e["src"].startswith(M.CONTROL_TOKENS["prefix"][e["task"]] + " We study") for e in ex)
    ex, cnt = M.build_examples(recs, "abs", "title")
    assert not any(e["src"].startswith("<") for e in ex) and cnt["dropped_no_title"] == 2


def test_tiny_model_marked_and_loadable(tiny):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
    m, tok = AutoModelForSeq2SeqLM.from_pretrained(tiny), AutoTokenizer.from_pretrained(tiny)
    assert m.config.citesum_not_pretrained is True and M.is_not_pretrained(tiny)
    assert "NOT PRETRAINED" in (tiny / "README.md").read_text()
    ids = tok("<tldr> We study")["input_ids"]
    assert ids[0] == tok.bos_token_id and ids[1] == tok.convert_tokens_to_ids("<tldr>") and ids[-1] == tok.eos_token_id


def test_prompt_and_prefix_token_ids_exact(tiny):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(tiny)
    srcs = [_record(i)["src"] for i in range(3)]
    start = [2, 0]  # BART: </s> <s>
    p = tok("This paper", add_special_tokens=False).input_ids
    for beams in (1, 3):
        rows = M.generate(tiny, srcs, prompt="This paper", num_beams=beams, min_length=4, max_length=12, output="ids")
        assert all(r[:len(start) + len(p)] == start + p for r in rows)
        assert all(len(r) > len(start) + len(p) for r in rows)  # something was generated after the prompt
    both = M.generate(tiny, srcs, prompt="This paper", num_beams=1, min_length=4, max_length=12, output="both")
    assert all(b["full"].startswith("This paper") for b in both)
    pre = ["REF proposed method", "", "REF"]
    rows = M.generate(tiny, srcs, decoder_prefixes=pre, num_beams=2, min_length=3, max_length=10, output="ids")
    for r, t in zip(rows, pre):
        q = tok(t, add_special_tokens=False).input_ids if t else []
        assert r[:len(start) + len(q)] == start + q


def test_tiny_pegasus_start_tokens(data_dir, tmp_path):
    d = M.make_tiny_model(data_dir, tmp_path / "peg", arch="pegasus", vocab_size=300)
    rows = M.generate(d, ["We study protein folding."], prompt="This paper", num_beams=1, min_length=2, max_length=8, output="ids")
    from transformers import AutoTokenizer
    p = AutoTokenizer.from_pretrained(d)("This paper", add_special_tokens=False).input_ids
    assert rows[0][:1 + len(p)] == [0] + p  # PEGASUS starts with <pad>


def test_post_process_modes():
    "One REF post-processing (citesum_nb.citations.post_process) with one vocabulary"
    assert post_process("REF introduced sparse attention.") == "This paper introduced sparse attention."
    assert post_process("In REF , the authors study graphs.") == "The authors study graphs."
    assert post_process("Graph models REF work well REF .", "remove_ref") == "Graph models work well."
    assert post_process("REF proposed X.", "remove_ref") == "Proposed X."
    assert post_process("REF x", "none") == "REF x"


def test_loss_decreases_and_resume(tiny, tmp_path):
    train = [{"id": str(i), "src": _record(i)["src"], "tgt": _record(i)["tgt"]} for i in range(8)]
    out = tmp_path / "run"
    m = T.train_seq2seq(train, None, tiny, out, lr=3e-3, max_steps=10, eval_steps=5, **QUIET)
    losses = [r["loss"] for r in read_jsonl(out / "trainer_log.jsonl") if "loss" in r]
    assert len(losses) == 10 and sum(losses[-3:]) / 3 < 0.85 * losses[0]
    assert m["global_step"] == 10 and m["model_not_pretrained"]
    assert (out / "checkpoints" / "checkpoint-10" / "trainer_state.json").exists()
    m2 = T.train_seq2seq(train, None, tiny, out, lr=3e-3, max_steps=14, eval_steps=5, resume_from_checkpoint="latest", **QUIET)
    assert (m2["resumed_from_step"], m2["global_step"]) == (10, 14)
    assert [r["step"] for r in read_jsonl(out / "trainer_log.jsonl") if "loss" in r][-4:] == [11, 12, 13, 14]


def test_precision_rules():
    assert T.resolve_precision("auto", "bart") in (("bf16", "fp16") if torch.cuda.is_available() else ("fp32",))
    with pytest.raises(CitesumError, match="fp16"):
        T.resolve_precision("fp16", "pegasus")
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning):
            assert T.resolve_precision("bf16", "pegasus") == "fp32"


def test_train_cli_multitask_with_eval(data_dir, tiny, tmp_path):
    out = tmp_path / "cites"
    params = tmp_path / "p.yaml"
    params.write_text(f"data_dir: {data_dir}\nout_dir: {out}\nmodel_name_or_path: {tiny}\ntarget: tldr/title\n"
                      "upsample_tldr: true\nlr: 0.003\nmax_steps: 6\neval_steps: 3\nnum_beams: 1\nmin_length: 2\nmax_length: 16\n"
                      "max_eval_examples: 2\n")
    rc = train_cli(["--params", str(params), "--set", "batch_size=4", "--set", "disable_tqdm=true", "--json"])
    assert rc == 0
    m = json.loads((out / "metrics.json").read_text())
    assert m["pairs"]["train"]["kept_tldr"] == 24 and m["pairs"]["train"]["dropped_no_title"] == 4
    assert m["evaluated_task"] == "tldr" and m["best_val_rouge2"] is not None and m["best_checkpoint"]
    # every evaluation scored the first 2 validation pairs; the best checkpoint the whole split, generating only the other 2
    assert (m["n_eval"], m["n_val_full"], m["n_val_generated_at_end"]) == (2, 4, 2)
    assert [r["id"] for r in read_jsonl(out / "val_predictions.jsonl")] == [f"citing{i}:0" for i in range(24, 28)]
    preds = read_jsonl(out / "predictions.jsonl")
    assert len(preds) == 4 and set(preds[0]) == {"id", "source", "reference", "references", "prediction"}
    assert preds[0]["source"].endswith(" <|TLDR|>")   # CATTS placement, the default
    assert (out / "best" / "config.json").exists() and (out / "params_used.yaml").exists()
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
    tok, model = AutoTokenizer.from_pretrained(out / "best"), AutoModelForSeq2SeqLM.from_pretrained(out / "best")
    assert {"<|TLDR|>", "<|TITLE|>"} <= set(tok.all_special_tokens) and tok.tokenize("x <|TLDR|>")[-1] == "<|TLDR|>"
    assert model.get_input_embeddings().num_embeddings >= len(tok) and m["control_tokens_added"] == 2
    assert "not-pretrained" in (out / "best" / "README.md").read_text()   # the train command writes the model card after training


def test_tiny_model_cli(data_dir, tmp_path):
    from conftest import citesum   # the command in this process (status 0, its standard output): a new Python would import the library again
    r = citesum("tiny-model", "--data", data_dir, "--out", tmp_path / "t5", "--arch", "t5", "--vocab-size", "300", "--json")
    info = json.loads(r.stdout.strip().splitlines()[-1])
    assert info["arch"] == "t5" and info["not_pretrained"] is True
    assert M.is_not_pretrained(tmp_path / "t5")


def test_discipline_is_the_top_field_of_study_everywhere():
    "CiteSum §2.2: the top (first) field of study when a paper has several; one rule (citesum_nb.data) for the figures and the models"
    from citesum_nb.data import discipline_text, top_discipline
    rec = {**_record(5), "tgt": ["REF proposed method 5 for speech recognition."]}   # fields: Computer Science, Linguistics
    assert discipline_text(rec["discipline"]) == "Computer Science" == top_discipline(rec["discipline"])
    assert M.model_inputs(rec, "abs", "disci") == [(rec["src"], "Computer Science")]
    assert M.model_inputs(rec, "abs+disci", "tldr")[0][0].startswith("Computer Science | We study")
    assert M.model_inputs(rec, "abs", "tldr/title/disci")[-1] == (f"{rec['src']} <|DISCI|>", "Computer Science")
    for d in ('{"mag_field_of_study": ["Mathematics", "Physics"]}', ["Physics", "Mathematics"], None, {}):
        assert discipline_text(d) == (top_discipline(d) or "")
    ex, _ = M.build_examples([_record(i) for i in range(8)], "abs", "disci")
    assert sorted({e["tgt"] for e in ex}) == ["Agricultural Science", "Biology", "Computer Science", "Environmental Science", "Physics"]


def test_control_tokens_are_added_and_embeddings_resized_for_any_model(tiny):
    "A checkpoint whose tokenizer lacks the task tokens (facebook/bart-large has none) gets them as special tokens"
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
    tok, model = AutoTokenizer.from_pretrained(tiny), AutoModelForSeq2SeqLM.from_pretrained(tiny)
    codes = list(M.CONTROL_TOKENS["catts"].values())
    assert all(len(tok.tokenize(c)) > 1 for c in codes)            # split into pieces before
    n0 = len(tok)
    assert M.add_control_tokens(model, tok, codes) == len(codes)
    assert all(tok.tokenize(f"abstract {c}")[-1] == c for c in codes) and len(tok) == n0 + len(codes)
    assert model.get_input_embeddings().num_embeddings == len(tok) and model.config.vocab_size == len(tok)
    assert M.add_control_tokens(model, tok, codes) == 0 and len(tok) == n0 + len(codes)   # idempotent
    assert {"<tldr>", "<title>", "<disci>"} <= set(tok.all_special_tokens)                  # earlier specials kept


def test_control_placement_catts_and_prefix():
    rec = {**_record(1), "tgt": ["REF proposed method 1."]}
    assert M.model_inputs(rec, "abs", "tldr/title") == [(rec["src"] + " <|TLDR|>", "REF proposed method 1."),
                                                        (rec["src"] + " <|TITLE|>", rec["title"])]
    assert M.model_inputs(rec, "abs", "tldr/title", control_style="prefix")[1] == ("<title> " + rec["src"], rec["title"])
    assert M.model_inputs(rec, "abs", "tldr") == [(rec["src"], "REF proposed method 1.")]   # one task: no control code
    with pytest.raises(CitesumError, match="catts, prefix"): M.model_inputs(rec, "abs", "tldr/title", control_style="suffix")


# 06b_train once left a ~14 MB tempfile.mkdtemp() folder at every run: the demo run (which runs 06b_train with TMPDIR set to
# a fresh folder) must leave its TMPDIR empty, tests/test_wheel.py::test_the_installed_wheel_ran_the_demo_and_wrote_only_its_folder.


def test_kernel_connection_file_is_removed_once_the_kernel_runs(tmp_path):
    "A run interrupted before the runner cleans up (SIGTERM to papermill) must not leave the kernel's connection file behind"
    from jupyter_client import KernelManager
    km = KernelManager(connection_file=str(tmp_path / "kernel-run.json"))
    km.start_kernel(extra_arguments=["--HistoryManager.hist_file=:memory:"])
    try:
        kc = km.client(); kc.start_channels(); kc.wait_for_ready(timeout=60)
        assert (tmp_path / "kernel-run.json").exists()
        out = []
        kc.execute_interactive("from citesum_nb.core import forget_connection_file; print(forget_connection_file())", timeout=120,
                               output_hook=lambda m: out.append(m["content"].get("text", "")))
        assert "True" in "".join(out) and not (tmp_path / "kernel-run.json").exists()
        kc.stop_channels()
    finally:
        km.shutdown_kernel(now=True)
    from citesum_nb.core import forget_connection_file
    assert forget_connection_file() is False   # outside a kernel: nothing to do


SNAP = dict(num_beams=2, min_length=2, max_length=16)


def test_best_checkpoint_reloads_whole(tiny, tmp_path):
    """Issue 12: at the end the Trainer reloads the best checkpoint and logs "missing keys: model.encoder.embed_tokens.weight,
    model.decoder.embed_tokens.weight, lm_head.weight". Those three are tied to model.shared.weight and saved once, as it;
    the reloaded model must generate exactly what the model generated when it was saved (control tokens added, so the
    embeddings were resized too). The middle checkpoint is made the best, so the reload has to bring back older weights."""
    from safetensors import safe_open
    from transformers import TrainerCallback
    recs = [{"id": str(i), "src": _record(i)["src"], "tgt": _record(i)["tgt"]} for i in range(12)]
    probe = [r["src"] for r in recs[8:]]

    class Snapshot(TrainerCallback):
        def __init__(self): self.texts, self.weights = {}, {}
        def on_evaluate(self, args, state, control, metrics=None, **kw):
            metrics["eval_rouge2"] = {3: 1.0, 6: 5.0, 9: 2.0}[state.global_step]   # checkpoint-6 is the best
        def on_save(self, args, state, control, model=None, processing_class=None, **kw):
            self.texts[state.global_step] = M.generate(model, probe, tokenizer=processing_class, device="cpu", **SNAP)
            self.weights[state.global_step] = {k: v.detach().clone() for k, v in model.state_dict().items()}
            model.train()

    snap = Snapshot()
    m = T.train_seq2seq(recs[:8], recs[8:], tiny, tmp_path / "run", full_eval_ds=recs[8:], control_tokens=["<|TLDR|>"],
                        callbacks=[snap], lr=1e-2, max_steps=9, eval_steps=3, patience=0, save_total_limit=5, disable_tqdm=True, batch_size=4, **SNAP)
    assert m["best_checkpoint"].endswith("checkpoint-6") and m["control_tokens_added"] == 1
    assert any(not torch.equal(snap.weights[6][k], snap.weights[9][k]) for k in snap.weights[6])   # training went on after it
    preds = [r["prediction"] for r in read_jsonl(tmp_path / "run" / "predictions.jsonl")]         # by the reloaded model
    assert preds == snap.texts[6] and all(preds)   # (checkpoint 9's texts may be the same: its weights differ, checked above and below)
    with safe_open(str(tmp_path / "run" / "checkpoints" / "checkpoint-6" / "model.safetensors"), "pt") as f: saved = set(f.keys())
    assert "model.shared.weight" in saved and not {"lm_head.weight", "model.encoder.embed_tokens.weight"} & saved   # tied: saved once
    best = M.load_seq2seq(tmp_path / "run" / "best")
    assert best.lm_head.weight.data_ptr() == best.model.shared.weight.data_ptr() == best.model.encoder.embed_tokens.weight.data_ptr()
    sd = best.state_dict()
    assert set(sd) == set(snap.weights[6]) and all(torch.equal(sd[k], snap.weights[6][k]) for k in sd)
    assert M.generate(tmp_path / "run" / "best", probe, device="cpu", **SNAP) == snap.texts[6]
    assert m["n_val_generated_at_end"] == 0 and m["val_rouge_full"]["n"] == 4   # the whole split was the subset: nothing generated again


def _one_sgd_step(tiny, out, **kw):
    "Weights after one plain-SGD step (dropout off) on the same 8 examples"
    from transformers import AutoTokenizer
    recs = [{"id": str(i), "src": _record(i)["src"] * (1 + i % 3), "tgt": _record(i)["tgt"]} for i in range(8)]
    model = M.load_seq2seq(tiny, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0)
    T.train_seq2seq(recs, None, model, out, tokenizer=AutoTokenizer.from_pretrained(tiny), test_ds=[], max_steps=1, lr=0.5,
                    optim="sgd", max_grad_norm=1e9, group_by_length=False, disable_tqdm=True, **kw)
    return M.load_seq2seq(out / "best").state_dict()


def test_grad_accumulation_keeps_the_effective_batch(tiny, tmp_path):
    "batch_size 4 x grad_accum_steps 2 takes the optimizer step of batch_size 8: the loss is the mean over the step's target tokens"
    base = M.load_seq2seq(tiny).state_dict()
    one = _one_sgd_step(tiny, tmp_path / "a", batch_size=8, grad_accum_steps=1)
    acc = _one_sgd_step(tiny, tmp_path / "b", batch_size=4, grad_accum_steps=2)
    for k in one:
        d1, d2 = one[k] - base[k], acc[k] - base[k]
        assert float((d1 - d2).norm()) <= 1e-3 * float(d1.norm()) + 1e-8, k   # not 2x: the loss is not summed over the 2 batches
    assert max(float((one[k] - base[k]).abs().max()) for k in one) > 1e-4   # the step did move the weights


def test_token_budget_batches_train_with_accumulation_schedule_and_workers(tiny, tmp_path):
    "Token-budget batches through the Trainer: steps per epoch from the sampler, a linear LR schedule to 0, worker processes"
    from transformers import AutoTokenizer
    recs = [{"id": str(i), "src": _record(i)["src"] * (1 + i % 3), "tgt": _record(i)["tgt"]} for i in range(24)]
    s = T.TrainSettings(max_tokens_per_batch=400, grad_accum_steps=2, max_steps=-1, epochs=2, lr=1e-3, logging_steps=1,
                        max_source_length=128, max_target_length=32, dataloader_num_workers=2, disable_tqdm=True)
    n_batches = len(T.TokenBudgetSampler.for_dataset(T.tokenized(recs, AutoTokenizer.from_pretrained(tiny), s), 400, s.seed))
    m = T.train_seq2seq(recs, None, tiny, tmp_path / "run", test_ds=[], settings=s)
    steps = 2 * -(-n_batches // 2)
    assert n_batches >= 4 and m["global_step"] == steps
    assert m["examples_per_step"] == round(24 / n_batches * 2, 2)
    lrs = [r["learning_rate"] for r in read_jsonl(tmp_path / "run" / "trainer_log.jsonl") if "loss" in r]
    assert len(lrs) == steps and all(a > b for a, b in zip(lrs, lrs[1:])) and lrs[-1] < 1e-3 / steps * 1.01
