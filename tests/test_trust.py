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


# ---------------------------------------------------------------- scores are never silently wrong
import math

import numpy as np

from citesum_nb.cli import main
from citesum_nb.core import write_jsonl


@pytest.fixture(scope="module")
def split_file(tmp_path_factory):
    "A 4-example test split as one JSONL file"
    f = tmp_path_factory.mktemp("split")/"test.jsonl"
    write_jsonl([{"id": f"p{i}:0", "src": f"We study topic {i}. It works well.", "tgt": [f"REF studies topic {i}."]} for i in range(4)], f)
    return f


def _one_error_line(capsys, rc, want_rc=2)->str:
    "The command's single stderr line, after checking the exit status and that no traceback was printed"
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == want_rc and len(err) == 1 and "Traceback" not in err[0], (rc, err)
    return err[0]


BAD_LINES = {   # how line k of a prediction file can be wrong, as raw JSON text; {i} is the example id
    "null": '{{"id": "{i}", "prediction": null}}', "nan": '{{"id": "{i}", "prediction": NaN}}', "inf": '{{"id": "{i}", "prediction": Infinity}}',
    "int": '{{"id": "{i}", "prediction": 3}}', "float": '{{"id": "{i}", "prediction": 1.5}}', "bool": '{{"id": "{i}", "prediction": true}}',
    "empty list": '{{"id": "{i}", "prediction": []}}', "list": '{{"id": "{i}", "prediction": ["REF studies it."]}}',
    "object": '{{"id": "{i}", "prediction": {{"text": "x"}}}}', "missing key": '{{"id": "{i}"}}',
    "changed key": '{{"id": "{i}", "summary": "REF studies it."}}', "not an object": '["{i}", "REF studies it."]',
    "string line": '"REF studies it."', "no id": '{{"prediction": "REF studies it."}}', "null id": '{{"id": null, "prediction": "x"}}',
}


@pytest.mark.parametrize("pos", [0, 1, 3])
@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_eval_refuses_a_bad_prediction_line(split_file, tmp_path, capsys, kind, pos):
    "Every line must hold a string under the first line's prediction key: otherwise one line naming file:line"
    lines = [json.dumps({"id": f"p{i}:0", "prediction": f"REF studies topic {i}."}) for i in range(4)]
    lines[pos] = BAD_LINES[kind].format(i=f"p{pos}:0")
    f = tmp_path/"pred.jsonl"; f.write_text("\n".join(lines[:2] + [""] + lines[2:]) + "\n")   # a blank line 3: lines keep their numbers
    line_no = pos + 1 + (pos >= 2)
    if pos == 0 and kind in ("changed key", "no id"): line_no = 2   # the first line sets the key (or no id); the second breaks it
    msg = _one_error_line(capsys, main(["eval", "--pred", str(f), "--data", str(split_file), "--json"]))
    assert f"{f}:{line_no}:" in msg, msg


SEPARATORS = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\r\r"]


@pytest.mark.parametrize("where", ["middle", "start", "end"])
@pytest.mark.parametrize("sep", SEPARATORS)
def test_summarize_file_one_line_one_abstract(tmp_path, sep, where):
    "Only \\n ends an abstract of a text file (and of standard input): what str.splitlines also splits at does not"
    from citesum_nb.summarize import read_texts
    a = {"middle": f"We study X.{sep}Our method works.", "start": f"{sep}We study X.", "end": f"We study X.{sep}"}[where]
    f = tmp_path/"in.txt"; f.write_bytes(f"{a}\nSecond abstract here.\n".encode())
    got = read_texts(f)
    assert [i for i, _ in got] == ["1", "2"] and got[1][1] == "Second abstract here.", got
    assert got[0][1] == " ".join(a.split())


def _matrix(tmp_path, cell, value):
    rows = [["train", "A", "B", "C"]] + [[r] + ["50" if r == c else "20" for c in "ABC"] for r in "ABC"]
    rows["ABC".index(cell[0]) + 1]["ABC".index(cell[1]) + 1] = value
    f = tmp_path/"m.csv"; f.write_text("\n".join(",".join(r) for r in rows) + "\n"); return f


@pytest.mark.parametrize("cell", [("A", "A"), ("A", "B"), ("C", "B"), ("C", "C")])
@pytest.mark.parametrize("value", ["-0.001", "-5", "100.0001", "1e9", "nan", "NaN", "inf", "-inf", ""])
def test_crosseval_matrix_refuses_bad_cells(tmp_path, capsys, cell, value):
    f = _matrix(tmp_path, cell, value)
    msg = _one_error_line(capsys, main(["crosseval", "--matrix", str(f), "--json"]))
    assert f"{f}: cell ({cell[0]}, {cell[1]})" in msg, msg


