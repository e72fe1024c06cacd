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


def _record(pid, paras, links, abstract=None):
    text = abstract or f"About {pid}."
    return {"paper_id": pid, "_pdf_hash": "", "abstract": [{"section": "Abstract", "text": text, "cite_spans": [], "ref_spans": []}],
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
    assert all(set(r) == {"scorer", "representation", "window", "accuracy", "random_baseline", "n_docs", "n_contexts", "n_citations"}
               for r in rows)
    assert {(r["n_docs"], r["n_contexts"], r["n_citations"]) for r in rows} == {(23, 82, 82)}   # no adjacent citations here
    assert len({r["random_baseline"] for r in rows}) == 1
    assert all(0 <= r["accuracy"] <= 1 for r in rows)
    assert {r["scorer"] for r in rows} == {"tfidf", "bm25"}
    assert sample_run["bad_input"] == {}


def test_sample_table_is_printed():
    r = citesum("resolve", "--windows", "10:5", "--representations", "passage350", "--scorers", "tfidf", "--quiet")
    assert "| tfidf" in r.stdout and "passage350" in r.stdout and "random_baseline" in r.stdout
    assert "bad input: none" in r.stdout and "23 documents, 82 citation contexts, 82 citations" in r.stdout


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
            _record("Y", [_para("We parse with a chart.")], [])]
    folder = _corpus(tmp_path/"c", recs, [b'{"paper_id": "Z", "body_text": [', b'{"paper_id": "W", "body_text": []}'])
    res = _json(citesum("resolve", "--s2orc", folder, "--representations", "full_text", "--windows", "3:3", "--json", "--quiet"))
    assert res["bad_input"]["malformed_json"]["count"] == 1
    assert res["bad_input"]["missing_key:bib_entries"]["count"] == 1
    assert {(r["n_docs"], r["n_contexts"], r["n_citations"]) for r in res["rows"]} == {(1, 2, 2)}
    assert all(r["accuracy"] == 1.0 and r["random_baseline"] == 0.5 for r in res["rows"])

# ---- the paper's protocol by default (Duma & Klein 2014, §3-4) ------------------------------------------------------

def _run(folder, *args):
    return _json(citesum("resolve", "--s2orc", folder, "--scorers", "tfidf", *args, "--json", "--quiet"))["rows"]


def test_default_inlinks_exclude_every_test_document(tmp_path):
    """§4: inlink contexts come from the collection "excluding the set of test papers". A and C are test documents
    (two candidates each) and say the same things about X and Y; B (one candidate) is not. With the paper's rule X's
    inlinks come from B alone and Y has none, so A's and C's contexts tie (random, 0.5); with ours (only the document
    being resolved is left out) each document finds the other's words and resolves every citation."""
    text = "Shift reduce parsing [1] alpha beta gamma. Chart grammar rules [2] delta epsilon zeta."
    para = lambda: _para(text, ("[1]", "BIBREF0"), ("[2]", "BIBREF1"))
    recs = [_record("A", [para()], ["X", "Y"]), _record("C", [para()], ["X", "Y"]),
            _record("B", [_para("Lexicon entries [1] omega.", ("[1]", "BIBREF0"))], ["X"]),
            _record("X", [_para("Nothing here.")], []), _record("Y", [_para("Nothing here.")], [])]
    folder = _corpus(tmp_path/"c", recs)
    args = ("--representations", "inlink_context3", "--windows", "3:0")
    paper, ours = _run(folder, *args), _run(folder, *args, "--inlinks-exclude", "test_document")
    assert [(r["n_docs"], r["n_contexts"], r["accuracy"], r["random_baseline"]) for r in paper] == [(2, 4, 0.5, 0.5)]
    assert [r["accuracy"] for r in ours] == [1.0]


