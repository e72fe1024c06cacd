#!/usr/bin/env python
"""Write the bundled CiteSum sample corpus in the S2ORC 2020-07-05 layout.

Every paper below is invented for this project: titles, authors, venues and text are written by hand
for testing and demonstration, and none of them describes a real publication. The script turns the
hand-written papers into S2ORC records: `metadata/metadata_{k}.jsonl.gz` and
`pdf_parses/pdf_parses_{k}.jsonl.gz` (two shards, gzip with mtime 0, so the bytes are reproducible).

Markup used in the paper texts (one sentence per line, paragraphs separated by a blank line):

* `[[key]]`: a citation in the citing paper's style; numeric papers print `[3]`, author-year papers
  `(Lopes et al., 2019)`. `[[k1;k2]]` cites several works in one marker (`[3, 5]` or
  `(Lopes et al., 2019; Chen, 2018)`), cut into one span per cited work as GROBID does.
* `<<key>>`: a narrative citation, `Lopes et al. (2019)` (the whole text is the span) or, in numeric
  papers, `Lopes et al. [3]` (only `[3]` is the span). `<<-key>>` writes `Lopes et al [3]` (no period).
* `{au:key}`: the author label alone, with no span (`Lopes et al.`).
* `[[?31]]` / `[[?Marino, 2009]]`: a marker that the PDF parser could not resolve (`ref_id` null).
* `{fig:2}` / `{tab:1}`: `Fig. 2` / `Table 1` with a `ref_span` to the figure or table caption.

Keys name papers of the sample (`PAPERS`) or works outside it (`EXTERNAL`: bib entries that link to
paper ids that are not in the sample, or to nothing).

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

PAPERS: list[dict] = []
EXTERNAL: dict[str, dict] = {}


def P(key, fields, year, title, authors, abstract, *, venue=None, journal=None, style="ay", intro=None,
      sections=(), conclusion=None, intro_title="Introduction", concl_title="Conclusion", figures=(),
      tables=(), pdf=True, doi=False):
    "Register one invented paper (texts: one sentence per line, blank line between paragraphs)."
    PAPERS.append(dict(key=key, fields=list(fields), year=year, title=title, authors=authors,
                       abstract=abstract, venue=venue, journal=journal, style=style, intro=intro,
                       sections=list(sections), conclusion=conclusion, intro_title=intro_title,
                       concl_title=concl_title, figures=list(figures), tables=list(tables), pdf=pdf,
                       doi=doi))


def X(key, title, authors, year, venue, link):
    "Register a cited work outside the sample; `link` is 'unknown' (an id not in the sample) or None."
    EXTERNAL[key] = dict(title=title, authors=authors, year=year, venue=venue, link=link)


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


# ----------------------------------------------------------------------------------------------
# the papers (all invented)
# ----------------------------------------------------------------------------------------------
# --- Computer Science -------------------------------------------------------------------------
P("cs_dedup", ["Computer Science"], 2015,
  "Scalable Near-Duplicate Detection in Large Document Collections with MinHash Sketches",
  "Farid Haddad; Olga Petrova", venue="Proceedings of the Conference on Information and Knowledge Systems",
  abstract=" ".join("""
Large crawled document collections contain many near-duplicate documents that waste storage and bias downstream statistics.
We describe a near-duplicate detection pipeline that computes MinHash sketches of word shingles and groups similar documents with locality-sensitive hashing.
On a collection of 120 million web pages the pipeline finds 94% of the near-duplicate pairs found by exhaustive comparison while running two orders of magnitude faster.
We release the implementation as an open-source library.
""".split("\n")).strip(),
  intro="""
Web-scale corpora are assembled by crawlers that revisit the same pages, mirrors and syndicated articles many times.
Exact hashing removes identical copies, but most redundant documents differ in boilerplate, timestamps or a few edited sentences.
This paper asks how far sketching methods can be pushed when the collection no longer fits on one machine.
""",
  sections=[("Method", """
Each document is split into overlapping shingles of five words, and each shingle is hashed with 128 independent hash functions.
The minimum hash value per function forms the sketch, so that the fraction of equal entries estimates the Jaccard similarity of two documents.
Sketches are cut into 16 bands, and documents that share a band are compared exactly.
""")],
  conclusion="""
MinHash sketches with banded locality-sensitive hashing make near-duplicate detection practical on collections of a hundred million documents.
The main remaining cost is the exact verification of candidate pairs, which we plan to approximate as well.
""", doi=True)

P("cs_asr", ["Computer Science"], 2016,
  "Contrastive Pretraining of Speech Encoders for Low-Resource Recognition",
  "Marta Kowalski; Deepak R. Iyer; Lena Hoffmann", venue="Proceedings of the Workshop on Spoken Language Technology",
  abstract=" ".join("""
We introduce a contrastive pretraining objective for speech encoders that aligns unlabeled utterances with noisy transcripts.
The encoder learns to distinguish the true transcript of an utterance from the transcripts of other utterances in the same batch.
On five low-resource languages the pretrained encoder reduces word error rate by 18% relative to supervised training alone.
The gains are largest when fewer than ten hours of labeled speech are available.
""".split("\n")).strip(),
  intro="""
Speech recognition systems for most of the world's languages are trained on a few hours of transcribed audio.
Untranscribed audio and loosely aligned text, such as subtitles and radio scripts, are far easier to collect.
We show that a simple contrastive objective turns such weakly paired data into a useful initialization for the encoder.
""",
  conclusion="""
Contrastive alignment of speech and text is an inexpensive way to exploit weakly paired data.
Future work will study how noise in the transcripts interacts with the size of the batch of negatives.
""")

P("cs_face", ["Computer Science"], 2014,
  "Pose-Normalized Embeddings for Face Verification in Unconstrained Photographs",
  "Chinedu Okonkwo; Hana Sato; Pieter Brandt", venue="Transactions on Machine Perception",
  abstract=" ".join("""
We present a face verification system that first aligns each face to a frontal pose with a 3D model and then maps it to a compact embedding with a deep convolutional network.
Trained on four million labeled photographs, the embedding reaches 97.1% accuracy on a benchmark of unconstrained face pairs.
Pose normalization accounts for most of the gain over embeddings computed from unaligned crops.
We also show that the embedding transfers to face clustering without retraining.
""".split("\n")).strip(),
  intro="""
Deciding whether two photographs show the same person is difficult when pose, lighting and expression vary freely.
Most earlier systems relied on hand-designed descriptors computed around facial landmarks.
We instead learn the descriptor end to end, after removing the largest nuisance factor, head pose, with an explicit geometric model.
""",
  sections=[("Frontalization", """
Six fiducial points are detected on each face and used to fit a generic 3D face shape.
The fitted shape is rendered from the front, which removes most out-of-plane rotation (see {fig:1}).
""")],
  figures=["Frontalization pipeline: detected fiducial points, fitted 3D shape and the rendered frontal view."],
  conclusion="""
Explicit pose normalization and a large labeled training set together close most of the gap to human performance on unconstrained face pairs.
The embedding is compact enough to index millions of faces on a single server.
""", doi=True)

P("cs_summ", ["Computer Science"], 2017,
  "Sentence Centrality in Citation Graphs for Extractive Summarization of Scientific Articles",
  "Rosa Almeida; Tomasz Nowak", venue="Proceedings of the Workshop on Scholarly Document Processing",
  abstract=" ".join("""
Extractive summarization selects the most informative sentences of a document to form a summary.
We propose to score the sentences of a scientific article by their centrality in a graph that connects them to the citation sentences written about the article by other authors.
Summaries built from the most central sentences obtain higher ROUGE scores than summaries that use lexical centrality alone.
The method needs no training data and runs in linear time in the number of sentences.
""".split("\n")).strip(),
  intro="""
Readers of the scientific literature rarely have time to read every article that might be relevant to them.
Citing authors, however, already describe what they found important in an article, one sentence at a time.
We use these citation sentences as votes for the sentences of the cited article that express the same content.
""",
  conclusion="""
Citation sentences are a cheap and informative signal for choosing summary sentences.
The approach is limited to articles that have already been cited, which excludes the newest work.
""")

P("cs_retr", ["Computer Science"], 2018,
  "Dense Passage Retrieval for Scientific Question Answering",
  "Yuki Tanaka; Samuel Osei; Ingrid Lund", venue="Proceedings of the Conference on Information and Knowledge Systems",
  style="num",
  abstract=" ".join("""
Keyword search often fails on scientific questions whose answers use different terminology from the question.
We train a dual encoder that maps questions and paragraphs of scientific papers into a shared vector space, using citation sentences as weak supervision for relevance.
The dense retriever improves top-20 passage recall from 0.61 to 0.78 on a new benchmark of biomedical and computer science questions.
Combining dense and keyword scores gives a further gain at no extra indexing cost.
""".split("\n")).strip(),
  intro="""
Scientific question answering starts by finding the few paragraphs, among millions, that contain an answer.
Term-matching retrievers such as BM25 are strong baselines, but they miss paraphrases and synonyms that are common across subfields [[x_bm25]].
We study whether a learned dense retriever can close this vocabulary gap without manually labeled question-passage pairs.
""",
  sections=[("Related Work", """
Citation sentences have long been used as a description of the cited work that is written by someone else.
Graph-based summarizers [[cs_summ]] score the sentences of a scientific article by their centrality in a graph that links them to the citation sentences written about the article.
We reuse the same signal, but as supervision for a retriever rather than as a summary.

Retrieval corpora built from crawled papers contain many near-duplicate paragraphs, e.g. preprint and published versions of the same article.
Following [[cs_dedup]], we remove near-duplicate documents with MinHash sketches of word shingles and locality-sensitive hashing before indexing.
Dense retrieval has also been explored for open-domain questions over encyclopedic text [[x_dpr_open]], where training pairs are plentiful.
"""), ("3 Model", """
The question encoder and the passage encoder share a transformer body but have separate output projections.
Training uses in-batch negatives together with one hard negative retrieved by BM25 for each question.
""")],
  conclusion="""
Weak supervision from citation sentences is enough to train a dense retriever that outperforms keyword search on scientific questions.
The benchmark and the trained encoders are available to the community.
""")

X("x_bm25", "Probabilistic relevance models for ranked document search", "Henrik Solberg; Amara Eze", 2009,
  "Foundations of Information Retrieval", "unknown")
X("x_dpr_open", "Learning dense representations of encyclopedic passages for open-domain questions",
  "Laura Becker; Ravi Menon; Jin-woo Park", 2017, "arXiv preprint", None)

P("cs_citesumm", ["Computer Science"], 2019,
  "Learning to Summarize Scientific Papers from Their Citation Sentences",
  "Ana R. Lopes; Mehmet Yilmaz; Grace Whitfield", venue="Proceedings of the Workshop on Scholarly Document Processing",
  style="num", intro_title="1 Introduction",
  abstract=" ".join("""
Citation sentences written by other authors are short, focused descriptions of the cited paper.
We collect pairs of abstracts and citation sentences from a large corpus of papers and train a sequence-to-sequence model to generate a one-sentence summary of a paper from its abstract.
Human judges prefer the generated summaries to the first sentence of the abstract in 64% of comparisons.
We analyze which kinds of citation sentences make good training targets.
""".split("\n")).strip(),
  intro="""
