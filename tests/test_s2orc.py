"""Reading S2ORC: both layouts, bad input counted by reason, prefilters without false negatives, real records."""
import gzip
import json
from pathlib import Path

import pytest

from citesum_nb.citations import is_related_work
from citesum_nb.s2orc import BadInputLog, fast_paper_id, find_shards, has_related_work, load_papers, parse_fulltext, read_lines
from conftest import citesum, need_shared


def _pdf(pid, paras, bibs):
    return {"paper_id": pid, "_pdf_hash": "h", "abstract": [{"section": "Abstract", "text": f"Abstract of {pid}.",
                                                             "cite_spans": [], "ref_spans": []}],
            "body_text": paras, "bib_entries": bibs, "ref_entries": {}}


def _para(section, text, *cites):
    spans = []
    for marker, rid in cites:
        i = text.index(marker)
        spans.append({"start": i, "end": i + len(marker), "text": marker, "ref_id": rid})
    return {"section": section, "text": text, "cite_spans": spans, "ref_spans": []}


def bad_corpus(root: Path) -> Path:
    "A 2020-layout folder whose shards hold every kind of bad line next to good ones"
    good = _pdf("1", [_para("Related Work", "Smith [1] did it. Jones [2] did not.", ("[1]", "BIBREF0"), ("[2]", "BIBREF1"))],
                {"BIBREF0": {"title": "A", "link": "2"}, "BIBREF1": {"title": "B", "link": None}})
    bad_span = _pdf("3", [_para("Related Work", "Cited [1] and [2].", ("[1]", "BIBREF0"))], {"BIBREF0": {"title": "A", "link": "2"}})
    bad_span["body_text"][0]["cite_spans"].append({"start": 50, "end": 53, "text": "[2]", "ref_id": "BIBREF0"})
    lines = [json.dumps(good).encode(),
             b'{"paper_id": "4", "body_text": [{"section": ',           # malformed JSON (truncated)
             json.dumps(_pdf("5", [], {})).encode().replace(b"Abstract of 5", b"Abstract \xff of 5"),  # invalid UTF-8
             json.dumps({"paper_id": "6", "body_text": []}).encode(),  # missing bib_entries
             json.dumps(bad_span).encode(),
             json.dumps({k: v for k, v in _pdf("7", [], {}).items() if k != "paper_id"}).encode(),  # no paper_id
             b"", b"   "]
    dup = [json.dumps(good).encode()]  # the same paper_id again, in another shard
    for sub, name, ls in [("pdf_parses", "pdf_parses_0.jsonl.gz", lines), ("pdf_parses", "pdf_parses_1.jsonl.gz", dup),
                          ("metadata", "metadata_0.jsonl", [json.dumps({"paper_id": "1", "title": "Good", "abstract": None,
                                                                        "venue": "ACL", "journal": None,
                                                                        "mag_field_of_study": None}).encode(),
                                                            b'{"paper_id": "2", "title": "Cited", ',
                                                            json.dumps({"title": "no id"}).encode()])]:
        (root/sub).mkdir(parents=True, exist_ok=True)
        data = b"\n".join(ls) + b"\n"
        (root/sub/name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return root


def test_bad_input_is_counted_not_raised(tmp_path):
    log = BadInputLog()
    papers = load_papers(bad_corpus(tmp_path), log=log)
    assert [p["paper_id"] for p in papers] == ["1", "3"]
    assert log.counts == {"malformed_json": 2, "invalid_utf8": 1, "missing_key:bib_entries": 1, "span_out_of_range": 1,
                          "paragraph_spans_dropped": 1, "missing_paper_id": 2, "duplicate_paper_id": 1}
    assert log.examples["malformed_json"] == ["metadata_0.jsonl:2", "pdf_parses_0.jsonl.gz:2"]
    assert log.examples["duplicate_paper_id"] == ["1"]
    assert log.examples["span_out_of_range"] == ["3"]
    good, bad_span = papers
    assert good["title"] == "Good" and good["venue"] == "ACL" and good["journal"] == "" and good["fields_of_study"] == []
    assert good["abstract"] == "Abstract of 1."
    assert good["bib_entries"]["BIBREF1"] == {"title": "B", "link": None, "authors": []}
    assert bad_span["body_text"][0]["cite_spans"] == []  # the paragraph with a bad span keeps no span
    assert json.loads(json.dumps(log.to_dict()))["duplicate_paper_id"] == {"count": 1, "examples": ["1"]}


def test_api_record_conversion():
    text = "Title\n\nThe abstract.\n\n2 Related Work\n\nPrior work [1] exists.\n\n2.1 More\n\nSee [2] and [3].\n\nRef one. Ref two."
    def at(s, k=0):
        i = text.index(s)
        for _ in range(k): i = text.index(s, i + 1)
        return {"start": i, "end": i + len(s)}
    ann = {"title": [at("Title")], "abstract": [at("The abstract.")],
           "sectionheader": [{**at("Related Work"), "attributes": {"n": "2"}}, at("2.1 More")],
           "paragraph": [at("Prior work [1] exists."), at("See [2] and [3].")],
           "bibref": [{**at("[1]"), "attributes": {"ref_id": "b0"}}, {**at("[2]"), "attributes": {"ref_id": "b1"}}, at("[3]")],
           "bibentry": [{**at("Ref one."), "attributes": {"id": "b0", "matched_paper_id": 99}},
                        {**at("Ref two."), "attributes": {"id": "b1", "matched_paper_id": None}}],
           "bibtitle": [at("Ref one")], "figure": None}
    rec = {"corpusid": 7, "externalids": {}, "content": {"source": {}, "text": text,
                                                           "annotations": {k: json.dumps(v) if v else None for k, v in ann.items()}}}
    log = BadInputLog()
    p = parse_fulltext(json.dumps(rec).encode(), "s2-api", log)
    assert log.counts == {}
    assert (p["paper_id"], p["title"], p["abstract"]) == ("7", "Title", "The abstract.")
    assert [q["section"] for q in p["body_text"]] == ["2 Related Work", "2.1 More"]
    assert p["body_text"][0]["cite_spans"] == [{"start": 11, "end": 14, "text": "[1]", "ref_id": "b0"}]
    assert [c["ref_id"] for c in p["body_text"][1]["cite_spans"]] == ["b1", None]
    assert p["bib_entries"] == {"b0": {"title": "Ref one", "link": "99", "authors": []}, "b1": {"title": "", "link": None, "authors": []}}
    assert has_related_work(json.dumps(rec).encode(), "s2-api") and fast_paper_id(json.dumps(rec).encode()) == "7"
    # a bibref crossing the paragraph end, a broken annotation, a record without text
    ann["bibref"].append({"start": text.index("exists."), "end": text.index("2.1")})
    rec["content"]["annotations"]["bibref"] = json.dumps(ann["bibref"])
    rec["content"]["annotations"]["sectionheader"] = "[{not json"
    p = parse_fulltext(json.dumps(rec).encode(), "s2-api", log)
    assert p["body_text"][0]["cite_spans"] == [] and [q["section"] for q in p["body_text"]] == ["", ""]
    assert parse_fulltext(json.dumps({"corpusid": 8, "content": {"text": None}}).encode(), "s2-api", log) is None
    assert parse_fulltext(json.dumps({"content": {}}).encode(), "s2-api", log) is None
    assert log.counts == {"span_out_of_range": 1, "paragraph_spans_dropped": 1, "bad_annotation": 1,
                          "missing_key:content.text": 1, "missing_paper_id": 1}


def test_prefilter_has_no_false_negatives_on_real_papers():
    shards = find_shards(need_shared("clscisumm"))
    n = hits = rw = 0
    for f in shards.fulltext_files:
        for line in read_lines(f):
            p = parse_fulltext(line, shards.fmt, BadInputLog())
            assert fast_paper_id(line) == p["paper_id"]
            has = any(is_related_work(q["section"]) for q in p["body_text"])
            pre = has_related_work(line, shards.fmt)
            assert pre or not has, p["paper_id"]
            n += 1; hits += pre; rw += has
    print(f"{n} papers, prefilter passes {hits}, with a Related Work section {rw}")
    assert n == 1175 and rw == 326  # the folder's README: 1175 papers, 326 with such a section


# ------------------------------------------------------------------ compression from the magic bytes, links, empty datasets
def _sample_copy(root: Path, recompress=None) -> Path:
    "The bundled sample corpus copied to `root`; `recompress(data)` re-packs its first full-text shard under the same .gz name"
    from citesum_nb.core import sample_corpus_dir
    src = sample_corpus_dir()
    for f in src.rglob("*.gz"):
        (root/f.parent.name).mkdir(parents=True, exist_ok=True)
        data = f.read_bytes()
        if recompress and f.name == "pdf_parses_0.jsonl.gz": data = recompress(gzip.decompress(data))
        (root/f.parent.name/f.name).write_bytes(data)
    return root


def _examples(out: Path) -> list:
    return [(Path(out)/f"{s}.jsonl").read_bytes() for s in ("train", "validation", "test")]


@pytest.fixture(scope="module")
def sample_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample")/"ds"
    citesum("build", "--s2orc", _sample_copy(tmp_path_factory.mktemp("src")), "--out", out, "--scheduler", "synchronous", "--quiet")
    return out


@pytest.mark.parametrize("kind", ["xz", "bz2"])
def test_other_compressions_under_a_gz_name(tmp_path, sample_out, kind):
    "An xz or bzip2 stream saved as .gz is read as what it is: the same examples as the gzip original"
    import bz2, lzma
    pack = {"xz": lzma.compress, "bz2": bz2.compress}[kind]
    out = tmp_path/"ds"
    r = citesum("build", "--s2orc", _sample_copy(tmp_path/"c", pack), "--out", out, "--scheduler", "synchronous", "--quiet")
    assert _examples(out) == _examples(sample_out)
    assert not json.loads((out/"report.json").read_text())["bad_input"]["counts"], r.stderr


@pytest.mark.parametrize("magic", [b"\x28\xb5\x2f\xfd", b"PK\x03\x04"])
def test_unreadable_compression_is_one_line(tmp_path, magic):
    "A zstd or zip file under a .gz name stops the build before anything is read, with one line naming the shard"
    corpus = _sample_copy(tmp_path/"c", lambda data: magic + data[:100])
    r = citesum("build", "--s2orc", corpus, "--out", tmp_path/"o", "--scheduler", "synchronous", "--quiet", check=False)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "pdf_parses_0.jsonl.gz" in r.stderr, r.stderr
    assert not (tmp_path/"o").exists()


def _unlinked(data: bytes, drop_key=True) -> bytes:
    "Full-text lines with every bib entry's link removed (the 2021-01-01 shape) or set to null"
    out = []
    for l in data.splitlines():
        rec = json.loads(l)
        for b in rec["bib_entries"].values():
            if drop_key: b.pop("link", None)
            else: b["link"] = None
        out.append(json.dumps(rec).encode())
    return b"\n".join(out) + b"\n"


@pytest.mark.parametrize("drop_key", [True, False])
def test_no_linkable_citation_is_said_and_strict_fails(tmp_path, drop_key):
    "Bib entries without a `link` key (or with null links): one line says why the dataset is empty, --strict exits 1"
    corpus = _sample_copy(tmp_path/"c")
    for f in (corpus/"pdf_parses").glob("*.gz"): f.write_bytes(gzip.compress(_unlinked(gzip.decompress(f.read_bytes()), drop_key)))
    r = citesum("build", "--s2orc", corpus, "--out", tmp_path/"o", "--scheduler", "synchronous", "--quiet", check=False)
    assert r.returncode == 0
    line = [l for l in r.stderr.splitlines() if "the dataset is empty" in l]
    assert len(line) == 1 and "could be linked" in line[0], r.stderr
    assert ("no `link` key" in line[0]) == drop_key
    rep = json.loads((tmp_path/"o"/"report.json").read_text())
    assert rep["stages"]["kept"] == 0 and rep["bad_input"]["counts"]["no_citation_linked"] == 1
    s = citesum("build", "--s2orc", corpus, "--out", tmp_path/"s", "--scheduler", "synchronous", "--quiet", "--strict", check=False)
    assert s.returncode == 1


def test_real_2021_records(tmp_path):
    "The real 2021-01-01 records (no Related Work, bib entries without links): an empty dataset, said in one line"
    real = need_shared("s2orc")/"pdf_parses"
    corpus = tmp_path/"c"; (corpus/"pdf_parses").mkdir(parents=True)
    lines = [json.dumps(json.loads(f.read_text())).encode() for f in sorted(real.glob("s2orc_20210101_*.json"))]
    (corpus/"pdf_parses"/"pdf_parses_0.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    r = citesum("build", "--s2orc", corpus, "--out", tmp_path/"o", "--scheduler", "synchronous", "--quiet", check=False)
    assert r.returncode == 0 and "the dataset is empty: none of the 2 papers has a Related Work section" in r.stderr, r.stderr
