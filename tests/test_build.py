"`citesum build` end to end: the bundled sample, a local Dask cluster, bad input, and real ACL papers."
import gzip, json, re, shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import citesum, need_shared

SPLITS = ("train", "validation", "test")


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
    assert _files(out) == _files(out2), "two workers, each writing its part: the same files, byte for byte (hf/ and Parquet too)"
    assert json.loads((out2/"report.json").read_text())["settings"]["workers"] == 2


def test_thresholds_and_seed(sample_build, tmp_path):
    out, _ = sample_build
    loose = tmp_path/"loose"
    citesum("build", "--out", loose, "--scheduler", "synchronous", "--thresholds", "0,0,0", "--seed", "7", "--quiet")
    rep = json.loads((loose/"report.json").read_text())
    assert rep["stages"]["kept"] == rep["stages"]["candidates_with_abstract"]
    assert rep["stages"]["kept"] > json.loads((out/"report.json").read_text())["stages"]["kept"]


def test_an_empty_split_reloads(tmp_path):
    "A split without examples (a test share of 0): load_dataset(folder) loads the others, hf/ holds it with 0 rows"
    import datasets
    out = tmp_path/"ds"
    citesum("build", "--out", out, "--scheduler", "synchronous", "--split-ratios", "0.9,0.1,0", "--quiet")
    rep = json.loads((out/"report.json").read_text())
    assert rep["splits"]["test"]["examples"] == 0 < rep["splits"]["validation"]["examples"] and (out/"test.jsonl").read_bytes() == b""
    ds = datasets.load_dataset(str(out), cache_dir=str(tmp_path/"cache"))
    assert {k: v.num_rows for k, v in ds.items()} == {"train": rep["splits"]["train"]["examples"], "validation": rep["splits"]["validation"]["examples"]}
    back = datasets.load_from_disk(str(out/"hf"))
    assert {k: v.num_rows for k, v in back.items()} == {k: v["examples"] for k, v in rep["splits"].items()}
    assert back["test"].features == back["train"].features


@pytest.mark.parametrize("args,msg", [
    (["--s2orc", "/no/such/folder"], "not found"),
    (["--format", "s2orc-1999"], "format"),
    (["--thresholds", "50,20"], "three ROUGE-1/2/L recall thresholds"),
    (["--scheduler", "spark"], "unknown scheduler 'spark'"),
])
def test_user_errors_are_one_line(tmp_path, args, msg):
    r = citesum("build", "--out", tmp_path/"o", "--scheduler", "synchronous", *args, check=False)
    assert r.returncode == 2
    assert msg in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_unreachable_scheduler_is_one_line(tmp_path):
    "--scheduler tcp://... where nothing listens: one line on stderr within seconds, no output or temporary folder left"
    import time
    t = time.time()
    r = citesum("build", "--out", tmp_path/"o", "--scheduler", "tcp://127.0.0.1:1", check=False)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in r.stderr
    assert time.time() - t < 30 and list(tmp_path.iterdir()) == []


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


@pytest.fixture(scope="module")
def cs_build(tmp_path_factory):
    "The real CL-SciSumm corpus built on a 2-worker LocalCluster: (output folder, report)"
    out = tmp_path_factory.mktemp("clscisumm")/"cs"
    citesum("build", "--s2orc", need_shared("clscisumm"), "--out", out, "--workers", "2", "--quiet")
    return out, json.loads((out/"report.json").read_text())


def test_real_acl_papers(cs_build):
    "CL-SciSumm papers in S2ORC format: real Related Work sections with linked single-citation sentences"
    out, rep = cs_build
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