KINDS = {"nan": (float("nan"), None), "inf": (float("inf"), None), "-inf": (float("-inf"), None), "np nan": (np.float64("nan"), None),
         "np32 inf": (np.float32("inf"), None), "np int": (np.int64(7), 7), "np32": (np.float32(0.5), 0.5), "np bool": (np.bool_(True), True)}
SLOTS = {"value": (lambda v: v, lambda v: v), "in object": (lambda v: {"v": v, "w": 1}, lambda v: {"v": v, "w": 1}),
         "in list": (lambda v: [1.5, v], lambda v: [1.5, v])}


def _strict(line:str):
    def refuse(c): raise AssertionError(f"not standard JSON: {c}")
    return json.loads(line, parse_constant=refuse)


def _json_cases(split_file, tmp_path, monkeypatch, x):
    "{command: (argv, how to read the injected value back)} with `x` injected into what each command computes"
    import pandas as pd
    import citesum_nb.analysis, citesum_nb.bias, citesum_nb.cloze_baselines, citesum_nb.crosseval, citesum_nb.metrics
    monkeypatch.setattr(citesum_nb.metrics, "corpus_rouge", lambda df: {"rouge1": x, "n": 4})
    monkeypatch.setattr(citesum_nb.bias, "dataset_bias", lambda *a, **k: ({"coverage": x, "n": 4}, pd.DataFrame()))
    monkeypatch.setattr(citesum_nb.analysis, "abstraction_level", lambda *a, **k: {"all": {"n": 4, "rouge1": x}})
    monkeypatch.setattr(citesum_nb.crosseval, "stiffness", lambda U: x)
    keys = ("rouge1", "rouge2", "rougeL", "rouge1_r", "rouge2_r", "rougeL_r")
    monkeypatch.setattr(citesum_nb.cloze_baselines, "score_baseline", lambda *a, **k: ([], {**{m: 1.0 for m in keys}, "n": 0}, {"fuzz": x}))
    d = ["--data", str(split_file)]
    return {"eval": (["eval", "--pred", str(_preds(tmp_path)), *d, "--json"], lambda o: o["rouge1"]),
            "bias": (["bias", *d, "--json"], lambda o: o["coverage"]),
            "abstraction": (["abstraction", *d, "--json"], lambda o: o["all"]["rouge1"]),
            "crosseval": (["crosseval", "--matrix", str(_matrix(tmp_path, ("A", "A"), "50")), "--json"], lambda o: o["stiffness"]),
            "cloze baseline": (["cloze", "baseline", "lead1", "--data", str(tmp_path), "--json"], lambda o: o["fuzz"])}


def _preds(tmp_path):
    f = tmp_path/"p.txt"; f.write_text("".join(f"REF studies topic {i}.\n" for i in range(4))); return f


@pytest.mark.parametrize("command", ["eval", "bias", "abstraction", "crosseval", "cloze baseline"])
@pytest.mark.parametrize("slot", list(SLOTS))
@pytest.mark.parametrize("kind", list(KINDS))
def test_json_output_is_standard(split_file, tmp_path, monkeypatch, capsys, command, slot, kind):
    "NaN, infinities and NumPy numbers anywhere in a result: the --json line parses as standard JSON, non-finite values as null"
    (v, want), (put, expect) = KINDS[kind], SLOTS[slot]
    argv, read = _json_cases(split_file, tmp_path, monkeypatch, put(v))[command]
    assert main(argv) == 0
    out = _strict(capsys.readouterr().out.strip().splitlines()[-1])
    assert read(out) == expect(want)


