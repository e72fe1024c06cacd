"""A type fuzzer over every field the readers use, in every S2ORC layout: each field gets every wrong JSON type.

No wrong value may stop a parse or a build, or be used (stringified, iterated, taken as "no link"): it is counted as
`bad_value:<field>` (with the record's id as example) and the smallest thing that holds it is dropped: the record, a
paragraph, a paragraph's cite spans, a bib entry, an author, an abstract paragraph, a field of study, an annotation,
or, for a field the dataset can do without (a title, an abstract, a venue, a journal, fields of study, authors), the field alone.
The layouts' schemas below are written from the releases' documentation and records, independently of the readers.
"""
import copy, gzip, json
from pathlib import Path

import pytest

from citesum_nb.s2orc import BadInputLog, parse_fulltext, parse_metadata

# wrong values: distinctive, so that a stringified one would be found in the output
WRONG = {"int": 987654321, "float": 1.5, "str": "WRONG-TYPE", "list": ["WRONG-LIST"], "dict": {"WRONG-DICT": 1}, "bool": True, "null": None}
TELL = {"int": "987654321", "float": "1.5", "str": "WRONG-TYPE", "list": "WRONG-LIST", "dict": "WRONG-DICT", "bool": "True", "null": None}
S, I, L, D, N = "str", "int", "list", "dict", "null"   # accepted JSON types

ABSTRACT = ("We propose a graph normalization method that speeds up the training of graph neural networks on molecules "
            "and keeps their accuracy on every benchmark we tried.")


def pdf_2020(pid="100", cited="200"):
    "A 2020-07-05 pdf_parses record: a Related Work paragraph with one linked citation, an introduction"
    return {"paper_id": pid, "_pdf_hash": "h",
            "abstract": [{"section": "Abstract", "text": "We study things.", "cite_spans": [], "ref_spans": []}],
            "body_text": [{"section": "2 Related Work", "text": "Smith et al. [1] proposed a graph normalization method that speeds up the training of graph neural networks.",
                           "cite_spans": [{"start": 13, "end": 16, "text": "[1]", "ref_id": "BIBREF0"}], "ref_spans": []},
                          {"section": "1 Introduction", "text": "An introduction.", "cite_spans": [], "ref_spans": []}],
            "bib_entries": {"BIBREF0": {"title": "Cited work", "authors": [{"first": "J", "middle": [], "last": "Smith", "suffix": ""}],
                                        "year": 2019, "venue": "ACL", "link": cited}},
            "ref_entries": {}}


def pdf_2019(pid="100"):
    "The 2019-09-28 shape: metadata object, the parse under grobid_parse, links in `links`"
    p = pdf_2020(pid)
    for b in p["bib_entries"].values(): b["links"] = b.pop("link")
    return {"paper_id": pid, "metadata": {"title": "A title", "abstract": "An abstract.", "venue": "ACL", "journal": "J",
                                          "mag_field_of_study": ["Computer Science"]},
            "s2_pdf_hash": "h", "grobid_parse": {k: p[k] for k in ("abstract", "body_text", "bib_entries", "ref_entries")}, "latex_parse": None}


def pdf_2021(pid="100"):
    "The 2021-01-01 shape: metadata object, top-level parse, bib entries without a link"
    p = pdf_2020(pid)
    for b in p["bib_entries"].values(): del b["link"]
    return {"paper_id": pid, "metadata": {"title": "A title", "authors": [], "year": "2021"}, **{k: p[k] for k in ("abstract", "body_text", "bib_entries", "ref_entries")}}


def doc2json(pid="100"):
    "s2orc-doc2json output: title and string abstract at the top, the parse under pdf_parse"
    p = pdf_2020(pid)
    return {"paper_id": pid, "title": "A title", "abstract": "An abstract.", "pdf_parse": {k: p[k] for k in ("abstract", "body_text", "bib_entries")}}