Extreme summarization compresses a document into a single sentence.
For scientific papers, human-written one-sentence summaries are expensive to collect at scale.
We observe that the citation sentences of Related Work sections already provide such summaries, written by experts, for free.
""",
  sections=[("2 Related Work", """
Our work touches on three lines of research: summarization of scientific papers, the use of citation contexts, and the cleaning of large scientific corpora.
We review the first two in turn and discuss data cleaning together with our method in Section 3.
"""), ("2.1 Summarizing scientific papers", """
Most early systems for scientific documents were extractive, i.e. they copied sentences from the article rather than writing new ones.
One graph-based method [[cs_summ]] proposes to score the sentences of a scientific article by their centrality in a graph that connects them to the citation sentences written by other authors, which needs no training data.
Abstractive models have since been trained on large collections of articles paired with their abstracts [[x_arxivsum;x_pubmedsum]].
Compared with these, our targets are an order of magnitude shorter (cf. Section 4).
"""), ("2.2 Citation contexts as supervision", """
Citation contexts have been used to classify the function of a citation [[x_citfunc]] and to find the passage of the cited paper that a citation refers to [[?17]].
<<cs_retr>> train a dual encoder that maps questions and paragraphs of scientific papers into a shared vector space, using citation sentences as weak supervision for relevance.
The same kind of weak supervision has also proved useful for speech encoders [[cs_asr]].
Our use of citation sentences as summaries is, to our knowledge, new.
"""), ("3 Method", """
We start from a corpus of 8.1 million papers and keep the papers that have a Related Work section.
Near-duplicate papers are removed with MinHash sketches of word shingles and locality-sensitive hashing, following [[cs_dedup]].
A citation sentence is kept only when it cites exactly one paper whose abstract is in the corpus.
""")],
  concl_title="5 Conclusion",
  conclusion="""
Citation sentences are abundant, expert-written summaries of scientific papers.
Models trained on them produce one-sentence summaries that human judges prefer to the lead sentence of the abstract.
""")

X("x_arxivsum", "Discourse-aware abstractive summarization of long scientific documents", "Nadia Karimi; Owen Fletcher", 2018,
  "Proceedings of the Annual Meeting on Computational Language", "unknown")
X("x_pubmedsum", "Summarizing biomedical articles with pointer-generator networks", "Sofia Marin; Kenji Watanabe", 2018,
  "Journal of Biomedical Text Mining", "unknown")
X("x_citfunc", "Automatic classification of citation function", "Margit Albrecht; Simon Hartley", 2006,
  "Proceedings of the Conference on Empirical Text Analysis", None)

P("cs_weak", ["Computer Science"], 2020,
  "Citation Contexts as Weak Supervision for Scientific Document Understanding",
  "Camille Laurent; Tobias Richter; Aiyana Crow", venue="Transactions of Computational Language Research",
  journal="Transactions of Computational Language Research",
  abstract=" ".join("""
Labeled data for scientific document understanding is scarce and expensive to annotate.
We show that the sentences in which other papers cite a document can serve as weak supervision for three tasks: retrieval, summarization and keyphrase extraction.
A single model trained on citation contexts from 2.3 million papers matches or exceeds task-specific models trained on manual labels.
The benefit is largest in fields with little annotated data, such as materials science and economics.
""".split("\n")).strip(),
  intro="""
A paper's citations are written by readers who describe, in a sentence or two, what the paper contributes.
This makes citation contexts a natural, if noisy, source of labels for models that must understand what a paper is about.
We build one weakly supervised model for several tasks and compare it with fully supervised baselines.
""",
  sections=[("Related Work", """
Weak supervision from citations has a long history in scholarly document processing.
<<cs_summ>> select summary sentences of a scientific article by their centrality in a graph that connects them to the citation sentences written about the article.
Later work trained a dual encoder that maps questions and paragraphs of scientific papers into a shared vector space with citation sentences as weak supervision [[cs_retr]].
<<cs_citesumm>> collect pairs of abstracts and citation sentences and train a sequence-to-sequence model to generate a one-sentence summary of a paper from its abstract.
Our model covers all three tasks at once.

Beyond text, contrastive objectives that pair two views of the same object have been used for speech [[cs_asr]] and for molecules [[cs_gnn]].
Graph-based molecular models in particular learn representations with graph convolutions conditioned on bond types [[cs_gnn]], an idea we borrow for the citation graph.
Face verification is an early example of learning a compact embedding from millions of weakly curated labels [[cs_face;x_facenet]].
""")],
  conclusion="""
Citation contexts provide enough signal to train a general model of scientific documents.
We expect the approach to extend to patents and legal texts, which have similar citation practices.
""")

X("x_facenet", "A unified embedding for face recognition and clustering", "Ulrich Baumann; Dana Kirsch; Jonah Philby", 2015,
  "Proceedings of the Conference on Vision and Pattern Analysis", "unknown")

P("cs_gnn", ["Computer Science", "Chemistry"], 2017,
  "Learning Molecular Representations with Edge-Conditioned Graph Convolutions",
  "Elena Rossi; Kwame Mensah; David Lindqvist", venue="Proceedings of the Symposium on Machine Learning for Science",
  abstract=" ".join("""
Predicting the properties of molecules from their structure is a central task in computational chemistry.
We represent a molecule as a graph of atoms and bonds and learn its representation with graph convolutions whose filters are conditioned on bond types.
The model predicts solubility, toxicity and binding affinity more accurately than models built on fixed molecular fingerprints on six benchmark datasets.
Ablations show that conditioning the filters on edge features matters most for small training sets.
""".split("\n")).strip(),
  intro="""
Chemists have described molecules with hand-crafted fingerprints for decades.
Fingerprints are fast to compute but fix in advance which substructures a model can see.
Graph neural networks promise to learn the relevant substructures from data instead.
""",
  conclusion="""
Edge-conditioned graph convolutions are a simple and effective replacement for molecular fingerprints.
The learned filters are interpretable as soft substructure detectors, which we illustrate on toxicity data.
""")

P("cs_medimg", ["Computer Science", "Medicine"], 2020,
  "Self-Supervised Pretraining for Content-Based Retrieval of Chest Radiographs",
  "Priya Natarajan; Jonas Eriksen; Mariana Costa; Wei Zhang", venue="Proceedings of the Conference on Medical Image Computing",
  style="num", intro_title="I. INTRODUCTION",
  abstract=" ".join("""
Radiologists often look for earlier cases that resemble the image in front of them, but hospital archives can only be searched by text.
We pretrain an image encoder on 400,000 unlabeled chest radiographs with a contrastive objective and use its embeddings for content-based retrieval.
With only 1% of the labels, the pretrained encoder retrieves images with the same finding at a precision of 0.71, compared with 0.52 for ImageNet initialization.
Retrieval quality is stable across three hospitals with different scanners.
""".split("\n")).strip(),
  intro="""
Picture archiving systems store millions of radiographs that are retrievable only by patient identifiers and free-text reports.
Content-based retrieval would let a radiologist query the archive with an image, but it requires an image representation that reflects clinical findings.
Labels for such a representation are scarce, which motivates self-supervised pretraining [[cs_asr;x_simclr]].
""",
  sections=[("II. RELATED WORK", """
Learning embeddings for retrieval is well studied for natural images and faces.
<<cs_face>> align each face to a frontal pose with a 3D model and then map it to a compact embedding with a deep convolutional network.
Pose normalization accounts for most of their gain, a finding that motivates our lung-field alignment step (Fig. 2 of [[cs_face]] shows the analogous step for faces).
Contrastive pretraining has been applied to speech, where <<-cs_asr>> align unlabeled utterances with noisy transcripts and reduce word error rate on five low-resource languages.

In radiology, supervised detectors have been trained for individual findings.
For example, a deep learning model detected pneumothorax on chest radiographs from four hospitals with an area under the curve of 0.94 [[med_xray]].
Such detectors need thousands of labeled images per finding, i.e. far more than most hospitals can provide.
Large image archives also contain duplicates and follow-up images of the same patient, which inflate retrieval scores unless they are removed [[cs_dedup]].
"""), ("III. METHOD", """
The encoder is a ResNet-50 trained with two augmented views per radiograph.
Views of the same radiograph are pulled together and views of different patients are pushed apart, as shown in {fig:1}.
""")],
  figures=["Contrastive pretraining with two augmented views of each radiograph."],
  concl_title="V. CONCLUSION",
  conclusion="""
Self-supervised pretraining makes content-based retrieval of chest radiographs feasible with very few labels.
We plan a reader study to measure whether retrieved cases change diagnostic decisions.
""")

X("x_simclr", "Contrastive learning of visual representations with strong augmentations", "Georg Lindholm; Min-seo Kang", 2019,
  "Proceedings of the International Conference on Representation Learning", "unknown")

# --- Medicine ---------------------------------------------------------------------------------
P("med_statin", ["Medicine"], 2012,
  "Statin Adherence and Cardiovascular Events in Adults Over 75: A Population-Based Cohort Study",
  "Helena Voss; Rajesh Kulkarni; Maeve O'Connell", journal="Journal of Geriatric Cardiology Research",
  abstract=" ".join("""
Evidence on the benefit of statins in adults older than 75 years is limited because this group is underrepresented in randomized trials.
We followed 48,210 adults aged 75 years or older who started statin therapy for primary prevention, using linked pharmacy and hospital records.
Good adherence, defined as possession of tablets on at least 80% of days, was associated with a 21% lower risk of major cardiovascular events.
The association persisted after adjustment for frailty and was similar in men and women.
""".split("\n")).strip(),
  intro="""
Statins reduce cardiovascular risk in middle-aged adults, but whether older adults without cardiovascular disease benefit is uncertain.
Clinicians therefore disagree about starting or continuing statins after age 75.
We used routinely collected data to estimate the association between adherence and outcomes in this age group.
""",
  sections=[("Methods", """
Adherence was measured as the proportion of days covered by dispensed tablets in the first year of therapy.
Cox models were adjusted for age, sex, frailty index, diabetes, blood pressure and baseline cholesterol ({tab:1}).
""")],
  tables=["Baseline characteristics of the cohort by adherence category."],
  conclusion="""
Among adults over 75 who start statins for primary prevention, good adherence is associated with fewer cardiovascular events.
A randomized trial in this age group is still needed to exclude healthy-adherer bias.
""", doi=True)

P("med_sepsis", ["Medicine"], 2015,
  "Validation of an Early Warning Score for Sepsis in Emergency Departments",
  "Tomás Herrera; Ngozi Adeyemi; Karin Lund", journal="Emergency Medicine Reports",
  abstract=" ".join("""
Early recognition of sepsis in the emergency department improves survival, but screening tools perform inconsistently across settings.
We prospectively validated a six-item early warning score based on vital signs and mental status in 12,400 adult emergency department visits at three hospitals.
A score of 4 or higher identified sepsis with a sensitivity of 0.82 and a specificity of 0.79.
The score outperformed the systemic inflammatory response criteria at every hospital.
""".split("\n")).strip(),
  intro="""
Sepsis is a leading cause of death in hospitals, and each hour of delayed treatment increases mortality.
Emergency physicians need screening tools that are quick to compute at triage.
We report a prospective, multicenter validation of one such score.
""",
  conclusion="""
