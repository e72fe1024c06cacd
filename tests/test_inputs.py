"""Input of any shape, generated over each class (seeded): every JSON and YAML a command reads ends in its value or one
line, a `CitesumError` naming the file (or option) and the reason, never a traceback; the build counts what a record
holds instead (`bad_value:<field>`, `duplicate_key`, `related_work_near_miss`); `summarize` hands the tokenizer no more
than the model can use; cards and printed commands hold no raw control character."""
import gzip, io, json, random, re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from citesum_nb.cli import main
from citesum_nb.core import (MAX_ECHO, MAX_INT_DIGITS, MAX_JSON_DEPTH, CitesumError, load_json, load_yaml, read_json, read_jsonl,
                             read_yaml_file, shell_join, write_jsonl)

SEED = 40
GOOD = {"id": "1", "src": "We study a problem of transfer between domains.", "tgt": "This paper studies transfer.", "prediction": "This paper studies."}


def hostile_json(rng: random.Random) -> tuple:
    "One hostile JSON document (bytes) and a word its one-line error holds"
    n = rng.randint(MAX_JSON_DEPTH + 1, 200_000)
    kind = rng.choice(["deep_list", "deep_object", "deep_inside", "long_int", "long_negative", "not_utf8", "nul", "cut"])
    if kind == "deep_list": return b"[" * n + b"]" * n, "nested deeper"
    if kind == "deep_object": return b'{"a": ' * n + b"1" + b"}" * n, "nested deeper"
    if kind == "deep_inside": return json.dumps(GOOD).encode()[:-1] + b', "x": ' + b"[" * n + b"]" * n + b"}", "nested deeper"
    digits = b"1" + b"0" * rng.randint(MAX_INT_DIGITS, 20_000)
    if kind == "long_int": return b'{"id": "1", "src": "x", "start": %s}' % digits, "digits"
    if kind == "long_negative": return b'{"id": -%s, "src": "x", "tgt": "y"}' % digits, "digits"
    if kind == "not_utf8": return json.dumps(GOOD).encode().replace(b"study", b"st\xffudy"), "binary data"
    if kind == "nul": return json.dumps(GOOD).encode().replace(b"study", b"st\x00udy"), "binary data"
    return json.dumps(GOOD).encode()[: rng.randint(1, 40)], "not valid JSON"


def one_line(e: BaseException, where: str, why: str):
    msg = str(e)
    assert isinstance(e, CitesumError) and "\n" not in msg and where in msg and why in msg and len(msg) < 400, (type(e), msg[:300])


def test_every_json_reader_ends_in_one_line(tmp_path):
    "300 hostile documents through each reader: load_json, JSON Lines (a line of them), read_records (.json, .jsonl), eval's and summarize's readers"
    from citesum_nb.data import read_records
    from citesum_nb.evaluate import read_predictions
    from citesum_nb.summarize import read_texts
    rng, n = random.Random(SEED), 0
    good = json.dumps(GOOD).encode()
    for i in range(300):
        doc, why = hostile_json(rng)
        with pytest.raises(CitesumError) as e: load_json(doc, "doc.json")
        one_line(e.value, "doc.json", why)
        f = tmp_path/f"in{i}.jsonl"; f.write_bytes(good + b"\n" + doc + b"\n")
        for reader in (read_jsonl, read_records, read_predictions, read_texts):
            with pytest.raises(CitesumError) as e: reader(f)
            one_line(e.value, f"in{i}.jsonl:2", why); n += 1
        if why != "nested deeper" or doc[:1] != b"{":   # a whole .json file (a list, or one object)
            j = tmp_path/f"in{i}.json"; j.write_bytes(b"[" + doc + b"]" if doc[:1] != b"[" else doc)
            with pytest.raises(CitesumError) as e: read_records(j)
            one_line(e.value, f"in{i}.json", why); n += 1
    assert n > 1200


def test_commands_that_read_json_end_in_one_line(tmp_path):
    "eval --pred, bias --data, human-eval sample --data on hostile files (seeded): exit status 2 and one line on stderr"
    rng = random.Random(SEED + 1)
    data = tmp_path/"data"; write_jsonl([{**GOOD, "id": str(k)} for k in range(4)], data/"test.jsonl")
    for i in range(6):
        doc, why = hostile_json(rng)
        bad = tmp_path/f"bad{i}"; bad.mkdir()
        (bad/"test.jsonl").write_bytes(json.dumps(GOOD).encode() + b"\n" + doc + b"\n")
        for argv in (["eval", "--pred", str(bad/"test.jsonl"), "--data", str(data), "--split", "test"],
                     ["bias", "--data", str(bad), "--split", "test"],
                     ["human-eval", "sample", "--data", str(bad), "--split", "test", "--out", str(tmp_path/f"sheets{i}")]):
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()): rc = main(argv)
            assert rc == 2 and err.getvalue().count("\n") == 1 and why in err.getvalue(), (argv[0], err.getvalue()[:300])