PARSE = [   # (path, accepted types, what is dropped) of the fields read in a parse object; "*" is the first list item / dict value
    ("abstract", {L, S, N}, "field"), ("abstract.*", {D}, "abstract_para"), ("abstract.*.text", {S}, "abstract_para"),
    ("body_text", {L}, "record"), ("body_text.*", {D}, "paragraph"), ("body_text.*.text", {S}, "paragraph"),
    ("body_text.*.section", {S, N}, "paragraph"), ("body_text.*.cite_spans", {L, N}, "paragraph"),
    ("body_text.*.cite_spans.*", {D}, "spans"), ("body_text.*.cite_spans.*.start", {I}, "spans"),
    ("body_text.*.cite_spans.*.end", {I}, "spans"), ("body_text.*.cite_spans.*.text", {S, N}, "spans"),
    ("body_text.*.cite_spans.*.ref_id", {S, I, N}, "spans"),
    ("bib_entries", {D}, "record"), ("bib_entries.*", {D}, "entry"), ("bib_entries.*.title", {S, N}, "field"),
    ("bib_entries.*.authors", {L, N}, "field"), ("bib_entries.*.authors.*", {D}, "author"),
    ("bib_entries.*.authors.*.last", {S, N}, "author"),
]
META_OBJECT = [("metadata", {D, N}, "field"), ("metadata.title", {S, N}, "field"), ("metadata.abstract", {S, N}, "field"),
               ("metadata.venue", {S, N}, "field"), ("metadata.journal", {S, D, N}, "field"),
               ("metadata.mag_field_of_study", {L, N}, "field"), ("metadata.mag_field_of_study.*", {S}, "fos")]

LAYOUTS_FULLTEXT = {   # name -> (record maker, schema)
    "2020": (pdf_2020, [("paper_id", {S, I}, "record")] + PARSE + [("bib_entries.*.link", {S, I, N}, "entry")]),
    "2019": (pdf_2019, [("paper_id", {S, I}, "record"), ("grobid_parse", {D, N}, "record")] + META_OBJECT
             + [(f"grobid_parse.{p}", t, u) for p, t, u in PARSE] + [("grobid_parse.bib_entries.*.links", {S, I, N}, "entry")]),
    "2021": (pdf_2021, [("paper_id", {S, I}, "record")] + META_OBJECT[:2] + PARSE),
    "doc2json": (doc2json, [("paper_id", {S, I}, "record"), ("title", {S, N}, "field"), ("abstract", {S, L, N}, "field"),
                            ("pdf_parse", {D, N}, "record")] + [(f"pdf_parse.{p}", t, u) for p, t, u in PARSE]),
}


def _api_record(pid=100, as_strings=True):
    "An API s2orc record with every annotation we read; annotations as JSON strings (as served) or as lists"
    text = ("A title\n\nThe abstract.\n\n2 Related Work\n\nSmith et al. [1] proposed a graph normalization method that speeds up "
            "the training of graph neural networks.\n\nSmith, Cited work\n\n")
    at = lambda s, **attrs: {"start": text.index(s), "end": text.index(s) + len(s), **({"attributes": attrs} if attrs else {})}
    ann = {"title": [at("A title")], "abstract": [at("The abstract.")], "sectionheader": [at("Related Work", n="2")],
           "paragraph": [at(text.split("\n\n")[3])], "bibref": [at("[1]", ref_id="b0")],
           "bibentry": [at("Smith, Cited work", id="b0", matched_paper_id=200)], "bibtitle": [at("Cited work")],
           "bibauthorlastname": [{"start": text.rindex("Smith"), "end": text.rindex("Smith") + 5}]}
    return {"corpusid": pid, "externalids": {}, "content": {"source": {}, "text": text, "annotations": ann}}


ATTRS = {"sectionheader": [("n", {S, I, N})], "bibref": [("ref_id", {S, I, N})], "bibentry": [("id", {S, I, N}), ("matched_paper_id", {S, I, N})]}
API_FULLTEXT = [("corpusid", {S, I}, "record"), ("content", {D}, "record"), ("content.text", {S}, "record"),
                ("content.annotations", {D, N}, "record")]
