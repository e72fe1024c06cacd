"Transfer experiments (07_transfer) and the paper tables (08_results): params files, spec checks, runs on the tiny model."
import json
from pathlib import Path

import papermill as pm
import pytest
import yaml

from citesum_nb.core import CitesumError, read_jsonl, write_jsonl
from citesum_nb.transfer import (SPEC_KEYS, finalize_prediction, rewrite_we, run_experiment, sample_k_shot, training_pairs,
                                 validate_spec, load_split)
from citesum_nb.results import collect_runs, load_published, paper_table

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT/"params"
FULL = sorted(p for p in PARAMS.glob("07_transfer.*.yaml") if not p.name.endswith(".small.yaml"))
SMALL = sorted(PARAMS.glob("07_transfer.*.small.yaml"))
PUBLISHED = PARAMS/"published"/"citesum_tables.yaml"
REAL_MODELS = ("facebook/bart-large", "google/pegasus-large")


def _spec(path, **over):
    return {**yaml.safe_load(path.read_text()), **over}


# --- params files -----------------------------------------------------------------------------------------------------
def test_every_published_row_of_ours_has_full_and_small_params():
    pub = load_published(PUBLISHED)
    ids = [e for t in pub["tables"].values() for r in t["rows"] for e in r["experiments"]]
    assert len(ids) == len(set(ids)) >= 20
    assert {p.name.split(".")[1] for p in FULL} == set(ids)
    assert {p.name.split(".")[1] for p in SMALL} == set(ids)


@pytest.mark.parametrize("path", FULL, ids=lambda p: p.name)
def test_full_params_name_real_checkpoints_and_validate(path):
    spec = _spec(path)
    declared = pm.inspect_notebook(str(ROOT/"nbs"/"07_transfer.ipynb"))
    assert set(spec) <= set(declared) and set(declared) == set(SPEC_KEYS)
    s = validate_spec({**spec, "out_dir": "/tmp/x"})
    assert s["experiment"] == path.name.split(".")[1]
    if s["mode"] != "extractive":
        m = s["model_name_or_path"]
        assert m in REAL_MODELS or m.startswith("../runs/paper/cites_"), m
    assert s["n_test"] == 0                                   # full runs score the whole test split
    if s["mode"] == "few-shot": assert len(s["seeds"]) == 3
    if s["dataset"] == "scitldr": assert (s["min_length"], s["max_length"]) == (10, 45)


def test_table_run_specs_chain_existing_params():
    for t in "6789":
        for prof in ("", ".small"):
            spec = yaml.safe_load((PARAMS/f"paper_table{t}{prof}.yaml").read_text())
            files = [st["params"] for st in spec["steps"] if "params" in st]
            assert files and all((ROOT/f).exists() for f in files)
            assert spec["steps"][-1]["notebook"] == "08_results"


# --- spec, sampling, rewriting ----------------------------------------------------------------------------------------
def test_validate_spec_errors_name_the_problem():
    ok = dict(experiment="x", mode="zero-shot", dataset="scitldr", out_dir="/tmp/x")
    with pytest.raises(CitesumError, match="variant='beam'.*choose one of"): validate_spec({**ok, "variant": "beam"})
    with pytest.raises(CitesumError, match="k_shot > 0"): validate_spec({**ok, "mode": "few-shot"})
    with pytest.raises(CitesumError, match="unknown experiment parameter"): validate_spec({**ok, "seed": 1})
    with pytest.raises(CitesumError, match="supervised"): validate_spec({**ok, "target": "disci"})


def test_k_shot_sample_depends_on_seed_only():
    a, b = sample_k_shot(1992, 128, 0), sample_k_shot(1992, 128, 1)
    assert a == sample_k_shot(1992, 128, 0) and a != b and len(set(a)) == 128 and max(a) < 1992


def test_we_rewrite_on_training_targets_only(tmp_path):
    (tmp_path/"train.jsonl").write_text(json.dumps({"source": ["A."], "target": ["We propose X."], "paper_id": "a"}) + "\n")
    (tmp_path/"test.jsonl").write_text(json.dumps({"source": ["A."], "target": ["We propose X.", "X is new."], "paper_id": "b"}) + "\n")
    tr = training_pairs(load_split(tmp_path, "scitldr", "train"), rewrite=True)
    assert tr["tgt"] == ["This paper REF propose X."]
    assert load_split(tmp_path, "scitldr", "test")["tgt"] == [["We propose X.", "X is new."]]
    assert rewrite_we("Weighted sums.") == "Weighted sums."


