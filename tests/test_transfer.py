"""Transfer experiments (07_transfer) and the paper tables (08_results).

Every row of every experiments table (params/experiments/table6-9.yaml) is checked statically (validates, names the
notebook's parameters, its small profile is an offline twin of the full row); the small rows run end to end on a tiny
offline model: SciTLDR zero-shot
(post-processing and prompt), SciTLDR few-shot, supervised discipline classification, Gigaword zero-shot, XSum zero- and
few-shot, the extractive oracle, and gold-prefix decoding on the real SciTLDR files.
"""
import json
from pathlib import Path

import papermill as pm
import pytest
import yaml

from citesum_nb.core import CitesumError, published_path, read_jsonl, write_jsonl
from citesum_nb.data import load_split
from citesum_nb.params import read_yaml, row_values, table_rows
from citesum_nb.citations import post_process
from citesum_nb.transfer import TransferParams, ref_mode, rewrite_we, run_experiment, sample_k_shot, training_pairs
from citesum_nb.results import collect_runs, load_published, paper_table

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT/"params"
TABLES = {t: PARAMS/"experiments"/f"table{t}.yaml" for t in "6789"}
ROW_IDS = [rid for f in TABLES.values() for rid in read_yaml(f)["rows"]]
PUBLISHED = published_path()
REAL_MODELS = ("facebook/bart-large", "google/pegasus-large")
# What makes an experiment the experiment: a `.small` twin may shrink data, steps and seeds, never change these.
IDENTITY_KEYS = ("experiment", "table", "row", "mode", "dataset", "target", "variant", "prompt", "gold_prefix_tokens", "baseline", "oracle_metric",
                 "rewrite_we")
# Every experiment's small twin runs end to end on the tiny model (one seed, one training step, the shared model); this one
# also builds its own tiny model from the spec, the path a user's default run takes.
BUILDS_OWN_MODEL = "t6_cites_zs_post"
# One per code path (kept as documentation of what the experiments cover):
REPRESENTATIVE = ("t6_cites_zs_post",    # SciTLDR zero-shot, post-processing; tiny model built from the spec, overlap report
                  "t6_cites_zs_prompt",  # SciTLDR zero-shot, forced decoder prompt
                  "t6_cites_32shot",     # SciTLDR few-shot with the "We" rewrite
                  "t7_cites_disci",      # supervised on the CiteSum split, discipline F1
                  "t9_cites_0shot")      # Gigaword zero-shot on the fixture written from the sample
# Small twins whose k-shot draw does not fit the bundled sample (55 training examples) when the shared SciTLDR is absent.
KNOWN_TOO_BIG_FOR_SAMPLE = set()
QUIET = dict(log=lambda *a: None)


def row(rid, profile=None, **over):
    "The values of one table row, as `citesum transfer --row` and `citesum run` get them, with `over` on top"
    (r, vals), = table_rows(read_yaml(TABLES[rid[1]]), profile, [rid])
    return {**row_values(r, vals, TransferParams), **over}

def checked(spec): return TransferParams.from_dict({**spec, "out_dir": "/tmp/x"}).to_dict()


@pytest.fixture(scope="module")
def declared():
    "Parameter names of the 07_transfer notebook"
    return set(pm.inspect_notebook(str(ROOT/"nbs"/"07_transfer.ipynb")))


@pytest.fixture(scope="module")
def citesum_sample(tmp_path_factory):
    "The bundled sample dataset, built once for the module"
    from citesum_nb.build import build_sample_dataset
    return build_sample_dataset(tmp_path_factory.mktemp("citesum")/"sample")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, citesum_sample):
    "One tiny randomly initialised BART (tokenizer trained on the sample), shared by the runs of this module"
    from citesum_nb.models import make_tiny_model
    recs = read_jsonl(citesum_sample/"train.jsonl") + read_jsonl(citesum_sample/"test.jsonl")
    texts = [t for r in recs for t in (r["src"], r["tgt"], r.get("title", ""))]
    texts += [f for r in recs for f in (r.get("discipline") or {}).get("mag_field_of_study") or []]
    return make_tiny_model(texts, tmp_path_factory.mktemp("tiny")/"model", arch="bart", seed=0)