def hostile_yaml(rng: random.Random) -> tuple:
    "One hostile YAML text (bytes) and a word its one-line error holds"
    n = rng.randint(MAX_JSON_DEPTH + 1, 20_000)
    kind = rng.choice(["flow", "block", "mapping", "long_int", "not_utf8", "alias", "twice"])
    if kind == "flow": return b"n_papers: " + b"[" * n + b"]" * n, "nested deeper"
    if kind == "block": return b"n_papers:\n" + b"".join(b"  " * k + b"- \n" for k in range(min(n, 600))) + b"  " * min(n, 600) + b"- 1\n", "nested deeper"
    if kind == "mapping": return b"n_papers: " + b"{a: " * n + b"1" + b"}" * n, "nested deeper"
    if kind == "long_int": return b"n_papers: 1" + b"0" * rng.randint(MAX_INT_DIGITS, 20_000), "digits"
    if kind == "not_utf8": return b"out_dir: caf\xe9\n", "binary data"
    if kind == "alias": return b"a: &x [1, 2]\nb: *x\n", "aliases"
    return b"n_papers: 1\nn_papers: 2\n", "given twice"


def test_every_yaml_reader_ends_in_one_line(tmp_path):
    "120 hostile texts through load_yaml, a params file (read_yaml, load_params), --set values, a run spec, a run folder's run.yaml"
    from citesum_nb.core import run_steps
    from citesum_nb.params import CoreParams, load_params, parse_set, read_yaml
    rng = random.Random(SEED + 2)
    for i in range(120):
        text, why = hostile_yaml(rng)
        with pytest.raises(CitesumError) as e: load_yaml(text, "p.yaml")
        one_line(e.value, "p.yaml", why)
        f = tmp_path/f"p{i}.yaml"; f.write_bytes(text)
        for reader in (read_yaml, read_yaml_file, lambda p: load_params(CoreParams, p)):
            with pytest.raises(CitesumError) as e: reader(f)
            one_line(e.value, f"p{i}.yaml", why)
        if i % 10 == 0:
            run = tmp_path/f"run{i}"; run.mkdir(); (run/"run.yaml").write_bytes(b"steps:\n- " + text.replace(b"\n", b"\n  ") if why != "binary data" else text)
            with pytest.raises(CitesumError) as e: run_steps(run)
            one_line(e.value, "run.yaml", "")
    from citesum_nb.build import BuildParams
    for k in (10, 150_000):   # a value of any size is echoed abridged: the line stays short
        big = "[" + ", ".join(["1"] * k) + "]"
        for sets in (["thresholds=" + big], [big + "=1"]):
            with pytest.raises(CitesumError) as e: load_params(BuildParams, sets=sets)
            assert len(str(e.value)) < 2 * MAX_ECHO + 100 and "\n" not in str(e.value), str(e.value)[:300]


def test_a_run_spec_of_any_shape_is_one_line(tmp_path):
    "An empty run spec, one whose step has no name, bytes that are not UTF-8: `citesum run` ends in one line"
    from citesum_nb.run import plan_run
    proj = tmp_path/"proj"; (proj/"nbs").mkdir(parents=True); (proj/"params"/"runs").mkdir(parents=True)
    for text, why in [(b"", "is empty"), (b"# only a comment\n", "is empty"), (b"steps:\n- {name: {a: 1}, notebook: 00_core}\n", "name"),
                      (b"steps:\n- \xff\n", "binary data"), (b"steps: " + b"[" * 5000, "nested deeper")]:
        f = proj/"params"/"runs"/"r.yaml"; f.write_bytes(text)
        with pytest.raises(CitesumError) as e: plan_run(f)
        one_line(e.value, "r.yaml", why)