A simple score based on vital signs and mental status identifies most patients with sepsis at triage.
Its integration into electronic triage systems is under way at the participating hospitals.
""")

P("med_xray", ["Medicine", "Computer Science"], 2017,
  "Deep Learning Detection of Pneumothorax on Chest Radiographs: A Retrospective Multicenter Study",
  "Isabel Moreau; Kofi Boateng; Lars Nyberg; Anjali Mehta", journal="Radiology and Artificial Intelligence",
  abstract=" ".join("""
Pneumothorax can be missed on chest radiographs, especially when the radiograph is read by a non-radiologist at night.
We trained a deep learning model on 31,000 labeled chest radiographs to detect pneumothorax and tested it on radiographs from four hospitals.
The model detected pneumothorax with an area under the receiver operating characteristic curve of 0.94, and its sensitivity was similar for small and large pneumothoraces.
Most false positives were caused by skin folds and chest tubes.
""".split("\n")).strip(),
  intro="""
Chest radiographs are the most common imaging examination, and many are first read by emergency physicians.
A missed pneumothorax can progress to a life-threatening tension pneumothorax.
Automated detection could prioritize suspicious radiographs for urgent review.
""",
  conclusion="""
A deep learning model detects pneumothorax on chest radiographs with high accuracy across hospitals.
Prospective evaluation of radiograph triage with the model is the next step.
""", doi=True)

P("med_tele", ["Medicine"], 2016,
  "Home Telemonitoring of Blood Pressure and Weight After Discharge for Heart Failure: A Randomized Trial",
  "Sarah Goldberg; Emeka Nwosu; Paula Lindgren", journal="Journal of Cardiac Care Outcomes",
  abstract=" ".join("""
Readmission within 30 days of discharge is common among patients hospitalized for heart failure.
In a randomized trial of 1,150 patients, we compared daily home telemonitoring of blood pressure and weight with usual care after discharge.
Telemonitoring reduced 30-day readmission from 18.4% to 13.9%, but did not reduce mortality at six months.
Adherence to daily measurements declined from 92% in the first week to 61% at three months.
""".split("\n")).strip(),
  intro="""
Heart failure is the most frequent cause of hospitalization in older adults.
Fluid retention often precedes decompensation by several days and can be detected by daily weighing.
Whether remote monitoring of such signals prevents readmission has been debated.
""",
  conclusion="""
Home telemonitoring of blood pressure and weight reduces early readmission after heart failure hospitalization.
Strategies that keep patients measuring beyond the first weeks are needed.
""")

P("med_frailty", ["Medicine"], 2011,
  "A Frailty Index Derived from Routine Primary Care Records",
  "Miriam Koenig; Adebayo Ogunleye", journal="Age and Clinical Practice", pdf=False,
  abstract=" ".join("""
Frailty predicts adverse outcomes in older adults, but measuring it requires time-consuming assessments.
We derived a frailty index from 36 deficits recorded routinely in primary care records of 210,000 adults aged 65 years or older.
The index predicted mortality, hospitalization and nursing home admission over five years and can be computed automatically.
""".split("\n")).strip())

P("med_polypharm", ["Medicine"], 2019,
  "Deprescribing Preventive Medications in Older Adults: Outcomes in a Regional Cohort",
  "Liesel Brandauer; Omar Haddadi; Chiara Benedetti", journal="Journal of Geriatric Cardiology Research",
  style="ay",
  abstract=" ".join("""
Older adults with multiple chronic conditions take many preventive medications whose benefit may no longer outweigh their burden.
We studied 9,800 adults aged 80 years or older in whom statins or antihypertensive drugs were stopped during a structured medication review.
Stopping was not associated with a higher rate of cardiovascular events over two years, and falls decreased by 12%.
These findings support shared decisions about deprescribing in the oldest patients.
""".split("\n")).strip(),
  intro="""
Polypharmacy is common in older adults and is associated with falls, hospitalization and lower quality of life.
Guidelines encourage medication reviews, but evidence on the consequences of stopping preventive drugs is scarce.
""",
  sections=[("Background and Related Work", """
The benefit of statins after age 75 remains uncertain.
In a population-based cohort, <<med_statin>> found that good statin adherence was associated with a 21% lower risk of major cardiovascular events in adults aged 75 years or older.
Observational studies of adherence are prone to healthy-adherer bias, however, and cannot show what happens when a statin is stopped [[med_statin;x_whitcombe]].
Frailty is a likely modifier of benefit, and a frailty index can be derived from deficits recorded routinely in primary care records [[med_frailty]].

Trials of care after hospital discharge provide indirect evidence on monitoring older patients.
Home telemonitoring of blood pressure and weight reduced 30-day readmission after heart failure hospitalization in a randomized trial [[med_tele]].
Yet adherence to daily measurements declined quickly, which is a concern for any intervention that relies on patient self-monitoring [[med_tele]].
Earlier work by J. M. Whitcombe and colleagues described medication reviews in nursing homes [[x_whitcombe]].
""")],
  conclusion="""
Stopping statins or antihypertensive drugs in adults aged 80 or older was not followed by more cardiovascular events.
A pragmatic randomized trial of deprescribing is justified.
""")

X("x_whitcombe", "Structured medication reviews in long-term care facilities", "Janet M. Whitcombe", 2014,
  "Journal of Long-Term Care Pharmacy", None)

# --- Biology ----------------------------------------------------------------------------------
P("bio_crispr", ["Biology"], 2014,
  "A Pooled CRISPR Screen Identifies Regulators of Mitochondrial Fission in Human Cells",
  "Naomi Feldman; Arjun Bhattacharya; Sven Olofsson", journal="Cell Systems Biology Letters",
  abstract=" ".join("""
Mitochondria divide and fuse continuously, and the balance between fission and fusion shapes cellular metabolism.
We performed a pooled CRISPR knockout screen in human cells with an imaging readout of mitochondrial morphology.
The screen identified 41 genes whose loss produced elongated mitochondria, including three previously uncharacterized membrane proteins.
One of them, which we name FSR1, recruits the fission machinery to contact sites with the endoplasmic reticulum.
""".split("\n")).strip(),
  intro="""
Mitochondrial fission requires the recruitment of a dynamin-related GTPase to the outer membrane.
Several adaptors for this GTPase are known, but they do not explain where fission sites form.
An unbiased genetic screen can reveal additional components.
""",
  conclusion="""
Image-based pooled screens are a powerful way to find regulators of organelle morphology.
FSR1 links mitochondrial fission to contacts with the endoplasmic reticulum.
""")

P("bio_microbiome", ["Biology"], 2016,
  "Gut Microbiome Composition Predicts the Metabolic Response to Dietary Fiber in Mice",
  "Clara Jimenez; Hiroshi Takeda; Benjamin Ashworth", journal="Journal of Microbial Ecology and Host Physiology",
  abstract=" ".join("""
Dietary fiber improves glucose tolerance in some individuals but not in others.
We fed mice colonized with gut microbiota from 24 human donors a high-fiber diet and measured glucose tolerance and short-chain fatty acid production.
Mice colonized with microbiota rich in Prevotella species showed the largest improvement in glucose tolerance.
The response could be predicted from the baseline microbiome composition with a simple classifier.
""".split("\n")).strip(),
  intro="""
The health effects of diet vary widely between people.
The gut microbiome, which ferments dietary fiber, is a candidate explanation for this variation.
Gnotobiotic mice allow the effect of a microbiome to be isolated from host genetics.
""",
  conclusion="""
The gut microbiome determines much of the metabolic benefit of dietary fiber in mice.
Microbiome-based prediction of dietary response deserves testing in humans.
""")

P("bio_coral", ["Biology"], 2017,
  "Thermal Tolerance of Reef-Building Corals Is Linked to Shifts in Symbiont Communities",
  "Leilani Kahale; Marcus Whitby; Ines Carvalho", journal="Marine Biology and Ecology Reports",
  abstract=" ".join("""
Marine heatwaves cause mass bleaching of reef-building corals, but some colonies survive repeated heat stress.
We tracked 220 colonies of two coral species through two heatwaves and sequenced their algal symbionts before and after each event.
Colonies that shifted toward heat-tolerant symbiont types after the first heatwave bleached less during the second.
Symbiont shuffling may therefore provide a rapid but limited form of acclimatization.
""".split("\n")).strip(),
  intro="""
Coral reefs support a quarter of marine species while covering a tiny fraction of the sea floor.
Bleaching, the loss of symbiotic algae under heat stress, is becoming more frequent as oceans warm.
Understanding which colonies survive is essential for reef management.
""",
  conclusion="""
Changes in symbiont communities help explain why some corals tolerate repeated heat stress.
The capacity for such shifts is limited, and it will not keep pace with projected warming.
""")

P("bio_legume", ["Biology", "Chemistry"], 2015,
  "Root Exudate Flavonoids Recruit Nitrogen-Fixing Bacteria to Legume Roots Under Low Nitrogen",
  "Rahul Deshpande; Anneke Visser; Tobias Kern", journal="Plant and Soil Interactions",
  abstract=" ".join("""
Legumes form a symbiosis with nitrogen-fixing rhizobia, which they attract with chemical signals released from their roots.
We profiled the flavonoids in root exudates of pea plants grown under high and low nitrogen supply by mass spectrometry.
Low nitrogen increased the secretion of two flavonoids that strongly induced nodulation genes in rhizobia.
Mutant plants unable to produce these flavonoids formed 70% fewer nodules.
""".split("\n")).strip(),
  intro="""
Biological nitrogen fixation reduces the need for synthetic fertilizer.
The exchange of chemical signals between legume roots and rhizobia initiates nodule formation.
How plants adjust this signaling to their nutrient status is only partly understood.
""",
  conclusion="""
Legumes adjust the flavonoid composition of their root exudates to their nitrogen status.
Breeding for this response could improve nodulation in low-input agriculture.
""")

P("bio_yeastaging", ["Biology"], 2009,
  "Replicative Lifespan of Budding Yeast Is Extended by Reduced Ribosome Biogenesis",
  "Gertrude Halvorsen; Paulo Mendes", journal="Aging Cell Biology", pdf=False,
  abstract=" ".join("""
We measured the replicative lifespan of 1,500 single-gene deletion strains of budding yeast by microdissection.
Deletions of genes involved in ribosome biogenesis extended lifespan by up to 40%, and the effect depended on the nutrient-sensing kinase pathway.
""".split("\n")).strip())

P("bio_mitoqc", ["Biology"], 2019,
  "Mitochondrial Quality Control Couples Fission to Selective Autophagy in Neurons",
  "Yasmin Rahimi; Oskar Lindahl; Theresa Mbeki", journal="Cell Systems Biology Letters",
  style="num",
  abstract=" ".join("""
Neurons depend on healthy mitochondria far from the cell body, where damaged organelles must be removed locally.
We imaged mitochondria in cultured neurons and found that damaged segments are separated by fission before being engulfed by autophagosomes.
Loss of the fission adaptor FSR1 blocked the removal of damaged mitochondria and increased neuronal death under oxidative stress.
Fission thus acts as a gatekeeper of mitochondrial quality control in axons.
""".split("\n")).strip(),
  intro="""
Mitochondrial damage is a common feature of neurodegenerative diseases.
Damaged mitochondria are removed by selective autophagy, but how a damaged part of a long mitochondrion is singled out is unclear.
""",
  sections=[("Related Work", """
Genetic screens have expanded the list of proteins that control mitochondrial shape.
A pooled CRISPR knockout screen with an imaging readout of mitochondrial morphology identified 41 genes whose loss produced elongated mitochondria [[bio_crispr]].
Among them, FSR1 recruits the fission machinery to contact sites with the endoplasmic reticulum, as <<bio_crispr>> showed in dividing cells.
Whether the same machinery operates in neurons was not tested.