@pytest.mark.parametrize("kind", list(KINDS))
def test_resolve_json_is_standard(monkeypatch, capsys, kind):
    import pandas as pd
    import citesum_nb.resolve as R
    from citesum_nb.s2orc import BadInputLog
    v, want = KINDS[kind]
    corpus = type("C", (), {"papers": [], "log": BadInputLog()})()
    row = {"scorer": "tfidf", "representation": "x", "window": "1s", "accuracy": v, "random_baseline": 0.1, "n_docs": 1,
           "n_contexts": 1, "n_citations": 1, "min_refs": 1}
    monkeypatch.setattr(R, "gather_corpus", lambda *a, **k: corpus)
    monkeypatch.setattr(R, "resolve_corpus", lambda *a, **k: None)
    monkeypatch.setattr(R, "results_table", lambda *a, **k: pd.DataFrame([row]))
    monkeypatch.setattr(R, "paper_ordering", lambda t: pd.DataFrame([{"metric": "x", "value": v}]))
    assert main(["resolve", "--json", "--quiet"]) == 0
    out = _strict(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["rows"][0]["accuracy"] == want and out["ordering"][0]["value"] == want


# ---------------------------------------------------------------- faults end with one line
import errno, gzip, random as _random

BINARY = {"random bytes": bytes(_random.Random(7).randrange(256) for _ in range(4096)), "gzip": gzip.compress(b"REF works.\n" * 50),
          "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64), "utf-16": "REF works.\nREF fails.\n".encode("utf-16"),
          "utf-16-le, no BOM": "REF works.\n".encode("utf-16-le"), "nul bytes": b"REF works.\x00\nok\n", "latin-1": "café REF.\n".encode("latin-1")}


@pytest.mark.parametrize("suffix", [".txt", ".jsonl"])
@pytest.mark.parametrize("command", ["eval", "summarize"])
@pytest.mark.parametrize("kind", list(BINARY))
def test_binary_input_is_one_line(split_file, tmp_path, capsys, kind, command, suffix):
    f = tmp_path/f"input{suffix}"; f.write_bytes(BINARY[kind])
    argv = ["eval", "--pred", str(f), "--data", str(split_file)] if command == "eval" else ["summarize", "--file", str(f)]
    msg = _one_error_line(capsys, main(argv))
    assert str(f) in msg and "binary data" in msg, msg


@pytest.fixture
def unwritable(monkeypatch, tmp_path):
    "A folder where creating a file or folder fails with an errno of the test's choice (as on a read-only mount, a full disk, a quota)"
    import builtins, io, os
    root, state = tmp_path/"locked", {"errno": errno.EROFS}
    real_open, real_mkdir = builtins.open, os.mkdir
    def refuse(path): e = state["errno"]; raise OSError(e, os.strerror(e), str(path))
    def inside(path): return isinstance(path, (str, os.PathLike)) and str(os.path.abspath(path)).startswith(str(root))
    def fake_open(file, mode="r", *a, **k):
        if inside(file) and any(c in mode for c in "wax+"): refuse(file)
        return real_open(file, mode, *a, **k)
    def fake_mkdir(path, *a, **k):
        if inside(path): refuse(path)
        return real_mkdir(path, *a, **k)
    monkeypatch.setattr(builtins, "open", fake_open); monkeypatch.setattr(io, "open", fake_open); monkeypatch.setattr(os, "mkdir", fake_mkdir)
    return root, state


def _writers(split_file, tmp_path, out):
    "Commands that write files, each writing `out(name)`"
    m = _matrix(tmp_path, ("A", "A"), "50")
    d = ["--data", str(split_file)]
    return {"eval": ["eval", "--pred", str(_preds(tmp_path)), *d, "--per-example", out("scores.csv")],
            "baseline": ["baseline", "lead", *d, "--out", out("lead.txt")],
            "bias": ["bias", *d, "--out", out("bias.csv")],
            "overlap": ["overlap", "--a", str(split_file), "--b", str(split_file), "--out", out("pairs.csv")],
            "human-eval": ["human-eval", "sample", *d, "-n", "2", "--html", "--out", out("sheets")],
            "crosseval": ["crosseval", "--matrix", str(m), "--out", out("figs")],
            "build": ["build", "--scheduler", "synchronous", "--quiet", "--out", out("ds")]}


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES, errno.ENOSPC, errno.EDQUOT])
@pytest.mark.parametrize("command", ["eval", "baseline", "bias", "overlap", "human-eval", "crosseval", "build"])
def test_unwritable_output_is_one_line(split_file, tmp_path, capsys, unwritable, command, code):
    import os
    root, state = unwritable; state["errno"] = code
    msg = _one_error_line(capsys, main(_writers(split_file, tmp_path, lambda name: str(root/"out"/name))[command]), want_rc=1)
    assert msg.startswith(f"citesum {command}: error: cannot write {root}") and msg.endswith(os.strerror(code)), msg


@pytest.mark.parametrize("command", ["eval", "baseline", "bias", "overlap"])
def test_full_disk_is_one_line(split_file, tmp_path, capsys, command):
    "A real full disk: /dev/full accepts the open and fails the write (ENOSPC, an error without a file name)"
    argv = _writers(split_file, tmp_path, lambda name: "/dev/full")[command]
    msg = _one_error_line(capsys, main(argv), want_rc=1)
    assert msg == f"citesum {command}: error: cannot write /dev/full: No space left on device", msg


def test_full_disk_in_a_real_process(split_file, tmp_path):
    "The console command itself: one line on stderr, status 1"
    from conftest import citesum
    r = citesum("eval", "--pred", _preds(tmp_path), "--data", split_file, "--per-example", "/dev/full", check=False)
    assert r.returncode == 1 and r.stderr.strip() == "citesum eval: error: cannot write /dev/full: No space left on device", r.stderr
