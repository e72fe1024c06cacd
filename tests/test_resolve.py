"`citesum resolve` (citation resolution, Duma & Klein 2014) end to end: the bundled sample, bad input, Dask schedulers, real ACL papers."
import gzip, json
from pathlib import Path

import papermill as pm
import pytest
import yaml

from citesum_nb.cli import main
from citesum_nb.params import parameters_cell
from citesum_nb.resolve import ResolveParams
from conftest import ROOT, citesum, need_shared

FEW = ["--windows", "10:10,20:20", "--representations", "title_abstract,inlink_context20,inlink_context20+passage250"]


def _json(r):
    "The JSON object on the last line of stdout"
    return json.loads(r.stdout.strip().splitlines()[-1])


def _para(text, *cites):
    "A paragraph whose cite spans are the given (marker, ref_id) pairs, found in order"
    spans, at = [], 0
    for marker, rid in cites:
        i = text.index(marker, at); at = i + len(marker)
        spans.append({"start": i, "end": at, "text": marker, "ref_id": rid})
    return {"section": "Introduction", "text": text, "cite_spans": spans, "ref_spans": []}


def _record(pid, paras, links):
    return {"paper_id": pid, "_pdf_hash": "", "abstract": [{"section": "Abstract", "text": f"About {pid}.", "cite_spans": [], "ref_spans": []}],
            "body_text": paras, "bib_entries": {f"BIBREF{i}": {"title": "", "link": l} for i, l in enumerate(links)}, "ref_entries": {}}