# --- published numbers ------------------------------------------------------------------------------------------------
def test_every_published_row_of_ours_is_a_table_row_with_a_small_profile():
    pub = load_published(PUBLISHED)
    ids = [e for n, t in pub["tables"].items() if n != "5" for r in t["rows"] for e in r["experiments"]]   # Table 5: 06b_train and 05a
    ids += [e for c in pub["claims"] for e in c.get("experiments", [])]   # runs the paper mentions but does not tabulate
    assert len(ids) == len(set(ids)) >= 20
    assert set(ROW_IDS) == set(ids) and len(ROW_IDS) == len(ids)
    assert all("small" in read_yaml(f)["profiles"] for f in TABLES.values())


def _entries(pub):
    "Every number of the published file: table rows, dataset numbers, claims"
    for t, spec in pub["tables"].items():
        for r in spec["rows"]: yield f"table {t}: {r['row']}", r
    for r in pub.get("dataset_numbers", []): yield f"dataset_numbers: {r['id']}", r
    for r in pub.get("claims", []): yield f"claims: {r['id']}", r


def test_published_numbers_name_their_source_and_where_they_were_read():
    pub = load_published(PUBLISHED)
    entries = list(_entries(pub))
    assert len(entries) > 40
    for where, r in entries:
        assert r.get("source") and isinstance(r.get("verified"), bool), where
        if r["verified"]: assert r.get("read_in"), f"{where}: a verified number says where it was read"
        else: assert r.get("note") or r.get("cross_check"), f"{where}: an unverified or missing number says why"
        vals = r["values"] if "values" in r else r.get("value")
        if vals is not None and not isinstance(vals, (int, float)):
            assert all(isinstance(v, (int, float)) or (isinstance(v, list) and all(isinstance(x, (int, float)) for x in v))
                       for v in vals.values()), where
    # a verified claim's delta is the number the results notebook compares with
    gain = next(c for c in pub["claims"] if c["id"] == "xsum_zero_shot_gain")
    assert gain["verified"] and gain["compare"]["published_delta"] == 7.2


# --- params files (all of them, statically) ---------------------------------------------------------------------------
@pytest.mark.parametrize("rid", ROW_IDS)
def test_full_rows_name_real_checkpoints_and_validate(rid, declared):
    spec = row(rid)
    assert set(spec) <= declared and declared == set(TransferParams.names())
    assert spec["out_dir"] == "{run_dir}/" + rid
    s = checked(spec)
    assert s["experiment"] == rid
    if s["mode"] != "extractive":
        m = s["model_name_or_path"]
        assert m in REAL_MODELS or m.startswith("runs/paper/cites_"), m
    if s["dataset"] in ("xsum", "gigaword"): assert s["dataset_path"] and s["dataset_path"] != "fixture"
    assert s["n_test"] == 0                                   # full runs score the whole test split
    if s["mode"] == "few-shot": assert len(s["seeds"]) == 3
    if s["dataset"] == "scitldr":   # script/test_tldr.sh; the plain-BART baseline follows script/train_tldr_scratch_fewshot.sh (10-100)
        assert (s["min_length"], s["max_length"]) == ((10, 100) if s["experiment"] == "t6_bart_128shot" else (10, 45))


@pytest.mark.parametrize("rid", ROW_IDS)
def test_small_profile_is_an_offline_twin_of_the_full_row(rid, declared):
    spec, full = row(rid, "small"), row(rid)
    assert set(spec) <= declared
    assert spec["out_dir"] == "{run_dir}/" + rid
    s, f = checked(spec), checked(full)
    assert {k: s[k] for k in IDENTITY_KEYS} == {k: f[k] for k in IDENTITY_KEYS}
    assert s["model_name_or_path"] == "" and s["data_dir"] == ""           # the tiny model on the bundled sample
    if s["dataset"] in ("xsum", "gigaword"): assert s["dataset_path"] == "fixture"
    if s["dataset"] == "scitldr": assert s["scitldr_dir"] == ""              # shared SciTLDR when present, else the fixture
    assert 0 < s["n_test"] <= 16
    if s["mode"] in ("few-shot", "supervised"): assert s["max_steps"] <= 5
    if s["mode"] == "few-shot":
        assert 0 < s["k_shot"] <= f["k_shot"] and len(s["seeds"]) >= 2 and set(s["seeds"]) <= set(f["seeds"])