def test_summarize_hands_the_tokenizer_what_the_model_can_use():
    "Abstracts of any length (seeded, up to 40 MB): the text handed to the tokenizer is bounded by the model's input, not the abstract"
    from citesum_nb.summarize import CHARS_PER_TOKEN, fit_to_model, squeeze
    rng, handed = random.Random(SEED + 3), []
    def count(xs): handed.extend(map(len, xs)); return [len(x.split()) + 2 for x in xs]   # one token a word, and two special tokens
    for _ in range(25):
        limit, handed[:] = rng.choice([8, 64, 1024, 16_384]), []
        words = rng.randint(1, 100_000)
        text = " ".join(rng.choice(["graph", "we", "transfer", "a" * rng.randint(1, 30)]) for _ in range(min(words, 2000))) * max(1, words // 2000)
        kept, n, cut = fit_to_model([squeeze(text)[0]], count, limit)
        assert max(handed) <= max(limit * CHARS_PER_TOKEN, 2 * (limit + 2) * 31), (limit, max(handed))   # words of up to 30 characters
        assert cut[0] == (len(squeeze(text)[0]) > len(kept[0])) and (not cut[0] or n[0] > limit)
    big = "word " * 8_000_000   # 40 MB
    assert len(squeeze(big)[0]) == 1 << 20
    handed[:] = []; kept, n, cut = fit_to_model([squeeze(big)[0]], count, 1024)
    assert cut == [True] and handed == [1024 * CHARS_PER_TOKEN]   # 40 MB in, 8 KB to the tokenizer


def test_control_characters_never_reach_a_card_or_a_printed_command(tmp_path):
    "Control characters (seeded: C0, DEL, C1) in the words of a command: quoted so that the shell reads them back, printed escaped"
    import os, subprocess
    rng = random.Random(SEED + 4)
    controls = [chr(c) for c in [*range(0, 9), *range(11, 32), 127, *range(128, 160)] if c]
    for _ in range(60):
        words = ["".join(rng.choice(["a", "é", " ", "'", "\\", "$", "`", *controls]) for _ in range(rng.randint(1, 12))) for _ in range(3)]
        line = shell_join(words)
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line), repr(line)
        out = subprocess.run(["bash", "-c", f"printf '%s\\0' {line}"], capture_output=True, env={**os.environ, "LC_ALL": "C.UTF-8"}).stdout
        assert out.decode().split("\0")[:-1] == words, (words, line)


