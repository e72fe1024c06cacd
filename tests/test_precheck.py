"""The Related Work pre-check is complete for every JSON encoding of every title that `is_related_work` accepts.

Titles are generated (any mix of case, every accepted whitespace, the no-break space of PDF text), then written in JSON
in random ways (each character as itself, as a \\u escape with hex digits in any case, or as a short escape), and put
in a line of both layouts. The pre-check may pass a line that has no such title, never the reverse.
"""
import gzip, json, random

import pytest

from citesum_nb.citations import is_related_work
from citesum_nb.s2orc import BadInputLog, has_related_work, parse_fulltext

SPACES = " \t\n\r\f\v\u00a0"
SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f", "\b": "\\b", '"': '\\"', "\\": "\\\\", "/": "\\/"}
N = 3000


def rw_title(rng):
    "A section title that `is_related_work` accepts"
    word = lambda w: "".join(c.upper() if rng.random() < .5 else c for c in w)
    ws = "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 3)))
    pre = rng.choice(["", "2 ", "II. ", "Background and ", "4.1\u00a0", "Überblick / "])
    post = rng.choice(["", "s", " and Background", ":", " \u2013 a survey"])
    return pre + word("related") + ws + word("work") + post


def other_title(rng):
    "A section title that `is_related_work` rejects"
    return rng.choice(["Introduction", "Prior Work", "Related-Work", "Relatedwork", "Work related to ours", "Related\u2003Work",
                       "Related Literature", "Methods", "Conclusion"]) + rng.choice(["", " 2", "s"])


def encode(s, rng):
    "One JSON encoding of the string `s` (without its quotes)"
    out = []
    for c in s:
        opts = ["\\u" + "".join(x.upper() if rng.random() < .5 else x for x in "%04x" % ord(c))]
        if c not in '"\\' and ord(c) >= 0x20: opts.append(c)   # JSON forbids raw control characters
        if c in SHORT: opts.append(SHORT[c])
        out.append(rng.choice(opts))
    return "".join(out)


def line_2020(enc_title):
    return ('{"paper_id": "1", "_pdf_hash": "h", "abstract": [], "body_text": [{"section": "1 Introduction", "text": "x", '
            '"cite_spans": [], "ref_spans": []}, {"section": "%s", "text": "y", "cite_spans": [], "ref_spans": []}], '
            '"bib_entries": {}, "ref_entries": {}}' % enc_title).encode()


def line_api(enc_title):
    return ('{"corpusid": 1, "content": {"text": "1 Introduction\\n\\n%s\\n\\nSome text.", "annotations": {}}}' % enc_title).encode()


def _cases(make, n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        t = make(rng); e = encode(t, rng)
        assert json.loads(f'"{e}"') == t   # a valid encoding of the title
        yield t, e


def test_every_encoding_of_an_accepted_title_passes():
    n = 0
    for t, e in _cases(rw_title, N, 0):
        assert is_related_work(t), repr(t)
        assert has_related_work(line_2020(e), "s2orc-2020"), (t, e)
        assert has_related_work(line_api(e), "s2-api"), (t, e)
        assert has_related_work(memoryview(line_2020(e)), "s2orc-2020")
        n += 1
    print(f"{n} encodings x 2 layouts")


def test_the_precheck_is_not_vacuous():
    "Titles that are not Related Work, however written, are rejected in the 2020 layout (where section titles are exact)"
    cases = [e for t, e in _cases(other_title, 500, 1) if not is_related_work(t)]   # ("Related\u2003Work" is Related Work: any Unicode space)
    assert len(cases) > 300 and sum(not has_related_work(line_2020(e), "s2orc-2020") for e in cases) == len(cases)


def test_the_parsed_titles_agree():
    "What the parser reads from each encoding is the title itself"
    for t, e in _cases(rw_title, 300, 2):
        rec = parse_fulltext(line_2020(e), "s2orc-2020", BadInputLog())
        assert rec["body_text"][1]["section"] == t


@pytest.mark.parametrize("scheduler", ["synchronous"])
def test_the_build_finds_every_related_work_section(tmp_path, scheduler):
    "A corpus whose Related Work titles are written in odd JSON: the build finds as many as `--validate-json` (which parses every line)"
    from citesum_nb.build import BuildParams, build_citesum
    from citesum_nb.core import sample_corpus_dir
    src = sample_corpus_dir()/"pdf_parses"
    rng, lines, n_rw = random.Random(3), [], 0
    for f in sorted(src.glob("*.gz")):
        for l in gzip.open(f).read().splitlines():
            rec = json.loads(l)
            for p in rec["body_text"]:
                if is_related_work(p["section"]): p["section"] = rw_title(rng)
            s = json.dumps(rec, ensure_ascii=False)
            for p in rec["body_text"]:   # every title of the line written in an odd way
                s = s.replace(json.dumps(p["section"], ensure_ascii=False), '"%s"' % encode(p["section"], rng), 1)
            assert json.loads(s) == rec
            n_rw += any(is_related_work(p["section"]) for p in rec["body_text"])
            lines.append(s.encode())
    corpus = tmp_path/"corpus"
    (corpus/"pdf_parses").mkdir(parents=True); (corpus/"metadata").mkdir()
    (corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    for f in (sample_corpus_dir()/"metadata").glob("*.gz"): (corpus/"metadata"/f.name).write_bytes(f.read_bytes())
    fast = build_citesum(BuildParams(s2orc_dir=str(corpus), scheduler=scheduler), tmp_path/"fast", progress=False)["stages"]
    full = build_citesum(BuildParams(s2orc_dir=str(corpus), scheduler=scheduler, validate_json=True), tmp_path/"full", progress=False)["stages"]
    assert fast["papers_with_related_work"] == full["papers_with_related_work"] == n_rw > 20
    assert fast["kept"] == full["kept"] > 0