@pytest.mark.parametrize("rid", [r for r in ROW_IDS if row(r, "small").get("mode") == "few-shot"])
def test_small_k_shot_fits_the_bundled_sample(rid, citesum_sample, request):
    "Offline (no shared SciTLDR) the few-shot draw comes from the sample's training split"
    if rid in KNOWN_TOO_BIG_FOR_SAMPLE:
        request.applymarker(pytest.mark.xfail(strict=True, reason="k_shot 128 > 55 sample training examples; the small twin needs k_shot <= 55"))
    assert row(rid, "small")["k_shot"] <= len(read_jsonl(citesum_sample/"train.jsonl"))


def test_each_table_plans_its_rows_then_its_results_table():
    from citesum_nb.run import plan_run
    for t, f in TABLES.items():
        for prof in (None, "small"):
            rdir, steps = plan_run(f, root=ROOT, profile=prof)
            assert rdir == ROOT/"runs"/(f"table{t}" + (".small" if prof else ""))
            rows = [s for s in steps if s["notebook"].stem == "07_transfer"]
            assert [s["name"] for s in rows] == list(read_yaml(f)["rows"])
            assert {s["parameters"]["table"] for s in rows} == {t}
            assert all(s["parameters"]["out_dir"] == str(rdir/s["name"]) for s in rows)
            assert steps[-1]["notebook"].stem == "08_results" and steps[-1]["parameters"]["tables"] == [t]


# --- spec, sampling, rewriting ----------------------------------------------------------------------------------------
def test_parameter_errors_name_the_problem():
    ok = dict(experiment="x", mode="zero-shot", dataset="scitldr", out_dir="/tmp/x")
    with pytest.raises(CitesumError, match="variant must be one of none, post_process"): TransferParams.from_dict({**ok, "variant": "beam"})
    with pytest.raises(CitesumError, match="k_shot > 0"): TransferParams.from_dict({**ok, "mode": "few-shot"})
    with pytest.raises(CitesumError, match="seed=1: a transfer run trains once per entry of `seeds`"): TransferParams.from_dict({**ok, "seed": 1})
    with pytest.raises(CitesumError, match="unknown parameter.*early_stopping_patience.*patience"): TransferParams.from_dict({**ok, "early_stopping_patience": 3})
    with pytest.raises(CitesumError, match="supervised"): TransferParams.from_dict({**ok, "target": "disci"})


def test_k_shot_sample_depends_on_seed_only():
    a, b = sample_k_shot(1992, 128, 0), sample_k_shot(1992, 128, 1)
    assert a == sample_k_shot(1992, 128, 0) and a != b and len(set(a)) == 128 and max(a) < 1992


def test_we_rewrite_on_training_targets_only(tmp_path):
    (tmp_path/"train.jsonl").write_text(json.dumps({"source": ["A."], "target": ["We propose X."], "paper_id": "a"}) + "\n")
    (tmp_path/"test.jsonl").write_text(json.dumps({"source": ["A."], "target": ["We propose X.", "X is new."], "paper_id": "b"}) + "\n")
    tr = training_pairs(load_split(tmp_path, "train", fmt="scitldr"), rewrite=True)
    assert tr["tgt"] == ["This paper REF propose X."]
    assert load_split(tmp_path, "test", fmt="scitldr")["tgt"] == [["We propose X.", "X is new."]]
    assert rewrite_we("Weighted sums.") == "Weighted sums."


def test_ref_removed_from_every_variant():
    for v, pre in (("post_process", ""), ("none", ""), ("prompt", "This paper"), ("gold_prefix", "We show")):
        out = post_process("REF , REF and REF propose REF .", ref_mode(v), prefix=pre)
        assert "REF" not in out, (v, out)
    assert post_process("REF propose X .", ref_mode("post_process")).startswith("This paper propose")


