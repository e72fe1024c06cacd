#!/usr/bin/env python
"""A plain reference implementation of the CiteSum build, written the way the paper's scripts worked.

One process, one Python loop: `json.loads` of every metadata and full-text line, a dict of all abstracts, spaCy's
rule-based sentencizer (`spacy.blank("en")` + `sentencizer`) run paragraph by paragraph on every Related Work
paragraph, and `rouge-score` for the quality filter. It has the semantics of `citesum build`:

* Related Work: a section whose title matches `related\\s+work` (case-insensitive), plus the following sections
  numbered as its subsections ("2.1 ..." after "2 Related Work"). (`citesum build` also knows roman/letter
  numbering; the synthetic benchmark corpus only uses arabic numbers.)
* Sentences: no sentence boundary may cut a citation span (boundaries inside or touching a span are removed),
  sentences are whitespace-stripped; a span belongs to the sentence where it starts.
* A sentence with a citation span whose own text is not `paragraph[start:end]` is dropped.
* The sentence cites exactly one work (spans of one linked paper, or of one bib entry, are one work; a span without
  ref_id is a work of its own); its bib entry must exist and be linked.
* The cited paper must have a metadata record, and an abstract of 100 to 4,000 characters (the metadata abstract,
  else the full text's abstract paragraphs joined by a space, stripped).
* Every span of the cited paper becomes `REF`; author names before a span that names no author ("Taigman et al.
  [8]") are part of it.
* ROUGE-1/2/L recall (x100, `rouge-score`, Porter stemming on) of the sentence with every `REF` removed (the target)
  against the cited abstract (the prediction) >= 50/20/40.
* Duplicate (citing paper, sentence, cited paper) candidates count once.

Shared with the library, on purpose: `citesum_nb.citations.replace_citations` (the REF rule above, a regular
expression over author names that a reference should not re-derive) and, with `--splitter fast`, the library's
rule-based splitter `citesum_nb.citations.split_sentences` (the benchmark plugs the same splitter into both
builds to check that they keep identical examples). Parsing, Related Work detection, the spaCy splitting, the
citation rule, the abstract dict, the join and the scoring loop are written here independently.

Usage: python bench/reference_build.py --s2orc DIR [--splitter spacy|fast] [--out examples.jsonl] [--json]
"""
from __future__ import annotations

import argparse, bisect, gzip, json, re, resource, sys, time
from pathlib import Path

from rouge_score import rouge_scorer

from citesum_nb.citations import replace_citations

REF = re.compile(r"(?<![A-Z])REF(?![A-Z])")   # the REF placeholder, also glued to a word; not the REF of "PREFIX"

RW = re.compile(r"related\s+work", re.I)
NUM = re.compile(r"^\s*(\d+(?:\.\d+)*)\.?\s+\S")


def open_lines(path: Path):
    "Lines of a gzipped or plain JSONL file"
    with open(path, "rb") as f: gz = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gz else open(path, "rb")


def shard_files(folder: Path):
    return sorted(p for p in folder.iterdir() if p.is_file() and ".jsonl" in p.name) if folder.is_dir() else []


def rw_paragraphs(body: list) -> list:
    "Paragraphs of the Related Work section(s) and their numbered subsections"
    out, inside, number, prev = [], False, None, None
    for p in body:
        sec = p.get("section") or ""
        if sec != prev:
            prev = sec
            if RW.search(sec):
                inside = True; m = NUM.match(sec); number = m.group(1) if m else None
            elif inside:
                m = NUM.match(sec)
                inside = bool(number and m and m.group(1).startswith(number + "."))
        if inside: out.append(p)
    return out


def spacy_splitter():
    import spacy
    nlp = spacy.blank("en"); nlp.add_pipe("sentencizer")

    def split(text: str, spans: list) -> list:
        sents = [(s.start_char, s.end_char) for s in nlp(text).sents]
        cuts, start = [], 0
        for (s0, e0), (s1, _) in zip(sents, sents[1:]):
            if any(cs < s1 and e0 < ce for cs, ce in spans): continue  # the boundary would cut a citation
            cuts.append((start, e0)); start = s1
        cuts.append((start, len(text)))
        out = []
        for s, e in cuts:
            piece = text[s:e]; ls = len(piece) - len(piece.lstrip()); rs = len(piece.rstrip())
            if rs > ls: out.append((s + ls, s + rs))
        return out
    return split


def fast_splitter():
    from citesum_nb.citations import split_sentences
    return lambda text, spans: split_sentences(text, spans)


def work_of(c: dict, bib: dict, k: int):
    "What a span cites: its linked paper, else its bib entry, else itself"
    rid = c.get("ref_id")
    if rid is None: return ("span", k)
    link = bib[rid].get("link") if rid in bib else None
    return ("paper", str(link)) if link not in (None, "") and not isinstance(link, (list, dict)) else ("entry", rid)