Lifespan studies in model organisms link organelle maintenance to aging (e.g. [[bio_yeastaging;x_wormlife]]).
In budding yeast, deletions of genes involved in ribosome biogenesis extended replicative lifespan [[bio_yeastaging]].
Metabolic signals from outside the cell also matter: the gut microbiome, for instance, shapes host glucose tolerance <<bio_microbiome>>.
""")],
  conclusion="""
Fission allows neurons to remove only the damaged part of a mitochondrion.
Drugs that promote local fission might protect neurons under oxidative stress.
""")

X("x_wormlife", "Insulin-like signaling and lifespan in nematodes", "Ruth K. Adler; Vincent Moreau", 2003,
  "Journal of Developmental Genetics", "unknown")

P("bio_fiberhuman", ["Biology", "Medicine"], 2020,
  "Baseline Gut Microbiota and Glycemic Response to a Fiber Intervention in Adults with Prediabetes",
  "Mei-Ling Chou; Patrick Donnelly; Amira Saleh", journal="Journal of Microbial Ecology and Host Physiology",
  abstract=" ".join("""
Responses to dietary fiber vary between individuals, and the gut microbiota may explain part of this variation.
In 180 adults with prediabetes, we profiled the gut microbiota before a 12-week high-fiber intervention and measured glycemic control afterwards.
Participants whose baseline microbiota was dominated by Prevotella improved fasting glucose by 0.4 mmol/L more than other participants.
A classifier trained on baseline microbiota predicted responders with an accuracy of 0.76.
""".split("\n")).strip(),
  intro="""
Lifestyle interventions prevent type 2 diabetes in many but not all adults with prediabetes.
Personalized dietary advice requires predictors of who will benefit from a given diet.
""",
  sections=[("Background and Related Work", """
Animal studies suggested that the metabolic benefit of fiber depends on the microbiome.
<<bio_microbiome>> fed mice colonized with gut microbiota from human donors a high-fiber diet and found that microbiota rich in Prevotella species gave the largest improvement in glucose tolerance.
In the same study, the response could be predicted from the baseline microbiome composition with a simple classifier [[bio_microbiome]].
Human studies have so far been small, with fewer than 40 participants [[x_okafor;x_brandt19]].

Host factors beyond the microbiome also vary between individuals.
Legume roots, for example, change the flavonoids they secrete when nitrogen is scarce, which recruits nitrogen-fixing bacteria [[bio_legume]].
Such host-microbe signaling is an appealing analogy, but its relevance for the human gut is speculative.
""")],
  conclusion="""
The baseline gut microbiota predicts who benefits from a fiber intervention in prediabetes.
A trial that assigns diets on the basis of the microbiota is the logical next step.
""")

X("x_okafor", "Fiber supplementation and the gut microbiota of obese adults: a pilot study", "Chidi Okafor; Maja Lind", 2018,
  "Nutrition and Metabolism Pilot Reports", "unknown")
X("x_brandt19", "Microbial predictors of dietary response", "Helmut Brandt", 2019, "", None)

# --- Physics ----------------------------------------------------------------------------------
P("phy_topo", ["Physics"], 2014,
  "Spin-Resolved Photoemission of Surface States in a Strained Topological Insulator Film",
  "Dmitri Volkov; Aiko Matsuda; Richard Hale", journal="Physical Review of Condensed Matter Letters",
  abstract=" ".join("""
Topological insulators host metallic surface states whose spin is locked to their momentum.
We grew thin films of a bismuth-based topological insulator on substrates with different lattice mismatch and measured their surface states by spin-resolved photoemission.
Compressive strain shifted the Dirac point by up to 120 meV while the spin polarization of the surface states remained above 80%.
Strain is therefore a practical knob for tuning the surface band structure without chemical doping.
""".split("\n")).strip(),
  intro="""
Spin-momentum locking makes topological surface states attractive for spintronic devices.
Device applications require control over the energy of the Dirac point relative to the Fermi level.
Chemical doping achieves this but introduces disorder.
""",
  conclusion="""
Epitaxial strain tunes the Dirac point of topological surface states while preserving their spin texture.
""")

P("phy_qdot", ["Physics", "Materials Science"], 2016,
  "Bright Single-Photon Emission from Site-Controlled Quantum Dots in Photonic Micropillars",
  "Johanna Berg; Carlos Mendoza; Anil Kapoor", journal="Journal of Quantum Photonics",
  abstract=" ".join("""
Quantum light sources must emit single photons on demand with high efficiency and indistinguishability.
We fabricated site-controlled semiconductor quantum dots inside micropillar cavities aligned to each dot with nanometer precision.
Under resonant excitation, the sources emitted single photons with an extraction efficiency of 0.65 and an indistinguishability of 0.96.
Deterministic positioning raised the fraction of working devices from 5% to 71%.
""".split("\n")).strip(),
  intro="""
Photonic quantum technologies need bright sources of identical single photons.
Self-assembled quantum dots are excellent emitters, but their random positions make coupling to cavities a matter of chance.
""",
  sections=[("Fabrication", """
Quantum dots were nucleated in etched nanoholes, and micropillars were patterned around them by electron-beam lithography.
The resulting device geometry is shown in {fig:1}.
""")],
  figures=["Scanning electron micrograph of a micropillar cavity with a site-controlled quantum dot at its center."],
  conclusion="""
Site control turns quantum dot single-photon sources from lucky finds into reproducible devices.
""", doi=True)

P("phy_pulsar", ["Physics"], 2010,
  "Constraints on a Stochastic Gravitational-Wave Background from Five Years of Pulsar Timing",
  "Eleanor Whitfield-Ross; Kenji Hamada", journal="Astrophysical Letters", pdf=False, abstract=None)

P("phy_lattice", ["Physics"], 2015,
  "Observation of Many-Body Localization of Ultracold Fermions in a Quasiperiodic Optical Lattice",
  "Franziska Albers; Marco Lombardi; Thandiwe Nkosi", journal="Physical Review of Atomic and Quantum Gases",
  abstract=" ".join("""
Isolated quantum systems are expected to thermalize, but strong disorder may prevent thermalization even in the presence of interactions.
We prepared a charge density wave of ultracold fermionic atoms in a quasiperiodic optical lattice and followed its relaxation over hundreds of tunneling times.
Above a critical disorder strength, the initial density pattern persisted indefinitely, a signature of many-body localization.
The critical disorder increased with interaction strength, in agreement with numerical simulations.
""".split("\n")).strip(),
  intro="""
Statistical mechanics assumes that closed systems reach thermal equilibrium.
Many-body localization is the proposed exception, in which disorder and interactions together preserve memory of the initial state.
Ultracold atoms provide clean and tunable systems to test this proposal.
""",
  conclusion="""
Ultracold fermions in a quasiperiodic lattice show the memory of their initial state expected for a many-body localized phase.
""")

P("phy_plasma", ["Physics", "Computer Science"], 2018,
  "Predicting Disruptions in Tokamak Plasmas with Recurrent Neural Networks",
  "Gabriel Fontaine; Sunita Rao; Henrik Magnusson", journal="Nuclear Fusion Letters", style="ay",
  abstract=" ".join("""
Disruptions, the sudden loss of plasma confinement, can damage tokamak fusion reactors and must be predicted early enough for mitigation.
We trained a recurrent neural network on time series of 14 diagnostic signals from 9,000 discharges of two tokamaks.
The network predicted 91% of disruptions at least 30 ms in advance with a false alarm rate of 5%.
A model trained on one machine retained most of its accuracy on the other after fine-tuning on 50 discharges.
""".split("\n")).strip(),
  intro="""
Disruption avoidance is one of the main open problems on the way to a fusion power plant.
Physics-based thresholds catch many disruptions, but they are tuned by hand for each machine.
""",
  sections=[("Related Work", """
Machine learning for plasma control is a young field, and most earlier predictors used decision trees on hand-selected features [[x_murari]].
Recurrent networks have been more successful for sequential data in other domains, e.g. speech, where contrastive pretraining reduced word error rate by 18% relative to supervised training alone [[cs_asr]].
Transfer between machines resembles the problem of adapting a model trained on one condensed matter system to another.

Data quality matters as much as the model.
In large collections of discharges, near-duplicate shots from repeated experiments bias evaluation, as they do in crawled document collections <<cs_dedup>>.
We therefore split our data by experimental campaign rather than by discharge.
""")],
  conclusion="""
Recurrent neural networks predict tokamak disruptions early and transfer between machines with little data.
""")
X("x_murari", "Data-driven disruption predictors based on decision trees", "Paolo Murari; Linnea Strand", 2013,
  "Plasma Diagnostics Review", "unknown")

P("phy_mbl", ["Physics"], 2019,
  "Slow Dynamics Near the Many-Body Localization Transition in Two-Dimensional Lattices",
  "Hyun-woo Kim; Beatriz Sousa; Nikolai Petrov", journal="Physical Review of Atomic and Quantum Gases",
  style="num", intro_title="1 Introduction",
  abstract=" ".join("""
Whether many-body localization survives in two dimensions is an open question.
We studied the relaxation of a density pattern of ultracold bosons in a two-dimensional disordered lattice for up to 1,000 tunneling times.
Relaxation slowed down dramatically near a critical disorder strength but did not stop completely on the accessible time scales.
The data are consistent with rare thermal regions that slowly destroy localization in two dimensions.
""".split("\n")).strip(),
  intro="""
Many-body localization has been established in one-dimensional systems both numerically and experimentally.
In two dimensions, theory predicts that rare regions of weak disorder act as thermal baths that eventually destroy localization.
""",
  sections=[("2 Related Work", """
Experiments with ultracold atoms have provided the clearest evidence for many-body localization.
<<phy_lattice>> prepared a charge density wave of ultracold fermionic atoms in a quasiperiodic optical lattice and found that the initial density pattern persisted above a critical disorder strength.
The critical disorder increased with interaction strength [[phy_lattice]].
Similar memory effects were reported for trapped ions [[x_ions;?23]].

Solid-state platforms offer complementary probes.
In strained topological insulator films, compressive strain shifts the Dirac point of the surface states by up to 120 meV while their spin polarization remains above 80% [[phy_topo]].
Such materials are not disordered enough to localize, however, and we do not consider them further.
Gravitational-wave limits from pulsar timing [[phy_pulsar]] illustrate how long-baseline measurements constrain slow processes, an analogy we return to in Section 5.
"""), ("3 Experimental Setup", """
Bosonic atoms are loaded into a square lattice with a lattice constant of 532 nm.
Disorder is imprinted with a projected speckle pattern whose strength is calibrated by spectroscopy.
""")],
  concl_title="5 Conclusion",
  conclusion="""
Localization in two dimensions appears to be a very slow crossover rather than a sharp phase.
Longer coherence times will be needed to decide the question.
""")
X("x_ions", "Many-body localization in a chain of trapped ions", "Samuel Whitaker; Lucia Ferraro; Ivan Dobrev", 2016,
  "Quantum Simulation Letters", "unknown")

P("phy_spinqd", ["Physics", "Materials Science"], 2020,
  "Spin-Photon Interfaces with Site-Controlled Quantum Dots in Strained Membranes",
  "Astrid Solheim; Ravi Chandran; Julien Marchetti", journal="Journal of Quantum Photonics", style="ay",
  abstract=" ".join("""