# --- end to end on the tiny model --------------------------------------------------------------------------------------
@pytest.mark.parametrize("exp", ROW_IDS)
def test_small_experiment_runs_end_to_end(exp, tmp_path, citesum_sample, tiny_model):
    spec = row(exp, "small", out_dir=str(tmp_path/"run"), data_dir=str(citesum_sample))
    if spec["mode"] in ("few-shot", "supervised"):   # one seed, one step, the shared model: the seed loop is tested with XSum
        spec.update(seeds=spec["seeds"][:1], max_steps=1, eval_steps=1, model_name_or_path=str(tiny_model))
    elif spec["mode"] == "zero-shot" and exp != BUILDS_OWN_MODEL:
        spec.update(model_name_or_path=str(tiny_model))
    res = run_experiment(spec, **QUIET)
    out = tmp_path/"run"
    assert json.loads((out/"experiment.json").read_text())["experiment"] == exp
    assert (out/"results"/f"{exp}.md").exists()
    preds = read_jsonl(out/f"seed_{res['seeds'][0]}"/"predictions.jsonl")
    assert len(preds) == res["n_test"] > 0
    assert not any("REF" in p["prediction"].split() for p in preds)
    if spec["mode"] != "extractive":
        assert res["model"]["pretrained"] is False
        assert {"num_beams", "min_length", "max_length", "post_processing"} <= set(res["generation"])
    if spec["variant"] == "prompt":   # the forced words open every prediction (less what the REF rules remove: "In REF" goes whole)
        forced = post_process("", ref_mode("prompt"), prefix=spec["prompt"])
        assert all(p["prediction"].startswith(forced) for p in preds)
    if spec["mode"] == "few-shot":
        assert res["per_seed"][0]["train"]["model_used"].endswith("best")
        sample = json.loads((out/"seed_0"/"k_shot_sample.json").read_text())
        assert sample["k"] == len(sample["indices"]) == spec["k_shot"]
    if spec["dataset"] == "scitldr": assert res["overlap"]["n_test"] == res["n_test"]
    key = "macro_f1" if res["target"] == "disci" else "rouge1"
    assert 0 <= res["mean"][key] <= 100


def _write_news(folder, fmt, n=6):
    "Small files in the XSum (document/summary/id) or Gigaword (document/summary) layout"
    folder.mkdir(parents=True)
    for split in ("train", "validation", "test"):
        rows = [{"document": f"The council of town {i} voted on {split} day to build a new bridge over the river near the school.",
                 "summary": f"Town {i} approves a new bridge."} for i in range(n)]
        if fmt == "xsum": rows = [{**r, "id": f"{split}{i}"} for i, r in enumerate(rows)]
        write_jsonl(rows, folder/f"{split}.jsonl")
    return folder


def test_news_layouts_load(tmp_path):
    for fmt in ("xsum", "gigaword"):
        data = _write_news(tmp_path/fmt, fmt)
        ds = load_split(data, "test", fmt=fmt)
        assert len(ds) == 6 and len(set(ds["id"])) == 6 and ds["tgt"][0] == ["Town 0 approves a new bridge."]
        assert len(load_split(data, "val", fmt=fmt, n=2)) == 2            # "val" finds validation.jsonl


def test_xsum_zero_and_few_shot_over_seeds(tmp_path, citesum_sample, tiny_model):
    data = _write_news(tmp_path/"xsum", "xsum")
    common = dict(dataset="xsum", dataset_path=str(data), data_dir=str(citesum_sample), model_name_or_path=str(tiny_model),
                  n_test=3, n_dev=2, num_beams=2, min_length=2, max_length=12, batch_size=4, variant="none")
    zs = run_experiment(dict(experiment="zs", mode="zero-shot", out_dir=str(tmp_path/"zs"), **common), **QUIET)
    assert zs["n_test"] == 3 and zs["overlap"] is None and zs["generation"]["num_beams"] == 2
    fs = run_experiment(dict(experiment="fs", mode="few-shot", k_shot=4, seeds=[0, 1], max_steps=1, eval_steps=1, lr=1e-3,
                             out_dir=str(tmp_path/"fs"), **common), **QUIET)
    samples = [json.loads((tmp_path/"fs"/f"seed_{s}"/"k_shot_sample.json").read_text())["indices"] for s in (0, 1)]
    assert samples[0] != samples[1] and all(len(x) == 4 for x in samples)
    assert len(fs["per_seed"]) == 2 and set(fs["std"]) >= {"rouge1", "rouge2", "rougeL"}
    assert fs["spec"]["rewrite_we"] is False                          # the "We" rewrite is SciTLDR-only


