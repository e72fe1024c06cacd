"Evaluation: loaders, multi-reference ROUGE semantics on hand-worked cases, significance, baselines, overlap, the CLI."
import json

import numpy as np
import pandas as pd
import pytest
from rouge_score import rouge_scorer

from citesum_nb.core import CitesumError, write_jsonl
from citesum_nb.evaluate import (align_predictions, baseline_predictions, classification_scores, holm_bonferroni,
                                 load_summarization_data, overlap_report, paired_bootstrap, paired_significance,
                                 per_example_rouge, read_predictions, rouge_scores, write_predictions)
from conftest import citesum, need_shared

TINY = [
    {"id": "c1:0", "src": "Deep nets forget old classes. In this paper we propose a dual memory model. It works well.",
     "tgt": "REF propose a dual memory model that avoids forgetting.", "paper_id": "p1", "title": "Dual Memory",
     "discipline": {"venue": "ICLR", "journal": "", "mag_field_of_study": ["Computer Science"]}},
    {"id": "c2:0", "src": "Proteins fold quickly. We introduce a folding simulator. Results match experiments.",
     "tgt": "REF introduce a fast protein folding simulator.", "paper_id": "p2", "title": "",
     "discipline": {"venue": "", "journal": "Nature", "mag_field_of_study": ["Biology"]}},
    {"id": "c3:1", "src": "Graphs are everywhere. Message passing networks learn on graphs.",
     "tgt": "REF learn on graphs with message passing networks.", "paper_id": "p3", "title": "MPNN",
     "discipline": {"venue": "", "journal": "", "mag_field_of_study": ["Computer Science"]}},
]


@pytest.fixture
def tiny_dir(tmp_path):
    d = tmp_path/"citesum"
    for s in ("train", "val", "test"): write_jsonl(TINY, d/f"{s}.jsonl")
    return d


# ---------------------------------------------------------------- ROUGE semantics
def test_rouge_hand_worked():
    s = rouge_scores(["the cat sat"], ["the cat sat on the mat"])
    assert s["rouge1"] == pytest.approx(200/3) and s["rouge1_p"] == pytest.approx(100) and s["rouge1_r"] == pytest.approx(50)
    assert s["rouge2"] == pytest.approx(400/7) and s["n"] == 1


def test_multi_max_keeps_the_triple_of_the_best_rouge1_reference():
    # ref a: R-1 F 100, R-2 F 50; ref b: R-1 F 80, R-2 F 66.7 -> max keeps a's R-2 (50), not the best R-2
    pe = per_example_rouge(["the cat sat"], [["cat sat the", "the cat"]])
    assert pe.r1_f[0] == pytest.approx(100) and pe.r2_f[0] == pytest.approx(50) and pe.ref_index[0] == 0
    mean = rouge_scores(["the cat sat"], [["cat sat the", "the cat"]], multi_ref="mean")
    assert mean["rouge1"] == pytest.approx(90) and mean["rouge2"] == pytest.approx((50 + 200/3)/2)
    assert rouge_scores(["the cat sat"], [["the cat", "cat sat the"]], multi_ref="first")["rouge1"] == pytest.approx(80)
    assert per_example_rouge(["x y"], [["x y", "y x"]]).ref_index[0] == 0  # ties: first reference


def test_stemming_switch_and_empty():
    assert rouge_scores(["cats running"], ["cat running"])["rouge1"] == pytest.approx(100)
    assert rouge_scores(["cats running"], ["cat running"], use_stemmer=False)["rouge1"] == pytest.approx(50)
    assert rouge_scores([""], ["something"])["rouge1"] == 0