for _k in ("title", "abstract", "sectionheader", "paragraph", "bibref", "bibentry", "bibtitle", "bibauthorlastname"):
    API_FULLTEXT += [(f"content.annotations.{_k}", {S, L, N}, "annotation"), (f"content.annotations.{_k}.*", {D}, "annotation"),
                     (f"content.annotations.{_k}.*.start", {I}, "annotation"), (f"content.annotations.{_k}.*.end", {I}, "annotation")]
    if _k in ATTRS:
        API_FULLTEXT += [(f"content.annotations.{_k}.*.attributes", {D, N}, "annotation")]
        API_FULLTEXT += [(f"content.annotations.{_k}.*.attributes.{a}", t, "annotation") for a, t in ATTRS[_k]]

META_2020 = [("paper_id", {S, I}, "record"), ("title", {S, N}, "field"), ("abstract", {S, N}, "field"), ("venue", {S, N}, "field"),
             ("journal", {S, D, N}, "field"), ("mag_field_of_study", {L, N}, "field"), ("mag_field_of_study.*", {S}, "fos")]
META_API = [("corpusid", {S, I}, "record"), ("title", {S, N}, "field"), ("venue", {S, N}, "field"), ("journal", {D, S, N}, "field"),
            ("journal.name", {S, N}, "field"), ("s2fieldsofstudy", {L, N}, "field"), ("s2fieldsofstudy.*", {D, S, N}, "fos"),
            ("s2fieldsofstudy.*.category", {S, N}, "fos")]


def meta_2020(pid="200"):
    return {"paper_id": pid, "title": "Cited work", "authors": [], "abstract": ABSTRACT, "year": 2019, "venue": "ACL",
            "journal": "Journal", "mag_field_of_study": ["Computer Science", "Linguistics"]}


def meta_api(pid=200):
    return {"corpusid": pid, "title": "Cited work", "venue": "ACL", "journal": {"name": "Journal", "volume": "1"},
            "s2fieldsofstudy": [{"category": "Computer Science", "source": "external"}, {"category": "Linguistics", "source": "s2"}]}


def _set(rec, path, value):
    "A copy of `rec` with the value at `path` replaced (`*`: the first list item or dict value)"
    rec = copy.deepcopy(rec); keys = path.split("."); obj = rec
    for k in keys[:-1]:
        obj = (obj[0] if isinstance(obj, list) else next(iter(obj.values()))) if k == "*" else obj[k]
    k = keys[-1]
    if k == "*":
        if isinstance(obj, list): obj[0] = value
        else: obj[next(iter(obj))] = value
    else: obj[k] = value
    return rec


def _reason(path, kind):
    "The reason a wrong value at `path` is counted under"
    field = path.replace(".*", "")
    if kind == "null" and field in ("paper_id", "corpusid"): return "missing_paper_id"
    if kind == "null" and field == "content.text": return "missing_key:content.text"
    if path.startswith("content.annotations.") and path.count(".") == 2: return "bad_value:content.annotations"   # an annotation's value
    return f"bad_value:{field}"


def _instances(schema):
    return [(p, kind, unit) for p, ok, unit in schema for kind in WRONG if kind not in ok]


def _encode_api(rec, as_strings):
    rec = copy.deepcopy(rec)
    ann = rec.get("content", {}).get("annotations") if isinstance(rec.get("content"), dict) else None
    if as_strings and isinstance(ann, dict):
        for k, v in ann.items():
            if isinstance(v, list): ann[k] = json.dumps(v)
    return json.dumps(rec).encode()


def _check(out, log, path, kind, unit, good, reason):
    "The wrong value was counted, the right thing was dropped, and the value is nowhere in the output"
    assert log.counts.get(reason, 0) >= 1, (path, kind, dict(log.counts))
    if unit == "record":
        assert out is None, (path, kind)
        return
    assert out is not None, (path, kind, dict(log.counts))
    if TELL[kind] is not None: assert TELL[kind] not in json.dumps(out), (path, kind, out)
    if unit == "paragraph": assert len(out["body_text"]) == len(good["body_text"]) - 1
    if unit == "spans": assert out["body_text"][0]["cite_spans"] == [] and log["paragraph_spans_dropped"] == 1
    if unit == "entry": assert len(out["bib_entries"]) == len(good["bib_entries"]) - 1
    if unit == "author": assert next(iter(out["bib_entries"].values()))["authors"] == []
    if unit == "abstract_para": assert "We study things." not in out["abstract"]
    if unit == "fos": assert len(out["fields_of_study"]) == len(good["fields_of_study"]) - 1, (path, kind, out)
    if unit == "annotation": assert out != good
    if unit == "field":   # the field alone went: the record and everything else it holds stay
        assert out["paper_id"] == good["paper_id"] and out.get("body_text") == good.get("body_text"), (path, kind)
        assert out.get("bib_entries", {}).keys() == good.get("bib_entries", {}).keys(), (path, kind)