def test_results_tables_from_runs(tmp_path, citesum_sample):
    run_experiment(dict(experiment="t6_oracle", table="6", row="Oracle (extractive)", mode="extractive", baseline="oracle",
                        dataset="scitldr", data_dir=str(citesum_sample), n_test=3, out_dir=str(tmp_path/"runs"/"t6_oracle")), **QUIET)
    runs = collect_runs(tmp_path/"runs")
    assert list(runs.experiment) == ["t6_oracle"]
    pub = load_published(PUBLISHED)
    t6 = paper_table("6", runs, pub)
    assert list(t6.row) == [r["row"] for r in pub["tables"]["6"]["rows"]]
    row = t6[t6.row == "EXT-ORACLE"].iloc[0]
    assert row["R-1 paper"] == "47.70" and row["R-1 ours"] != ""
    assert (t6[t6.row == "CiTeS (128-shot)"]["R-1 paper"] == "44.50").all()


def test_scitldr_real_files_gold_prefix(tmp_path, citesum_sample, tiny_model):
    from conftest import need_shared
    sci = need_shared("scitldr")/"SciTLDR-A"
    res = run_experiment(dict(experiment="zs", mode="zero-shot", dataset="scitldr", scitldr_dir=str(sci), data_dir=str(citesum_sample),
                              model_name_or_path=str(tiny_model), variant="gold_prefix", n_test=5, num_beams=1, min_length=8,
                              max_length=16, out_dir=str(tmp_path/"zs")), **QUIET)
    preds = read_jsonl(tmp_path/"zs"/"seed_0"/"predictions.jsonl")
    test = read_jsonl(sci/"test.jsonl")[:5]
    for p, t in zip(preds, test):   # the gold prefix is the author TLDR's first 3 words
        assert p["forced_prefix"] == " ".join(t["target"][0].split()[:3])
        assert p["references"] == [" ".join(x.split()) for x in t["target"]]
    assert res["overlap"]["n_b"] == 5


def test_supervised_discipline_labels_are_the_top_field_of_study():
    "Table 7's discipline classes are single fields (CiteSum §2.2), never 'Computer Science, Mathematics'"
    import datasets
    from citesum_nb.transfer import supervised_pairs
    ds = datasets.Dataset.from_list([
        {"id": "a", "src": "We study graphs.", "tgt": ["REF study graphs."], "title": "Graphs",
         "discipline": {"venue": "", "journal": "", "mag_field_of_study": ["Computer Science", "Mathematics"]}},
        {"id": "b", "src": "We fold proteins.", "tgt": ["REF fold proteins."], "title": "Folding",
         "discipline": {"venue": "", "journal": "", "mag_field_of_study": ["Biology"]}}])
    assert supervised_pairs(ds, "disci")["tgt"] == ["Computer Science", "Biology"]


@pytest.mark.parametrize("raw", ["In REF , the authors show X .", "In REF, the authors show X.", "In REF the authors show X ."])
def test_prompt_variant_never_yields_this_paper_in_comma(raw):
    "A continuation that starts with the citation framing 'In REF ,' loses it (the authors' eval_tldr.py rule), after the prompt too"
    out = post_process(raw, ref_mode("prompt"), prefix="This paper")
    assert out.startswith("This paper ") and "In ," not in out and "In," not in out and not out.startswith("This paper In"), out
    assert post_process(raw, ref_mode("post_process")) == "The authors show X."


def test_bart_128shot_baseline_trains_on_unrewritten_targets_and_runs_record_the_rewrite(tmp_path, citesum_sample, tiny_model):
    "Only CiTES few-shot uses 'We' -> 'This paper REF' (CiteSum §4.1); plain BART is trained on the targets as published"
    for prof in (None, "small"):
        assert row("t6_bart_128shot", prof)["rewrite_we"] is False
        assert row("t6_cites_128shot", prof)["rewrite_we"] is True
    rewrites = {}
    for exp in ("t6_bart_128shot", "t6_cites_32shot"):
        spec = row(exp, "small", out_dir=str(tmp_path/exp), data_dir=str(citesum_sample),
                   seeds=[0], max_steps=1, eval_steps=1, model_name_or_path=str(tiny_model))
        res = run_experiment(spec, **QUIET)
        assert json.loads((tmp_path/exp/"experiment.json").read_text())["target_rewrite"] == res["target_rewrite"]
        assert json.loads((tmp_path/exp/"seed_0"/"k_shot_sample.json").read_text())["target_rewrite"] == res["target_rewrite"]
        rewrites[exp] = res["target_rewrite"]
    assert rewrites == {"t6_bart_128shot": "none", "t6_cites_32shot": "We -> This paper REF (training targets only)"}