def reference_build(s2orc_dir, splitter: str = "spacy", thresholds=(50, 20, 40), use_stemmer: bool = True,
                    min_abstract_chars: int = 100, max_abstract_chars: int = 4000) -> dict:
    "Build CiteSum the plain way; returns {'stages', 'examples' (kept), 'candidates', 'timings_s', 'peak_rss_mb'}"
    t0 = time.time()
    d = Path(s2orc_dir)
    split = spacy_splitter() if splitter == "spacy" else fast_splitter()
    st = dict.fromkeys(["papers_fulltext", "papers_metadata", "papers_with_related_work", "rw_sentences",
                        "sentences_no_citation", "sentences_span_text_mismatch", "sentences_multi_citation",
                        "sentences_single_citation", "citation_bib_missing", "citation_unlinked", "candidates_linked",
                        "cited_not_in_corpus", "cited_metadata_missing", "cited_abstract_missing", "cited_abstract_too_short",
                        "cited_abstract_too_long", "rouge_below_threshold", "kept"], 0)
    abstracts, known, with_meta = {}, set(), set()  # the dict of all abstracts, every paper id seen, those with metadata
    for f in shard_files(d/"metadata"):
        with open_lines(f) as fh:
            for line in fh:
                if not line.strip(): continue
                m = json.loads(line); st["papers_metadata"] += 1
                pid = str(m["paper_id"]); known.add(pid); with_meta.add(pid)
                if m.get("abstract"): abstracts[pid] = m["abstract"]
    t_meta = time.time()
    cands, seen = [], set()
    for f in shard_files(d/"pdf_parses"):
        with open_lines(f) as fh:
            for line in fh:
                if not line.strip(): continue
                paper = json.loads(line); st["papers_fulltext"] += 1
                pid = str(paper["paper_id"]); known.add(pid)
                if not (abstracts.get(pid) or "").strip():
                    a = " ".join(p["text"] for p in paper.get("abstract") or [])
                    if a: abstracts[pid] = a
                paras = rw_paragraphs(paper.get("body_text") or [])
                if not paras: continue
                st["papers_with_related_work"] += 1
                bib = paper.get("bib_entries") or {}
                for para in paras:
                    text = para["text"]
                    spans = sorted((c for c in para.get("cite_spans") or []), key=lambda c: c["start"])
                    sents = split(text, [(c["start"], c["end"]) for c in spans])
                    st["rw_sentences"] += len(sents)
                    starts = [s for s, _ in sents]
                    members = [[] for _ in sents]
                    for c in spans:
                        members[max(0, bisect.bisect_right(starts, c["start"]) - 1)].append(c)
                    for (s, e), cs in zip(sents, members):
                        if not cs: st["sentences_no_citation"] += 1; continue
                        if any(c.get("text") is not None and text[c["start"]:c["end"]] != c["text"] for c in cs):
                            st["sentences_span_text_mismatch"] += 1; continue
                        works = {work_of(c, bib, k) for k, c in enumerate(cs)}
                        if len(works) > 1: st["sentences_multi_citation"] += 1; continue
                        st["sentences_single_citation"] += 1
                        kind, link = works.pop()
                        if kind == "entry" and link not in bib: st["citation_bib_missing"] += 1; continue
                        if kind != "paper": st["citation_unlinked"] += 1; continue
                        e = max(e, *(c["end"] for c in cs)); sentence = text[s:e]
                        key = (pid, sentence, str(link))
                        if key in seen: continue
                        seen.add(key); st["candidates_linked"] += 1
                        authors = [a["last"] for c in cs for a in bib[c["ref_id"]].get("authors") or []
                                   if isinstance(a, dict) and isinstance(a.get("last"), str) and a["last"].strip()]
                        tgt, cited = replace_citations(sentence, [(c["start"] - s, c["end"] - s) for c in cs], authors)
                        cite_text = " | ".join(cited)
                        cands.append({"citing_paper_id": pid, "cited_id": str(link), "section": para.get("section") or "",
                                      "sentence": sentence, "tgt": tgt, "citation_text": cite_text})
    t_scan = time.time()
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=use_stemmer)
    kept = []
    for c in cands:
        cid = c["cited_id"]; a = (abstracts.get(cid) or "").strip()
        if cid not in known: c["drop_reason"] = "cited_not_in_corpus"
        elif cid not in with_meta: c["drop_reason"] = "cited_metadata_missing"
        elif not a: c["drop_reason"] = "cited_abstract_missing"
        elif len(a) < min_abstract_chars: c["drop_reason"] = "cited_abstract_too_short"
        elif len(a) > max_abstract_chars: c["drop_reason"] = "cited_abstract_too_long"
        else:
            sc = scorer.score(target=REF.sub(" ", c["tgt"]), prediction=a)
            c["r1"], c["r2"], c["rl"] = (100 * sc[k].recall for k in ("rouge1", "rouge2", "rougeL"))
            ok = c["r1"] >= thresholds[0] and c["r2"] >= thresholds[1] and c["rl"] >= thresholds[2]
            c["drop_reason"] = "" if ok else "rouge_below_threshold"
        if c["drop_reason"]: st[c["drop_reason"]] += 1
        else: kept.append(c)
    st["kept"] = len(kept)
    t1 = time.time()
    return {"splitter": splitter, "stages": st, "examples": kept, "candidates": cands,
            "timings_s": {"metadata_s": round(t_meta - t0, 3), "fulltext_scan_s": round(t_scan - t_meta, 3),
                          "rouge_s": round(t1 - t_scan, 3), "total_s": round(t1 - t0, 3)},
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv=None):
    ap = argparse.ArgumentParser(description="Plain reference CiteSum build (one process, json.loads, spaCy, rouge-score)")
    ap.add_argument("--s2orc", required=True, help="S2ORC folder in the 2020-07-05 layout")
    ap.add_argument("--splitter", default="spacy", choices=["spacy", "fast"], help="spaCy sentencizer (default) or the library's fast splitter")
    ap.add_argument("--out", default=None, help="write the result (stages, kept examples, candidates, timings) as JSON here")
    a = ap.parse_args(argv)
    r = reference_build(a.s2orc, a.splitter)
    if a.out: Path(a.out).write_text(json.dumps(r))
    print(json.dumps({k: r[k] for k in ("splitter", "stages", "timings_s", "peak_rss_mb")}))


if __name__ == "__main__":
    main()
