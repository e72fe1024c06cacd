"""Trust under attack: text from a corpus never becomes markup (build and cloze reports, dataset and model cards, rating
sheets). Each writer is rendered twice, once with a harmless marker and once with a payload in the same places: the
rendered documents must have the same structure (no new tag, link, table cell, heading or emphasis), and the payload
must read as written."""
import html.parser, json, re, shutil

import pytest

PAYLOADS = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<a href=\"javascript:alert(1)\">x</a>",
    "[x](javascript:alert(1))", "![x](javascript:alert(1))", "<javascript:alert(1)>", "<https://evil.example>",
    "a | b | c", "`code` and ``more``", "```\nfenced", "line one\nline two\r\n# heading\n- item\n| t |\n| --- |",
    "*em* _em_ **strong** ~~gone~~", "&lt;script&gt; &#60;b&#62; &amp;", "<!-- comment", "x\\", "\\| escaped pipe",
    "$x^2$ and $$y$$", "sep\u2028line\x85next\x0cform\x1cfile", "ansi \x1b[31mred\x1b[0m", "\" onmouseover=\"alert(1)",
    "' onfocus='alert(1)", "[ref]: javascript:alert(1)", "   indented code?\n    four spaces",
]
BENIGN = "PAYLOADMARK"


def _md_tokens(md:str):
    "(structure, text) of a Markdown document rendered as GitHub and the Hub do (CommonMark, tables, strikethrough, raw HTML on)"
    from markdown_it import MarkdownIt
    md = re.sub(r"\A---\n.*?\n---\n", "", md, flags=re.S)   # a card's YAML front matter is not Markdown
    struct, text = [], []
    def walk(tokens):
        for t in tokens:
            if t.type in ("text", "code_inline"): text.append(t.content)   # code blocks (shell commands, quoted) aside
            if t.type != "text": struct.append((t.type, t.tag, tuple(sorted((t.attrs or {}).items()))))
            if t.children: walk(t.children)
    walk(MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).parse(md))
    return struct, "".join(text)


def _seen(payload:str)->str:
    "What a reader must see of `payload`: its characters, whitespace aside (line breaks and control characters become spaces)"
    return "".join(re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", payload).split())


def assert_inert(render, payload:str):
    "`render(s)` (a Markdown page with `s` in every corpus-derived place) has the same structure for `payload` as for a marker"
    s0, t0 = _md_tokens(render(BENIGN)); s1, t1 = _md_tokens(render(payload))
    assert s1 == s0, f"the payload changed the document's structure: {[x for x in s1 if x not in s0][:3]}"
    assert "".join(t1.split()) == "".join(t0.split()).replace(BENIGN, _seen(payload)), "the payload does not read as written"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    from citesum_nb.build import build_sample_dataset
    return build_sample_dataset(tmp_path_factory.mktemp("build"))


def _poisoned_build_report(report:dict, s:str, path:str|None=None)->dict:
    "A build report whose input path (unless `path` is given), format and example ids all are `s`"
    r = json.loads(json.dumps(report))
    r["input"].update(path=s if path is None else path, format=s)
    r["bad_input"]["counts"]["shard_corrupt"] = 1
    r["bad_input"]["examples"]["shard_corrupt"] = [s, s]
    for k in ("duplicate_paper_id_fulltext", "duplicate_paper_id_metadata"): r["bad_input"][k].update(count=1, examples=[s])
    r["drops_examples"] = {"rouge_below_threshold": [s, "ok:1"]}
    return r


@pytest.mark.parametrize("payload", PAYLOADS)
def test_build_report_is_inert(build, payload):
    from citesum_nb.build import report_markdown
    report = json.loads((build/"report.json").read_text())
    assert_inert(lambda s: report_markdown(_poisoned_build_report(report, s)), payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_dataset_card_is_inert(build, payload, tmp_path):
    from citesum_nb.cards import dataset_card
    d = tmp_path/"ds"; shutil.copytree(build, d)
    report = json.loads((build/"report.json").read_text())
    def render(s):
        (d/"report.json").write_text(json.dumps(_poisoned_build_report(report, s, "/data/s2orc")))   # a card names the folder only
        return dataset_card(d, license="odc-by").read_text()
    assert_inert(render, payload)


@pytest.fixture(scope="module")
def cloze_report(tmp_path_factory):
    from citesum_nb.cloze import ClozeParams, build_cloze
    out = tmp_path_factory.mktemp("cloze")
    return build_cloze(ClozeParams(scheduler="synchronous", out_dir=str(out)), out/"dataset")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_cloze_report_is_inert(cloze_report, payload):
    from citesum_nb.cloze import cloze_report_markdown
    def render(s):
        r = json.loads(json.dumps(cloze_report))
        r["input"].update(path=s, format=s); r["settings"] = {**r["settings"], "splitter": s}
        r["split"]["fallback_reason"] = s
        r["drops"] = {"no_abstract": {"count": 2, "examples": [s, "ok"]}}
        r["bad_input"] = {"counts": {"json_error": 1}, "examples": {"json_error": [s]}}
        return cloze_report_markdown(r)
    assert_inert(render, payload)


def _fake_run(d, s:str):
    "A training run folder (as `citesum train` leaves it) whose recorded settings hold `s`"
    (d/"best").mkdir(parents=True, exist_ok=True)
    (d/"best"/"config.json").write_text(json.dumps({"model_type": "bart", "citesum_not_pretrained": True}))
    (d/"metrics.json").write_text(json.dumps({"model": "facebook/bart-base", "precision": s, "global_step": s, "best_val_rouge2": s,
                                              "predict_rouge": {"rouge1": 40.0, "rouge2": 20.0}}))
    import yaml
    (d/"params_used.yaml").write_text(yaml.safe_dump({"source": s, "target": s, "lr": s, "seed": 1}))
    return d


@pytest.mark.parametrize("payload", PAYLOADS)
def test_model_card_is_inert(payload, tmp_path):
    from citesum_nb.cards import model_card
    assert_inert(lambda s: model_card(_fake_run(tmp_path/"run", s), license="apache-2.0").read_text(), payload)


class _HTMLShape(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True); self.struct, self.text = [], []
    def handle_starttag(self, tag, attrs): self.struct.append(("start", tag, tuple(attrs)))
    def handle_endtag(self, tag): self.struct.append(("end", tag))
    def handle_data(self, data): self.text.append(data)
    def handle_comment(self, data): self.struct.append(("comment",))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_rating_sheet_html_is_inert(payload, tmp_path):
    import pandas as pd
    from citesum_nb.analysis import write_rating_sheets
    def shape(s):
        sheet = pd.DataFrame({"item": [1, 2], "id": [s, "p2:0"], "title": [s, "T"], "abstract": [s, "A."],
                              "citation_sentence": [s, "REF works."], "rating": "", "comment": ""})
        page = [p for p in write_rating_sheets(sheet, tmp_path/s.encode().hex()[:40], annotators=1, html_pages=True) if p.suffix == ".html"][0]
        h = _HTMLShape(); h.feed(page.read_text()); h.close()
        return h.struct, "".join("".join(h.text).split())
    (s0, t0), (s1, t1) = shape(BENIGN), shape(payload)
    assert s1 == s0 and t1 == t0.replace(BENIGN, "".join(payload.split()))