def test_default_terms_are_tfidfvectorizers_defaults(tmp_path):
    """§4: scikit-learn's tf-idf, which by default neither stems nor drops stop words: "parsing sentences" shares no
    term with "We parse a sentence", and both candidates tie; Porter stems (`--text stemmed`) make them match."""
    recs = [_record("A", [_para("Parsing sentences is fast [1].", ("[1]", "BIBREF0")),
                          _para("Tagging words is slow [2].", ("[2]", "BIBREF1"))], ["X", "Y"]),
            _record("X", [_para("Body.")], [], abstract="We parse a sentence."),
            _record("Y", [_para("Body.")], [], abstract="Taggers tag word lists.")]
    folder = _corpus(tmp_path/"c", recs)
    args = ("--representations", "title_abstract", "--windows", "5:0")
    assert [r["accuracy"] for r in _run(folder, *args)] == [0.5]
    assert [r["accuracy"] for r in _run(folder, *args, "--text", "stemmed")] == [1.0]
    # the default terms are exactly TfidfVectorizer's default analysis
    from sklearn.feature_extraction.text import TfidfVectorizer
    from citesum_nb.resolve import ResolveParams, terms, words
    s = "Parsing 2 sentences (e.g. in A-B tests) isn't fast: 91.5% of them."
    assert terms(words(s), ResolveParams().text) == TfidfVectorizer().build_analyzer()(s)


def test_a_group_of_adjacent_citations_counts_once(tmp_path):
    """§3: "[1], [2]" share one context, resolved when X or Y is among the first two candidates; "the final score is
    averaged over all citation contexts processed". Two contexts (hit, miss): 0.5; counted per citation (ours,
    `--average citations`): (1 + 1 + 0) / 3."""
    recs = [_record("A", [_para("Dependency parsing [1], [2] works. Dependency parsing again [3].",
                                ("[1]", "BIBREF0"), ("[2]", "BIBREF1"), ("[3]", "BIBREF2"))], ["X", "Y", "Z"]),
            _record("X", [_para("Body.")], [], abstract="Dependency parsing."),
            _record("Y", [_para("Body.")], [], abstract="Other things."), _record("Z", [_para("Body.")], [], abstract="Lexicons.")]
    folder = _corpus(tmp_path/"c", recs)
    args = ("--representations", "title_abstract", "--windows", "2:0")
    [paper] = _run(folder, *args)
    assert (paper["n_contexts"], paper["n_citations"]) == (2, 3)
    assert paper["accuracy"] == pytest.approx(0.5) and paper["random_baseline"] == pytest.approx((1 + 1/3) / 2)
    [ours] = _run(folder, *args, "--average", "citations")
    assert ours["accuracy"] == pytest.approx(2/3) and ours["random_baseline"] == pytest.approx((1 + 1 + 1/3) / 3)


def test_window_count_words_or_terms(tmp_path):
    """Our choice (`words`): a window of 3 holds 3 words of text, stop words dropped after cutting ("in the of": nothing
    left, a tie); `--window-count terms` drops them first, as danduma/minerva does, and finds "shift reduce"."""
    recs = [_record("A", [_para("Shift reduce is in the of [1]. Chart parsing is on the [2].", ("[1]", "BIBREF0"), ("[2]", "BIBREF1"))],
                    ["X", "Y"]),
            _record("X", [_para("Body.")], [], abstract="Shift reduce parsing."),
            _record("Y", [_para("Body.")], [], abstract="Chart parsing.")]
    folder = _corpus(tmp_path/"c", recs)
    args = ("--representations", "title_abstract", "--windows", "3:0", "--text", "stemmed")
    assert [r["accuracy"] for r in _run(folder, *args)] == [0.5]
    assert [r["accuracy"] for r in _run(folder, *args, "--window-count", "terms")] == [1.0]


def test_the_corpus_module_stands_alone_and_its_names_stay_importable_from_resolve():
    "the corpus (09_resolution_corpus) does not import the method (resolve); what moved there is still `citesum_nb.resolve.NAME`"
    import ast
    import citesum_nb.resolution_corpus as rc, citesum_nb.resolve as rs
    tree = ast.parse(Path(rc.__file__).read_text())
    mods = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m.split(".")[-1] == "resolve" for m in mods), mods
    for name in [n for n in rc.__all__ if n not in ("ResolutionCorpusParams", "CorpusSource")]: assert getattr(rs, name) is getattr(rc, name), name   # (new there: not moved)


