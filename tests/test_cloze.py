"The summary cloze dataset (nbs/11_cloze*.ipynb): `citesum cloze` end to end on the sample, bad input, and the real ACL papers."
import json
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, citesum, need_shared

BASELINES = ("lead1", "lead200", "oracle1", "bm25", "sumfocus")


def _last_json(stdout:str)->dict:
    return json.loads(stdout.strip().splitlines()[-1])


def _cli(capsys, *args)->tuple:
    "`citesum ARGS` in this process (after one real subprocess run per command): (exit status, stdout, stderr)"
    from citesum_nb.cli import main
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def _read(folder:Path)->dict:
    return {s: [json.loads(l) for l in (folder/f"{s}.jsonl").read_text().splitlines() if l.strip()] for s in ("train", "val", "test")}


def _no_paper_in_two_splits(splits:dict)->list:
    where = {}
    for s, xs in splits.items():
        for x in xs:
            for p in [x["citing_paper_id"]] + [d["paper_id"] for d in x["documents"]]: where.setdefault(p, set()).add(s)
    return sorted(p for p, ss in where.items() if len(ss) > 1)


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("cloze")/"sample"
    r = citesum("cloze", "build", "--out", out)
    assert "Summary cloze build report" in r.stdout and f"dataset written to {out.resolve()}" in r.stdout
    return out


def test_cloze_build_on_the_sample(sample_build):
    report = json.loads((sample_build/"report.json").read_text())
    st, splits = report["stages"], _read(sample_build)
    assert st["instances"] == sum(map(len, splits.values())) > 20
    assert st["rw_sentences"] == st["sentences_no_citation"] + st["sentences_citation_unlinked"] + \
        st["first_sentence_with_linked_citation"] + st["cloze_empty_after_markers"] + st["cloze_candidates"]
    assert all(splits.values()) and _no_paper_in_two_splits(splits) == []
    assert all(x["sentence_index"] > 0 and x["context"] and x["documents"] for xs in splits.values() for x in xs)
    for f in ("report.md", "hf/dataset_dict.json", "hf/train/dataset_info.json"): assert (sample_build/f).exists(), f
    from datasets import load_from_disk
    assert load_from_disk(str(sample_build/"hf"))["test"].num_rows == len(splits["test"])


def test_cloze_baselines_on_the_sample(sample_build, capsys):
    n_test = len(_read(sample_build)["test"])
    res = {"bm25": _last_json(citesum("cloze", "baseline", "bm25", "--data", sample_build, "--json").stdout)}   # the real command
    for name in BASELINES:
        rc, out, _ = _cli(capsys, "cloze", "baseline", name, "--data", sample_build, "--json")
        res[name] = _last_json(out)
        assert rc == 0 and {"rouge1", "rouge2", "rougeL"} <= set(res[name]) and res[name]["n"] == n_test, res[name]
    for name in ("lead1", "bm25", "sumfocus"):                     # one-sentence systems: the oracle bounds them
        assert all(res["oracle1"][m] >= res[name][m] - 1e-9 for m in ("rouge1", "rouge2", "rougeL")), (name, res)
    assert set(res["sumfocus"]["sumfocus"]) == {"beta", "topic_lambda", "context_lambda"}
    rc, table, _ = _cli(capsys, "cloze", "baseline", "lead1", "--data", sample_build)
    assert "R-1" in table and "{" not in table.strip().splitlines()[-1]


def test_cloze_markers_and_context_options(tmp_path, capsys):
    out = tmp_path/"ref"
    rc, _, _ = _cli(capsys, "cloze", "build", "--out", out, "--markers", "ref", "--max-context-sentences", "1", "--docs", "aic", "--seed", "3")
    xs = [x for v in _read(out).values() for x in v]
    assert rc == 0 and all(len(x["context"]) == 1 for x in xs)
    assert any("REF" in x["cloze"] for x in xs)
    assert json.loads((out/"report.json").read_text())["settings"]["docs"] == "aic"


def test_cloze_bad_input_is_one_line(tmp_path, capsys):
    r = citesum("cloze", "build", "--s2orc", tmp_path/"missing", "--out", tmp_path/"x", check=False)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "--s2orc folder not found" in r.stderr
    rc, _, err = _cli(capsys, "cloze", "baseline", "bm25", "--data", tmp_path)
    assert rc == 2 and "no test.jsonl" in err
    rc, _, err = _cli(capsys, "cloze", "build", "--out", tmp_path/"x", "--split-ratios", "0.9,0.2,0.1")
    assert rc == 2 and "split_ratios" in err and err.strip().count("\n") == 0
    with pytest.raises(SystemExit): _cli(capsys, "cloze", "build", "--out", tmp_path/"x", "--docs", "fulltext")
    assert "invalid choice" in capsys.readouterr().err