def _corpus(root, records, extra_lines=()):
    "A 2020-07-05 layout folder with the given full-text records (and raw extra lines)"
    (root/"pdf_parses").mkdir(parents=True)
    lines = [json.dumps(r).encode() for r in records] + list(extra_lines)
    (root/"pdf_parses"/"pdf_parses_0.jsonl.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    return root


@pytest.fixture(scope="module")
def sample_run():
    return _json(citesum("resolve", *FEW, "--json", "--quiet"))


def test_sample_json_rows(sample_run):
    rows = sample_run["rows"]
    assert len(rows) == 2 * 3 * 2                      # scorers x representations x windows
    assert all(set(r) == {"scorer", "representation", "window", "accuracy", "random_baseline", "n_docs", "n_citations"} for r in rows)
    assert {(r["n_docs"], r["n_citations"]) for r in rows} == {(23, 82)}
    assert len({r["random_baseline"] for r in rows}) == 1
    assert all(0 <= r["accuracy"] <= 1 for r in rows)
    assert {r["scorer"] for r in rows} == {"tfidf", "bm25"}
    assert sample_run["bad_input"] == {}


def test_sample_table_is_printed():
    r = citesum("resolve", "--windows", "10:5", "--representations", "passage350", "--scorers", "tfidf", "--quiet")
    assert "| tfidf" in r.stdout and "passage350" in r.stdout and "random_baseline" in r.stdout
    assert "bad input: none" in r.stdout and "23 documents, 82 citations" in r.stdout


def test_worker_processes_give_the_same_rows(sample_run):
    "the per-document Dask tasks on two worker processes, three documents per task: the same numbers as in one process"
    par = _json(citesum("resolve", *FEW, "--scheduler", "processes", "--workers", "2", "--docs-per-task", "3", "--json", "--quiet"))
    assert par["rows"] == sample_run["rows"]


@pytest.mark.parametrize("args,message", [
    (["--windows", "10-10"], "bad window '10-10'"),
    (["--representations", "abstract"], "unknown representation 'abstract'"),
    (["--min-refs", "0"], "min_refs=0: must be at least 1"),
    (["--s2orc", "/no/such/folder"], "--s2orc folder not found"),
    (["--scorers", "lucene"], "must be one of tfidf, bm25"),
])
def test_bad_options_are_one_line_errors(args, message, capsys):
    "in-process through the command's entry point (the same code as the console script, without a second interpreter)"
    try: rc = main(["resolve", *args, "--quiet"])
    except SystemExit as e: rc = e.code                              # argparse's own errors
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err.strip().splitlines()[-1], err              # argparse's usage lines may come first


def test_no_resolvable_citation_is_a_clear_error(tmp_path):
    recs = [_record("A", [_para("Parsing [1] and tagging [2].", ("[1]", "BIBREF0"), ("[2]", "BIBREF1"))], ["P", "Q"]),
            _record("B", [_para("Nothing cited.")], [])]
    r = citesum("resolve", "--s2orc", _corpus(tmp_path/"c", recs), "--quiet", check=False)
    assert r.returncode == 2
    assert "no resolvable citation in" in r.stderr and "has at least 2 collection-internal references" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_bad_lines_are_counted(tmp_path):
    "a damaged corpus line is counted by reason in the output, and the rest is resolved"
    recs = [_record("A", [_para("Shift-reduce parsing [1] is fast, and chart parsing [2] is exact.", ("[1]", "BIBREF0"),
                                ("[2]", "BIBREF1"))], ["X", "Y"]),
            _record("X", [_para("We parse with a shift-reduce automaton.")], []),
            _record("Y", [_para("We parse charts exactly.")], [])]
    folder = _corpus(tmp_path/"c", recs, [b'{"paper_id": "Z", "body_text": [', b'{"paper_id": "W", "body_text": []}'])
    res = _json(citesum("resolve", "--s2orc", folder, "--representations", "full_text", "--windows", "3:3", "--json", "--quiet"))
    assert res["bad_input"]["malformed_json"]["count"] == 1
    assert res["bad_input"]["missing_key:bib_entries"]["count"] == 1
    assert {(r["n_docs"], r["n_citations"]) for r in res["rows"]} == {(1, 2)}
    assert all(r["accuracy"] == 1.0 and r["random_baseline"] == 0.5 for r in res["rows"])


def test_params_files_and_parameters_cell():
    "every field in the params files, checked by ResolveParams; the notebook's parameters cell is written from the class"
    for f in sorted((ROOT/"params").glob("09_citation_resolution.*.yaml")):
        d = yaml.safe_load(f.read_text())
        assert list(d) == ResolveParams.names(), f.name
        ResolveParams.from_dict(d, f.name)
    nb = json.loads((ROOT/"nbs"/"09_citation_resolution.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    assert "".join(cell["source"]) == parameters_cell(ResolveParams)
    assert list(pm.inspect_notebook(str(ROOT/"nbs"/"09_citation_resolution.ipynb"))) == ResolveParams.names()


def _clscisumm(*args):
    data = need_shared("clscisumm")
    r = citesum("resolve", "--s2orc", data, "--min-refs", "2", "--scorers", "tfidf", "--scheduler", "processes",
                "--workers", "2", *args, "--json", "--quiet")
    return _json(r)


@pytest.fixture(scope="module")
def clscisumm_run(): return _clscisumm()


@pytest.fixture(scope="module")
def clscisumm_citances_run():
    return _clscisumm("--extra-inlinks", need_shared("clscisumm")/"scisummnet_pairs.jsonl.gz")


def test_clscisumm_every_representation_beats_random(clscisumm_run, clscisumm_citances_run):
    for res in (clscisumm_run, clscisumm_citances_run):
        rows = res["rows"]
        assert len(rows) == 13 * 5 and {(r["n_docs"], r["n_citations"]) for r in rows} == {(330, 1806)}
        assert all(r["accuracy"] > r["random_baseline"] for r in rows), [r for r in rows if r["accuracy"] <= r["random_baseline"]]


def test_clscisumm_paper_ordering_with_citances(clscisumm_citances_run):
    "with ScisummNet's citances in the inlinks, the paper's findings hold at the best windows"
    o = clscisumm_citances_run["ordering"][0]
    assert o["mixed >= external"] and o["external >= internal"] and o["passage >= title_abstract"], o


def test_clscisumm_paper_ordering_corpus_inlinks_only(clscisumm_run):
    "with the corpus' own (sparse) links only, mixed >= internal and passages >= title+abstract hold"
    o = clscisumm_run["ordering"][0]
    assert o["mixed >= external"] and o["passage >= title_abstract"] and o["mixed"] >= o["internal"], o


@pytest.mark.xfail(strict=False, reason="measured: with the corpus' own links only, 18% of the candidates have no inlink "
                   "context and external (0.574) < internal (0.677) on CL-SciSumm, min_refs 2 (README, Citation resolution)")
def test_clscisumm_external_beats_internal_without_citances(clscisumm_run):
    o = clscisumm_run["ordering"][0]
    assert o["external >= internal"], o