Quantum networks require interfaces that map the spin state of a stationary qubit onto a flying photon.
We integrated site-controlled quantum dots into strained semiconductor membranes and used the strain to tune the emission of each dot to a common wavelength.
Spin-photon entanglement was observed with a fidelity of 0.87, and two dots on the same chip emitted photons with a mutual indistinguishability of 0.81.
Strain tuning makes arrays of identical spin-photon interfaces possible.
""".split("\n")).strip(),
  intro="""
A quantum internet will need many identical nodes that connect stationary qubits with photons.
Quantum dots are fast and bright, but no two dots emit at exactly the same wavelength.
""",
  sections=[("RELATED WORK", """
Site-controlled quantum dots have made single-photon sources reproducible.
<<phy_qdot>> fabricated site-controlled semiconductor quantum dots inside micropillar cavities, and under resonant excitation their sources emitted single photons with an extraction efficiency of 0.65 and an indistinguishability of 0.96.
Deterministic positioning raised the fraction of working devices from 5% to 71% in that work.
Other groups have tuned dots electrically rather than mechanically [[x_yamamoto;x_abbott]].

Strain is also used to engineer band structures in other materials.
In topological insulator films, compressive strain shifted the Dirac point while the spin polarization of the surface states remained high [[phy_topo]].
We use strain for a similar purpose, to bring the optical transitions of different dots into resonance.
""")],
  conclusion="""
Strain tuning of site-controlled quantum dots yields identical spin-photon interfaces on one chip.
""")

X("x_yamamoto", "Electrical tuning of quantum dot emission with piezoelectric gates", "Ren Yamamoto; Alice Greer", 2017,
  "Applied Quantum Devices", None)
X("x_abbott", "Stark tuning of indistinguishable photons from remote quantum dots", "Miles Abbott; Yara Haddad; Ola Nordin", 2018,
  "Journal of Quantum Photonics", "unknown")

# --- Materials Science ------------------------------------------------------------------------
P("mat_hea", ["Materials Science"], 2014,
  "Strength and Ductility of a Face-Centered Cubic High-Entropy Alloy at Cryogenic Temperatures",
  "Ulrike Stein; Vikram Sethi; Lauren Ashby", journal="Acta Metallurgica Letters",
  abstract=" ".join("""
High-entropy alloys combine five or more principal elements in nearly equal proportions.
We measured the tensile properties of an equiatomic face-centered cubic alloy of chromium, manganese, iron, cobalt and nickel between 77 K and room temperature.
Both strength and ductility increased as the temperature decreased, reaching a fracture toughness above 200 MPa m^1/2 at 77 K.
Electron microscopy revealed nanoscale deformation twinning as the origin of this behavior.
""".split("\n")).strip(),
  intro="""
Most metals become brittle at low temperature, which limits their use in cryogenic applications.
High-entropy alloys are a new class of materials whose mechanical behavior is still being mapped.
""",
  conclusion="""
This high-entropy alloy becomes both stronger and more ductile at cryogenic temperatures because of deformation twinning.
""", doi=True)

P("mat_perov", ["Materials Science", "Physics"], 2016,
  "Moisture-Resistant Perovskite Solar Cells with Hydrophobic Two-Dimensional Capping Layers",
  "Joon-ho Lee; Fatima Zahra Benali; Erik Sandberg", journal="Advanced Energy Materials Letters",
  abstract=" ".join("""
Hybrid perovskite solar cells are efficient but degrade rapidly in humid air.
We deposited a thin two-dimensional perovskite capping layer with hydrophobic organic cations on top of a three-dimensional perovskite absorber.
Capped cells retained 90% of their initial power conversion efficiency of 20.1% after 1,000 hours at 60% relative humidity, whereas uncapped cells lost half of their efficiency within 200 hours.
The capping layer also reduced surface recombination.
""".split("\n")).strip(),
  intro="""
Perovskite solar cells have reached efficiencies comparable to silicon within a decade.
Their instability in moisture remains the main barrier to commercialization.
""",
  conclusion="""
Hydrophobic two-dimensional capping layers protect perovskite absorbers from moisture without sacrificing efficiency.
""")

P("mat_mos2", ["Materials Science"], 2015,
  "Contact Engineering for Monolayer Molybdenum Disulfide Transistors",
  "Priyanka Ghosh; Stefan Hubert; Adaeze Okoro", journal="Journal of Two-Dimensional Materials",
  abstract="We report low-resistance contacts to monolayer MoS2 made with a semimetal interlayer.",
  intro="""
Two-dimensional semiconductors could extend transistor scaling, but metal contacts to them have high resistance.
""",
  conclusion="""
A semimetal interlayer lowers the contact resistance of monolayer MoS2 transistors by an order of magnitude.
""")

P("mat_sse", ["Materials Science", "Chemistry"], 2017,
  "A Sulfide Solid Electrolyte with Liquid-Like Lithium Conductivity and Improved Air Stability",
  "Kenta Mori; Sophie Delacroix; Ahmed Farouk", journal="Journal of Solid State Ionics Research",
  abstract=" ".join("""
Solid electrolytes could make lithium batteries safer and enable lithium metal anodes.
We synthesized a lithium thiophosphate electrolyte doped with oxygen and tin and measured its conductivity and stability in air.
The electrolyte reached an ionic conductivity of 12 mS/cm at room temperature, comparable to liquid electrolytes.
Oxygen doping reduced the release of hydrogen sulfide in humid air by 85%.
""".split("\n")).strip(),
  intro="""
Flammable liquid electrolytes are the main safety risk of lithium-ion batteries.
Sulfide solid electrolytes conduct lithium ions well but react with moisture.
""",
  sections=[("Related Work", """
Compositional complexity has recently been used to stabilize many classes of materials.
Equiatomic alloys of five principal elements, for example, become both stronger and more ductile at cryogenic temperatures [[mat_hea]].
Whether mixing many elements also stabilizes ionic conductors is not known.

In photovoltaics, moisture stability has been improved with protective layers.
Hybrid perovskite solar cells with a thin hydrophobic two-dimensional perovskite capping layer retained 90% of their initial efficiency after 1,000 hours in humid air [[mat_perov]].
Coatings add processing steps, which motivates our search for an intrinsically stable composition.
""")],
  conclusion="""
Oxygen and tin doping yield a sulfide electrolyte that conducts lithium like a liquid and tolerates air far better than its parent compound.
""")

P("mat_tandem", ["Materials Science", "Physics"], 2019,
  "Perovskite-Silicon Tandem Solar Cells with Textured Interfaces and Improved Stability",
  "Maria Gonzalez-Ruiz; Tobias Weiland; Hyejin Park", journal="Advanced Energy Materials Letters", style="num",
  abstract=" ".join("""
Tandem solar cells that stack a perovskite absorber on silicon can exceed the efficiency limit of silicon alone.
We grew conformal perovskite layers on textured silicon bottom cells and protected them with a two-dimensional capping layer.
The tandem cells reached a power conversion efficiency of 26.4% and retained 87% of it after 800 hours of operation at 65 degrees Celsius.
Textured interfaces reduced reflection losses by 1.5 mA/cm2 compared with planar devices.
""".split("\n")).strip(),
  intro="""
Silicon solar cells are approaching their theoretical efficiency limit.
Adding a perovskite top cell harvests high-energy photons more efficiently.
""",
  sections=[("2 Related Work", """
Stability is the main concern for any perovskite device.
<<mat_perov>> deposited a thin two-dimensional perovskite capping layer with hydrophobic organic cations on top of a three-dimensional perovskite absorber, and capped cells retained 90% of their efficiency after 1,000 hours at 60% relative humidity.
Encapsulation with glass and polymers is an alternative [[x_encap]], but it does not prevent degradation at high temperature.
Solid electrolytes for batteries face similar moisture problems, and oxygen doping reduced the release of hydrogen sulfide by 85% in one such material [[mat_sse]].

Textured silicon is standard in commercial cells [[x_texture;mat_mos2]].
Depositing perovskites conformally on pyramidal textures has been difficult because solution processing fills the valleys (see {fig:1}).
We adopt a hybrid evaporation and solution route instead.
"""), ("3 Device Fabrication", """
Silicon heterojunction bottom cells with random pyramids were coated with a recombination layer of indium tin oxide.
The perovskite was co-evaporated and then converted in solution.
""")],
  figures=["Cross-section of a tandem cell with a conformal perovskite layer on textured silicon."],
  concl_title="5 Conclusion",
  conclusion="""
Conformal perovskite top cells on textured silicon give efficient and stable tandem devices.
""")
X("x_encap", "Glass-glass encapsulation of perovskite modules", "Ola Brekke; Nina Vasquez", 2017, "Solar Module Reliability", "unknown")
X("x_texture", "Anisotropic etching of silicon for light trapping", "Heinz Oberholzer", 1998, "", None)

P("mat_anode", ["Materials Science"], 2020,
  "Interface Stability of Lithium Metal Anodes with Doped Sulfide Solid Electrolytes",
  "Chen Wei; Laura Fitzgerald; Tariq Mahmood", journal="Journal of Solid State Ionics Research",
  abstract=" ".join("""
Lithium metal anodes paired with solid electrolytes promise batteries with high energy density, but the interface between them degrades during cycling.
We studied the interface between lithium metal and an oxygen-doped sulfide electrolyte by impedance spectroscopy and X-ray photoelectron spectroscopy.
A thin lithium oxide layer formed at the interface and limited further decomposition, so that symmetric cells cycled for 1,500 hours at 0.5 mA/cm2.
Dendrites formed only above a critical current density of 1.8 mA/cm2.
""".split("\n")).strip(),
  intro="""
Replacing graphite with lithium metal could raise the energy density of batteries by half.
Solid electrolytes may suppress the dendrites that make lithium metal unsafe in liquid cells.
""",
  sections=[("Related Works", """
Sulfide electrolytes are the most conductive solid electrolytes known.
<<mat_sse>> synthesized a lithium thiophosphate electrolyte doped with oxygen and tin that reached an ionic conductivity of 12 mS/cm at room temperature, comparable to liquid electrolytes.
Its stability against lithium metal was not reported, which is the question we address.
Interfaces with oxide electrolytes have been studied more extensively [[x_whitman;x_oduya]].

Mechanical properties of the anode and electrolyte also govern dendrite growth.
Alloy design offers one route to tougher components: an equiatomic high-entropy alloy reached a fracture toughness above 200 MPa m^1/2 at 77 K [[mat_hea]].
How such alloys behave as current collectors is an open question.
""")],
  conclusion="""
A self-limiting lithium oxide interphase makes oxygen-doped sulfide electrolytes compatible with lithium metal.
""")
X("x_whitman", "Interfacial resistance between lithium and garnet oxide electrolytes", "Carl Whitman; Lena Sorensen; Abu Bakr", 2016,
  "Journal of Solid State Ionics Research", "unknown")
X("x_oduya", "Atomic layer deposition coatings for oxide electrolyte interfaces", "Nkem Oduya", 2018, "Energy Interfaces", None)

# --- Psychology -------------------------------------------------------------------------------
P("psy_sleep", ["Psychology"], 2013,
  "Effects of One Night of Sleep Deprivation on Working Memory Capacity and Attentional Control",
  "Rebecca Lindqvist-Moore; Daniel Achebe", journal="Journal of Cognitive Performance",
  abstract=" ".join("""