def test_cloze_builds_the_same_from_the_api_layout(tmp_path):
    """The Datasets API layout keeps abstracts only in the full text, so the second pass reads them there. The API copy
    holds the sample's full-text papers only (not its metadata-only papers): it gives the same instances, except those
    whose cited papers have no full text, which it drops as cited_not_in_corpus."""
    from citesum_nb.cloze import ClozeParams, build_cloze
    from citesum_nb.s2orc import load_papers, write_s2_api_layout
    papers = load_papers()
    api = write_s2_api_layout(papers, tmp_path/"api")
    a, b = build_cloze(ClozeParams(), tmp_path/"a"), build_cloze(ClozeParams(s2orc_dir=str(api)), tmp_path/"b")
    assert b["input"]["format"] == "s2-api"
    key = lambda x: (x["id"], x["cloze"], tuple(x["context"]), tuple(x["topic"]), json.dumps(x["documents"], sort_keys=True))
    xa = {x["id"]: x for v in _read(tmp_path/"a").values() for x in v}
    xb = {x["id"]: x for v in _read(tmp_path/"b").values() for x in v}
    assert set(xb) <= set(xa) and all(key(xb[i]) == key(xa[i]) for i in xb)
    with_text = {p["paper_id"] for p in papers}
    missing = [xa[i] for i in set(xa) - set(xb)]
    assert missing and all(not set(x["cited_ids"]) & with_text for x in missing)
    lost = lambda r: r["stages"]["cited_not_in_corpus"] + r["stages"]["cited_abstract_missing"]   # a metadata-only paper without
    assert lost(b) == lost(a) + len(missing)                                                       # abstract changes reason
    for k in ("rw_sentences", "cloze_candidates", "first_sentence_with_linked_citation", "sentences_citation_unlinked"):
        assert a["stages"][k] == b["stages"][k], k


def test_notebook_parameters_cells_are_written_from_the_classes():
    "Each cloze notebook's tagged cell is exactly parameters_cell(its class): papermill, the CLI and the library agree"
    from citesum_nb.params import parameters_cell
    from citesum_nb.cloze import ClozeParams
    from citesum_nb.cloze_baselines import ClozeBaselinesParams
    from citesum_nb.cloze_model import ClozeModelParams
    for cls in (ClozeParams, ClozeBaselinesParams, ClozeModelParams):
        cells = json.loads((ROOT/"nbs"/f"{cls.notebook}.ipynb").read_text())["cells"]
        cell = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
        assert "".join(cell["source"]) == parameters_cell(cls), cls.notebook


def test_cloze_on_clscisumm(tmp_path, capsys):
    "Real ACL papers: a few hundred instances; ORACLE-1 is far above BM25 and LEAD-1 (BM25 vs LEAD-1: see the README)"
    data = need_shared("clscisumm")
    prof = yaml.safe_load((ROOT/"params"/"11_cloze.clscisumm.yaml").read_text())
    out = tmp_path/"clscisumm"
    rc, _, _ = _cli(capsys, "cloze", "build", "--s2orc", data, "--out", out, "--split-ratios", ",".join(map(str, prof["split_ratios"])))
    report = json.loads((out/"report.json").read_text())
    assert rc == 0 and 150 <= report["stages"]["instances"] <= 1000, report["stages"]
    assert report["stages"]["papers_with_related_work"] >= 300 and report["split"]["papers_crossing"] == 0
    assert report["bad_input"]["counts"] == {}
    res = {b: _last_json(_cli(capsys, "cloze", "baseline", b, "--data", out, "--json")[1]) for b in ("lead1", "bm25", "oracle1")}
    r1 = {b: r["rouge1"] for b, r in res.items()}
    print("ROUGE-1 F on the CL-SciSumm test split:", r1)
    assert res["oracle1"]["n"] >= 40
    assert r1["oracle1"] > r1["bm25"] + 5 and r1["oracle1"] > r1["lead1"] + 5, r1
    # The paper's BM25 > LEAD-1 (21.33 vs 17.50 on WikiCite) does not reproduce here: on this split BM25 is 0.4 below
    # LEAD-1, and the difference is not significant on test or validation (README, "Related-work summary cloze").
    assert 10 < r1["lead1"] < 30 and 10 < r1["bm25"] < 30, r1


def test_cloze_build_without_related_work(tmp_path):
    "A corpus without Related Work sections gives an empty, loadable dataset and a valid JSON report, not an error"
    from datasets import load_from_disk
    from citesum_nb.citations import related_work_paragraphs
    from citesum_nb.cloze import ClozeParams, build_cloze
    from citesum_nb.s2orc import load_papers, write_s2_api_layout
    api = write_s2_api_layout([p for p in load_papers() if not related_work_paragraphs(p)][:5], tmp_path/"api")
    report = build_cloze(ClozeParams(s2orc_dir=str(api)), tmp_path/"out")
    assert report["stages"]["instances"] == 0 and report["split"]["papers_crossing"] == 0
    json.loads((tmp_path/"out"/"report.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in report.json"))
    assert {k: v.num_rows for k, v in load_from_disk(str(tmp_path/"out"/"hf")).items()} == {"train": 0, "val": 0, "test": 0}
