"Cross-dataset evaluation (`citesum crosseval`) and dataset bias (`citesum bias`) end to end, on hand-made and real data."
import json
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, citesum, documents, need_shared


def last_json(stdout:str)->dict: return json.loads(stdout.strip().splitlines()[-1])


def test_commands_are_listed():
    out = citesum("--help").stdout
    assert "crosseval" in out and "bias" in out


# ---- citesum crosseval --matrix -------------------------------------------------------------------------------------

def test_matrix_json_hand_worked(tmp_path):
    f = tmp_path/"scores.csv"
    f.write_text("train,A,B\nA,40,20\nB,30,25\n")
    res = last_json(citesum("crosseval", "--matrix", f, "--json").stdout)
    assert set(res) == {"stiffness", "stableness"}
    assert res["stiffness"] == pytest.approx(28.75) and res["stableness"] == pytest.approx(88.75)


def test_matrix_columns_in_another_order_and_heatmap(tmp_path):
    f = tmp_path/"scores.csv"
    f.write_text("train,B,A\nA,20,40\nB,25,30\n")          # same matrix, test columns in another order
    r = citesum("crosseval", "--matrix", f, "--out", tmp_path/"fig")
    assert "stiffness 28.75" in r.stdout and "stableness 88.75" in r.stdout
    assert (tmp_path/"fig"/"scores_matrix.png").exists()


def test_matrix_of_a_system_that_ignores_training(tmp_path):
    f = tmp_path/"lead.csv"
    f.write_text("train,X,Y,Z\nX,31,12,7\nY,31,12,7\nZ,31,12,7\n")
    assert last_json(citesum("crosseval", "--matrix", f, "--json").stdout)["stableness"] == pytest.approx(100)


@pytest.mark.parametrize("text,msg", [("train,A,B\nA,1,2\n", "same datasets as rows"),
                                      ("train,A,B\nA,1,x\nB,2,3\n", "every cell must be a number"),
                                      ("train,A,B\nA,1,2\nB,3,0\n", "U_jj is 0 for B"),
                                      ('{"A": {"A": 40, "B": 20}}', "needs at least one dataset"),   # JSON, not CSV: no row
                                      ("train,A,B\n", "needs at least one dataset")])
def test_matrix_bad_input_is_one_line(tmp_path, text, msg):
    f = tmp_path/"m.csv"; f.write_text(text)
    r = citesum("crosseval", "--matrix", f, check=False)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_missing_matrix_file(tmp_path):
    r = citesum("crosseval", "--matrix", tmp_path/"nope.csv", check=False)
    assert r.returncode == 2 and "matrix file not found" in r.stderr


# ---- citesum crosseval --params ---------------------------------------------------------------------------------------

def write_params(tmp_path, **over):
    p = {"systems": ["lead", "oracle", "logreg", "seq2seq"], "compare": ["logreg/lead"], "max_steps": 2,
         "max_test_examples": 4, "max_length": 10, "bias_max_examples": 4,
         "out_dir": str(tmp_path/"out"), "fig_dir": str(tmp_path/"out"/"figures"), **over}
    f = tmp_path/"11a_crosseval.test.yaml"; f.write_text(yaml.safe_dump(p)); return f


def test_params_end_to_end_on_the_sample(tmp_path):
    "Three datasets from the bundled sample, split jointly by paper; every system, a tiny seq2seq model included"
    res = last_json(citesum("crosseval", "--params", write_params(tmp_path), "--json").stdout)
    assert res["metric"] == "rouge1" and set(res["systems"]) == {"lead", "oracle", "logreg", "seq2seq"}
    assert res["systems"]["lead"]["stableness"] == pytest.approx(100)
    assert res["systems"]["oracle"]["stableness"] == pytest.approx(100)
    results = tmp_path/"out"/"results"
    for name in ("12_scalars", "12_comparisons", "12_overlap", "12_paper_leaks", "12_bias", "12_matrix_logreg_rouge2", "12_in_domain"):
        assert (results/f"{name}.csv").exists(), name
    leaks = (results/"12_paper_leaks.csv").read_text().splitlines()[1:]
    assert all(v == "0" for line in leaks for v in line.split(",")[1:])
    # the matrix a run writes is a valid --matrix input
    m = last_json(citesum("crosseval", "--matrix", results/"12_matrix_logreg_rouge1.csv", "--json").stdout)
    assert m["stiffness"] == pytest.approx(res["systems"]["logreg"]["stiffness"])
    # the in-domain table is the matrices' diagonal, system by system
    import pandas as pd
    ind = pd.read_csv(results/"12_in_domain.csv").set_index("system")
    U = pd.read_csv(results/"12_matrix_logreg_rouge1.csv", index_col=0)
    assert [round(ind.loc["logreg", f"{d} rouge1"], 6) for d in U.index] == [round(U.loc[d, d], 6) for d in U.index]


