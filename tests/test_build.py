"`citesum build` end to end: the bundled sample, a local Dask cluster, bad input, and real ACL papers."
import gzip, json
from pathlib import Path

import pytest

from conftest import citesum, need_shared

SPLITS = ("train", "val", "test")


def _load(out):
    return {s: [json.loads(l) for l in (Path(out)/f"{s}.jsonl").read_text().splitlines()] for s in SPLITS}


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample")/"ds"
    r = citesum("build", "--out", out, "--scheduler", "synchronous", "--quiet")
    return out, r


def test_build_sample_outputs(sample_build):
    out, r = sample_build
    assert "CiteSum build report" in r.stdout
    data = _load(out)
    assert all(data[s] for s in SPLITS), "every split is non-empty on the sample"
    ex = data["train"][0]
    assert {"src", "tgt", "paper_id", "title", "discipline", "citing_paper_id", "section", "citation_text",
            "rouge_recall", "introduction", "conclusion"} <= set(ex)
    assert set(ex["discipline"]) == {"venue", "journal", "mag_field_of_study"}
    assert all(e["discipline"]["mag_field_of_study"] for e in data["train"]), "fields of study survive the Dask join"
    for s in SPLITS:
        for e in data[s]:
            assert "REF" in e["tgt"] and e["citation_text"] not in e["tgt"].replace("REF", "")
            assert len(e["src"]) >= 100
            rr = e["rouge_recall"]
            assert rr["r1"] >= 50 and rr["r2"] >= 20 and rr["rl"] >= 40
    papers = [{e["paper_id"] for e in data[s]} for s in SPLITS]
    assert not (papers[0] & papers[1] or papers[0] & papers[2] or papers[1] & papers[2]), "a cited paper leaked across splits"
    rep = json.loads((out/"report.json").read_text())
    assert rep["stages"]["kept"] == sum(map(len, data.values()))
    cands = [json.loads(l) for l in (out/"candidates.jsonl").read_text().splitlines()]
    assert len(cands) == rep["stages"]["candidates_linked"] - rep["bad_input"]["duplicate_candidate_rows"]
    assert sum(c["drop_reason"] is None for c in cands) == rep["stages"]["kept"]
    from datasets import load_from_disk
    dsd = load_from_disk(str(out/"hf"))
    assert {k: dsd[k].num_rows for k in SPLITS} == {k: len(v) for k, v in data.items()}
    import pyarrow.parquet as pq
    assert pq.read_table(out/"parquet"/"train.parquet").num_rows == len(data["train"])


def test_local_cluster_gives_the_same_dataset(sample_build, tmp_path):
    out, _ = sample_build
    out2 = tmp_path/"ds"
    citesum("build", "--out", out2, "--workers", "2", "--quiet")          # the default scheduler: a LocalCluster
    assert _load(out) == _load(out2)
    assert json.loads((out2/"report.json").read_text())["settings"]["workers"] == 2


def test_thresholds_and_seed(sample_build, tmp_path):
    out, _ = sample_build
    loose = tmp_path/"loose"
    citesum("build", "--out", loose, "--scheduler", "synchronous", "--thresholds", "0,0,0", "--seed", "7", "--quiet")
    rep = json.loads((loose/"report.json").read_text())
    assert rep["stages"]["kept"] == rep["stages"]["candidates_with_abstract"]
    assert rep["stages"]["kept"] > json.loads((out/"report.json").read_text())["stages"]["kept"]