def test_matches_plain_rouge_score_and_parallel_equals_serial():
    rng = np.random.default_rng(0)
    words = "model models learning learned network networks data propose proposed the a of".split()
    preds = [" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(2100)]
    refs = [[" ".join(rng.choice(words, rng.integers(1, 12))) for _ in range(rng.integers(1, 4))] for _ in range(2100)]
    plain = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    mine = per_example_rouge(preds[:200], [r[0] for r in refs[:200]])
    for col, t in (("r1_f", "rouge1"), ("r2_f", "rouge2"), ("rL_f", "rougeL")):
        np.testing.assert_allclose(mine[col], [plain.score(r[0], p)[t].fmeasure*100 for p, r in zip(preds[:200], refs[:200])])
    pd.testing.assert_frame_equal(per_example_rouge(preds, refs, n_jobs=2), per_example_rouge(preds, refs))


def test_rouge_errors():
    with pytest.raises(CitesumError, match="2 predictions but 1 references"): rouge_scores(["a", "b"], ["a"])
    with pytest.raises(CitesumError, match="unknown multi_ref"): rouge_scores(["a"], ["a"], multi_ref="best")
    with pytest.raises(CitesumError, match="no reference"): rouge_scores(["a"], [[]])


# ---------------------------------------------------------------- significance and classification
def test_holm_and_significance():
    np.testing.assert_allclose(holm_bonferroni([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    rng = np.random.default_rng(1)
    base = pd.DataFrame({"r1_f": rng.uniform(20, 40, 150), "r2_f": rng.uniform(5, 15, 150), "rL_f": rng.uniform(15, 30, 150)})
    better = base + rng.uniform(0.5, 1.5, base.shape)
    assert paired_significance(better, base, n_boot=300).significant.all()
    assert not paired_significance(base, base, n_boot=100).significant.any()
    assert paired_bootstrap(base.r1_f, base.r1_f) == 1.0
    # a 50/50 coin-flip difference with zero mean is not significant
    d = np.tile([1.0, -1.0], 50)
    assert paired_bootstrap(base.r1_f[:100] + d, base.r1_f[:100], n_boot=500) > 0.5


def test_classification_scores():
    cs = classification_scores(["Computer science ", "biology", "Biology", "Zoology"],
                               ["Computer Science", "Computer Science", "Biology", "Biology"])
    # labels in gold or predictions: CS F1 2/3, Biology 1/2, Zoology (predicted, never gold) 0
    assert cs["macro_f1"] == pytest.approx(100*(2/3 + 1/2)/3) and cs["n_outside_label_set"] == 1
    assert cs["weighted_f1"] == pytest.approx(100*(2*2/3 + 2*1/2)/4) and cs["accuracy"] == pytest.approx(50)


def test_classification_perfect_predictions_score_100_whatever_the_training_labels():
    "A class seen in training but absent from the test set must not pull the macro average down"
    train_labels = ["Computer Science", "Biology", "Physics", "Medicine"]
    gold = ["Computer Science", "Biology", "Biology", "Computer Science"]
    cs = classification_scores(list(gold), gold, label_set=train_labels)
    assert cs["macro_f1"] == pytest.approx(100) and cs["weighted_f1"] == pytest.approx(100)
    assert cs["labels_scored"] == ["biology", "computer science"]


# ---------------------------------------------------------------- loaders
def test_citesum_folder_and_aliases(tiny_dir):
    ds = load_summarization_data(tiny_dir, "dev")
    assert ds.column_names[:4] == ["id", "src", "tgt", "title"] and ds["id"] == ["c1:0", "c2:0", "c3:1"]
    assert ds[0]["tgt"] == [TINY[0]["tgt"]] and ds[1]["discipline"]["journal"] == "Nature"
    with pytest.raises(CitesumError, match="no 'nosuch' split"): load_summarization_data(tiny_dir, "nosuch")
    with pytest.raises(CitesumError, match="dataset not found"): load_summarization_data(tiny_dir/"missing")


def test_official_release_without_ids(tmp_path):
    write_jsonl([{k: v for k, v in r.items() if k != "id"} for r in TINY], tmp_path/"test.json")
    assert load_summarization_data(tmp_path/"test.json")["id"] == ["test:0", "test:1", "test:2"]


def test_xsum_gigaword_columns(tmp_path):
    write_jsonl([{"document": "News text here.", "summary": "Short.", "id": "n1"}], tmp_path/"xsum"/"validation.jsonl")
    x = load_summarization_data(tmp_path/"xsum", "val")
    assert (x[0]["id"], x[0]["src"], x[0]["tgt"]) == ("n1", "News text here.", ["Short."])
    pd.DataFrame({"document": ["a b c"], "summary": ["a"]}).to_csv(tmp_path/"giga.csv", index=False)
    assert load_summarization_data(tmp_path/"giga.csv")[0]["id"] == "test:0"
    pd.DataFrame({"article": ["A text."], "headline": ["H."]}).to_csv(tmp_path/"news.csv", index=False)
    assert load_summarization_data(tmp_path/"news.csv", src_col="article", tgt_col="headline")[0]["tgt"] == ["H."]
    with pytest.raises(CitesumError, match="unknown source column 'document'"): load_summarization_data(tmp_path/"news.csv", fmt="xsum")
    with pytest.raises(CitesumError, match="unknown target column 'nope'"):
        load_summarization_data(tmp_path/"news.csv", src_col="article", tgt_col="nope")
    with pytest.raises(CitesumError, match="cannot tell the format"): load_summarization_data(tmp_path/"news.csv")


def test_scitldr_style_sections_and_whitespace(tmp_path):
    write_jsonl([{"source": ["First  sentence.\n", " ", "Second one."], "source_labels": [0, 0, 1], "paper_id": "X1",
                  "target": ["author tldr", "reviewer tldr"], "title": "T"}], tmp_path/"A"/"test.jsonl")
    r = load_summarization_data(tmp_path/"A")[0]
    assert r["src_sents"] == ["First sentence.", "Second one."] and r["source_labels"] == [0, 1]
    assert r["tgt"] == ["author tldr", "reviewer tldr"] and r["src"] == "First sentence. Second one."
    # full-text style: sections as a list of {"heading", "text": [sentences]}
    write_jsonl([{"source": [{"heading": "abstract", "text": ["A one."]}, {"heading": "1 Intro", "text": ["B two."]}],
                  "paper_id": "X2", "target": ["t"]}], tmp_path/"F"/"test.jsonl")
    assert load_summarization_data(tmp_path/"F")[0]["src_sents"] == ["A one.", "B two."]


def test_hub_name_without_network_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1"); monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CitesumError, match="Hugging Face Hub"): load_summarization_data("allenai/scitldr", "test")


# ---------------------------------------------------------------- baselines, overlap, predictions
def test_baselines(tiny_dir):
    ds = load_summarization_data(tiny_dir)
    assert baseline_predictions(ds, "lead") == ["Deep nets forget old classes.", "Proteins fold quickly.", "Graphs are everywhere."]
    assert baseline_predictions(ds, "heuristic")[:2] == ["In this paper we propose a dual memory model.", "We introduce a folding simulator."]
    assert baseline_predictions(ds, "heuristic")[2] == "Graphs are everywhere."  # no keyword: lead
    oracle = baseline_predictions(ds, "oracle")
    assert oracle[2] == "Message passing networks learn on graphs."
    for k in ("lead", "heuristic"):
        assert (per_example_rouge(oracle, ds["tgt"]).r2_f.to_numpy() + 1e-9 >= per_example_rouge(baseline_predictions(ds, k), ds["tgt"]).r2_f.to_numpy()).all()
    with pytest.raises(CitesumError, match="unknown baseline"): baseline_predictions(ds, "random")
    with pytest.raises(CitesumError, match="source_labels"): baseline_predictions(ds, "oracle", oracle_metric="labels")


def test_oracle_against_all_references_picks_best_pair(tmp_path):
    write_jsonl([{"source": ["alpha beta gamma.", "delta epsilon zeta."], "paper_id": "P",
                  "target": ["alpha beta gamma", "delta epsilon zeta eta"]}], tmp_path/"test.jsonl")
    ds = load_summarization_data(tmp_path/"test.jsonl")
    assert baseline_predictions(ds, "oracle", oracle_metric="rouge2", oracle_refs="first") == ["alpha beta gamma."]
    assert baseline_predictions(ds, "oracle", oracle_metric="rouge1", oracle_refs="all") == ["alpha beta gamma."]  # F 100 > 85.7
    write_jsonl([{"source": ["alpha beta.", "delta epsilon zeta."], "paper_id": "P",
                  "target": ["alpha beta gamma omega", "delta epsilon zeta"]}], tmp_path/"t2.jsonl")
    ds2 = load_summarization_data(tmp_path/"t2.jsonl")
    assert baseline_predictions(ds2, "oracle", oracle_metric="rouge2", oracle_refs="first") == ["alpha beta."]
    assert baseline_predictions(ds2, "oracle", oracle_metric="rouge2", oracle_refs="all") == ["delta epsilon zeta."]


def test_overlap():
    a = ["We propose a dual memory model for incremental learning without forgetting.",
         "A protein folding simulator matches experimental results.", "Graph neural networks pass messages between nodes."]
    b = ["We propose a dual memory model for incremental learning without forgetting!", "Convolutional networks classify images."]
    rep = overlap_report(a, b)
    assert [(i, j) for i, j, _ in rep["pairs"]] == [(0, 0)] and rep["share_b_covered"] == pytest.approx(50)
    assert overlap_report(a, b, chunk_size=1)["pairs"] == rep["pairs"]
    assert overlap_report(a, ["Completely unrelated sentence about cooking pasta."])["n_pairs"] == 0


def test_prediction_files(tmp_path, tiny_dir):
    ds = load_summarization_data(tiny_dir)
    p = write_predictions(["one", "two\nlines", "three"], tmp_path/"p.txt")
    assert read_predictions(p) == (["one", "two lines", "three"], None)
    (tmp_path/"noeol.txt").write_text("a\nb\nc")  # no final newline, as SciTLDR's test.jsonl
    assert read_predictions(tmp_path/"noeol.txt")[0] == ["a", "b", "c"]
    preds, ids = read_predictions(write_predictions(["x", "y"], tmp_path/"p.jsonl", ids=["c3:1", "c1:0"]))
    with pytest.warns(UserWarning, match="1 of the 3 examples"):   # c2:0 has no prediction
        assert align_predictions(preds, ids, ds)[1] == [ds[2]["tgt"], ds[0]["tgt"]]
    with pytest.raises(CitesumError, match="not in the dataset"): align_predictions(["x"], ["zzz"], ds)


# ---------------------------------------------------------------- CLI
def test_cli_baseline_eval_overlap(tmp_path, tiny_dir, capsys):
    from citesum_nb.evaluate import eval_cli, overlap_cli
    out = tmp_path/"oracle.txt"
    j = json.loads(citesum("baseline", "oracle", "--data", tiny_dir, "--out", out, "--json").stdout)  # the installed command
    assert {"rouge1", "rouge2", "rougeL", "n"} <= set(j) and j["n"] == 3
    ds = load_summarization_data(tiny_dir)
    expect = rouge_scores(baseline_predictions(ds, "oracle"), ds["tgt"])
    assert j["rouge1"] == pytest.approx(expect["rouge1"])
    bad = citesum("eval", "--pred", tmp_path/"missing.txt", "--data", tiny_dir, check=False)
    assert bad.returncode == 2 and "prediction file not found" in bad.stderr
    # the same functions in-process (faster than more subprocesses)
    assert eval_cli(["--pred", str(out), "--data", str(tiny_dir), "--split", "test", "--json"]) == 0
    e = json.loads(capsys.readouterr().out)
    assert e["rouge1"] == pytest.approx(expect["rouge1"]) and e["rougeL"] == pytest.approx(expect["rougeL"]) and e["n"] == 3
    eval_cli(["--pred", str(out), "--data", str(tiny_dir), "--multi-ref", "first"])
    assert "R-1" in capsys.readouterr().out
    overlap_cli(["--a", str(tiny_dir), "--b", str(tiny_dir), "--json"])
    assert json.loads(capsys.readouterr().out)["share_b_covered"] == 100.0


# ---------------------------------------------------------------- real data: SciTLDR-A
def test_scitldr_a_real_data():
    root = need_shared("scitldr")
    ds = load_summarization_data(root/"SciTLDR-A", "test")
    assert len(ds) == 618 and sum(map(len, ds["tgt"])) == 1967  # last line has no newline: still read
    assert all("\n" not in s and s == s.strip() for ss in ds["src_sents"][:100] for s in ss)
    assert len(load_summarization_data(root/"SciTLDR-A", "validation")) == 619
    lead = baseline_predictions(ds, "lead")
    mx, first = per_example_rouge(lead, ds["tgt"]), per_example_rouge(lead, ds["tgt"], multi_ref="first")
    assert (mx.r1_f >= first.r1_f - 1e-9).all() and mx.r1_f.mean() > first.r1_f.mean()
    labels = baseline_predictions(ds, "oracle", oracle_metric="labels")
    assert all(p in ss for p, ss in zip(labels, ds["src_sents"]))


# ---------------------------------------------------------------- SciTLDR's own oracle (scripts/get_oracle_sents.py)
def test_scitldr_oracle_selection_hand_worked(tmp_path):
    "ROUGE-1 F of the `rouge` package, best over all references, sentences of 5 to 2,500 characters, '' when nothing overlaps"
    write_jsonl([{"source": ["abc.", "the cat sat on a mat", "cats sat on the mat"], "paper_id": "P", "target": ["the cats sat", "abc"]},
                 {"source": ["alpha beta.", "gamma delta."], "paper_id": "Q", "target": ["zeta"]}], tmp_path/"test.jsonl")
    ds = load_summarization_data(tmp_path/"test.jsonl")
    # "abc." (4 characters) would match the second reference exactly but is too short for the script
    assert baseline_predictions(ds, "oracle", oracle_metric="scitldr") == ["cats sat on the mat", ""]
    assert baseline_predictions(ds, "oracle") == baseline_predictions(ds, "oracle", oracle_metric="scitldr")  # auto: SciTLDR layout
    from citesum_nb.evaluate import scitldr_rouge1
    assert scitldr_rouge1(["cats sat on the mat", "the cat sat on a mat"], "the cats sat") == pytest.approx([0.75, 4/9], abs=1e-6)


def test_scitldr_oracle_is_the_table6_row_on_real_data():
    root = need_shared("scitldr")
    ds = load_summarization_data(root/"SciTLDR-A", "test")
    from citesum_nb.evaluate import scitldr_rouge1
    import json as _json
    raw = [_json.loads(l) for l in (root/"SciTLDR-A"/"test.jsonl").read_text().splitlines()[:60]]
    # the release's precomputed `rouge_scores` are this ROUGE-1 F against the author TLDR: same package, same settings
    same = [np.allclose(scitldr_rouge1(r["source"], r["target"][0]), r["rouge_scores"], atol=1e-6)
            for r in raw if len(r["rouge_scores"]) == len(r["source"]) and all(5 <= len(s) <= 2500 for s in r["source"])]
    assert len(same) > 40 and all(same)
    j = json.loads(citesum("baseline", "oracle", "--data", root/"SciTLDR-A", "--split", "test", "--json").stdout)
    assert (j["oracle_metric"], j["n"]) == ("scitldr", 618)
    assert abs(j["rouge1"] - 47.4) <= 0.3 and abs(j["rouge2"] - 25.1) <= 0.3 and abs(j["rougeL"] - 38.4) <= 0.3


# ---------------------------------------------------------------- prediction ids: duplicates and partial coverage
def test_eval_duplicate_ids_are_an_error_and_partial_coverage_warns(tmp_path, tiny_dir, capsys):
    from citesum_nb.evaluate import eval_cli
    ds = load_summarization_data(tiny_dir)
    with pytest.raises(CitesumError, match="duplicate prediction id.*c1:0"):
        align_predictions(["a", "b"], ["c1:0", "c1:0"], ds)
    dup = write_predictions(["a", "b", "c"], tmp_path/"dup.jsonl", ids=["c1:0", "c1:0", "c3:1"])
    r = citesum("eval", "--pred", dup, "--data", tiny_dir, check=False)
    assert r.returncode == 2 and "duplicate prediction id" in r.stderr
    part = write_predictions(["REF introduce a fast protein folding simulator.", "x"], tmp_path/"part.jsonl", ids=["c2:0", "c3:1"])
    with pytest.warns(UserWarning, match="1 of the 3 examples .* no prediction"):
        preds, refs = align_predictions(*read_predictions(part), ds)
    assert len(preds) == len(refs) == 2
    assert eval_cli(["--pred", str(part), "--data", str(tiny_dir), "--json"]) == 0
    out = capsys.readouterr()
    j = json.loads(out.out)
    assert (j["n"], j["n_missing"]) == (2, 1) and "1 of the 3 examples" in out.err and "c1:0" in out.err
    strict = citesum("eval", "--pred", part, "--data", tiny_dir, "--strict", check=False)
    assert strict.returncode == 2 and "1 of the 3 examples" in strict.stderr
