#!/usr/bin/env python
"""Write the bundled CiteSum sample corpus in the S2ORC 2020-07-05 layout.

Every paper is invented for this project: titles, authors, venues and text are written by hand for
testing and demonstration, and none of them describes a real publication. The papers live in data files
beside this script, which only renders them:

* `tools/sample_corpus/papers.yaml`: the papers of the sample, in order (the order fixes their ids and shards);
* `tools/sample_corpus/external.yaml`: cited works outside the sample.

The script turns them into S2ORC records: `metadata/metadata_{k}.jsonl.gz` and
`pdf_parses/pdf_parses_{k}.jsonl.gz` (two shards, gzip with mtime 0, so the bytes are reproducible),
plus the package README that describes the sample. Edit the YAML files, rerun the script, commit both.

Markup used in the paper texts (one sentence per line, paragraphs separated by a blank line):

* `[[key]]`: a citation in the citing paper's style; numeric papers print `[3]`, author-year papers
  `(Lopes et al., 2019)`. `[[k1;k2]]` cites several works in one marker (`[3, 5]` or
  `(Lopes et al., 2019; Chen, 2018)`), cut into one span per cited work as GROBID does.
* `<<key>>`: a narrative citation, `Lopes et al. (2019)` (the whole text is the span) or, in numeric
  papers, `Lopes et al. [3]` (only `[3]` is the span). `<<-key>>` writes `Lopes et al [3]` (no period).
* `{au:key}`: the author label alone, with no span (`Lopes et al.`).
* `[[?31]]` / `[[?Marino, 2009]]`: a marker that the PDF parser could not resolve (`ref_id` null).
* `{fig:2}` / `{tab:1}`: `Fig. 2` / `Table 1` with a `ref_span` to the figure or table caption.

Keys name papers of the sample (`papers.yaml`) or works outside it (`external.yaml`: bib entries that
link to paper ids that are not in the sample, or to nothing).

Usage: `python tools/make_sample_corpus.py [--out DIR] [--readme PATH] [--stats]`.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "citesum_nb" / "sample" / "s2orc"
DEFAULT_README = REPO / "citesum_nb" / "sample" / "README.md"
N_SHARDS = 2
SEED = 20200705

# Key order of the 2020-07-05 metadata records (from the release's own sample): papers without a PDF
# parse carry 20 keys, papers with one carry 25 (the `has_pdf_*` flags).
META_KEYS_NO_PDF = ["paper_id", "title", "authors", "abstract", "year", "arxiv_id", "acl_id", "pmc_id",
                    "pubmed_id", "doi", "venue", "journal", "mag_id", "mag_field_of_study",
                    "outbound_citations", "inbound_citations", "has_outbound_citations",
                    "has_inbound_citations", "has_pdf_parse", "s2_url"]
META_KEYS_PDF = ["paper_id", "title", "authors", "abstract", "year", "arxiv_id", "acl_id", "pmc_id",
                 "pubmed_id", "doi", "venue", "journal", "has_pdf_body_text", "mag_id",
                 "mag_field_of_study", "outbound_citations", "inbound_citations",
                 "has_outbound_citations", "has_inbound_citations", "has_pdf_parse",
                 "has_pdf_parsed_abstract", "has_pdf_parsed_body_text", "has_pdf_parsed_bib_entries",
                 "has_pdf_parsed_ref_entries", "s2_url"]
PDF_KEYS = ["paper_id", "_pdf_hash", "abstract", "body_text", "bib_entries", "ref_entries"]
RW_RE = re.compile(r"related work", re.I)

DATA = Path(__file__).resolve().parent / "sample_corpus"
PAPER_DEFAULTS = dict(venue=None, journal=None, style="ay", abstract=None, intro=None, sections=[],
                      conclusion=None, intro_title="Introduction", concl_title="Conclusion", figures=[],
                      tables=[], pdf=True, doi=False)


def load_papers(path=DATA / "papers.yaml"):
    "The invented papers, in file order, with defaults filled in; abstracts joined into one line."
    papers = []
    for entry in yaml.safe_load(Path(path).read_text(encoding="utf-8")):
        p = {**PAPER_DEFAULTS, **entry}
        assert set(p) == {"key", "fields", "year", "title", "authors", *PAPER_DEFAULTS}, (entry["key"], set(p))
        if p["abstract"] is not None:
            p["abstract"] = " ".join(p["abstract"].split("\n")).strip()
        p["sections"] = [(s["title"], s["text"]) for s in p["sections"]]
        papers.append(p)
    return papers


def load_external(path=DATA / "external.yaml"):
    "Cited works outside the sample: key -> title, authors, year, venue, link ('unknown' or None)."
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


PAPERS: list[dict] = load_papers()
EXTERNAL: dict[str, dict] = load_external()


# ----------------------------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------------------------
TOKEN_RE = re.compile(r"\[\[([^\]]+)\]\]|<<(-?)([^>]+)>>|\{au(-?):([^}]+)\}|\{(fig|tab):(\d+)\}")


def paragraphs(block):
    "Split a text block into paragraphs, each a list of sentences (one per line)."
    if block is None:
        return []
    paras = [[ln.strip() for ln in p.strip().splitlines() if ln.strip()] for p in block.strip().split("\n\n")]
    return [p for p in paras if p]


def split_name(full):
    "'Ana R. Lopes' -> (first, middle list, last)."
    parts = full.split()
    return parts[0], parts[1:-1], parts[-1]


def meta_author(full):
    first, middle, last = split_name(full)
    return {"first": first, "middle": [m.rstrip(".") for m in middle], "last": last, "suffix": ""}


def bib_author(full):
    "Bibliography authors as GROBID reads them from a reference list: initials only."
    first, middle, last = split_name(full)
    return {"first": first[0], "middle": [m[0] for m in middle], "last": last, "suffix": ""}


def author_list(work):
    return [a.strip() for a in work["authors"].split(";")]


def label(work, period=True):
    "Author label used in markers: 'Lopes', 'Lopes and Chen', 'Lopes et al.'."
    lasts = [split_name(a)[2] for a in author_list(work)]
    if len(lasts) == 1:
        return lasts[0]
    if len(lasts) == 2:
        return f"{lasts[0]} and {lasts[1]}"
    return f"{lasts[0]} et al." if period else f"{lasts[0]} et al"


def work_of(key):
    if key in EXTERNAL:
        return EXTERNAL[key]
    return BY_KEY[key]


def cited_keys(paper):
    "Keys cited by a paper, in order of first appearance."
    seen = []
    blocks = [paper["intro"]] + [b for _, b in paper["sections"]] + [paper["conclusion"]]
    for block in blocks:
        for para in paragraphs(block):
            for sent in para:
                for m in TOKEN_RE.finditer(sent):
                    if m.group(1):
                        keys = [k.strip() for k in m.group(1).split(";")]
                    elif m.group(3):
                        keys = [m.group(3).strip()]
                    else:
                        continue
                    for k in keys:
                        if not k.startswith("?") and k not in seen:
                            seen.append(k)
    return seen


def bib_order(paper):
    "Bibliography order: citation order for numeric papers, alphabetical for author-year papers."
    keys = cited_keys(paper)
    if paper["style"] == "num":
        return keys
    return sorted(keys, key=lambda k: (split_name(author_list(work_of(k))[0])[2], work_of(k)["year"], k))


class Renderer:
    "Render one paper's marked-up sentences into text + cite_spans + ref_spans."

    def __init__(self, paper):
        self.paper = paper
        self.order = bib_order(paper)
        self.ref = {k: f"BIBREF{i}" for i, k in enumerate(self.order)}
        self.num = {k: i + 1 for i, k in enumerate(self.order)}
        labels = Counter((label(work_of(k)), work_of(k)["year"]) for k in self.order)
        dup = [l for l, c in labels.items() if c > 1]
        assert not dup, f"{paper['key']}: ambiguous author-year labels {dup}"

    def marker_one(self, key):
        "(text, ref_id, short) for one work; short = number or 'Name, Year'."
        if key.startswith("?"):
            return key[1:], None
        w = work_of(key)
        if self.paper["style"] == "num":
            return str(self.num[key]), self.ref[key]
        return f"{label(w)}, {w['year']}", self.ref[key]

    def render_sentence(self, sent, base):
        "Return (text, cite_spans, ref_spans, events); offsets are shifted by `base`."
        out, spans, refspans, events = [], [], [], []
        pos = 0
        cur = 0  # length of text written so far

        def emit(s):
            nonlocal cur
            out.append(s)
            cur += len(s)

        num = self.paper["style"] == "num"
        for m in TOKEN_RE.finditer(sent):
            emit(sent[pos:m.start()])
            pos = m.end()
            if m.group(1):  # parenthetical / bracketed marker, one span per work
                keys = [k.strip() for k in m.group(1).split(";")]
                parts = [self.marker_one(k) for k in keys]
                if num and len(parts) > 1:
                    parts.sort(key=lambda p: int(p[0]) if p[0].isdigit() else 10**6)
                open_, close, sep = ("[", "]", ",") if num else ("(", ")", ";")
                ev = dict(kind="group" if len(parts) > 1 else "single", spans=[])
                for i, (txt, rid) in enumerate(parts):
                    t = (open_ if i == 0 else "") + txt + (close if i == len(parts) - 1 else sep)
                    spans.append(dict(start=base + cur, end=base + cur + len(t), text=t, ref_id=rid))
                    ev["spans"].append(len(spans) - 1)
                    emit(t)
                    if i < len(parts) - 1:
                        emit(" ")
                events.append(ev)
            elif m.group(3):  # narrative
                key = m.group(3).strip()
                w = work_of(key)
                if num:
                    assert len(author_list(w)) >= 3, f"{self.paper['key']}: numeric narrative needs an 'et al.' work: {key}"
                    prefix = label(w, period=not m.group(2)) + " "
                    emit(prefix)
                    t = f"[{self.num[key]}]"
                    spans.append(dict(start=base + cur, end=base + cur + len(t), text=t, ref_id=self.ref[key]))
                    events.append(dict(kind="narrative-num", spans=[len(spans) - 1], prefix=prefix))
                    emit(t)
                else:
                    t = f"{label(w)} ({w['year']})"
                    spans.append(dict(start=base + cur, end=base + cur + len(t), text=t, ref_id=self.ref[key]))
                    events.append(dict(kind="narrative-ay", spans=[len(spans) - 1]))
                    emit(t)
            elif m.group(5):  # author label without span
                emit(label(work_of(m.group(5).strip()), period=not m.group(4)))
            else:  # figure / table reference
                kind, n = m.group(6), int(m.group(7))
                items = self.paper["figures"] if kind == "fig" else self.paper["tables"]
                assert 1 <= n <= len(items), f"{self.paper['key']}: no caption for {kind} {n}"
                t = ("Fig. " if kind == "fig" else "Table ") + str(n)
                rid = ("FIGREF" if kind == "fig" else "TABREF") + str(n - 1)
                refspans.append(dict(start=base + cur, end=base + cur + len(t), text=t, ref_id=rid))
                emit(t)
        emit(sent[pos:])
        return "".join(out), spans, refspans, events

    def render_block(self, section, block):
        "Paragraph records of one section, plus per-sentence bookkeeping for the statistics."
        paras, sents = [], []
        for para in paragraphs(block):
            text, cite_spans, ref_spans = "", [], []
            for sent in para:
                if text:
                    text += " "
                s_text, s_spans, s_refs, events = self.render_sentence(sent, len(text))
                sents.append(dict(section=section, start=len(text), text=s_text, spans=s_spans, events=events))
                text += s_text
                cite_spans += s_spans
                ref_spans += s_refs
            for s in cite_spans:
                assert text[s["start"]:s["end"]] == s["text"], (self.paper["key"], s)
                assert s["ref_id"] is None or s["ref_id"] in self.ref.values()
            for s in ref_spans:
                assert text[s["start"]:s["end"]] == s["text"], (self.paper["key"], s)
            paras.append(dict(section=section, text=text, cite_spans=cite_spans, ref_spans=ref_spans))
        return paras, sents


# ----------------------------------------------------------------------------------------------
# records
# ----------------------------------------------------------------------------------------------
BY_KEY: dict[str, dict] = {}


def assign_ids():
    "Deterministic numeric paper ids (like S2ORC corpus ids) for papers and unknown external links."
    rng = random.Random(SEED)
    used = set()

    def new_id(lo=10_000_000, hi=230_000_000):
        while True:
            i = str(rng.randrange(lo, hi))
            if i not in used:
                used.add(i)
                return i

    for i, p in enumerate(PAPERS):
        assert p["key"] not in BY_KEY, f"duplicate key {p['key']}"
        BY_KEY[p["key"]] = p
        p["paper_id"] = new_id()
        p["mag_id"] = new_id(1_900_000_000, 3_100_000_000)
        p["shard"] = i % N_SHARDS
    for k in sorted(EXTERNAL):
        w = EXTERNAL[k]
        w["link_id"] = new_id() if w["link"] == "unknown" else None


def link_of(key):
    if key in EXTERNAL:
        return EXTERNAL[key]["link_id"]
    return BY_KEY[key]["paper_id"]


def build():
    "Render every paper; return (metadata shards, pdf_parses shards, per-paper sentence info)."
    assign_ids()
    rendered, sentinfo = {}, {}
    for p in PAPERS:
        if not p["pdf"]:
            assert p["intro"] is None and not p["sections"], p["key"]
            continue
        r = Renderer(p)
        for k in r.order:
            w = work_of(k)
            assert k != p["key"], f"{p['key']} cites itself"
            assert w["year"] <= p["year"], f"{p['key']} ({p['year']}) cites a later work {k} ({w['year']})"
        body, sents = [], []
        blocks = [(p["intro_title"], p["intro"])] + p["sections"] + [(p["concl_title"], p["conclusion"])]
        for title, block in blocks:
            paras, ss = r.render_block(title, block)
            body += paras
            sents += ss
        bib = {}
        for k in r.order:
            w = work_of(k)
            bib[r.ref[k]] = {"title": w["title"], "authors": [bib_author(a) for a in author_list(w)],
                             "year": w["year"], "venue": w.get("venue") or w.get("journal") or "",
                             "link": link_of(k)}
        ref_entries = {}
        for i, cap in enumerate(p["figures"]):
            ref_entries[f"FIGREF{i}"] = {"text": cap, "type": "figure"}
        for i, cap in enumerate(p["tables"]):
            ref_entries[f"TABREF{i}"] = {"text": cap, "type": "table"}
        abstract = [] if p["abstract"] is None else [
            {"section": "Abstract", "text": p["abstract"], "cite_spans": [], "ref_spans": []}]
        rendered[p["key"]] = {
            "paper_id": p["paper_id"],
            "_pdf_hash": hashlib.sha1(("citesum-sample:" + p["key"]).encode()).hexdigest(),
            "abstract": abstract, "body_text": body, "bib_entries": bib, "ref_entries": ref_entries}
        sentinfo[p["key"]] = (r, sents)

    inbound = defaultdict(list)
    outbound = {}
    for p in PAPERS:
        if p["key"] in rendered:
            links = []
            for e in rendered[p["key"]]["bib_entries"].values():
                if e["link"] and e["link"] not in links:
                    links.append(e["link"])
            outbound[p["key"]] = links
            for l in links:
                inbound[l].append(p["paper_id"])
        else:
            outbound[p["key"]] = []

    metas = [[] for _ in range(N_SHARDS)]
    pdfs = [[] for _ in range(N_SHARDS)]
    for n, p in enumerate(PAPERS):
        pid = p["paper_id"]
        has_pdf = p["key"] in rendered
        rec = {
            "paper_id": pid, "title": p["title"], "authors": [meta_author(a) for a in author_list(p)],
            "abstract": p["abstract"], "year": p["year"], "arxiv_id": None, "acl_id": None, "pmc_id": None,
            "pubmed_id": None, "doi": f"10.5555/citesum-sample.{pid}" if p["doi"] else None,
            "venue": p["venue"], "journal": p["journal"], "has_pdf_body_text": has_pdf,
            "mag_id": p["mag_id"], "mag_field_of_study": p["fields"],
            "outbound_citations": outbound[p["key"]], "inbound_citations": sorted(inbound[pid]),
            "has_outbound_citations": bool(outbound[p["key"]]), "has_inbound_citations": bool(inbound[pid]),
            "has_pdf_parse": has_pdf}
        if has_pdf:
            d = rendered[p["key"]]
            rec.update(has_pdf_parsed_abstract=bool(d["abstract"]), has_pdf_parsed_body_text=bool(d["body_text"]),
                       has_pdf_parsed_bib_entries=bool(d["bib_entries"]),
                       has_pdf_parsed_ref_entries=bool(d["ref_entries"]))
        rec["s2_url"] = f"https://api.semanticscholar.org/CorpusID:{pid}"
        keys = META_KEYS_PDF if has_pdf else META_KEYS_NO_PDF
        metas[p["shard"]].append({k: rec[k] for k in keys})
        if has_pdf:
            d = rendered[p["key"]]
            pdfs[p["shard"]].append({k: d[k] for k in PDF_KEYS})
    return metas, pdfs, sentinfo


def gz_bytes(records):
    "JSON lines, gzip-compressed with a fixed header (no file name, mtime 0)."
    raw = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as f:
        f.write(raw)
    return buf.getvalue()


def write_corpus(out, metas, pdfs):
    out = Path(out)
    written = []
    for k in range(N_SHARDS):
        for sub, recs in (("metadata", metas[k]), ("pdf_parses", pdfs[k])):
            path = out / sub / f"{sub}_{k}.jsonl.gz"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(gz_bytes(recs))
            written.append(path)
    return written


# ----------------------------------------------------------------------------------------------
# statistics (for the README and for checking the design of the sample)
# ----------------------------------------------------------------------------------------------
def is_rw_section(title, current_rw_num):
    "Is a section part of Related Work (its title says so, or it is a numbered subsection of it)?"
    if RW_RE.search(title):
        return True
    m = re.match(r"(\d+)\.\d", title)
    return bool(current_rw_num and m and m.group(1) == current_rw_num)


def statistics(metas, sentinfo):
    "Counts over the corpus; ROUGE recall is computed on the generator's own sentence boundaries."
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    st = dict(papers=0, papers_pdf=0, papers_meta_only=0, shard_papers=[], fields=Counter(),
              multi_field=0, rw_papers=0, rw_titles=Counter(), spans=Counter(), bib=Counter(),
              cross_shard_links=0, rw_sentences=0, rw_sent_kind=Counter(), candidates=[], )
    for k, recs in enumerate(metas):
        st["shard_papers"].append(len(recs))
        for r in recs:
            st["papers"] += 1
            st["papers_pdf" if r["has_pdf_parse"] else "papers_meta_only"] += 1
            st["fields"].update(r["mag_field_of_study"])
            st["multi_field"] += len(r["mag_field_of_study"]) > 1
    by_id = {p["paper_id"]: p for p in PAPERS}
    for p in PAPERS:
        if p["key"] not in sentinfo:
            continue
        r, sents = sentinfo[p["key"]]
        titles = [t for t, _ in p["sections"] if RW_RE.search(t)]
        if titles:
            st["rw_papers"] += 1
            st["rw_titles"].update(titles)
        for k in r.order:
            lid = link_of(k)
            if lid is None:
                st["bib"]["unlinked"] += 1
            elif lid in by_id:
                st["bib"]["linked to a sample paper"] += 1
                st["cross_shard_links"] += by_id[lid]["shard"] != p["shard"]
            else:
                st["bib"]["linked to an id outside the sample"] += 1
        rw_num = None
        prev_title = None
        for s in sents:
            for ev in s["events"]:
                kind = ev["kind"]
                if kind in ("single", "group"):
                    kind = ("numeric" if p["style"] == "num" else "author-year") + ("" if kind == "single" else " group")
                for i in ev["spans"]:
                    sp = s["spans"][i]
                    st["spans"]["unresolved (ref_id null)" if sp["ref_id"] is None else kind] += 1
            if s["section"] != prev_title:
                prev_title = s["section"]
                m = re.match(r"(\d+)\.?\s", s["section"] + " ")
                if RW_RE.search(s["section"]):
                    rw_num = m.group(1) if m else None
                    in_rw = True
                else:
                    in_rw = is_rw_section(s["section"], rw_num)
                    if not in_rw:
                        rw_num = None
            if not in_rw:
                continue
            st["rw_sentences"] += 1
            if not s["spans"]:
                st["rw_sent_kind"]["no citation"] += 1
                continue
            if len(s["spans"]) > 1:
                st["rw_sent_kind"]["several citation spans"] += 1
                continue
            sp = s["spans"][0]
            key = r.order[int(sp["ref_id"][6:])] if sp["ref_id"] else None
            lid = link_of(key) if key else None
            cited = by_id.get(lid)
            if sp["ref_id"] is None:
                st["rw_sent_kind"]["one span, unresolved"] += 1
            elif lid is None:
                st["rw_sent_kind"]["one span, bib entry unlinked"] += 1
            elif cited is None:
                st["rw_sent_kind"]["one span, linked outside the sample"] += 1
            elif not cited["abstract"] or len(cited["abstract"]) < 100:
                st["rw_sent_kind"]["one span, cited abstract missing or < 100 chars"] += 1
            else:
                st["rw_sent_kind"]["one span, linked to a sample abstract (candidate)"] += 1
                ev = s["events"][0]
                a = sp["start"] - s["start"] - len(ev.get("prefix", ""))
                b = sp["end"] - s["start"]
                tgt = s["text"][:a] + "REF" + s["text"][b:]
                sc = scorer.score(tgt, cited["abstract"])
                rec = dict(citing=p["key"], cited=cited["key"], tgt=tgt,
                           r1=100 * sc["rouge1"].recall, r2=100 * sc["rouge2"].recall,
                           rl=100 * sc["rougeL"].recall)
                rec["passes"] = rec["r1"] >= 50 and rec["r2"] >= 20 and rec["rl"] >= 40
                st["candidates"].append(rec)
    return st


def readme_text(st, sizes):
    cands = st["candidates"]
    passed = [c for c in cands if c["passes"]]
    by_cited = Counter(c["cited"] for c in passed)
    fields = ", ".join(f"{f} ({n})" for f, n in sorted(st["fields"].items(), key=lambda x: (-x[1], x[0])))
    lines = [
        "# Bundled sample corpus (S2ORC 2020-07-05 format)",
        "",
        "A small corpus of short scientific papers, **written for citesum-nb**: synthetic but realistic.",
        "Every title, author, venue, abstract and paragraph was invented for this project; no paper here",
        "exists, and no text was copied from a publication. Numeric ids look like S2ORC corpus ids but are",
        "drawn at random; DOIs use the `10.5555` example prefix.",
        "",
        "It is the embedded default of the project: `citesum build` without `--s2orc` builds it, and the",
        "notebooks' default parameters and the tests run on it. Its Related Work sections contain the",
        "cases the dataset builder must handle: citation sentences that closely paraphrase the cited",
        "abstract (they pass the ROUGE filter) and loose ones (they fail it), several citations in one",
        "sentence, unresolved markers, bib entries linked to ids outside the corpus or to nothing, cited",
        "papers without an abstract or with a very short one, links across shards, numbered",
        "subsections under `2 Related Work`, and sentence-splitting traps (`et al.`, `e.g.`, `i.e.`,",
        "`cf.`, `Fig. 2`, initials, decimals, a marker right after `et al.`).",
        "",
        "## Layout",
        "",
        "```",
        "s2orc/metadata/metadata_{0,1}.jsonl.gz      one metadata record per line",
        "s2orc/pdf_parses/pdf_parses_{0,1}.jsonl.gz  one pdf_parses record per line",
        "```",
        "",
        "The record schema follows the 2020-07-05 release exactly. Metadata keys and their order are the",
        "release's: papers with a PDF parse carry `paper_id, title, authors, abstract, year, arxiv_id,",
        "acl_id, pmc_id, pubmed_id, doi, venue, journal, has_pdf_body_text, mag_id, mag_field_of_study,",
        "outbound_citations, inbound_citations, has_outbound_citations, has_inbound_citations,",
        "has_pdf_parse, has_pdf_parsed_abstract, has_pdf_parsed_body_text, has_pdf_parsed_bib_entries,",
        "has_pdf_parsed_ref_entries, s2_url`; metadata-only papers lack `has_pdf_body_text` and the",
        "`has_pdf_parsed_*` flags. A pdf_parses record is `paper_id, _pdf_hash, abstract, body_text,",
        "bib_entries, ref_entries`; paragraphs are `{section, text, cite_spans, ref_spans}`, a cite span",
        "is `{start, end, text, ref_id}` with `text == paragraph_text[start:end]`, and a bib entry is",
        "`BIBREF<n>: {title, authors[{first, middle, last, suffix}], year, venue, link}`.",
        "`metadata_k` and `pdf_parses_k` list the same papers in the same order; `metadata_k` also holds",
        "the shard's metadata-only papers (`has_pdf_parse: false`, abstract only or none).",
        "Markers are cut the way GROBID cuts them: one span per cited work (`[3,` + `5]`;",
        "`(Lee and Park, 2020;` + `Chen, 2018)`); for `Taigman et al. [8]` the span is `[8]` only.",
        "",
        "| file | bytes |",
        "|---|---|",
    ]
    lines += [f"| `s2orc/{name}` | {size:,} |" for name, size in sizes]
    lines += [
        "",
        "## Counts",
        "",
        "Computed by `tools/make_sample_corpus.py` when it writes the corpus.",
        "",
        "| | |",
        "|---|---|",
        f"| papers (metadata records) | {st['papers']} |",
        f"| papers per shard | {', '.join(str(n) for n in st['shard_papers'])} |",
        f"| papers with a PDF parse / metadata only | {st['papers_pdf']} / {st['papers_meta_only']} |",
        f"| papers with two fields of study | {st['multi_field']} |",
        f"| papers with a Related Work section | {st['rw_papers']} |",
        f"| bib entries | {sum(st['bib'].values())} |",
    ]
    lines += [f"| ... {k} | {v} |" for k, v in sorted(st["bib"].items())]
    lines += [
        f"| ... linked to a sample paper in the other shard | {st['cross_shard_links']} |",
        f"| cite spans | {sum(st['spans'].values())} |",
    ]
    lines += [f"| ... {k} | {v} |" for k, v in sorted(st["spans"].items())]
    lines += [
        "",
        f"Fields of study (`mag_field_of_study`, a paper may have two): {fields}.",
        "",
        "Related Work section titles: " + ", ".join(f"`{t}` ({n})" for t, n in sorted(st["rw_titles"].items())) + ".",
        "",
        "Span styles: *numeric* `[3]`; *numeric group* `[3, 5]`; *narrative-num* `Zhang et al. [12]` (span",
        "`[12]`); *author-year* `(Smith et al., 2019)`; *author-year group* `(Lee and Park, 2020; Chen, 2018)`;",
        "*narrative-ay* `Smith et al. (2019)` (whole text is the span).",
        "",
        "### Related Work sentences",
        "",
        "Counted on the sentence boundaries the papers were written with (a correct splitter finds the",
        "same ones), in sections whose title contains \"related work\" and their numbered subsections.",
        "ROUGE recall: the sentence with its marker replaced by `REF` (for `Zhang et al. [12]` the",
        "author names too) as reference, the cited abstract as candidate, `rouge-score` with stemming.",
        "",
        "| | |",
        "|---|---|",
        f"| sentences in Related Work sections | {st['rw_sentences']} |",
    ]
    lines += [f"| ... {k} | {v} |" for k, v in sorted(st["rw_sent_kind"].items())]
    lines += [
        f"| candidates passing ROUGE recall ≥ 50/20/40 | {len(passed)} |",
        f"| distinct cited papers among them | {len(by_cited)} |",
        f"| cited papers with 2 or more passing sentences | {sum(1 for n in by_cited.values() if n >= 2)} |",
        "",
        "## Regenerate",
        "",
        "```",
        "python tools/make_sample_corpus.py",
        "```",
        "",
        "The output is byte-identical on every run (fixed ids, gzip mtime 0). `--out DIR` writes the",
        "shards elsewhere; `--stats` prints every candidate sentence with its ROUGE recall.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Write the bundled S2ORC-format sample corpus.")
    ap.add_argument("--out", default=None, help=f"output folder (default {DEFAULT_OUT.relative_to(REPO)})")
    ap.add_argument("--readme", default=None,
                    help="README path (default: the package README when --out is not given; none otherwise)")
    ap.add_argument("--stats", action="store_true", help="print the candidate sentences and their ROUGE recall")
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else DEFAULT_OUT
    readme = Path(args.readme) if args.readme else (DEFAULT_README if args.out is None else None)
    metas, pdfs, sentinfo = build()
    written = write_corpus(out, metas, pdfs)
    sizes = [(p.relative_to(out).as_posix(), p.stat().st_size) for p in written]
    if readme is not None or args.stats:
        st = statistics(metas, sentinfo)
        if readme is not None:
            readme.parent.mkdir(parents=True, exist_ok=True)
            readme.write_text(readme_text(st, sizes), encoding="utf-8")
        if args.stats:
            for c in sorted(st["candidates"], key=lambda c: (c["cited"], c["citing"])):
                flag = "PASS" if c["passes"] else "fail"
                print(f"{flag} {c['r1']:5.1f} {c['r2']:5.1f} {c['rl']:5.1f} {c['cited']:>18} <- {c['citing']:<18} {c['tgt']}")
            passed = [c for c in st["candidates"] if c["passes"]]
            print(f"papers {st['papers']} (pdf {st['papers_pdf']}, metadata only {st['papers_meta_only']}),"
                  f" shards {st['shard_papers']}, Related Work papers {st['rw_papers']}")
            print("fields", dict(st["fields"]))
            print("spans", dict(st["spans"]))
            print("bib", dict(st["bib"]), "cross-shard", st["cross_shard_links"])
            print("rw sentences", st["rw_sentences"], dict(st["rw_sent_kind"]))
            print(f"candidates {len(st['candidates'])}, passing {len(passed)},"
                  f" distinct cited (passing) {len(set(c['cited'] for c in passed))}")
    total = sum(s for _, s in sizes)
    print(f"wrote {len(written)} files ({total:,} bytes) to {out}" + (f"; README {readme}" if readme else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