def _fulltext_cases():
    for name, (make, schema) in LAYOUTS_FULLTEXT.items():
        for path, kind, unit in _instances(schema): yield f"{name}:{path}:{kind}", (make, path, kind, unit)


FULLTEXT_CASES = dict(_fulltext_cases())


@pytest.mark.parametrize("case", list(FULLTEXT_CASES))
def test_2020_family_fulltext(case):
    make, path, kind, unit = FULLTEXT_CASES[case]
    good = parse_fulltext(json.dumps(make()).encode(), "s2orc-2020", BadInputLog())
    assert good is not None and good["body_text"][0]["cite_spans"]
    log = BadInputLog()
    out = parse_fulltext(json.dumps(_set(make(), path, WRONG[kind])).encode(), "s2orc-2020", log, where="f:1")
    _check(out, log, path, kind, unit, good, _reason(path, kind))
    assert log.examples[_reason(path, kind)] == ["f:1" if path == "paper_id" else "100"]   # the record's id, or where it is


API_CASES = {f"{'str' if s else 'list'}:{p}:{k}": (p, k, u, s) for s in (True, False) for p, k, u in _instances(API_FULLTEXT)}


@pytest.mark.parametrize("case", list(API_CASES))
def test_api_fulltext(case):
    path, kind, unit, as_strings = API_CASES[case]
    good = parse_fulltext(_encode_api(_api_record(), as_strings), "s2-api", BadInputLog())
    assert good["body_text"][0]["cite_spans"] and good["bib_entries"]["b0"]["link"] == "200" and good["body_text"][0]["section"] == "2 Related Work"
    log = BadInputLog()
    out = parse_fulltext(_encode_api(_set(_api_record(), path, WRONG[kind]), as_strings), "s2-api", log)
    _check(out, log, path, kind, unit, good, _reason(path, kind))


META_CASES = {f"{fmt}:{p}:{k}": (fmt, p, k, u) for fmt, schema in (("s2orc-2020", META_2020), ("s2-api", META_API)) for p, k, u in _instances(schema)}


@pytest.mark.parametrize("case", list(META_CASES))
def test_metadata(case):
    fmt, path, kind, unit = META_CASES[case]
    make = meta_2020 if fmt == "s2orc-2020" else meta_api
    good = parse_metadata(json.dumps(make()).encode(), fmt, BadInputLog())
    assert good["fields_of_study"] == ["Computer Science", "Linguistics"] and good["journal"] == "Journal"
    rec = make()
    if path == "journal.name": rec["journal"] = {"name": "Journal"}
    log = BadInputLog()
    out = parse_metadata(json.dumps(_set(rec, path, WRONG[kind])).encode(), fmt, log)
    _check(out, log, path, kind, unit, good, _reason(path, kind))


def test_the_fuzzer_tries_many_instances():
    "How many (field, wrong type) instances the fuzzer tries, per layout (printed; a floor keeps it from shrinking)"
    n = {"fulltext 2020 family": len(FULLTEXT_CASES), "fulltext API": len(API_CASES), "metadata": len(META_CASES)}
    print(n, sum(n.values()))
    assert n["fulltext 2020 family"] >= 300 and n["fulltext API"] >= 200 and n["metadata"] >= 50