def test_params_files_and_parameters_cell():
    "every field in the params files, checked by ResolveParams; the notebook's parameters cell is written from the class"
    for f in sorted((ROOT/"params").glob("09a_citation_resolution.*.yaml")):
        d = yaml.safe_load(f.read_text())
        assert list(d) == ResolveParams.names(), f.name
        ResolveParams.from_dict(d, f.name)
    nb = json.loads((ROOT/"nbs"/"09a_citation_resolution.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    assert "".join(cell["source"]) == parameters_cell(ResolveParams)
    assert list(pm.inspect_notebook(str(ROOT/"nbs"/"09a_citation_resolution.ipynb"))) == ResolveParams.names()


def _clscisumm(*args):
    data = need_shared("clscisumm")
    r = citesum("resolve", "--s2orc", data, "--min-refs", "2", "--scorers", "tfidf", "--scheduler", "processes",
                "--workers", "2", *args, "--json", "--quiet")
    return _json(r)


@pytest.fixture(scope="module")
def clscisumm_committed():
    """The default protocol on CL-SciSumm as `citesum run params/runs/figures.yaml` committed it (Table 1's tf-idf rows, their
    counts, the findings' variant row: figures/09a_*), not computed again: tests/test_results_fresh.py fails when those files
    are not what the committed code gives on the shared data"""
    import re
    import pandas as pd
    t1 = pd.read_csv(ROOT/"figures"/"09a_table1.csv").set_index("representation")
    caption = (ROOT/"figures"/"09a_table1.md").read_text().split("\n", 1)[0]
    m = re.search(r"\(([\d,]+) test documents .*?, ([\d,]+) citation contexts, ([\d,]+) citations; random baseline ([\d.]+)\)", caption)
    n_docs, n_contexts, n_citations = (int(g.replace(",", "")) for g in m.groups()[:3])
    rows = [{"representation": r, "window": w, "accuracy": float(v.split()[0]), "random_baseline": float(m.group(4)),
             "n_docs": n_docs, "n_contexts": n_contexts, "n_citations": n_citations} for r, row in t1.iterrows() for w, v in row.items()]
    default = pd.read_csv(ROOT/"figures"/"09a_variants.csv").iloc[0]
    assert default["variant"] == "the paper's protocol (default)", default["variant"]
    o = {k: float(default[k]) for k in ("mixed", "external", "internal", "passage", "full_text", "title_abstract")}
    o.update({"mixed >= external": o["mixed"] >= o["external"], "external >= internal": o["external"] >= o["internal"],
              "passage >= full_text": o["passage"] >= o["full_text"], "passage >= title_abstract": o["passage"] >= o["title_abstract"]})
    return {"rows": rows, "ordering": [o]}


@pytest.fixture(scope="module")
def clscisumm_citances_run():
    return _clscisumm("--extra-inlinks", need_shared("clscisumm")/"scisummnet_pairs.jsonl.gz")


def test_clscisumm_every_representation_beats_random(clscisumm_committed, clscisumm_citances_run):
    for res in (clscisumm_committed, clscisumm_citances_run):
        rows = res["rows"]
        assert len(rows) == 13 * 5 and {(r["n_docs"], r["n_contexts"], r["n_citations"]) for r in rows} == {(330, 1733, 1806)}
        assert {round(r["random_baseline"], 3) for r in rows} == {0.397}
        assert all(r["accuracy"] > r["random_baseline"] for r in rows), [r for r in rows if r["accuracy"] <= r["random_baseline"]]


def test_clscisumm_paper_ordering_with_citances(clscisumm_citances_run):
    "with ScisummNet's citances in the inlinks, the paper's three findings hold at the best windows (default protocol)"
    o = clscisumm_citances_run["ordering"][0]
    assert o["mixed >= external"] and o["external >= internal"] and o["passage >= full_text"], o
    assert (round(o["mixed"], 3), round(o["external"], 3), round(o["internal"], 3)) == (0.719, 0.661, 0.650), o


def test_clscisumm_paper_ordering_corpus_inlinks_only(clscisumm_committed):
    """The default protocol with the corpus' own (sparse) links: passages beat the full text (finding 1) and mixed beats
    external (3); the numbers are those reported in nbs/explanations/resolution_protocol.ipynb."""
    o = clscisumm_committed["ordering"][0]
    assert o["mixed >= external"] and o["passage >= full_text"] and o["passage >= title_abstract"], o
    got = tuple(round(o[k], 3) for k in ("mixed", "external", "internal", "passage", "full_text", "title_abstract"))
    assert got == (0.653, 0.429, 0.650, 0.650, 0.617, 0.580), o


@pytest.mark.xfail(strict=True, reason="measured: with the corpus' own links only and no test document's citations, 294 of "
                   "the 413 candidates have no inlink context at all; external (0.429) < internal (0.650) on CL-SciSumm, min_refs 2")
def test_clscisumm_external_beats_internal_without_citances(clscisumm_committed):
    o = clscisumm_committed["ordering"][0]
    assert o["external >= internal"], o