def test_ref_removed_from_every_variant():
    for v, pre in (("post_process", ""), ("none", ""), ("prompt", "This paper"), ("gold_prefix", "We show")):
        out = finalize_prediction("REF , REF and REF propose REF .", v, pre)
        assert "REF" not in out, (v, out)
    assert finalize_prediction("REF propose X .", "post_process").startswith("This paper propose")


# --- end-to-end on the tiny model --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def citesum_sample(tmp_path_factory):
    from citesum_nb.build import build_sample_dataset
    return build_sample_dataset(tmp_path_factory.mktemp("citesum")/"sample")


@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.name)
def test_small_experiment_runs_end_to_end(path, tmp_path, citesum_sample):
    spec = _spec(path, out_dir=str(tmp_path/"run"), data_dir=str(citesum_sample))
    if spec["mode"] in ("few-shot", "supervised"): spec.update(seeds=spec["seeds"][:1], max_steps=1, eval_steps=1)  # one seed, one step: the loop is tested below
    res = run_experiment(spec, log=lambda *a: None)
    out = tmp_path/"run"
    assert json.loads((out/"experiment.json").read_text())["experiment"] == spec["experiment"]
    assert (out/"results"/f"{spec['experiment']}.md").exists()
    preds = read_jsonl(out/f"seed_{res['seeds'][0]}"/"predictions.jsonl")
    assert len(preds) == res["n_test"] > 0
    assert not any("REF" in p["prediction"].split() for p in preds)
    if spec["mode"] != "extractive": assert res["model"]["pretrained"] is False
    g = res["generation"]
    if spec["mode"] != "extractive": assert {"num_beams", "min_length", "max_length", "post_processing"} <= set(g)
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


@pytest.mark.parametrize("fmt", ["xsum", "gigaword"])
def test_news_formats_zero_and_few_shot(fmt, tmp_path, citesum_sample):
    data = _write_news(tmp_path/fmt, fmt)
    common = dict(dataset=fmt, dataset_path=str(data), data_dir=str(citesum_sample), n_test=3, n_dev=2, num_beams=2,
                  min_length=2, max_length=12, batch_size=4, variant="none")
    zs = run_experiment(dict(experiment="zs", mode="zero-shot", out_dir=str(tmp_path/"zs"), **common), log=lambda *a: None)
    assert zs["n_test"] == 3 and zs["overlap"] is None
    fs = run_experiment(dict(experiment="fs", mode="few-shot", k_shot=4, seeds=[0, 1], max_steps=1, eval_steps=1, lr=1e-3,
                             out_dir=str(tmp_path/"fs"), **common), log=lambda *a: None)
    samples = [json.loads((tmp_path/"fs"/f"seed_{s}"/"k_shot_sample.json").read_text())["indices"] for s in (0, 1)]
    assert samples[0] != samples[1] and all(len(x) == 4 for x in samples)
    assert len(fs["per_seed"]) == 2 and set(fs["std"]) >= {"rouge1", "rouge2", "rougeL"}


def test_results_tables_from_runs(tmp_path, citesum_sample):
    run_experiment(dict(experiment="t6_oracle", table="6", row="Oracle (extractive)", mode="extractive", baseline="oracle",
                        dataset="scitldr", data_dir=str(citesum_sample), n_test=3, out_dir=str(tmp_path/"runs"/"t6_oracle")), log=lambda *a: None)
    runs = collect_runs(tmp_path/"runs")
    assert list(runs.experiment) == ["t6_oracle"]
    t6 = paper_table("6", runs, load_published(PUBLISHED))
    row = t6[t6.row == "Oracle (extractive)"].iloc[0]
    assert row["R-1 paper"] == "47.70" and row["R-1 ours"] != ""
    assert (t6[t6.row == "CiTeS 128-shot"]["R-1 paper"] == "n/a").all()


def test_scitldr_real_files_zero_shot(tmp_path, citesum_sample):
    from conftest import need_shared
    sci = need_shared("scitldr")/"SciTLDR-A"
    res = run_experiment(dict(experiment="zs", mode="zero-shot", dataset="scitldr", scitldr_dir=str(sci), data_dir=str(citesum_sample),
                              variant="gold_prefix", n_test=5, num_beams=1, min_length=8, max_length=16, out_dir=str(tmp_path/"zs")),
                         log=lambda *a: None)
    preds = read_jsonl(tmp_path/"zs"/"seed_0"/"predictions.jsonl")
    test = read_jsonl(sci/"test.jsonl")[:5]
    for p, t in zip(preds, test):   # the gold prefix is the author TLDR's first 3 words
        assert p["forced_prefix"] == " ".join(t["target"][0].split()[:3])
        assert p["references"] == [" ".join(x.split()) for x in t["target"]]
    assert res["overlap"]["n_b"] == 5