# ------------------------------------------------------------------ the whole build goes on
def _write(path: Path, recs):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as f:
        for r in recs: f.write((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n")


@pytest.mark.parametrize("fmt,validate", [("s2orc-2020", False), ("s2orc-2020", True), ("s2-api", False), ("s2-api", True)])
def test_no_single_record_stops_a_build(tmp_path, fmt, validate):
    """Every wrong-typed record of the fuzzer in one corpus, next to good papers: the build ends, counts each, keeps the good
    examples. Every value the build reads is counted: in the 2020 layout every paper's sections and texts (for the side
    tables); in the API layout the first pass reads only the papers that may have Related Work, unless `validate_json`"""
    from citesum_nb.build import BuildParams, build_citesum
    corpus, expect, lines, meta = tmp_path/"corpus", {}, [], []
    cases = [(p, k) for p, k, u in _instances(LAYOUTS_FULLTEXT["2020"][1] if fmt == "s2orc-2020" else API_FULLTEXT)]
    for i, (path, kind) in enumerate(cases):
        pid = 1000 + i
        if fmt == "s2orc-2020": lines.append(json.dumps(_set(pdf_2020(str(pid)), path, WRONG[kind])).encode())
        else: lines.append(_encode_api(_set(_api_record(pid), path, WRONG[kind]), True))
        r = _reason(path, kind); expect[r] = expect.get(r, 0) + 1
    good = [pdf_2020("1"), pdf_2020("2")] if fmt == "s2orc-2020" else [_api_record(1), _api_record(2)]
    lines += [json.dumps(g).encode() if fmt == "s2orc-2020" else _encode_api(g, True) for g in good]
    meta = [meta_2020("200")] if fmt == "s2orc-2020" else [meta_api(200)]
    if fmt == "s2-api":   # the cited paper's abstract lives in its full text in this layout
        lines.append(json.dumps({"corpusid": 200, "content": {"text": ABSTRACT, "annotations": {"abstract": json.dumps([{"start": 0, "end": len(ABSTRACT)}])}}}).encode())
    sub = ("pdf_parses", "metadata") if fmt == "s2orc-2020" else ("s2orc", "papers")
    _write(corpus/sub[0]/"part_0.jsonl.gz", lines); _write(corpus/sub[1]/"part_0.jsonl.gz", meta)
    rep = build_citesum(BuildParams(s2orc_dir=str(corpus), validate_json=validate), tmp_path/"out", progress=False)
    bad = rep["bad_input"]["counts"]
    exact = fmt == "s2orc-2020" or validate
    for r, n in expect.items(): assert (bad.get(r) == n) if exact else (bad.get(r, 0) <= n), (r, n, bad.get(r))
    assert rep["stages"]["kept"] >= 2, rep["stages"]   # the two good citing papers' examples
    kept = [json.loads(l) for s in ("train", "validation", "test") for l in (tmp_path/"out"/f"{s}.jsonl").read_text().splitlines()]
    assert {e["citing_paper_id"] for e in kept} >= {"1", "2"}


@pytest.mark.parametrize("rw", [True, False])
def test_first_pass_reader_agrees_with_the_parser(rw):
    "The build's first-pass reader (`paper_texts`) on every fuzzed 2020-family line: the parser's texts, the parser's counts"
    from citesum_nb.citations import introduction_and_conclusion, is_related_work
    from citesum_nb.raw_texts import paper_texts
    n = 0
    for name, (make, path, kind, unit) in FULLTEXT_CASES.items():
        rec0 = make()
        if not rw:   # a paper without Related Work: read, not parsed, unless something it reads is wrong
            parse = rec0.get("grobid_parse") or rec0.get("pdf_parse") or rec0
            parse["body_text"][0]["section"] = "2 Background"
        line = json.dumps(_set(rec0, path, WRONG[kind])).encode()
        rec = parse_fulltext(line, "s2orc-2020", log1 := BadInputLog())
        got = paper_texts(line, log2 := BadInputLog())
        if rec is None: assert got is None and log2.counts == log1.counts, name; continue
        assert (got[0], got[2], got[3]) == (rec["paper_id"], rec["abstract"].encode(), tuple(t.encode() for t in introduction_and_conclusion(rec))), name
        may_rw = any(is_related_work(p["section"]) for p in rec["body_text"])
        assert (got[1] is not None) >= may_rw, name
        if got[1] is not None: assert got[1] == rec and log2.counts == log1.counts, name
        n += 1
    assert n > 200