# ------------------------------------------------------------------ the ROUGE-recall filter, the report's arithmetic
def test_stored_recall_is_rouge_score_of_the_sentence_without_ref(cs_build):
    "Every candidate's rouge_recall is rouge-score's (stemmed) recall of the sentence with every REF removed"
    import re
    from rouge_score import rouge_scorer
    out, rep = cs_build
    ref = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    cands = [json.loads(l) for l in (out/"candidates.jsonl").read_text().splitlines()]
    scored = [c for c in cands if c["rouge_recall"]["r1"] is not None]
    assert len(scored) == rep["stages"]["candidates_with_abstract"] > 100
    for c in scored:
        sc = ref.score(target=re.sub(r"(?<![A-Z])REF(?![A-Z])", " ", c["tgt"]), prediction=c["src"])
        want = {k: round(100 * sc[m].recall, 2) for k, m in (("r1", "rouge1"), ("r2", "rouge2"), ("rl", "rougeL"))}
        assert c["rouge_recall"] == want, (c["id"], c["tgt"], c["rouge_recall"], want)
    assert any("REF." in c["tgt"] or "REF," in c["tgt"] or "REF)" in c["tgt"] for c in scored)


STAGE_SUMS = {"rw_sentences": ["sentences_no_citation", "sentences_span_text_mismatch", "sentences_multi_citation",
                               "sentences_single_citation"],
              "sentences_single_citation": ["citation_unlinked", "citation_bib_missing", "candidates_linked"],
              "candidates_linked": ["candidates_duplicate", "self_citation", "cited_not_in_corpus", "cited_metadata_missing",
                                    "cited_abstract_missing", "cited_abstract_too_short", "cited_abstract_too_long",
                                    "candidates_with_abstract"],
              "candidates_with_abstract": ["rouge_below_threshold", "kept"]}


def check_arithmetic(out):
    "The report's stage counts add up, and agree with candidates.jsonl and the splits"
    rep = json.loads((Path(out)/"report.json").read_text())
    st = rep["stages"]
    for total, parts in STAGE_SUMS.items():
        assert st[total] == sum(st[p] for p in parts), (total, st[total], {p: st[p] for p in parts})
    assert st["sentences_repeated_citation"] <= st["sentences_single_citation"]
    cands = [json.loads(l) for l in (Path(out)/"candidates.jsonl").read_text().splitlines()]
    assert len(cands) == st["candidates_linked"] - st["candidates_duplicate"]
    reasons = Counter(c["drop_reason"] for c in cands)
    for r in STAGE_SUMS["candidates_linked"][1:-1] + ["rouge_below_threshold"]: assert reasons.get(r, 0) == st[r], r
    assert reasons[None] == st["kept"] == sum(v["examples"] for v in rep["splits"].values())
    assert rep["stages_add_up"] is True
    return rep