Sleep loss impairs many cognitive functions, but it is debated whether working memory capacity itself is reduced.
In a within-subject experiment, 64 healthy adults performed a change-detection task and an attentional control task after a normal night and after one night without sleep.
Sleep deprivation reduced working memory capacity by about one item and doubled the number of attentional lapses.
The capacity reduction was explained by lapses, which suggests that storage itself is preserved.
""".split("\n")).strip(),
  intro="""
Millions of shift workers routinely go without a night of sleep.
Understanding which cognitive functions suffer helps to design safer work schedules.
""",
  conclusion="""
One night without sleep reduces measured working memory capacity mainly by increasing attentional lapses.
""")

P("psy_egodep", ["Psychology"], 2016,
  "A Preregistered Multi-Laboratory Replication of the Ego-Depletion Effect",
  "Marisol Vega; Thomas Greenwood; Yuna Shimizu; Kwabena Asante", journal="Perspectives on Psychological Replication",
  abstract=" ".join("""
The ego-depletion hypothesis holds that exerting self-control draws on a limited resource, so that self-control performance declines after an initial demanding task.
We conducted a preregistered replication with a standardized protocol in 23 laboratories and 2,141 participants.
The overall effect of the depleting task on subsequent persistence was close to zero, with a standardized mean difference of 0.04.
Laboratory and participant characteristics did not moderate the effect.
""".split("\n")).strip(),
  intro="""
Hundreds of studies have reported ego-depletion effects, yet publication bias may have inflated them.
Large preregistered replications provide an unbiased estimate.
""",
  conclusion="""
Under a standardized protocol, the ego-depletion effect is indistinguishable from zero.
""", doi=True)

P("psy_icbt", ["Psychology", "Medicine"], 2015,
  "Internet-Delivered Cognitive Behavioral Therapy for Social Anxiety Disorder: A Randomized Controlled Trial",
  "Linnea Ekström; Farhan Qureshi; Ruth Abernathy", journal="Journal of Clinical Psychology and Digital Health",
  abstract=" ".join("""
Many people with social anxiety disorder never receive psychological treatment.
We randomly assigned 240 adults with social anxiety disorder to 10 weeks of therapist-guided internet-delivered cognitive behavioral therapy or to a waiting list.
Internet therapy reduced social anxiety symptoms with a large effect size of 0.91, and gains were maintained at one-year follow-up.
Therapists spent on average 12 minutes per patient per week.
""".split("\n")).strip(),
  intro="""
Social anxiety disorder is common and disabling, but access to trained therapists is limited.
Internet-delivered treatment could reach many more patients at lower cost.
""",
  sections=[("Background and Related Work", """
Face-to-face cognitive behavioral therapy is the best-established treatment for social anxiety disorder [[x_clark]].
Its effects on attention are of particular interest, because attentional biases maintain the disorder.
Sleep loss, for example, doubled the number of attentional lapses in healthy adults [[psy_sleep]], and poor sleep is common in anxiety disorders.

Guided self-help formats have been tested for depression and panic disorder with mixed results (e.g. [[x_andersen;?Holm, 2012]]).
The amount of therapist support varies widely between these trials.
""")],
  conclusion="""
Therapist-guided internet treatment is an effective and efficient option for social anxiety disorder.
""")
X("x_clark", "Cognitive therapy versus exposure for social phobia", "Andrew Clarkson; Beth Nolan", 2006,
  "Journal of Anxiety Treatment", "unknown")
X("x_andersen", "Guided self-help for panic disorder over the internet", "Gerd Andersen; Lukas Brun", 2011,
  "Nordic Journal of Psychotherapy", None)

P("psy_delay", ["Psychology"], 2014,
  "Delay of Gratification in Preschool Predicts Adolescent Outcomes Less Than Family Background",
  "Olivia Turner; Mateus Rocha", journal="Developmental Psychology Reports",
  abstract=" ".join("""
Children's ability to wait for a larger reward has been linked to later academic achievement.
We followed 900 children from a diverse national sample from age four to age fifteen.
Delay of gratification at age four predicted achievement at age fifteen, but the association shrank by two thirds after controlling for family background and early cognitive ability.
Much of the predictive power of the waiting task thus reflects the child's environment.
""".split("\n")).strip(),
  intro="""
The marshmallow test is among the best-known paradigms in developmental psychology.
Early studies used small and socially homogeneous samples.
""",
  conclusion="""
The long-term predictive value of delay of gratification is modest once family background is taken into account.
""")

P("psy_rep", ["Psychology"], 2019,
  "Conceptual Replications of Self-Control Effects: A Registered Report",
  "Hannah Kowalczyk; Ibrahim Diallo; Sophie Laurent", journal="Perspectives on Psychological Replication", style="ay",
  abstract=" ".join("""
After failed replications of the ego-depletion effect, it is unclear which self-control findings are robust.
We conducted a registered report with five conceptual replications of classic self-control findings in 1,640 participants.
Two findings replicated with smaller effects than originally reported, and three did not replicate.
Effects that relied on self-reported outcomes replicated more often than effects on behavioral persistence.
""".split("\n")).strip(),
  intro="""
Self-control is central to theories of health behavior, education and economics.
Its empirical foundation has been shaken by the replication crisis in psychology.
""",
  sections=[("Related Work", """
The replication debate in self-control research started with ego depletion.
<<psy_egodep>> conducted a preregistered replication with a standardized protocol in 23 laboratories and found that the overall effect of the depleting task on subsequent persistence was close to zero.
Laboratory and participant characteristics did not moderate the effect in that replication [[psy_egodep]].
Critics argued that the protocol used a weak manipulation [[x_baumfeld]], a point we return to in the discussion.

Longitudinal findings on self-control have also been revisited.
In a diverse national sample, delay of gratification at age four predicted achievement at age fifteen, but the association shrank by two thirds after controlling for family background [[psy_delay]].
This suggests that self-control measures partly capture the child's environment.
Cognitive load from sleep loss is another confound, since sleep deprivation doubles attentional lapses [[psy_sleep]].
""")],
  conclusion="""
Only some classic self-control findings replicate, and their effects are smaller than first reported.
""")
X("x_baumfeld", "Why the multi-lab replication of ego depletion was not a fair test", "Roy Baumfeld", 2017,
  "Commentaries in Social Psychology", "unknown")

P("psy_teensleep", ["Psychology"], 2020,
  "Later School Start Times, Adolescent Sleep, and Attention in Class: A Natural Experiment",
  "Beatrix Nagy; Oluwaseun Adebayo; Colin MacLeod-Price", journal="Journal of Cognitive Performance", style="num",
  abstract=" ".join("""
Adolescents are chronically sleep deprived because early school start times conflict with their delayed circadian rhythm.
We used a district-wide change of school start time from 7:50 to 8:45 as a natural experiment and measured sleep with actigraphy in 520 students.
Students slept 34 minutes longer on school nights after the change, and teacher-rated attention in morning classes improved.
Performance on a working memory task did not change.
""".split("\n")).strip(),
  intro="""
Sleep need peaks during adolescence, but school schedules do not reflect this.
""",
  sections=[("RELATED WORK", """
Laboratory studies show large effects of acute sleep loss on cognition.
In a within-subject experiment with 64 healthy adults, one night without sleep reduced working memory capacity by about one item and doubled the number of attentional lapses [[psy_sleep]].
Chronic partial sleep restriction, the typical situation of adolescents, is less studied.
Rebecca Lindqvist-Moore and Daniel Achebe argued that the capacity reduction was explained by lapses, which suggests that storage itself is preserved [[psy_sleep]].

Natural experiments have evaluated school start times in a few districts [[x_wahl;x_minn]].
Internet-delivered therapy for sleep problems is an alternative intervention, similar in format to internet-delivered cognitive behavioral therapy for social anxiety disorder [[psy_icbt]].
""")],
  conclusion="""
Later school start times lengthen adolescent sleep and improve attention in morning classes.
""")
X("x_wahl", "School start times and sleep of secondary school students", "Kristin Wahlberg", 2014, "Sleep and Youth", "unknown")
X("x_minn", "Delaying school start in a Midwestern district: a two-year follow-up", "Jared Olmstead; Pia Kern", 2016,
  "Journal of School Health Policy", "unknown")

# --- Economics --------------------------------------------------------------------------------
P("eco_default", ["Economics", "Psychology"], 2015,
  "Automatic Enrollment and Retirement Saving: Evidence from a Change in Pension Defaults",
  "Gustavo Ferreira; Lisa Hartmann; Kofi Mensah-Bonsu", journal="Journal of Behavioral Economic Policy",
  abstract=" ".join("""
Many employees fail to join employer pension plans even when contributions are matched.
We study a firm that switched new employees from opt-in to automatic enrollment at a default contribution rate of 3% of salary.
Participation after one year rose from 41% to 92%, and most automatically enrolled employees stayed at the default contribution rate.
Because of this anchoring, some employees who would have chosen higher rates saved less than under opt-in.
""".split("\n")).strip(),
  intro="""
Standard economic models predict that defaults should not matter when opting out is cheap.
Behavioral economics suggests that inertia and procrastination make defaults powerful.
""",
  conclusion="""
Automatic enrollment raises pension participation dramatically but anchors contributions at the default rate.
""", doi=True)

P("eco_minwage", ["Economics"], 2013,
  "Minimum Wage Increases and Employment in Small Retail Firms: Evidence from Regional Discontinuities",
  "Patrick Kavanagh; Mariam Toure", journal="Journal of Labor and Regional Economics",
  abstract=" ".join("""
The employment effects of minimum wages remain contested.
We compare small retail firms on either side of regional borders where minimum wages differ, using administrative payroll data for 2004 to 2011.
A 10% increase in the minimum wage raised average earnings of low-wage workers by 2.1% and had no detectable effect on employment.
Firms adjusted through lower worker turnover and slightly higher prices.
""".split("\n")).strip(),
  intro="""
Minimum wages are among the most debated labor market policies.
Border discontinuity designs compare otherwise similar labor markets exposed to different wage floors.
""",
  conclusion="""
Moderate minimum wage increases raise earnings without reducing employment in small retail firms.
""")

P("eco_mobile", ["Economics"], 2016,
  "Mobile Money and Household Resilience to Income Shocks in East Africa",
  "Wanjiru Kamau; Daniel Osterberg; Ama Owusu", journal="Journal of Development Economics Letters",
  abstract=" ".join("""
Households in developing countries are exposed to income shocks such as illness and harvest failure.
Using a panel of 3,000 rural households, we study whether access to mobile money helps households smooth consumption after shocks.
Households with mobile money accounts maintained their consumption after a shock, whereas consumption of households without access fell by 7%.
The effect operated through remittances received from distant relatives.
""".split("\n")).strip(),
  intro="""
Risk-sharing networks help poor households cope with shocks, but distance makes transfers costly.
Mobile money reduces the cost of sending small amounts over long distances.
""",
  sections=[("Related Work", """
Informal insurance within villages is well documented (e.g. Townsend-style tests of full risk sharing [[x_townsend]]).
Financial technology may widen risk-sharing networks beyond the village.
Evidence from labor markets shows that household income of low-wage workers responds to policy: a 10% increase in the minimum wage raised average earnings of low-wage workers by 2.1% without a detectable effect on employment [[eco_minwage]].
Such earnings gains are small compared with the shocks we study.
""")],
  conclusion="""