def test_t6_oracle_uses_scitldr_selection(tmp_path, citesum_sample):
    "Table 6's oracle row is SciTLDR's own selection (get_oracle_sents.py), and the run says so"
    for prof in (None, "small"): assert row("t6_oracle", prof)["oracle_metric"] == "scitldr"
    res = run_experiment(row("t6_oracle", "small", out_dir=str(tmp_path/"o"), data_dir=str(citesum_sample)), **QUIET)
    assert res["generation"] == {"baseline": "oracle", "oracle_metric": "scitldr"}


# Typed here from the CiteSum paper (EMNLP 2022), independently of citesum_nb/published/citesum_tables.yaml
PAPER = {("4", "Percentage"): {"rating_1": 10, "rating_2": 20, "rating_3": 28, "rating_4": 42},
         ("5", "EXT-ORACLE"): (44.17, 27.22, 38.32), ("5", "Abs+Disci -> TLDR"): (42.01, 19.34, 33.72),
         ("5", "Abs -> TLDR/Title/Disci (multi-task)"): (41.89, 19.51, 33.73), ("5", "Abs -> TLDR (PEGASUS-large)"): (41.56, 18.63, 33.45),
         ("6", "CiTeS (post-processing)"): (43.4, 19.7, 34.8), ("6", "CiTeS (prompting, gold 3 tokens)"): (46.3, 27.4, 41.9),
         ("6", "BART (128-shot)"): (42.1, 19.1, 33.4), ("6", "CATTS-XSUM"): (44.3, 21.3, 35.9), ("6", "EXT-ORACLE"): (47.7, 24.7, 38.5),
         ("7", "CiTeS"): {"rougeL": 46.26, "macro_f1": 0.30, "weighted_f1": 0.78},
         ("8", "CiTeS (100-shot)"): (41.45, 18.74, 33.29), ("8", "WikiTransfer (zero-shot)"): (31.85, 10.44, 23.75),
         ("9", "CiTeS-Title (zero-shot)"): (27.87, 10.43, 24.56), ("9", "SEQ3"): (25.39, 8.21, 22.68)}


def test_published_numbers_match_the_paper_typed_independently():
    from citesum_nb.results import published_number, published_row
    pub = load_published(PUBLISHED)
    for (t, label), want in PAPER.items():
        got = published_row(pub, t, label)["values"]
        want = want if isinstance(want, dict) else dict(zip(("rouge1", "rouge2", "rougeL"), want))
        assert {k: got[k] for k in want} == pytest.approx(want), (t, label)
    assert published_number(pub, "kept_after_filter") == 21.8
    assert published_number(pub, "post_filter_recall") == {"rouge1": 73.1, "rouge2": 39.4, "rougeL": 58.5}
    assert published_number(pub, "citations_per_paper")["papers"] == 59707
    t5 = read_yaml(PARAMS/"experiments"/"table5.yaml")["rows"]          # Table 5's model rows are runs of its experiments table
    assert {e for r in pub["tables"]["5"]["rows"] for e in r["experiments"] if not e.startswith("t5_ext_")} == set(t5)
    for t in "56789":   # every row of Tables 5-9 has the paper's numbers and says where they are discussed
        rows = pub["tables"][t]["rows"]
        assert rows and all(r["values"] and r["verified"] and r["section"].startswith("§") for r in rows), t
    with pytest.raises(CitesumError, match="no row 'Nope' in table 6"): published_row(pub, "6", "Nope")