def test_stage_counts_add_up(cs_build, sample_build, tmp_path):
    check_arithmetic(cs_build[0]); check_arithmetic(sample_build[0])
    # a citing paper whose full text is in two shards: its candidates are duplicates, removed and counted
    corpus = _corpus(tmp_path)
    rw = next(l for l in _lines(corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz") if b'"Related Work"' in l and b'"link": "' in l)
    _put(corpus/"pdf_parses"/"pdf_parses_1.jsonl.gz", _lines(corpus/"pdf_parses"/"pdf_parses_1.jsonl.gz") + [rw])
    _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    assert rep["stages"]["candidates_duplicate"] > 0 and rep["bad_input"]["duplicate_paper_id_fulltext"]["count"] == 1


def test_long_cited_abstracts_are_a_drop_reason(cs_build, tmp_path):
    "Cited 'abstracts' longer than --max-abstract-chars (default 4,000) are dropped with their own reason"
    out, rep = cs_build
    cands = [json.loads(l) for l in (out/"candidates.jsonl").read_text().splitlines()]
    assert rep["settings"]["max_abstract_chars"] == 4000
    assert rep["stages"]["cited_abstract_too_long"] == sum(len(c["src"]) > 4000 for c in cands)
    assert all(len(c["src"]) <= 4000 for c in cands if c["drop_reason"] in (None, "rouge_below_threshold"))
    _build(need_shared("clscisumm"), tmp_path/"o", "--max-abstract-chars", "900")
    rep2 = check_arithmetic(tmp_path/"o")
    assert rep2["stages"]["cited_abstract_too_long"] > rep["stages"]["cited_abstract_too_long"]
    long = [json.loads(l) for l in (tmp_path/"o"/"candidates.jsonl").read_text().splitlines()]
    assert {c["drop_reason"] for c in long if len(c["src"]) > 900} == {"cited_abstract_too_long"}
    assert "cited_abstract_too_long" in (tmp_path/"o"/"report.md").read_text()


# ------------------------------------------------------------------ damaged corpora, made from the real CL-SciSumm files
def _corpus(tmp_path, name="cs"):
    "A copy of the real CL-SciSumm corpus (2 metadata + 2 pdf_parses shards) in `tmp_path`, to damage"
    src, dst = need_shared("clscisumm"), tmp_path/name
    for sub in ("metadata", "pdf_parses"):
        (dst/sub).mkdir(parents=True)
        for f in sorted((src/sub).glob("*.jsonl.gz")): shutil.copyfile(f, dst/sub/f.name)
    return dst


def _lines(path): return gzip.decompress(Path(path).read_bytes()).splitlines(keepends=True)
def _put(path, lines): Path(path).write_bytes(gzip.compress(b"".join(lines)))


def _build(corpus, out, *args, check=True):
    return citesum("build", "--s2orc", corpus, "--out", out, "--scheduler", "synchronous", "--quiet", *args, check=check)


def _report(out): return json.loads((Path(out)/"report.json").read_text())


def _bad_row(out, reason):
    "The row of `reason` in report.md's bad-input table, as a reader sees it (Markdown escapes removed: `md_escape`)"
    row = next(l for l in (Path(out)/"report.md").read_text().splitlines() if l.startswith(f"| {reason.replace('_', chr(92) + '_')} |") or l.startswith(f"| {reason} |"))
    return re.sub(r"\\(.)", r"\1", row)


def test_truncated_shard(tmp_path):
    "An interrupted download: every complete line before the damage is kept, the shard is named with its line count"
    import zlib
    corpus = _corpus(tmp_path)
    f = corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz"
    data = f.read_bytes()[:int(f.stat().st_size * 0.6)]
    f.write_bytes(data)
    complete = zlib.decompressobj(31).decompress(data).count(b"\n")
    r = _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    bad = rep["bad_input"]["counts"]
    assert bad.get("shard_truncated") == 1 and "malformed_json" not in bad, bad
    assert rep["bad_input"]["examples"]["shard_truncated"] == [f"pdf_parses/pdf_parses_0.jsonl.gz: {complete} lines read"]
    assert rep["stages"]["papers_fulltext"] == complete + len(_lines(corpus/"pdf_parses"/"pdf_parses_1.jsonl.gz"))
    assert "pdf_parses/pdf_parses_0.jsonl.gz" in r.stderr and "truncated" in r.stderr and rep["stages"]["kept"] > 0
    assert _bad_row(tmp_path/"o", "shard_truncated") == f"| shard_truncated | 1 | pdf_parses/pdf_parses_0.jsonl.gz: {complete} lines read |"


@pytest.mark.parametrize("damage", ["corrupt", "trailing"])
def test_corrupt_shard(tmp_path, damage):
    "Corrupt gzip data, or bytes after the gzip stream: counted with the shard's name, the other shards processed"
    corpus = _corpus(tmp_path)
    f = corpus/("pdf_parses/pdf_parses_1.jsonl.gz" if damage == "corrupt" else "metadata/metadata_0.jsonl.gz")
    data = bytearray(f.read_bytes())
    if damage == "corrupt": data[len(data) // 2:len(data) // 2 + 64] = bytes(64)
    else: data += b"these bytes are not gzip"
    f.write_bytes(bytes(data))
    r = _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    ex = rep["bad_input"]["examples"]["shard_corrupt"]
    assert rep["bad_input"]["counts"]["shard_corrupt"] == 1 and len(ex) == 1 and ex[0].startswith(f"{f.parent.name}/{f.name}: ")
    assert f.name in r.stderr and "Traceback" not in r.stderr
    n0 = len(_lines(corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz"))
    if damage == "corrupt": assert n0 <= rep["stages"]["papers_fulltext"] < 1175
    else: assert rep["stages"]["papers_metadata"] == 1175 and rep["stages"]["papers_fulltext"] == 1175
    assert rep["stages"]["kept"] > 0


def test_unpaired_and_empty_shards(tmp_path):
    "A metadata shard without its pdf_parses shard (and the reverse), a zero-byte shard: reported by name"
    corpus = _corpus(tmp_path)
    (corpus/"pdf_parses"/"pdf_parses_1.jsonl.gz").unlink()
    (corpus/"metadata"/"metadata_2.jsonl.gz").write_bytes(b"")          # zero bytes, and no pdf_parses_2 either
    shutil.copyfile(corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz", corpus/"pdf_parses"/"pdf_parses_3.jsonl.gz")
    _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    ex = rep["bad_input"]["examples"]
    assert sorted(ex["shard_unpaired"]) == ["metadata/metadata_1.jsonl.gz", "metadata/metadata_2.jsonl.gz",
                                            "pdf_parses/pdf_parses_3.jsonl.gz"], ex
    assert ex["shard_empty"] == ["metadata/metadata_2.jsonl.gz"]
    assert "metadata/metadata_1.jsonl.gz" in _bad_row(tmp_path/"o", "shard_unpaired")


def test_cited_metadata_missing(tmp_path):
    "Examples whose cited paper has no metadata record are dropped with a reason, never written with an empty title"
    corpus = _corpus(tmp_path)
    (corpus/"metadata"/"metadata_1.jsonl.gz").unlink()
    _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    assert rep["stages"]["cited_metadata_missing"] > 0 and rep["stages"]["kept"] > 0
    assert rep["bad_input"]["examples"]["shard_unpaired"] == ["pdf_parses/pdf_parses_1.jsonl.gz"]
    assert all(e["title"] and e["discipline"]["mag_field_of_study"] for s in SPLITS for e in _load(tmp_path/"o")[s])


def test_shifted_cite_spans(tmp_path, cs_build):
    "A cite span whose text is not paragraph[start:end]: its sentence is dropped and counted, the rest of the paper stays"
    from citesum_nb.citations import citation_sentences
    from citesum_nb.s2orc import BadInputLog, parse_fulltext
    corpus = _corpus(tmp_path)
    f = corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz"
    lines = _lines(f)
    def sentences(line): return list(citation_sentences(parse_fulltext(line, "s2orc-2020", BadInputLog())))
    k = next(k for k, l in enumerate(lines) if b'"Related Work"' in l and len(sentences(l)) >= 2)
    rec, first = json.loads(lines[k]), sentences(lines[k])[0]
    para = next(p for p in rec["body_text"] if first["sentence"] in p["text"])
    i = para["text"].index(first["sentence"])
    span = next(c for c in para["cite_spans"] if i <= c["start"] < i + len(first["sentence"]))
    span["start"] += 2; span["end"] += 2
    lines[k] = json.dumps(rec).encode() + b"\n"
    _put(f, lines)
    _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    assert rep["bad_input"]["counts"]["span_text_mismatch"] == 1
    assert rep["bad_input"]["examples"]["span_text_mismatch"] == [rec["paper_id"]]
    mine = lambda out: Counter(json.loads(l)["tgt"] for l in (out/"candidates.jsonl").read_text().splitlines()
                               if json.loads(l)["citing_paper_id"] == rec["paper_id"])
    assert mine(tmp_path/"o") == mine(cs_build[0]) - Counter([first["tgt"]])


def _cited_papers(cs_build):
    "Ids of cited papers with a kept example, split by whether they have a Related Work section themselves"
    from citesum_nb.s2orc import has_related_work
    cited = {e["paper_id"] for s in SPLITS for e in _load(cs_build[0])[s]}
    rw, plain = [], []
    for f in ("pdf_parses_0.jsonl.gz", "pdf_parses_1.jsonl.gz"):
        for l in _lines(need_shared("clscisumm")/"pdf_parses"/f):
            pid = json.loads(l)["paper_id"]
            if pid in cited: (rw if has_related_work(l, "s2orc-2020") else plain).append(pid)
    return rw, plain


def _damage(corpus, pid, how):
    "Damage the full-text line of `pid`: invalid UTF-8 or broken JSON, in its introduction or in another section"
    for f in sorted((corpus/"pdf_parses").glob("*.gz")):
        lines = _lines(f)
        for k, l in enumerate(lines):
            if json.loads(l)["paper_id"] != pid: continue
            rec = json.loads(l)
            where = "introduction" if how.endswith("intro") else "method"
            para = next((p for p in rec["body_text"] if where in p["section"].lower()), None) or rec["body_text"][len(rec["body_text"]) // 2]
            marker = "\u2603DAMAGE\u2603"
            para["text"] = para["text"][:20] + marker + para["text"][20:]
            line = json.dumps(rec, ensure_ascii=False).encode()
            bad = b"\xff\xfe" if how.startswith("utf8") else b'", "oops'
            lines[k] = line.replace(marker.encode(), bad, 1) + b"\n"
            _put(f, lines); return
    raise AssertionError(pid)


@pytest.mark.parametrize("how", ["utf8_intro", "utf8_body", "json_intro"])
def test_damaged_lines_counted_the_same_way(tmp_path, cs_build, how):
    "Invalid UTF-8 or broken JSON: counted by reason, in a paper with Related Work and in one without"
    rw, plain = _cited_papers(cs_build)
    assert rw and plain
    corpus = _corpus(tmp_path)
    for pid in (rw[0], plain[0]): _damage(corpus, pid, how)
    _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    reason = "invalid_utf8" if how.startswith("utf8") else "malformed_json"
    assert rep["bad_input"]["counts"].get(reason) == 2, rep["bad_input"]
    assert sorted(rep["bad_input"]["examples"][reason]) == sorted([rw[0], plain[0]])


def test_broken_json_anywhere_with_validate_json(tmp_path, cs_build):
    "--validate-json parses every full-text line in full: broken JSON in any section is counted in every paper"
    rw, plain = _cited_papers(cs_build)
    corpus = _corpus(tmp_path)
    for pid in (rw[0], plain[0]): _damage(corpus, pid, "json_body")
    _build(corpus, tmp_path/"o", "--validate-json")
    rep = check_arithmetic(tmp_path/"o")
    assert sorted(rep["bad_input"]["examples"]["malformed_json"]) == sorted([rw[0], plain[0]])


def test_pretty_printed_json_is_one_clear_error(tmp_path):
    corpus = tmp_path/"pretty"
    for sub in ("metadata", "pdf_parses"): (corpus/sub).mkdir(parents=True)
    rec = json.loads(_lines(need_shared("clscisumm")/"pdf_parses"/"pdf_parses_0.jsonl.gz")[0])
    (corpus/"pdf_parses"/"pdf_parses_0.json").write_text(json.dumps(rec, indent=2))
    (corpus/"metadata"/"metadata_0.json").write_text(json.dumps([{"paper_id": rec["paper_id"], "title": "x"}], indent=2))
    r = _build(corpus, tmp_path/"o", check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "one JSON record per line" in r.stderr and "pdf_parses" in r.stderr
    assert not (tmp_path/"o").exists()


def test_duplicate_metadata_records(tmp_path, cs_build):
    corpus = _corpus(tmp_path)
    cited = sorted({e["paper_id"] for s in SPLITS for e in _load(cs_build[0])[s]})
    meta = corpus/"metadata"/"metadata_0.jsonl.gz"
    dups = [l for l in _lines(meta) if json.loads(l)["paper_id"] in cited]
    assert dups
    _put(corpus/"metadata"/"metadata_1.jsonl.gz", _lines(corpus/"metadata"/"metadata_1.jsonl.gz") + dups[:1])
    _build(corpus, tmp_path/"o")
    rep = check_arithmetic(tmp_path/"o")
    assert rep["bad_input"]["duplicate_paper_id_metadata"] == {"count": 1, "examples": [json.loads(dups[0])["paper_id"]]}
    assert "Duplicate metadata records (of cited papers): 1 (" in (tmp_path/"o"/"report.md").read_text()


# ------------------------------------------------------------------ --strict, --out, interruptions
def test_strict_and_the_damage_summary(tmp_path):
    corpus = _corpus(tmp_path)
    f = corpus/"pdf_parses"/"pdf_parses_0.jsonl.gz"
    f.write_bytes(f.read_bytes()[:f.stat().st_size // 2])
    r = _build(corpus, tmp_path/"o")
    summary = [l for l in r.stderr.splitlines() if "damaged input" in l]
    assert r.returncode == 0 and len(summary) == 1 and "shard_truncated 1" in summary[0], r.stderr
    r = _build(corpus, tmp_path/"s", "--strict", check=False)
    assert r.returncode == 1 and (tmp_path/"s"/"report.json").exists() and "damaged input" in r.stderr
    clean = _build(need_shared("clscisumm"), tmp_path/"c", "--strict")
    assert "damaged input" not in clean.stderr


def test_out_folder_is_never_clobbered(tmp_path):
    out = tmp_path/"out"; out.mkdir()
    (out/"notes.txt").write_text("mine"); (out/"hf").mkdir(); (out/"hf"/"keep.bin").write_bytes(b"x")
    for extra in ([], ["--overwrite"]):
        r = citesum("build", "--out", out, "--scheduler", "synchronous", "--quiet", *extra, check=False)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
        assert (out/"notes.txt").read_text() == "mine" and (out/"hf"/"keep.bin").exists()
    assert "--overwrite" in r.stderr or "notes.txt" in r.stderr
    prev = tmp_path/"prev"
    citesum("build", "--out", prev, "--scheduler", "synchronous", "--quiet")
    r = citesum("build", "--out", prev, "--scheduler", "synchronous", "--quiet", "--seed", "3", check=False)
    assert r.returncode == 2 and "--overwrite" in r.stderr and _report(prev)["settings"]["seed"] == 0
    citesum("build", "--out", prev, "--scheduler", "synchronous", "--quiet", "--seed", "3", "--overwrite")
    assert _report(prev)["settings"]["seed"] == 3
    empty = tmp_path/"empty"; empty.mkdir()
    citesum("build", "--out", empty, "--scheduler", "synchronous", "--quiet")
    assert (empty/"report.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "out", "prev"], "no temporary folder is left behind"


def _running_build(tmp_path, env=None):
    "`citesum build --workers 2` on a larger corpus (its own session), once its workers are up and its first pass has begun: (process, its children)"
    import os, subprocess, sys, time
    import psutil
    corpus = _corpus(tmp_path)
    for k in (2, 3):   # a larger corpus, so that the build is still running when the signal comes
        for sub in ("metadata", "pdf_parses"): shutil.copyfile(corpus/sub/f"{sub}_0.jsonl.gz", corpus/sub/f"{sub}_{k}.jsonl.gz")
    exe = Path(sys.executable).with_name("citesum")
    p = subprocess.Popen([str(exe), "build", "--s2orc", str(corpus), "--out", str(tmp_path/"o"), "--workers", "2", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env or os.environ)
    proc, kids, t0 = psutil.Process(p.pid), [], time.time()
    while time.time() - t0 < 120 and p.poll() is None:   # until the workers are up and the first pass has begun
        kids = proc.children(recursive=True)
        if len(kids) >= 2 and any((d/"_work").exists() for d in tmp_path.glob(".o.*")): break
        time.sleep(0.02)
    assert p.poll() is None, "the build ended before it could be interrupted"
    return p, kids


def _ended_leaving_nothing(p, kids, tmp_path, sig, beside=("cs",)):
    "The build `p` ended by `sig`: its status, one line, no output or temporary folder, no process left"
    import time
    import psutil
    out, err = p.communicate(timeout=120)
    assert p.returncode == 128 + sig, (p.returncode, err[-3000:])
    assert len(err.strip().splitlines()) == 1 and f"interrupted by {sig.name}" in err, err
    assert sorted(d.name for d in tmp_path.iterdir()) == sorted(beside), "neither the output nor a temporary folder is left"
    time.sleep(1)
    alive = [k.pid for k in kids if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"processes left behind: {alive}"


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_interrupted_build_leaves_nothing(tmp_path, sig, ctrl_c_as_in_a_terminal):
    "SIGINT (Ctrl-C: the whole process group) or SIGTERM: one line, no output folder, no temporary folder, no process"
    import os, signal
    p, kids = _running_build(tmp_path)
    if sig == "SIGINT": os.killpg(p.pid, signal.SIGINT)
    else: p.send_signal(signal.SIGTERM)
    _ended_leaving_nothing(p, kids, tmp_path, signal.Signals[sig])


def test_a_stop_after_the_build_is_in_place_says_so(tmp_path, monkeypatch):
    "Ctrl-C or SIGTERM while the dataset card is written (the build already in place): one line that says the build is whole and how to write its card"
    import signal
    from citesum_nb import cards
    from citesum_nb.core import Terminated
    for exc, sig in ((KeyboardInterrupt, signal.SIGINT), (Terminated, signal.SIGTERM)):
        def interrupted(*a, **k): raise exc()
        monkeypatch.setattr(cards, "dataset_card", interrupted)
        out = tmp_path/sig.name
        r = citesum("build", "--out", out, "--scheduler", "synchronous", "--quiet", check=False)
        assert r.returncode == 128 + sig and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert f"interrupted by {sig.name} after the whole build was written to {out}" in r.stderr and f"citesum card dataset {out}" in r.stderr, r.stderr
        assert (out/"train.jsonl").exists() and (out/"report.json").exists() and not (out/"README.md").exists()
        monkeypatch.undo()
        citesum("card", "dataset", out)   # the command it names writes the card
        assert (out/"README.md").exists()


GC_HOOK = """
import gc, multiprocessing, os, threading, time
def _asleep(phase, info):   # citesum's own main thread, once the test arms it: one long garbage collection, where the signal lands
    if phase == "start" and threading.current_thread() is threading.main_thread() and multiprocessing.parent_process() is None \\
            and os.path.exists(os.environ["GC_HOOK"] + ".armed") and not os.path.exists(os.environ["GC_HOOK"] + ".in"):
        open(os.environ["GC_HOOK"] + ".in", "w").close(); time.sleep(30)
gc.callbacks.append(_asleep)
gc.set_threshold = lambda *a: None   # Python's default thresholds, not citesum's (lean_process): a collection comes within milliseconds
"""


def test_a_stop_python_swallows_still_ends_the_build(tmp_path, ctrl_c_as_in_a_terminal):
    "A SIGTERM whose exception Python swallows (raised in a gc callback, such as the one Dask's scheduler registers) still ends the build as any SIGTERM does"
    import os, signal, time
    hook = tmp_path/"hook"; hook.mkdir(); (hook/"sitecustomize.py").write_text(GC_HOOK)   # in every Python process of the build
    p, kids = _running_build(tmp_path, {**os.environ, "PYTHONPATH": str(hook), "GC_HOOK": str(hook/"gc")})
    (hook/"gc.armed").touch(); t0 = time.time()
    while not (hook/"gc.in").exists() and p.poll() is None and time.time() - t0 < 60: time.sleep(0.02)
    assert (hook/"gc.in").exists(), "the build's main thread collected no garbage while it ran"
    p.send_signal(signal.SIGTERM)   # lands in the callback's sleep: Python prints "Exception ignored in ..." and goes on
    _ended_leaving_nothing(p, kids, tmp_path, signal.SIGTERM, beside=("cs", "hook"))


# ------------------------------------------------------------------ a real Dask cluster: scheduler and workers as separate processes
def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def _files(out):
    "sha256 of every file of a build folder but the report and the card (they hold timings and the command); the output marker without its time"
    import hashlib
    from citesum_nb.outputs import OUTPUT_MARKER, read_marker
    files = {str(f.relative_to(out)): hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(Path(out).rglob("*"))
             if f.is_file() and f.name not in ("report.json", "report.md", "README.md", OUTPUT_MARKER)}
    return {**files, OUTPUT_MARKER: {k: v for k, v in read_marker(out).items() if k != "written"}}


def test_build_on_a_real_dask_cluster(tmp_path):
    """`dask scheduler` and two `dask worker` processes on localhost (TCP), as a user starts them: the CL-SciSumm build on
    them writes the same files as the in-process build; every process the test started is ended by its id"""
    import os, signal, subprocess, sys, time
    import psutil
    from conftest import ROOT
    from distributed import Client
    corpus, dask_exe = need_shared("clscisumm"), str(Path(sys.executable).with_name("dask"))
    port = _free_port(); address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}   # the workers import this checkout's citesum_nb
    log = open(tmp_path/"cluster.log", "wb")
    started, t0 = [], time.time()
    try:
        started.append(subprocess.Popen([dask_exe, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                        env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT))
        for k in range(2):
            started.append(subprocess.Popen([dask_exe, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                                             "--name", f"worker-{k}", "--local-directory", str(tmp_path/f"w{k}")],
                                            env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            where = set(client.run(lambda: __import__("citesum_nb").__file__).values())
        assert where == {str(ROOT/"citesum_nb"/"__init__.py")}, where
        t_up = time.time() - t0
        citesum("build", "--s2orc", corpus, "--out", tmp_path/"cluster", "--scheduler", address, "--license", "cc-by-4.0", "--quiet")
        t_build = time.time() - t0 - t_up
        report = _report(tmp_path/"cluster")
        assert report["settings"]["scheduler"] == address and report["settings"]["workers"] == 2
        citesum("build", "--s2orc", corpus, "--out", tmp_path/"inproc", "--scheduler", "synchronous", "--license", "cc-by-4.0", "--quiet")
        assert _files(tmp_path/"cluster") == _files(tmp_path/"inproc")
        assert report["stages"] == _report(tmp_path/"inproc")["stages"]
        print(f"cluster up in {t_up:.1f} s, the build on it {t_build:.1f} s")
    finally:   # every process started here (and what it started: the workers' nanny children), by its id
        kids = []
        for p in started:
            try: kids += psutil.Process(p.pid).children(recursive=True)
            except psutil.NoSuchProcess: pass
        for p in reversed(started):
            if p.poll() is None: p.send_signal(signal.SIGTERM)
        for p in started:
            try: p.wait(timeout=30)
            except subprocess.TimeoutExpired: p.kill(); p.wait()
        gone, alive = psutil.wait_procs(kids, timeout=10)
        for c in alive: c.kill()
        log.close()
    assert all(p.returncode is not None for p in started)


def test_a_folder_with_the_old_split_name_and_no_marker_is_never_replaced(tmp_path):
    """A folder that looks like a build made before the validation split took Hugging Face's name (val.jsonl), but has no
    citesum output marker, may be anyone's files: refused with --overwrite too, in one line, nothing changed (issue 31 §1)"""
    from citesum_nb.build import build_output
    from citesum_nb.core import CitesumError
    old = tmp_path/"old"; old.mkdir()
    for f in ("train.jsonl", "val.jsonl", "test.jsonl", "report.json"): (old/f).write_text("x")
    for overwrite in (False, True):
        with pytest.raises(CitesumError, match="did not write") as e, build_output(old, overwrite=overwrite): pass
        assert "\n" not in str(e.value)
    assert sorted(p.name for p in old.iterdir()) == ["report.json", "test.jsonl", "train.jsonl", "val.jsonl"]
    assert all((old/f).read_text() == "x" for f in ("train.jsonl", "val.jsonl", "test.jsonl", "report.json"))