def test_params_set_and_errors(tmp_path):
    f = write_params(tmp_path, systems=["lead", "oracle"], compare=["oracle/lead"])
    res = last_json(citesum("crosseval", "--params", f, "--set", "metric=rouge2", "--json").stdout)
    assert res["metric"] == "rouge2" and set(res["systems"]) == {"lead", "oracle"}
    r = citesum("crosseval", "--params", f, "--set", "metrc=rouge2", check=False)
    assert r.returncode == 2 and "unknown parameter 'metrc'" in r.stderr
    bad = write_params(tmp_path, systems=["lead", "bertsum"])
    r = citesum("crosseval", "--params", bad, check=False)
    assert r.returncode == 2 and "systems=" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@documents("citesum crosseval --params params/11a_crosseval.small.yaml --set systems=lead,oracle,logreg")
def test_readme_offline_command_validates():
    "`citesum crosseval --params params/11a_crosseval.small.yaml --set systems=lead,oracle,logreg` (README): compare defaults to every pair"
    from citesum_nb.crosseval import CrossEvalParams, compare_pairs
    from citesum_nb.params import load_params
    p = load_params(CrossEvalParams, ROOT/"params"/"11a_crosseval.small.yaml", sets=["systems=lead,oracle,logreg"])
    assert compare_pairs(p) == ["lead/oracle", "lead/logreg", "oracle/logreg"]
    r = citesum("crosseval", "--params", ROOT/"params"/"11a_crosseval.small.yaml", "--set", "systems=lead,oracle,logreg",
                "--set", "compare=[seq2seq/lead]", check=False)
    assert r.returncode == 2 and "compare=" in r.stderr and len(r.stderr.strip().splitlines()) == 1   # a pair naming a system not run


def test_small_profile_splits_the_acl_datasets_jointly():
    "The offline profile's datasets load from the shared data; ScisummNet and its titles share no paper across train/test"
    need_shared("clscisumm"); need_shared("scitldr")
    from citesum_nb.crosseval import CrossEvalParams, load_crosseval_data, paper_leaks
    from citesum_nb.params import load_params
    p = load_params(CrossEvalParams, ROOT/"params"/"11a_crosseval.small.yaml")
    data = load_crosseval_data(p.datasets, None, p.split_ratios, p.seed, max_train=0, max_test=0)
    assert list(data) == ["SciTLDR-A", "ScisummNet", "ACL-Title"]
    assert int(paper_leaks(data).to_numpy().sum()) == 0
    assert len(data["SciTLDR-A"]["test"]) == 618


# ---- citesum bias ---------------------------------------------------------------------------------------------------

