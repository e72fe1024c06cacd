"Dataset analysis: hand-made cases with known answers, the SciTLDR abstraction figures on the real file, the CLI."
import json

import numpy as np
import pandas as pd
import pytest

from citesum_nb.analysis import (abstraction_cli, abstraction_level, citation_distribution, dataset_statistics,
                                 discipline_distribution, extractive_fragments, extractiveness, human_eval_cli,
                                 read_rating_sheet, sample_for_rating, summarize_ratings, tokenize, write_rating_sheets)
from citesum_nb.core import CitesumError, write_jsonl
from conftest import citesum, need_shared


def _rounded(groups):
    return {g: [round(v[k], 1) for k in ("rouge1", "rouge2", "rougeL")] for g, v in groups.items()}


@pytest.fixture(scope="module")
def scitldr_test():
    return need_shared("scitldr")/"SciTLDR-A"


def test_scitldr_abstraction_matches_paper(scitldr_test, capsys):
    "The paper's SciTLDR figures: 81.1/38.9/62.0 (author), 65.2/17.9/45.7 (peer review, first per paper)"
    assert abstraction_cli(["--data", str(scitldr_test), "--split", "test", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res) == {"all", "author", "peer_review", "peer_review_first"}
    assert {g: v["n"] for g, v in res.items()} == {"all": 1967, "author": 618, "peer_review": 1349, "peer_review_first": 618}
    r = _rounded(res)
    assert r["author"] == [81.1, 38.9, 62.0]
    assert r["peer_review_first"] == [65.2, 17.9, 45.7]
    assert r["peer_review"] == [65.4, 18.3, 45.6]     # every peer-review TLDR: slightly above the paper's figures
    assert r["all"] == [70.3, 24.8, 50.8]


def test_scitldr_abstraction_without_stemming_is_lower(scitldr_test, capsys):
    assert abstraction_cli(["--data", str(scitldr_test), "--no-stem", "--max-examples", "100", "--json"]) == 0
    nostem = json.loads(capsys.readouterr().out)
    abstraction_cli(["--data", str(scitldr_test), "--max-examples", "100", "--json"])
    stem = json.loads(capsys.readouterr().out)
    assert nostem["author"]["n"] == 100
    for k in ("rouge1", "rouge2", "rougeL"): assert nostem["author"][k] < stem["author"][k]


def test_abstraction_known_values():
    df = pd.DataFrame({"src": ["the cat sat on the mat"], "tgt": [["the cat ran"]]})
    r = abstraction_level(df)["all"]
    assert r["n"] == 1
    assert r["rouge1"] == pytest.approx(66.67) and r["rouge2"] == pytest.approx(50.0) and r["rougeL"] == pytest.approx(66.67)


def test_statistics_row():
    sp = {"train": pd.DataFrame({"src": ["a b c d", "a b"], "tgt": [["x y"], ["x"]]}), "val": None,
          "test": pd.DataFrame({"src": ["a b c"], "tgt": [["x y z", "p q r s t"]]})}
    row = dataset_statistics(sp, "toy", automatic=False)
    assert (row["Train"], row["Val"], row["Test"]) == (2, 0, 1)
    assert row["Src words"] == 3.0                # (4 + 2 + 3) / 3
    assert row["Summary words"] == 2.8            # (2 + 1 + 3 + 5) / 4 references
    assert row["Automatic"] == "no"


def test_discipline_and_citation_distribution():
    df = pd.DataFrame({"paper_id": ["a", "a", "b", "c", "c", "c", "c", "c", "d"],
                       "discipline": [{"mag_field_of_study": ["Physics", "Mathematics"]}]*2 + [{"mag_field_of_study": ["Biology"]}]
                                     + [{"mag_field_of_study": ["Physics"]}]*5 + [{"mag_field_of_study": []}]})
    d = discipline_distribution(df, min_share=0.0)
    assert dict(zip(d["discipline"], d["papers"])) == {"Physics": 2, "Biology": 1}
    assert d.attrs["n_papers"] == 4 and d.attrs["n_unknown"] == 1
    assert discipline_distribution(df, min_share=0.3)["discipline"].tolist() == ["Physics"]
    bins, s = citation_distribution(df)
    assert bins["papers"].tolist() == [2, 1, 0, 0, 1]
    assert s == {"unique_papers": 4, "examples": 9, "mean_examples_per_paper": 2.25, "share_below_5": 75.0}


def test_extractive_fragments_and_measures():
    # summary: "a b c x d e" against source "d e a b c": fragments "a b c" and "d e", "x" is novel
    assert extractive_fragments(tokenize("a b c x d e"), tokenize("d e a b c")) == [["a", "b", "c"], ["d", "e"]]
    m = extractiveness("d e a b c", "a b c x d e", ns=(1, 2))
    assert m["coverage"] == pytest.approx(5/6)
    assert m["density"] == pytest.approx((9 + 4)/6)
    assert m["compression"] == pytest.approx(5/6)
    assert m["novel_1"] == pytest.approx(100/6)           # x
    assert m["novel_2"] == pytest.approx(100*2/5)         # "c x", "x d"
    assert m["repeated_1"] == 0
    rep = extractiveness("we propose a model", "a model a model", ns=(1, 2))
    assert rep["repeated_1"] == pytest.approx(50.0) and rep["repeated_2"] == pytest.approx(100/3)
    assert np.isnan(extractiveness("a b c", "a", ns=(2,))["novel_2"])


def test_kappa_known_table():
    # ratings (4,4,3,1) vs (4,3,3,1): p_o = 3/4, p_e = 5/16, kappa = 7/11
    a = pd.DataFrame({"id": list("abcd"), "rating": [4, 4, 3, 1]})
    b = pd.DataFrame({"id": list("abcd"), "rating": [4, 3, 3, 1]})
    s = summarize_ratings([a, b])
    assert s["kappa"]["unweighted"] == pytest.approx(7/11)
    # linear weights |i-j|/3: observed disagreement 1/3 * 1/4; expected from the marginals
    pa, pb = np.array([1, 0, 1, 2])/4, np.array([1, 0, 2, 1])/4
    w = np.abs(np.subtract.outer(np.arange(4), np.arange(4)))/3
    assert s["kappa"]["linear"] == pytest.approx(1 - (1/3 * 1/4) / (w * np.outer(pa, pb)).sum())
    assert s["share_ge_3"] == pytest.approx(75.0)
    assert s["distribution"]["all"].tolist() == [2, 0, 3, 3]
    same = summarize_ratings([a, a])
    assert same["kappa"]["unweighted"] == pytest.approx(1.0) and same["kappa"]["quadratic"] == pytest.approx(1.0)


def _dataset(tmp_path, n=12):
    recs = [{"id": f"c{i}:0", "src": f"Abstract number {i} about topic {i % 3}.", "tgt": f"REF studies topic {i % 3}.",
             "paper_id": f"p{i}", "title": f"Paper {i}", "discipline": {"mag_field_of_study": ["Computer Science"]}}
            for i in range(n)]
    write_jsonl(recs, tmp_path/"data"/"test.jsonl")
    return tmp_path/"data"


def test_rating_sheets_roundtrip_and_errors(tmp_path):
    sheet = sample_for_rating(pd.DataFrame({"id": ["x", "y", "z"], "title": ["T1", "T2", "T3"], "src": ["A1", "A2", "A3"],
                                            "tgt": [["C1"], ["C2"], ["C3"]]}), n=2, seed=1)
    assert len(sheet) == 2 and sheet["rating"].eq("").all()
    paths = write_rating_sheets(sheet, tmp_path, annotators=2, html_pages=True)
    assert sorted(p.name for p in paths) == ["rating_sheet_annotator1.csv", "rating_sheet_annotator1.html",
                                             "rating_sheet_annotator2.csv", "rating_sheet_annotator2.html"]
    with pytest.raises(CitesumError, match=r"line 2 .*missing rating"): read_rating_sheet(paths[0])
    d = pd.read_csv(paths[0], dtype=str, keep_default_na=False)
    d["rating"] = ["4", "0"]; d.to_csv(paths[0], index=False)
    with pytest.raises(CitesumError, match=r"line 3 \(item 2, id \w+\): rating '0' is outside 1-4"): read_rating_sheet(paths[0])
    d["rating"] = ["4", "good"]; d.to_csv(paths[0], index=False)
    with pytest.raises(CitesumError, match=r"line 3 .*not a number"): read_rating_sheet(paths[0])


def test_human_eval_cli(tmp_path, capsys):
    data = _dataset(tmp_path)
    out = tmp_path/"sheets"
    assert human_eval_cli(["sample", "--data", str(data), "-n", "5", "--seed", "3", "--annotators", "2", "--html", "--out", str(out)]) == 0
    a1, a2 = out/"rating_sheet_annotator1.csv", out/"rating_sheet_annotator2.csv"
    s1 = pd.read_csv(a1, dtype=str, keep_default_na=False)
    assert len(s1) == 5 and s1["citation_sentence"].str.startswith("REF studies").all()
    assert "Does the citation sentence" in (out/"rating_sheet_annotator1.html").read_text()
    s1["rating"] = [4, 4, 3, 2, 1]; s1.to_csv(a1, index=False)
    s2 = pd.read_csv(a2, dtype=str, keep_default_na=False); s2["rating"] = [4, 3, 3, 2, 1]; s2.to_csv(a2, index=False)
    capsys.readouterr()
    assert human_eval_cli(["summarize", str(a1), str(a2), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["n_items"] == 5 and r["share_ge_3"] == pytest.approx(60.0)
    assert 0 < r["kappa"]["unweighted"] < r["kappa"]["quadratic"] < 1
    # same seed, same items
    human_eval_cli(["sample", "--data", str(data), "-n", "5", "--seed", "3", "--annotators", "1", "--out", str(tmp_path/"again")])
    assert pd.read_csv(tmp_path/"again"/"rating_sheet_annotator1.csv")["id"].tolist() == s1["id"].tolist()


def test_cli_smoke(tmp_path):
    data = _dataset(tmp_path)
    r = citesum("abstraction", "--data", data, "--split", "test", "--json")
    res = json.loads(r.stdout)
    assert list(res) == ["all"] and res["all"]["n"] == 12
    bad = citesum("human-eval", "summarize", tmp_path/"missing.csv", check=False)
    assert bad.returncode == 2 and "no such rating sheet" in bad.stderr