Mobile money helps rural households smooth consumption by making remittances cheap and fast.
""")
X("x_townsend", "Risk and insurance in village economies", "Martin Towner", 1994, "Econometric Review", None)

P("eco_short", ["Economics"], 2012,
  "Notes on Behavioral Welfare Analysis",
  "Ingrid Solvang", journal="Economics Discussion Notes", pdf=False,
  abstract="A short note on welfare analysis when choices depend on defaults.")

P("eco_nudge", ["Economics", "Psychology"], 2019,
  "Active Choice Versus Defaults in Retirement Saving: A Field Experiment",
  "Rosalind Chen; Markus Brenner; Adaora Nnamdi", journal="Journal of Behavioral Economic Policy", style="ay",
  abstract=" ".join("""
Defaults raise participation in pension plans, but they can anchor employees at low contribution rates.
In a field experiment with 6,200 new employees, we compared automatic enrollment with an active choice design in which employees had to select a contribution rate.
Active choice produced participation of 86%, slightly below automatic enrollment, but raised the average contribution rate from 3.2% to 5.1% of salary.
Employees with low financial literacy benefited most from active choice.
""".split("\n")).strip(),
  intro="""
Defaults are the most widely used behavioral intervention in public policy.
Their effect on the amount saved, rather than on participation, has received less attention.
""",
  sections=[("Related Work", """
Defaults have large effects on participation in pension plans.
<<eco_default>> study a firm that switched new employees from opt-in to automatic enrollment and find that participation after one year rose from 41% to 92%.
Most automatically enrolled employees stayed at the default contribution rate [[eco_default]], a form of anchoring that can reduce saving.
The welfare implications of such anchoring are discussed by [[eco_short]].

Research on self-control offers a psychological account of inertia.
Yet preregistered replications have questioned classic self-control effects: only two of five conceptual replications of classic self-control findings replicated, with smaller effects than originally reported [[psy_rep]].
Childhood measures of self-control also predict later outcomes less than family background does [[psy_delay]].
""")],
  conclusion="""
Active choice keeps participation high while avoiding the anchoring of contributions at a low default.
""")

P("eco_fintech", ["Economics"], 2020,
  "Digital Credit, Mobile Money, and Consumption Smoothing: Evidence from a Randomized Rollout",
  "Samuel Otieno; Clara Weiss; Haruto Ishikawa", journal="Journal of Development Economics Letters", style="num",
  intro_title="1. Introduction",
  abstract=" ".join("""
Digital credit products offered through mobile phones have spread rapidly in sub-Saharan Africa.
We evaluate a randomized rollout of small digital loans to 4,800 mobile money users in rural areas.
Access to digital credit reduced the fall in consumption after health shocks by 40% but also increased the share of households in default.
Borrowers used loans mainly to pay for medical care and school fees.
""".split("\n")).strip(),
  intro="""
Mobile money has transformed payments in many low-income countries.
Digital credit builds on the same infrastructure to offer instant, unsecured loans.
""",
  sections=[("2. Data", """
Loan offers were randomized at the level of the mobile money agent.
Consumption was measured in quarterly phone surveys.
"""), ("5. Related work", """
Our study contributes to research on mobile money and risk sharing.
Using a panel of rural households, <<eco_mobile>> show that households with mobile money accounts maintained their consumption after a shock, whereas households without access reduced consumption by 7%.
The effect operated through remittances [[eco_mobile]], whereas digital credit does not depend on relatives.
Evidence on digital credit itself is limited to a few non-experimental studies [[x_dcredit;x_bjork]].

Behavioral biases may shape borrowing just as they shape saving.
Automatic enrollment raised pension participation from 41% to 92% in one firm [[eco_default]], which shows how strongly defaults steer financial decisions.
Our loan offers had no default amount, so this channel is unlikely to matter here.
""")],
  concl_title="6. Conclusion",
  conclusion="""
Digital credit helps households cope with health shocks, but rising default rates call for careful product design.
""")
X("x_dcredit", "Instant loans and household finances: evidence from phone surveys", "Lucia Bertoni; Ken Ampofo", 2018,
  "Working Papers in Development Finance", "unknown")
X("x_bjork", "Credit scores from mobile phone metadata", "Anders Bjorklund; Zainab Idris; Tom Reeve", 2017,
  "", None)

# --- Chemistry --------------------------------------------------------------------------------
P("chem_pd", ["Chemistry"], 2012,
  "Ligand Effects in Palladium-Catalyzed Cross-Coupling of Aryl Chlorides at Room Temperature",
  "Margarethe Vogel; Sunil Varma", journal="Journal of Organometallic Synthesis",
  abstract=" ".join("""
Aryl chlorides are cheap and abundant but react sluggishly in palladium-catalyzed cross-coupling.
We compared 18 phosphine ligands in the coupling of aryl chlorides with boronic acids at room temperature.
Bulky, electron-rich biaryl phosphines gave yields above 90% within two hours, whereas triarylphosphines gave less than 10%.
""".split("\n")).strip(),
  intro="""
Cross-coupling reactions are among the most used reactions in pharmaceutical synthesis.
""",
  conclusion="""
Ligand choice makes room-temperature coupling of aryl chlorides practical.
""")

P("chem_sac", ["Chemistry"], 2014,
  "Single Platinum Atoms on Cerium Oxide as Stable Catalysts for Carbon Monoxide Oxidation",
  "Anders Holmgren; Yetunde Bakare; Xiaoming Liu", journal="Catalysis Science Letters",
  abstract=" ".join("""
Single-atom catalysts use every metal atom but tend to sinter into particles at high temperature.
We anchored isolated platinum atoms on cerium oxide by heating platinum and ceria powders together in air at 800 degrees Celsius.
The single atoms remained isolated after 100 hours of carbon monoxide oxidation and were as active per atom as platinum nanoparticles.
Density functional calculations attribute the stability to strong bonding of platinum to surface steps of ceria.
""".split("\n")).strip(),
  intro="""
Platinum is scarce and expensive, so catalysts should use as few atoms as possible.
""",
  conclusion="""
Atom trapping on ceria yields single-atom platinum catalysts that survive harsh conditions.
""", doi=True)

P("chem_mof", ["Chemistry", "Materials Science"], 2015,
  "Amine-Functionalized Metal-Organic Frameworks for Carbon Dioxide Capture from Humid Flue Gas",
  "Isabella Romano; Kwesi Appiah; Nils Eriksson", journal="Journal of Porous Materials Chemistry",
  abstract=" ".join("""
Capturing carbon dioxide from flue gas requires sorbents that remain selective in the presence of water.
We grafted diamines onto the open metal sites of a magnesium-based metal-organic framework and measured carbon dioxide uptake from humid gas mixtures.
The functionalized framework adsorbed 3.8 mmol/g of carbon dioxide at 15% partial pressure and retained its capacity over 200 humid adsorption cycles.
Regeneration required heating to only 120 degrees Celsius.
""".split("\n")).strip(),
  intro="""
Power plants emit carbon dioxide in dilute, humid flue gas.
Aqueous amine scrubbing works but costs much energy to regenerate.
""",
  conclusion="""
Diamine-grafted frameworks combine high capacity, water tolerance and mild regeneration.
""")

P("chem_nmr", ["Chemistry"], 2016,
  "Hyperpolarized NMR Monitoring of Reaction Intermediates in Flow",
  "Tatiana Orlova; Benedikt Kraus; Siddharth Menon", journal="Journal of Magnetic Resonance in Chemistry",
  abstract=None,
  intro="""
Short-lived reaction intermediates are difficult to observe by nuclear magnetic resonance because of its low sensitivity.
Hyperpolarization increases the signal by several orders of magnitude for a short time.
""",
  conclusion="""
Hyperpolarized NMR in flow reveals intermediates that live for less than a second.
""")

P("chem_flow", ["Chemistry"], 2016,
  "Continuous-Flow Synthesis of Active Pharmaceutical Ingredients with Immobilized Palladium Catalysts",
  "Ramona Fischer; Obinna Eze; Hiroko Nakamura", journal="Organic Process Chemistry Letters", style="num",
  abstract=" ".join("""
Continuous-flow reactors offer better heat transfer and safety than batch reactors for pharmaceutical synthesis.
We developed packed-bed reactors with palladium immobilized on functionalized silica for cross-coupling steps in the synthesis of three drug molecules.
The reactors ran for 120 hours with palladium leaching below 1 ppm in the product stream.
Space-time yields were up to 15 times higher than in batch.
""".split("\n")).strip(),
  intro="""
Pharmaceutical manufacturing is moving from batch to continuous processes.
Catalytic steps are the hardest to transfer because homogeneous catalysts must be separated from the product.
""",
  sections=[("Related Work", """
Ligand design has made palladium cross-coupling efficient under mild conditions.
Bulky, electron-rich biaryl phosphines gave yields above 90% within two hours in the coupling of aryl chlorides with boronic acids at room temperature [[chem_pd]].
Such homogeneous catalysts are difficult to recycle, however [[chem_pd;x_recycle]].

Heterogeneous catalysts avoid separation but suffer from leaching and sintering.
Isolated platinum atoms anchored on cerium oxide remained isolated after 100 hours of carbon monoxide oxidation [[chem_sac]], which shows that strong metal-support bonding can prevent sintering.
Reaction monitoring in flow is also improving, e.g. with hyperpolarized NMR [[chem_nmr]].
""")],
  conclusion="""
Immobilized palladium catalysts make continuous cross-coupling practical for pharmaceutical synthesis.
""")
X("x_recycle", "Recovery of homogeneous palladium catalysts by nanofiltration", "Greta Lindahl; Juan Pablo Soto", 2010,
  "Green Process Chemistry", "unknown")

P("chem_co2", ["Chemistry", "Materials Science"], 2019,
  "Single-Atom Copper Catalysts on Metal-Organic Frameworks for Electrochemical Reduction of Carbon Dioxide",
  "Lukas Brandstetter; Esi Quaye; Ji-hoon Choi", journal="Catalysis Science Letters", style="ay",
  abstract=" ".join("""
Converting captured carbon dioxide into fuels requires selective and stable electrocatalysts.
We dispersed single copper atoms in a zirconium-based metal-organic framework and used the material as a cathode for carbon dioxide reduction.
The catalyst produced methanol with a Faradaic efficiency of 58% at -0.9 V and remained stable for 40 hours.
Operando spectroscopy showed that the copper atoms stayed isolated during electrolysis.
""".split("\n")).strip(),
  intro="""
Electrochemical reduction of carbon dioxide with renewable electricity could close the carbon cycle.
Copper is the only metal that produces alcohols in significant amounts, but copper particles give broad product mixtures.
""",
  sections=[("Related Work", """
Single-atom catalysts maximize the use of metal atoms.
<<chem_sac>> anchored isolated platinum atoms on cerium oxide by heating platinum and ceria powders together in air at 800 degrees Celsius, and the single atoms remained isolated during carbon monoxide oxidation.
Their stability was attributed to strong bonding of platinum to surface steps of ceria [[chem_sac]].