def test_bias_on_a_jsonl_folder(tmp_path):
    recs = [{"src": "The cat sat on the mat. The dog ran.", "tgt": "The cat sat on the dog."},
            {"src": "Red blue green. Yellow.", "tgt": "Red blue green red blue green red blue green."}]
    (tmp_path/"test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = last_json(citesum("bias", "--data", tmp_path, "--split", "test", "--json").stdout)
    assert set(res) == {"coverage", "density", "compression", "copy_length", "novelty_2", "repetition_3", "fusion", "n"}
    assert res["n"] == 2
    first = last_json(citesum("bias", "--data", tmp_path, "--split", "test", "--max-examples", "1", "--json").stdout)
    assert first["coverage"] == pytest.approx(1.0) and first["density"] == pytest.approx(27/7)
    assert first["copy_length"] == pytest.approx(7/3) and first["novelty_2"] == pytest.approx(0.5)
    assert res["repetition_3"] == pytest.approx((0 + 2/7) / 2)


def test_bias_bad_input(tmp_path):
    r = citesum("bias", "--data", tmp_path/"nothing", check=False)
    assert r.returncode == 2 and "dataset not found" in r.stderr


@documents("citesum bias --data ../shared/data/scitldr/SciTLDR-A --split test --json")
def test_bias_on_scitldr_test():
    "The released code's protocol (one pair per paper: the author-written TLDR; spaCy tokens; lookup lemmas), as nbs/11_bias reports it"
    d = need_shared("scitldr")/"SciTLDR-A"
    res = last_json(citesum("bias", "--data", d, "--split", "test", "--json").stdout)
    assert res["n"] == 618                                   # 618 papers, their first TLDR
    got = {k: round(res[k], 3) for k in ("coverage", "density", "compression", "copy_length", "novelty_2", "repetition_3", "fusion")}
    assert got == {"coverage": 0.772, "density": 3.412, "compression": 10.372, "copy_length": 2.834, "novelty_2": 0.686,
                   "repetition_3": 0.0, "fusion": 0.563}, got


# ---- CDEvalSumm's datasets -------------------------------------------------------------------------------------------

HUB_ROWS = {"abisee/cnn_dailymail": {"article": "A storm hit. Roads closed.", "highlights": "Storm hits.", "id": "c1"},
            "EdinburghNLP/xsum": {"document": "The club won. Fans cheered.", "summary": "The club won.", "id": "x1"},
            "armanc/scientific_papers": {"article": "we study mice .\nthey run .", "abstract": "<S> mice run . </S>", "section_names": "introduction"},
            "NortheasternUniversity/big_patent": {"description": "A device holds a cup.", "abstract": "A cup holder."},
            "ctr4si/reddit_tifu": {"documents": "So today I spilled coffee.", "tldr": "spilled coffee", "title": "spilling", "ups": 3}}


def test_cdevalsumm_datasets_through_their_hub_names(monkeypatch):
    """The five datasets of CDEvalSumm load under the Hub names, configurations and columns of CDEVALSUMM_DATASETS; the
    Hub is replaced by records written here in each dataset's column layout, and every call is checked."""
    import datasets
    from citesum_nb.crosseval import CDEVALSUMM_DATASETS, load_crosseval_data
    calls = []
    def fake(name, config=None, split=None, **kw):
        calls.append((name, config, split))
        return datasets.Dataset.from_list([HUB_ROWS[name]] * 3)
    monkeypatch.setattr(datasets, "load_dataset", fake)
    data = load_crosseval_data(CDEVALSUMM_DATASETS, None)
    assert sorted(set(calls)) == sorted({(n, c, s) for n, c in [("abisee/cnn_dailymail", "3.0.0"), ("EdinburghNLP/xsum", None),
        ("armanc/scientific_papers", "pubmed"), ("NortheasternUniversity/big_patent", "b"), ("ctr4si/reddit_tifu", "long")]
        for s in ("train", "test")})
    got = {n: (d["test"][0]["src"], d["test"][0]["tgt"]) for n, d in data.items()}
    assert got == {"CNN/DM": ("A storm hit. Roads closed.", ["Storm hits."]), "XSum": ("The club won. Fans cheered.", ["The club won."]),
                   "PubMed": ("we study mice . they run .", ["mice run ."]), "BigPatent B": ("A device holds a cup.", ["A cup holder."]),
                   "Reddit TIFU": ("So today I spilled coffee.", ["spilled coffee"])}
    assert data["CNN/DM"]["spec"]["extract_sentences"] == 3


def test_cdevalsumm_profile_plans():
    "params/11a_crosseval.cdevalsumm.yaml names the five datasets of CDEVALSUMM_DATASETS"
    from citesum_nb.crosseval import CDEVALSUMM_DATASETS, CrossEvalParams
    from citesum_nb.params import load_params
    p = load_params(CrossEvalParams, ROOT/"params"/"11a_crosseval.cdevalsumm.yaml")
    assert [(d["name"], d["path"]) for d in p.datasets] == [(d["name"], d["path"]) for d in CDEVALSUMM_DATASETS]