@pytest.mark.parametrize("args,msg", [
    (["--s2orc", "/no/such/folder"], "not found"),
    (["--format", "s2orc-1999"], "format"),
    (["--thresholds", "50,20"], "three comma-separated"),
])
def test_user_errors_are_one_line(tmp_path, args, msg):
    r = citesum("build", "--out", tmp_path/"o", "--scheduler", "synchronous", *args, check=False)
    assert r.returncode == 2
    assert msg in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_empty_input_folder(tmp_path):
    (tmp_path/"empty").mkdir()
    r = citesum("build", "--s2orc", tmp_path/"empty", "--out", tmp_path/"o", "--scheduler", "synchronous", check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.strip()


def _write_gz(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as f:
        for l in lines: f.write(l if isinstance(l, bytes) else (l + "\n").encode())


def test_bad_input_is_counted_not_fatal(tmp_path):
    "Malformed JSON, invalid UTF-8, missing keys, out-of-range spans and duplicate ids end up in the report"
    from citesum_nb.core import sample_corpus_dir
    src = sample_corpus_dir()
    corpus = tmp_path/"bad"
    meta = gzip.open(src/"metadata"/"metadata_0.jsonl.gz").read().splitlines()
    pdf = gzip.open(src/"pdf_parses"/"pdf_parses_0.jsonl.gz").read().splitlines()
    rw = next(json.loads(l) for l in pdf if b"elated" in l and json.loads(l)["body_text"])
    broken_span = json.loads(json.dumps(rw)); broken_span["paper_id"] = "990000001"
    for p in broken_span["body_text"]:
        for c in p["cite_spans"]: c["start"], c["end"] = 10**6, 10**6 + 3
    missing = {"paper_id": "990000002", "abstract": []}                      # no body_text / bib_entries
    bad_lines = [b'{"paper_id": "990000003", "abstract": [', b'\xff\xfe{"paper_id": "990000004"}', json.dumps(broken_span).encode(),
                 json.dumps(missing).encode(), pdf[0]]                       # pdf[0] again: a duplicate paper id
    _write_gz(corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz", [l + b"\n" for l in pdf + bad_lines])
    _write_gz(corpus/"metadata"/"metadata_0.jsonl.gz", [l + b"\n" for l in meta + [b"{not json"]])
    for k in (1,):
        for kind in ("metadata", "pdf_parses"):
            (corpus/kind/f"{kind}_{k}.jsonl.gz").write_bytes((src/kind/f"{kind}_{k}.jsonl.gz").read_bytes())
    out = tmp_path/"out"
    citesum("build", "--s2orc", corpus, "--out", out, "--scheduler", "synchronous", "--quiet")
    rep = json.loads((out/"report.json").read_text())
    bad = rep["bad_input"]["counts"]
    assert bad.get("malformed_json", 0) >= 2, bad
    assert bad.get("invalid_utf8", 0) >= 1, bad
    assert any(k.startswith("missing") for k in bad), bad
    assert bad.get("span_out_of_range", 0) >= 1, bad
    assert rep["bad_input"]["duplicate_paper_id_fulltext"]["count"] >= 1
    assert rep["stages"]["kept"] > 0


def test_real_acl_papers(tmp_path):
    "CL-SciSumm papers in S2ORC format: real Related Work sections with linked single-citation sentences"
    data = need_shared("clscisumm")
    out = tmp_path/"cs"
    r = citesum("build", "--s2orc", data, "--out", out, "--workers", "2", "--quiet")
    rep = json.loads((out/"report.json").read_text())
    st = rep["stages"]
    print(json.dumps(st, indent=1))
    assert st["papers_fulltext"] == 1175 and st["papers_metadata"] == 1175
    # the folder README counts 326 papers with a "related work" section and 151 single-citation sentences linked to a paper
    # of the folder (with the corpus' own sentence boundaries); our splitter and section rules differ slightly
    assert 300 <= st["papers_with_related_work"] <= 330
    assert 120 <= st["candidates_linked"] <= 190
    assert 0 < st["kept"] < st["candidates_with_abstract"]
    assert rep["leaked_cited_papers"] == 0


def test_datasets_api_layout(tmp_path):
    "The same papers in the Semantic Scholar Datasets API layout (s2orc/ + papers/) are detected and give the same examples"
    from citesum_nb.s2orc import load_papers, write_s2_api_layout
    api = write_s2_api_layout(load_papers(None), tmp_path/"api")
    out = tmp_path/"out"
    citesum("build", "--s2orc", api, "--out", out, "--scheduler", "synchronous", "--quiet")
    rep = json.loads((out/"report.json").read_text())
    assert rep["input"]["format"] == "s2-api"
    api_ex = {(e["id"], e["tgt"], e["paper_id"]) for s in SPLITS for e in _load(out)[s]}
    assert rep["stages"]["papers_with_related_work"] == 25 and len(api_ex) == rep["stages"]["kept"] > 0
    assert all(e["discipline"]["mag_field_of_study"] for s in SPLITS for e in _load(out)[s])
    r = citesum("build", "--s2orc", api, "--format", "s2orc-2020", "--out", tmp_path/"o2", "--scheduler", "synchronous", check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_recall_scorer_equals_rouge_score_on_real_text():
    "The filter's ROUGE recall (bit-parallel LCS, cached stemming) is exactly rouge-score's, on SciTLDR TLDR/abstract pairs"
    from rouge_score import rouge_scorer
    from citesum_nb.build import RecallScorer
    data = need_shared("scitldr")
    pairs = []
    for line in (data/"SciTLDR-A"/"test.jsonl").read_text().splitlines()[:300]:
        d = json.loads(line)
        pairs += [(t, " ".join(d["source"])) for t in d["target"][:2]]
    for stem in (True, False):
        ours, ref = RecallScorer(stem), rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stem)
        for sent, abstract in pairs:
            a, b = ours(sent, abstract), ref.score(target=sent, prediction=abstract)
            for k, m in (("r1", "rouge1"), ("r2", "rouge2"), ("rl", "rougeL")):
                assert abs(a[k] - 100*b[m].recall) < 1e-9, (sent, k, a[k], 100*b[m].recall)


def test_aic_texts_equal_the_parsed_papers(sample_build):
    "The cited papers' abstract/introduction/conclusion come from the first pass's side tables: equal to parsing the papers"
    from citesum_nb.s2orc import load_papers
    from citesum_nb.citations import introduction_and_conclusion
    out, _ = sample_build
    papers = {p["paper_id"]: p for p in load_papers(None)}
    examples = [e for s in SPLITS for e in _load(out)[s]]
    assert any(e["introduction"] for e in examples) and any(e["conclusion"] for e in examples)
    for e in examples:   # a cited paper with metadata but no full text has neither
        p = papers.get(e["paper_id"])
        assert (e["introduction"], e["conclusion"]) == (introduction_and_conclusion(p) if p else ("", "")), e["paper_id"]
    assert sum(e["paper_id"] not in papers for e in examples) < len(examples) / 2
    assert not (out/"_work").exists(), "the side tables are removed after the build"


def _real_fulltext_lines():
    "Raw lines of every real full-text record in the shared data: CL-SciSumm JSONL shards and the S2ORC sample records"
    from citesum_nb.s2orc import read_lines
    lines = [l for f in sorted((need_shared("clscisumm")/"pdf_parses").glob("*.jsonl*")) for l in read_lines(f)]
    records = sorted((need_shared("s2orc")/"pdf_parses").glob("*.json"))
    return lines, [(p.name, p.read_bytes().strip()) for p in records]


def test_raw_reader_on_real_papers():
    "paper_texts_from_bytes gives exactly what parsing gives on real papers, or refuses (other releases' layouts)"
    from citesum_nb.build import paper_texts_from_bytes
    from citesum_nb.s2orc import BadInputLog, parse_fulltext
    from citesum_nb.citations import introduction_and_conclusion, is_related_work
    lines, records = _real_fulltext_lines()
    def check(line):
        raw, rec = paper_texts_from_bytes(line), parse_fulltext(line, "s2orc-2020", BadInputLog())
        if raw is None: return "refused"
        assert rec is not None
        assert raw[0] == rec["paper_id"] and raw[2] == rec["abstract"]
        if any(is_related_work(p["section"]) for p in rec["body_text"]): assert raw[1] and raw[3] is None
        if not raw[1]: assert raw[3] == introduction_and_conclusion(rec), rec["paper_id"]
        return "read"
    assert [check(l) for l in lines].count("read") == len(lines) == 1175    # the release's layout: every line read from bytes
    outcome = {name: check(b) for name, b in records}
    assert all(v == "read" for k, v in outcome.items() if k.startswith("s2orc_20200705")), outcome
    assert all(v == "refused" for k, v in outcome.items() if not k.startswith("s2orc_20200705")), outcome