# Values of the authors' released scripts (github.com/morningmoni/CiteSum, script/), typed here from the scripts
SCRIPTS = {  # experiment: (script, {setting: value})
    "t6_bart_128shot": ("train_tldr_scratch_fewshot.sh", dict(lr=1e-5, max_steps=1600, eval_steps=32, patience=5,
                                                               min_length=10, max_length=100, num_beams=1, eval_num_beams=1, batch_size=8)),
    "t6_cites_32shot": ("train_tldr_transfer_fewshot.sh", dict(lr=1e-5, max_steps=1600, eval_steps=50, patience=5,
                                                                min_length=10, max_length=45, num_beams=1, eval_num_beams=1, batch_size=8)),
    "t6_cites_128shot": ("train_tldr_transfer_fewshot.sh", dict(lr=1e-5, max_steps=1600, eval_steps=50, patience=5,
                                                                 min_length=10, max_length=45, num_beams=1, eval_num_beams=1)),
    "t6_cites_zs_post": ("test_tldr.sh", dict(min_length=10, max_length=45, num_beams=1)),
    "t6_cites_zs_prompt": ("test_tldr.sh", dict(min_length=10, max_length=45, num_beams=1)),
    "t8_cites_10shot": ("train_xsum_transfer_fewshot.sh", dict(lr=5e-5, max_steps=1200, eval_steps=240, patience=3,
                                                                min_length=11, max_length=62, num_beams=6, eval_num_beams=1, n_dev=1000)),
    "t8_cites_100shot": ("train_xsum_transfer_fewshot.sh", dict(lr=5e-5, max_steps=1200, eval_steps=240, patience=3,
                                                                 min_length=11, max_length=62, num_beams=6, eval_num_beams=1)),
    "t8_cites_0shot": ("test_xsum.sh", dict(min_length=11, max_length=62, num_beams=4)),
    "t9_cites_0shot": ("test_gigaword.sh", dict(min_length=4, max_length=24, num_beams=32)),
}
CITES_SCRIPT = dict(lr=2e-5, batch_size=8, max_steps=200000, eval_steps=5000, patience=5, num_beams=1, eval_num_beams=1,
                    min_length=10, max_length=100)   # script/train_citesum.sh
SETTING_KEYS = ("lr", "batch_size", "max_steps", "eval_steps", "patience", "num_beams", "eval_num_beams",
                "min_length", "max_length", "n_dev", "precision", "seeds", "epochs", "max_target_length", "max_source_length")


def _comments(text):
    "key -> the comment on its line, for the `key: value` lines of a YAML text"
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line[:1].isalpha() and ":" in line: out[line.split(":", 1)[0]] = line.split("#", 1)[1] if "#" in line else ""
    return out

def _row_block(rid):
    "The lines of a table file that hold row `rid` (its comment lines included)"
    lines = TABLES[rid[1]].read_text().splitlines()
    i = lines.index(f"  {rid}:"); j = next(k for k in range(i + 1, len(lines)) if not lines[k].startswith("    "))
    while i > 0 and lines[i - 1].startswith("  #"): i -= 1
    return "\n".join(lines[i:j])


def test_settings_follow_the_authors_scripts_and_say_where_each_comes_from():
    for exp, (script, want) in SCRIPTS.items():
        spec = checked(row(exp))
        assert {k: spec[k] for k in want} == want, exp
        defaults = TABLES[exp[1]].read_text().split("\nrows:")[0]   # settings shared by every row of the table sit there
        assert f"script/{script}" in _row_block(exp) + defaults, exp
    full = read_yaml(PARAMS/"experiments"/"table5.yaml")["defaults"]   # CiTES and its variants (Table 5)
    assert {k: full[k] for k in CITES_SCRIPT} == CITES_SCRIPT
    # every training/generation setting of a full params file says where it comes from; no paper section is invented
    texts = {f.name: f.read_text().split("\nprofiles:")[0] for f in TABLES.values()}   # the full rows, not the offline profile
    texts |= {f.name: f.read_text() for f in sorted(PARAMS.glob("06b_train.*.yaml")) if f.name not in ("06b_train.small.yaml", "06b_train.gpu.yaml")}
    texts["table5.yaml"] = (PARAMS/"experiments"/"table5.yaml").read_text().split("\nprofiles:")[0]
    for name, text in texts.items():
        for line in text.splitlines():
            k = line.strip().split(":", 1)[0]
            if k in SETTING_KEYS and "#" in line:
                c = line.split("#", 1)[1]
                assert "script/" in c or "our choice" in c or "CiteSum" in c, f"{name}: {line.strip()} has no source"
        assert "§5.1" not in text and "4 beams" not in text, name
    from citesum_nb.models import GENERATION_PRESETS
    assert all("script/" in p["source"] and "§" not in p["source"] for p in GENERATION_PRESETS.values())
    assert GENERATION_PRESETS["citesum"]["num_beams"] == 1
