"Dataset analysis: the SciTLDR abstraction figures on the real file, and the command line."
import json

import pandas as pd
import pytest

from citesum_nb.cli import abstraction_cli, human_eval_cli
from citesum_nb.core import write_jsonl
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


def _dataset(tmp_path, n=12):
    recs = [{"id": f"c{i}:0", "src": f"Abstract number {i} about topic {i % 3}.", "tgt": f"REF studies topic {i % 3}.",
             "paper_id": f"p{i}", "title": f"Paper {i}", "discipline": {"mag_field_of_study": ["Computer Science"]}}
            for i in range(n)]
    write_jsonl(recs, tmp_path/"data"/"test.jsonl")
    return tmp_path/"data"


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


def _markdown_images(nb:dict)->list:
    "(cell, alt, src) of every Markdown image of a notebook"
    import re
    return [(c, alt, src) for c in nb["cells"] if c["cell_type"] == "markdown"
            for alt, src in re.findall(r"!\[([^\]]*)\]\(([^)\s]+)", "".join(c["source"]))]


def test_real_data_figures_travel_with_the_notebook(tmp_path):
    """04_analysis shows the real-data figures of figures/ as cell attachments, the files' own bytes: they resolve wherever
    the notebook is read (the repository's web view, the executed run and its pages, the docs, a `citesum init` project,
    the wheel), where a `../figures/` link resolves from nbs/ only; and each figures/04_*.png is shown"""
    import base64
    from conftest import ROOT
    from citesum_nb.project import init_project
    init_project(tmp_path/"proj")
    for nb_path in (ROOT/"nbs"/"04_analysis.ipynb", tmp_path/"proj"/"nbs"/"04_analysis.ipynb"):   # the project's, and an init project's copy
        images = _markdown_images(json.loads(nb_path.read_text()))
        assert images and all(src.startswith("attachment:") and alt for _, alt, src in images), [src for _, _, src in images]
        shown = {}
        for cell, _, src in images:
            name = src.removeprefix("attachment:")
            shown[name] = base64.b64decode(cell["attachments"][name]["image/png"])
        assert shown == {p.name: p.read_bytes() for p in sorted((ROOT/"figures").glob("04_*.png"))}, \
            "nbs/04_analysis.ipynb shows other figures than figures/: run citesum_nb.analysis.refresh_attachments('nbs/04_analysis.ipynb', 'figures')"