def test_init_quotes_the_folder_in_its_next_step(tmp_path, capsys):
    "citesum init into a folder whose name holds a space, a quote and ESC: the printed next step pastes back into a shell"
    import os, subprocess
    name = "my runs 'x'\x1b[31m"
    assert main(["init", str(tmp_path/name)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    step = next(l.strip() for l in out.splitlines() if l.strip().startswith("cd "))
    cd = step.split(" && ")[0]
    r = subprocess.run(["bash", "-c", f"cd {tmp_path} && {cd} && pwd"], capture_output=True, env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert r.returncode == 0 and r.stdout.decode().strip().endswith(name), (step, r.stderr)


def test_build_counts_what_a_record_holds(tmp_path):
    """A corpus of good citing papers and damaged ones (seeded): integers of 4,301 to 9,000 digits in cite-span offsets and
    metadata fields, a second `paper_id` with another value, Related Work titles with other Unicode spaces, near misses,
    citations linked to the citing paper itself. The build ends, counts each instance by its reason, leaves out the records
    whose id repeats and the self-citations, and keeps the rest"""
    from test_bad_values import _write, meta_2020, pdf_2020
    from citesum_nb.build import BuildParams, build_citesum
    rng, lines, metas, want = random.Random(SEED + 5), [], [], {}
    spaces, near = ["\u2002", "\u2003", "\u3000", "\u202f", "\u00a0 ", "\u2009", "\u205f"], ["Related-Work", "RelatedWork", "Related\u200bWork", "Related Wor\u212a"]
    big = lambda: b"1" + b"0" * rng.randint(MAX_INT_DIGITS, 9000)
    good, spaced, dups = [], [], []
    for k in range(40):
        pid, kind = f"p{k}", rng.choice(["good", "big_offset", "big_meta", "dup_id", "space", "near", "self"])
        rec = pdf_2020(pid, cited={"big_meta": f"c{k}", "self": pid}.get(kind, "200"))   # self: linked to the citing paper itself
        if kind == "space": rec["body_text"][0]["section"] = f"2 Related{rng.choice(spaces)}Work"; spaced.append(pid)
        if kind == "near": rec["body_text"][0]["section"] = f"2 {rng.choice(near)}"
        line = json.dumps(rec, ensure_ascii=rng.random() < 0.5).encode()
        if kind == "big_offset": line = line.replace(b'"start": 13', b'"start": ' + big(), 1)
        if kind == "dup_id": line = line[:-1] + b', "paper_id": "other%d"}' % k; dups.append(pid)
        if kind == "big_meta":   # the cited paper's metadata: a venue and a year of thousands of digits (the venue counted, the year not read)
            metas.append(json.dumps(meta_2020(f"c{k}")).encode().replace(b'"ACL"', big(), 1).replace(b"2019", big(), 1))
        if kind in ("good", "big_meta"): good.append(pid)
        lines.append(line); want[kind] = want.get(kind, 0) + 1
    corpus = tmp_path/"corpus"
    _write(corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz", lines); _write(corpus/"metadata"/"metadata_0.jsonl.gz", [meta_2020("200"), *metas])
    rep = build_citesum(BuildParams(s2orc_dir=str(corpus), scheduler="synchronous"), tmp_path/"out", progress=False)
    bad = rep["bad_input"]["counts"]
    assert bad.get("bad_value:body_text.cite_spans.start", 0) == want.get("big_offset", 0), bad
    assert bad.get("bad_value:venue", 0) == want.get("big_meta", 0), bad
    assert bad.get("duplicate_key", 0) == want.get("dup_id", 0), bad
    assert bad.get("related_work_near_miss", 0) == want.get("near", 0), bad
    assert rep["stages"]["self_citation"] == want.get("self", 0), rep["stages"]
    kept = {json.loads(l)["citing_paper_id"] for s in ("train", "validation", "test") for l in (tmp_path/"out"/f"{s}.jsonl").read_text().splitlines()}
    assert kept == set(good) | set(spaced), (kept ^ (set(good) | set(spaced)))   # no repeated-id record, every Unicode-spaced title
    assert min(want.values()) >= 3 and len(want) == 7, want


RAW_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")   # what a terminal acts on (a tab is harmless)


@pytest.mark.parametrize("seed", range(8))
def test_error_lines_show_paths_escaped(seed, capsys, monkeypatch):
    "A path holding line breaks or terminal control characters: the command's error line (CitesumError, OSError) is one line, escaped"
    import errno
    import citesum_nb.cli as C
    rng = random.Random(SEED * 100 + seed)
    path = "/no/such/" + "".join(rng.choice(["\n", "\r", "\x1b[2J", "\x1b]0;x\x07", "\x9b", "\x7f", "\t", "a", "é", " "]) for _ in range(10)) + "end"
    assert main(["build", "--s2orc", path, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citesum build: error: --s2orc folder not found: /no/such/") and err.endswith("end\n"), err
    assert err.count("\n") == 1 and not RAW_CONTROL.search(err[:-1]), ascii(err)
    def ro_cli(argv): raise OSError(errno.EROFS, "Read-only file system", path)
    monkeypatch.setattr(C, "COMMANDS", [ro_cli])
    assert main(["ro"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("citesum ro: error: cannot write /no/such/") and err.count("\n") == 1 and not RAW_CONTROL.search(err[:-1]), ascii(err)
    assert main([f"no{path[9:]}"]) == 2   # an unknown command of any bytes
    err = capsys.readouterr().err
    assert err.startswith("citesum: error: unknown command 'no") and err.count("\n") == 1 and not RAW_CONTROL.search(err[:-1]), ascii(err)


@pytest.mark.parametrize("command", ["eval", "bias", "baseline"])
def test_what_the_console_prints_runs_nothing_on_a_terminal(command, tmp_path):
    """The `citesum` console script on files whose names hold terminal control sequences (seeded): whatever the command
    prints, report or message, holds no control character a terminal acts on (15c_entry's EscapedStream), and names the file"""
    import json, os, subprocess, sys
    from pathlib import Path
    rng = random.Random(f"{SEED}{command}")
    ctl = "".join(rng.choice(["\x1b[2J", "\x1b]0;x\x07", "\x9b31m", "\x7f", "\x08", "\x1b[31m"]) for _ in range(3))
    data, pred = tmp_path/f"data{ctl}.jsonl", tmp_path/f"pred{ctl}.txt"
    data.write_text("".join(json.dumps({"id": str(i), "src": f"we study models of text {i}. it works.", "tgt": f"a paper on models {i}"}) + "\n" for i in range(20)))
    pred.write_text("".join(f"this paper studies models {i}\n" for i in range(20)))
    args = {"eval": ["--pred", pred.name, "--data", data.name], "bias": ["--data", data.name, "--tokenizer", "treebank", "--lemmas", "none"],
            "baseline": ["lead", "--data", data.name]}[command]
    r = subprocess.run([str(Path(sys.executable).with_name("citesum")), command, *args], capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert r.returncode == 0, r.stderr[-2000:]
    said = r.stdout + r.stderr
    assert not RAW_CONTROL.search(said.replace("\n", "")), ascii(said)
    assert "\\u00" in said, ascii(said)   # the name is shown, its control characters as escapes