Metal-organic frameworks have been developed mainly for carbon dioxide capture.
<<chem_mof>> grafted diamines onto the open metal sites of a magnesium-based metal-organic framework that adsorbed 3.8 mmol/g of carbon dioxide and retained its capacity over 200 humid adsorption cycles.
Coupling capture and conversion in one material is an attractive goal [[x_nakamura]].
Machine learning models of molecules, such as graph convolutions conditioned on bond types [[cs_gnn]], may speed up the search for suitable frameworks.
""")],
  conclusion="""
Single copper atoms in a metal-organic framework reduce carbon dioxide selectively to methanol.
""")
X("x_nakamura", "Integrated capture and conversion of carbon dioxide", "Aya Nakamura; Remi Sorel", 2018, "", None)

# --- Mathematics ------------------------------------------------------------------------------
P("math_prob", ["Mathematics"], 2010,
  "Concentration Inequalities for Sums of Weakly Dependent Random Matrices",
  "Vladimir Kuznetsov; Amelia Hart", journal="Annals of Applied Probability Letters",
  abstract=" ".join("""
Matrix concentration inequalities bound the deviation of a sum of random matrices from its expectation.
We extend the matrix Bernstein inequality to sums of matrices that form a Markov chain with a spectral gap.
The bound loses only a factor proportional to the inverse spectral gap compared with the independent case.
""".split("\n")).strip(),
  intro="""
Random matrix sums appear in the analysis of randomized algorithms and statistical estimators.
""",
  conclusion="""
Matrix concentration extends to Markov-dependent sums at a modest cost.
""")

P("math_spec", ["Mathematics", "Computer Science"], 2012,
  "A Cheeger Inequality for Graph Partitioning with Balance Constraints",
  "Helga Sorensen; Ricardo Alves", journal="Journal of Combinatorial Optimization Theory",
  abstract=" ".join("""
Spectral methods partition a graph using eigenvectors of its Laplacian matrix.
We prove a Cheeger-type inequality that relates the conductance of the best balanced cut of a graph to the second eigenvalue of its Laplacian under explicit balance constraints.
The proof yields a rounding algorithm that finds a balanced cut within a quadratic factor of optimal in nearly linear time.
""".split("\n")).strip(),
  intro="""
Graph partitioning with balance constraints is NP-hard, but spectral heuristics work well in practice.
""",
  conclusion="""
Balanced spectral partitioning enjoys a guarantee of the same form as the classical Cheeger inequality.
""")

P("math_sgd", ["Mathematics", "Computer Science"], 2015,
  "Convergence of Stochastic Gradient Descent with Decreasing Step Sizes for Nonconvex Objectives",
  "Pierre Lemaire; Anjali Rao; Mikhail Sokolov", journal="SIAM-Style Journal of Optimization Letters",
  abstract=" ".join("""
Stochastic gradient descent is the workhorse of machine learning, yet its behavior on nonconvex objectives is only partly understood.
We prove that stochastic gradient descent with step sizes decreasing as the inverse square root of the iteration count finds an approximate stationary point of a smooth nonconvex objective at a rate of one over the fourth root of the number of iterations.
The result holds under a weak growth condition on the variance of the stochastic gradients.
""".split("\n")).strip(),
  intro="""
Training neural networks amounts to minimizing nonconvex functions with noisy gradients.
""",
  conclusion="""
Decreasing step sizes suffice for stochastic gradient descent to reach approximate stationary points at the optimal rate.
""")

P("math_gnnopt", ["Mathematics", "Computer Science"], 2018,
  "Spectral Analysis of Training Dynamics for Graph Convolutional Networks",
  "Yusuf Demir; Elisa Conti; Ryo Fujimoto", journal="Journal of Combinatorial Optimization Theory", style="num",
  intro_title="1. Introduction",
  abstract=" ".join("""
Graph convolutional networks are trained with stochastic gradient methods, but little is known about how the graph affects training.
We show that the convergence rate of gradient descent for linearized graph convolutional networks is governed by the spectral gap of the normalized graph Laplacian.
Graphs with small spectral gaps, such as chains of communities, train slowly, and adding a few edges that increase the gap speeds up training by up to a factor of five.
Experiments on molecular and citation graphs agree with the theory.
""".split("\n")).strip(),
  intro="""
Graph neural networks are used for molecules, social networks and citation graphs.
Their optimization is usually treated as a black box.
""",
  sections=[("2. Preliminaries", """
Let G be a graph with n vertices and normalized Laplacian L, and let 0 = λ1 ≤ λ2 ≤ ... ≤ λn be its eigenvalues.
We write γ = λ2 for the spectral gap.
"""), ("3. Main Result", """
Our main theorem bounds the distance to the optimum after t steps by (1 - cγ)^t times its initial value, for a constant c that depends on the step size.
The bound is tight for paths and for graphs made of two dense communities.
"""), ("4. Results", """
On molecular graphs, training speed correlates with the spectral gap with a Spearman coefficient of 0.85 ({fig:1}).
"""), ("5. Related work", """
Spectral graph theory connects eigenvalues to combinatorial structure.
A Cheeger-type inequality relates the conductance of the best balanced cut of a graph to the second eigenvalue of its Laplacian [[math_spec]].
Matrix concentration inequalities, e.g. for sums of matrices that form a Markov chain [[math_prob]], are another tool we use.

For nonconvex optimization, <<math_sgd>> prove that stochastic gradient descent with decreasing step sizes finds an approximate stationary point of a smooth nonconvex objective at a rate of one over the fourth root of the number of iterations.
Graph convolutions whose filters are conditioned on bond types predict molecular properties more accurately than fixed fingerprints [[cs_gnn]].
Our analysis covers the linearized version of such models, cf. the discussion in Section 3.
Recent surveys of graph neural networks [[x_gnnsurvey;?9]] list optimization as an open problem.
""")],
  figures=["Training speed against spectral gap on 500 molecular graphs."],
  concl_title="6. Conclusion",
  conclusion="""
The spectral gap of the graph controls how fast graph convolutional networks train.
""")
X("x_gnnsurvey", "Graph neural networks: a review of methods and applications", "Jiayi Zhou; Ganesh Kumar; Beatrix Holt", 2018,
  "arXiv preprint", "unknown")

# --- more Related Work papers (2020) ----------------------------------------------------------
P("med_sepsisml", ["Medicine", "Computer Science"], 2020,
  "Machine Learning Versus Early Warning Scores for Sepsis Screening at Emergency Department Triage",
  "Victoria Ashdown; Emmanuel Ofori; Keiko Nishida; Rafael Duarte", journal="Emergency Medicine Reports", style="num",
  abstract=" ".join("""
Early warning scores are widely used to screen for sepsis at triage, but machine learning models may be more accurate.
We compared a gradient-boosted model using vital signs, laboratory values and triage notes with an established six-item early warning score in 86,000 emergency department visits.
The model identified sepsis with a sensitivity of 0.88 at the specificity of the score, but its advantage disappeared when laboratory values were removed.
Simple scores remain competitive when only vital signs are available.
""".split("\n")).strip(),
  intro="""
Sepsis screening at triage must be fast, transparent and reliable.
""",
  sections=[("Related Work", """
Prospective validation studies have established simple scores for sepsis screening.
A six-item early warning score based on vital signs and mental status identified sepsis with a sensitivity of 0.82 and a specificity of 0.79 in 12,400 adult emergency department visits [[med_sepsis]].
The score outperformed the systemic inflammatory response criteria at every hospital <<med_sepsis>>.

Machine learning has been applied to other acute problems in emergency care.
For chest radiographs, <<-med_xray>> trained a deep learning model to detect pneumothorax with an area under the curve of 0.94.
Self-supervised pretraining on 400,000 unlabeled chest radiographs made content-based retrieval possible with only 1% of the labels <<cs_medimg>>.
Whether such image models help with sepsis, which is rarely visible on imaging, is doubtful.
Post-discharge monitoring studies [[med_tele]] show that adherence to digital tools declines over time, which may also apply to triage software.
""")],
  conclusion="""
Machine learning improves sepsis screening only when laboratory values are available at triage.
""")

P("bio_reef", ["Biology"], 2020,
  "Assisted Symbiont Transfer Increases Heat Tolerance of Juvenile Corals",
  "Kalani Akana; Sebastian Moll; Priya Raman", journal="Marine Biology and Ecology Reports", style="ay",
  abstract=" ".join("""
Coral reefs are declining as marine heatwaves become more frequent.
We inoculated juvenile corals with heat-tolerant algal symbionts isolated from colonies that survived previous heatwaves.
Inoculated juveniles bleached less and survived 30% more often under experimental heat stress than juveniles with their native symbionts.
The benefit persisted for at least one year after inoculation.
""".split("\n")).strip(),
  intro="""
Active interventions may be needed to help reefs survive the coming decades.
""",
  sections=[("Related Work", """
Natural changes in symbiont communities can increase coral heat tolerance.
<<bio_coral>> tracked 220 colonies of two coral species through two heatwaves and found that colonies that shifted toward heat-tolerant symbiont types after the first heatwave bleached less during the second.
Such symbiont shuffling provides a rapid but limited form of acclimatization [[bio_coral]].
Selective breeding of corals is being tested in parallel [[x_hoffreef]].

Host-microbe partnerships shape the physiology of many organisms.
In legumes, low nitrogen increased the secretion of root flavonoids that strongly induced nodulation genes in rhizobia [[bio_legume]].
In neurons, fission separates damaged mitochondrial segments before they are engulfed by autophagosomes [[bio_mitoqc]], an example of quality control that has no obvious counterpart in symbiosis.
""")],
  conclusion="""
Assisted transfer of heat-tolerant symbionts is a promising tool for reef restoration.
""")
X("x_hoffreef", "Selective breeding for heat tolerance in reef corals", "Greta Hoffmann; Luis Ortega; Mia Tane", 2019,
  "Coral Restoration Science", "unknown")

P("cs_tldr", ["Computer Science"], 2020,
  "Extreme Summarization of Preprints with Citation-Trained Models: A User Study",
  "Noor Al-Hashimi; Felix Baumgartner; Chiamaka Eze", venue="Proceedings of the Workshop on Scholarly Document Processing",
  style="ay",
  abstract=" ".join("""
One-sentence summaries could help researchers triage the growing number of preprints.
We deployed a summarization model trained on citation sentences in a preprint reader and asked 120 researchers to rate its summaries during their daily reading.
Researchers found 71% of the summaries accurate and used them to skip irrelevant preprints, but they rarely trusted summaries of papers outside their field.
Summaries were judged less accurate for theoretical papers than for empirical ones.
""".split("\n")).strip(),
  intro="""
The number of preprints posted each day exceeds what any researcher can read.
""",
  sections=[("Related Work", """
Training data for extreme summarization of scientific papers is scarce.
<<cs_citesumm>> showed that citation sentences can serve as targets, although their model was evaluated offline only.
Dense retrieval of scientific paragraphs [[cs_retr]] is complementary to summarization, since it helps users find papers rather than judge them.
Reading tools that surface citation contexts have been studied before [[x_aldana]].

Weak supervision from citations is now used for many tasks [[cs_weak]].
Its limits are less often discussed: citation sentences describe what citing authors needed, which is not always what a new reader wants [[cs_summ]].
Our user study measures this gap directly.
""")],
  conclusion="""
Citation-trained summaries are useful for triaging preprints, but trust depends on the reader's familiarity with the field.
""")
X("x_aldana", "Surfacing citation contexts in a scholarly reader", "Marta Aldana; Jonah Price", 2017, "", "unknown")


if __name__ == "__main__":
    sys.exit(main())
