#!/usr/bin/env python
"""Write a synthetic S2ORC corpus (2020-07-05 layout) for the build benchmark.

New papers are made by recombining the paragraphs of a source corpus in the same layout (by default the bundled
sample corpus, `citesum_nb/sample/s2orc`; `--source` takes any other folder, e.g. the CL-SciSumm papers in
`../shared/data/clscisumm`). Paragraph texts are copied verbatim with their `cite_spans`, so every span offset stays
exact (`text[start:end] == span["text"]`); only the citation *links* are re-targeted:

* Every synthetic paper gets a fresh numeric `paper_id` and the title, abstract, venue and fields of study of one
  source paper (its "identity"; identities repeat when there are more synthetic papers than source papers).
* A fraction `--rw-rate` of the papers gets a Related Work section (paragraphs from the source's Related Work
  sections, under one of several real-world section titles, sometimes continued by a numbered subsection); all
  papers get Introduction, method/experiment and Conclusion paragraphs, with their citations.
* A citation whose source bib entry links to a source paper X is re-linked to a random synthetic paper with X's
  identity (so the sentence still summarises the abstract it is joined with, and the ROUGE filter behaves as on
  real data); an unlinked citation is linked with probability `--link-rate` to a random synthetic paper (in any
  shard), and a share `--outside-rate` of the links point to ids that are not in the corpus.
* Papers are grown paragraph by paragraph (Introduction, method/experiment sections, Conclusion; the filler
  paragraphs come from `--filler-source`, default `--source`) up to a per-paper size drawn around `--mean-kb` (real S2ORC
  `pdf_parses` lines are roughly 50-100 KB; the default is 50 KB), so the scan cost is realistic.

Every paper has a metadata record (the release's 25 keys) and a `pdf_parses` record (`paper_id, _pdf_hash,
abstract, body_text, bib_entries, ref_entries`), in `metadata/metadata_{k}.jsonl.gz` and
`pdf_parses/pdf_parses_{k}.jsonl.gz`, gzip (level `--gzip-level`, default 1), mtime 0, written as `json.dumps` does
(the release's separators, UTF-8 unescaped).

Usage:
    python bench/make_synthetic_corpus.py --papers 20000 --rw-rate 0.025 --shards 4 --out bench/out/corpus_rw2.5
    python bench/make_synthetic_corpus.py --target-bytes 1G --rw-rate 0.025 --out bench/out/corpus_1g   # one ~1 GB shard
"""
from __future__ import annotations

import argparse, gzip, hashlib, json, math, os, random, re, sys, time
from multiprocessing import get_context
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FALLBACK_SOURCE = Path("/work/shared/data/clscisumm")

META_KEYS = ["paper_id", "title", "authors", "abstract", "year", "arxiv_id", "acl_id", "pmc_id", "pubmed_id", "doi",
             "venue", "journal", "has_pdf_body_text", "mag_id", "mag_field_of_study", "outbound_citations",
             "inbound_citations", "has_outbound_citations", "has_inbound_citations", "has_pdf_parse",
             "has_pdf_parsed_abstract", "has_pdf_parsed_body_text", "has_pdf_parsed_bib_entries",
             "has_pdf_parsed_ref_entries", "s2_url"]
RW_TITLES = ["2 Related Work", "Related Work", "2 Related Works", "RELATED WORK", "2 Background and Related Work",
             "6 Related Work", "Related work"]
METHOD_TITLES = ["Method", "Approach", "Experiments", "Experimental Setup", "Results", "Discussion", "Analysis"]
ID_BASE = 300_000_000  # fresh numeric ids; ids >= ID_OUTSIDE are never in the corpus
ID_OUTSIDE = 900_000_000


def default_source() -> Path:
    "The bundled sample corpus when it exists, else the CL-SciSumm papers of the shared data"
    try:
        from citesum_nb.core import sample_corpus_dir
        d = Path(sample_corpus_dir())
        if (d/"pdf_parses").is_dir() and any((d/"pdf_parses").iterdir()): return d
    except Exception:  # the package is optional for this script
        pass
    return FALLBACK_SOURCE


def parse_size(s: str) -> int:
    "'1G', '500M', '2000000' -> bytes"
    m = re.fullmatch(r"\s*([\d.]+)\s*([kKmMgG]?)[bB]?\s*", s)
    if not m: raise SystemExit(f"bad size {s!r}: use e.g. 1G, 500M")
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()])


def _open(p: Path):
    return gzip.open(p, "rt", encoding="utf-8") if p.read_bytes()[:2] == b"\x1f\x8b" else open(p, encoding="utf-8")


def _files(d: Path):
    return sorted(f for f in d.iterdir() if f.is_file() and not f.name.startswith(".") and "jsonl" in f.name) if d.is_dir() else []


# ---------------------------------------------------------------------------------------------------------- source
def load_source(src: Path) -> dict:
    "Pools of identities and paragraphs (with their bib entries) from a 2020-07-05-layout corpus"
    meta = {}
    for f in _files(src/"metadata"):
        with _open(f) as fh:
            for line in fh:
                if line.strip():
                    m = json.loads(line); meta[str(m["paper_id"])] = m
    identities, pools = [], {"rw": [], "intro": [], "concl": [], "other": []}
    for f in _files(src/"pdf_parses"):
        with _open(f) as fh:
            for line in fh:
                if not line.strip(): continue
                d = json.loads(line); pid = str(d["paper_id"]); m = meta.get(pid, {})
                pdf_abs = " ".join(p.get("text", "") for p in d.get("abstract") or [])
                abstract = m.get("abstract") or pdf_abs
                if abstract:
                    identities.append({"src_id": pid, "title": m.get("title") or "", "abstract": abstract,
                                       "venue": m.get("venue") or "", "journal": m.get("journal"), "year": m.get("year"),
                                       "authors": m.get("authors") or [], "fos": m.get("mag_field_of_study")})
                bibs = d.get("bib_entries") or {}
                in_rw = False
                for p in d.get("body_text") or []:
                    sec = (p.get("section") or "").strip(); low = sec.lower()
                    if "related work" in low: in_rw = True; kind = "rw"
                    else:
                        in_rw = False
                        kind = "intro" if "introduction" in low else "concl" if "conclusion" in low else "other"
                    text = p.get("text") or ""
                    if not text: continue
                    spans = []
                    for c in p.get("cite_spans") or []:
                        b = bibs.get(c.get("ref_id")) if c.get("ref_id") else None
                        spans.append({"start": c["start"], "end": c["end"], "text": c["text"],
                                      "key": (pid, c.get("ref_id")) if c.get("ref_id") else None,
                                      "bib": b, "src_link": (b or {}).get("link")})
                    pools[kind].append({"text": text, "cite_spans": spans, "ref_spans": p.get("ref_spans") or []})
    if not identities or not pools["rw"]:
        raise SystemExit(f"{src}: the source corpus needs papers with abstracts and Related Work paragraphs")
    for k in ("intro", "concl", "other"):
        if not pools[k]: pools[k] = pools["other"] or pools["intro"] or pools["rw"]
    return {"identities": identities, "pools": pools}


# ---------------------------------------------------------------------------------------------------------- papers
_SRC = None  # the source pools, set in the parent before forking the shard writers
_PLAN = None


def _para_bytes(p) -> int:
    return len(p["text"].encode()) + 110 * len(p["cite_spans"]) + 60 * len(p["ref_spans"]) + 80


def make_paper(i: int, rng: random.Random) -> tuple:
    "The (metadata, pdf_parses) records of synthetic paper number `i`"
    plan, src = _PLAN, _SRC
    ids, ident_of, copies = plan["ids"], plan["identity"], plan["copies"]
    pid = ids[i]; ident = src["identities"][ident_of[i]]; pools = src["pools"]; filler = src["filler"]
    target = plan["sizes"][i]
    body, bibs, bib_of, extra = [], {}, {}, [0]

    def link_for(span) -> str | None:
        sl = span["src_link"]
        if sl is not None and copies.get(str(sl)):
            return rng.choice(copies[str(sl)])
        if span["key"] is None or rng.random() >= plan["link_rate"]: return None
        if rng.random() < plan["outside_rate"]: return str(ID_OUTSIDE + rng.randrange(50_000_000))
        return ids[rng.randrange(len(ids))]

    def add(section: str, para: dict) -> int:
        spans = []
        for s in para["cite_spans"]:
            ref = None
            if s["key"] is not None:
                ref = bib_of.get(s["key"])
                if ref is None:
                    ref = bib_of[s["key"]] = f"BIBREF{len(bibs)}"
                    b = s["bib"] or {}
                    bibs[ref] = {"title": b.get("title", ""), "authors": b.get("authors", []), "year": b.get("year"),
                                 "venue": b.get("venue", ""), "link": link_for(s)}
                    extra[0] += 90 + len(b.get("title", "")) + 75 * len(b.get("authors", []))
            spans.append({"start": s["start"], "end": s["end"], "text": s["text"], "ref_id": ref})
        body.append({"section": section, "text": para["text"], "cite_spans": spans, "ref_spans": para["ref_spans"]})
        n = _para_bytes(para) + extra[0]; extra[0] = 0
        return n

    size = 600 + len(ident["abstract"].encode())
    for _ in range(rng.randint(1, 3)): size += add("1 Introduction", rng.choice(filler["intro"]))
    if plan["rw"][i]:
        title = rng.choice(RW_TITLES)
        n_rw = rng.randint(2, 6)
        for j in range(n_rw):
            sec = title
            if j >= 2 and title[0].isdigit() and rng.random() < 0.3:  # a numbered subsection under "2 Related Work"
                sec = f"{title.split()[0]}.{j - 1} Prior approaches"
            size += add(sec, rng.choice(pools["rw"]))
    concl = [rng.choice(filler["concl"]) for _ in range(rng.randint(1, 2))]
    size += sum(_para_bytes(p) for p in concl)
    sec_no = 3
    while size < target:  # method/experiment sections of 2-8 paragraphs until the paper reaches its size
        sec = f"{sec_no} {rng.choice(METHOD_TITLES)}"; sec_no += 1
        for _ in range(rng.randint(2, 8)):
            size += add(sec, rng.choice(filler["other"]))
            if size >= target: break
    for p in concl: add(f"{sec_no} Conclusion", p)

    outbound = sorted({b["link"] for b in bibs.values() if b["link"]})
    abstract = ident["abstract"]
    pdf = {"paper_id": pid, "_pdf_hash": hashlib.sha1(pid.encode()).hexdigest(),
           "abstract": [{"section": "Abstract", "text": abstract, "cite_spans": [], "ref_spans": []}],
           "body_text": body, "bib_entries": bibs, "ref_entries": {}}
    m = {"paper_id": pid, "title": ident["title"], "authors": ident["authors"], "abstract": abstract, "year": ident["year"],
         "arxiv_id": None, "acl_id": None, "pmc_id": None, "pubmed_id": None, "doi": None, "venue": ident["venue"],
         "journal": ident["journal"], "has_pdf_body_text": True, "mag_id": None, "mag_field_of_study": ident["fos"],
         "outbound_citations": outbound, "inbound_citations": [], "has_outbound_citations": bool(outbound),
         "has_inbound_citations": False, "has_pdf_parse": True, "has_pdf_parsed_abstract": True,
         "has_pdf_parsed_body_text": True, "has_pdf_parsed_bib_entries": True, "has_pdf_parsed_ref_entries": False,
         "s2_url": f"https://api.semanticscholar.org/CorpusID:{pid}"}
    return {k: m[k] for k in META_KEYS}, pdf


def write_shard(args) -> dict:
    "Write metadata_k / pdf_parses_k for papers [lo, hi); returns byte and paper counts"
    k, lo, hi, out, seed, a_level = args
    rng = random.Random(f"{seed}:{k}")
    out = Path(out); n_bytes = n_rw = 0
    with gzip.GzipFile(out/"metadata"/f"metadata_{k}.jsonl.gz", "wb", compresslevel=a_level, mtime=0) as fm, \
         gzip.GzipFile(out/"pdf_parses"/f"pdf_parses_{k}.jsonl.gz", "wb", compresslevel=a_level, mtime=0) as fp:
        for i in range(lo, hi):
            m, p = make_paper(i, rng)
            line = (json.dumps(p, ensure_ascii=False) + "\n").encode()
            fp.write(line); n_bytes += len(line); n_rw += _PLAN["rw"][i]
            fm.write((json.dumps(m, ensure_ascii=False) + "\n").encode())
    return {"shard": k, "papers": hi - lo, "papers_with_related_work": n_rw, "pdf_parses_bytes": n_bytes}


def make_plan(n: int, src: dict, rw_rate: float, link_rate: float, outside_rate: float, mean_kb: float, seed: int) -> dict:
    rng = random.Random(seed)
    n_id = len(src["identities"])
    ids = [str(ID_BASE + i) for i in range(n)]
    identity = [rng.randrange(n_id) for _ in range(n)]
    copies = {}
    for i, j in enumerate(identity): copies.setdefault(src["identities"][j]["src_id"], []).append(ids[i])
    n_rw = round(rw_rate * n)
    rw = [False] * n
    for i in rng.sample(range(n), n_rw): rw[i] = True
    sigma = 0.5  # lognormal spread of paper sizes; mean = mean_kb
    mu = math.log(mean_kb * 1024) - sigma ** 2 / 2
    sizes = [min(int(rng.lognormvariate(mu, sigma)), 1 << 20) for _ in range(n)]
    return {"ids": ids, "identity": identity, "copies": copies, "rw": rw, "sizes": sizes,
            "link_rate": link_rate, "outside_rate": outside_rate}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--papers", type=int, default=20000, help="number of papers (ignored with --target-bytes)")
    ap.add_argument("--rw-rate", type=float, default=0.025, help="share of papers with a Related Work section")
    ap.add_argument("--shards", type=int, default=4, help="number of metadata/pdf_parses shard pairs")
    ap.add_argument("--out", required=True, help="output folder (gets metadata/ and pdf_parses/)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--source", default=None, help="source corpus (2020-07-05 layout); default: the bundled sample, "
                                                    "else ../shared/data/clscisumm")
    ap.add_argument("--filler-source", default=None, help="corpus whose Introduction/method/Conclusion paragraphs fill "
                    "the papers (default: --source); a large real corpus such as ../shared/data/clscisumm gives text "
                    "that compresses like real papers (a small source repeats paragraphs inside a paper)")
    ap.add_argument("--mean-kb", type=float, default=50.0, help="mean size of a pdf_parses line in KB")
    ap.add_argument("--link-rate", type=float, default=0.4, help="chance that an unlinked source citation gets a link")
    ap.add_argument("--outside-rate", type=float, default=0.1, help="share of new links to ids outside the corpus")
    ap.add_argument("--target-bytes", default=None, help="make ONE shard of about this many uncompressed pdf_parses "
                                                         "bytes (e.g. 1G) instead of --papers/--shards")
    ap.add_argument("--gzip-level", type=int, default=1, help="gzip level of the shards (1 = fast to write; "
                    "decompression speed hardly depends on it)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="shard writer processes")
    a = ap.parse_args(argv)
    global _SRC, _PLAN
    src_dir = Path(a.source) if a.source else default_source()
    t0 = time.time()
    _SRC = load_source(src_dir)
    filler_dir = Path(a.filler_source) if a.filler_source else src_dir
    _SRC["filler"] = _SRC["pools"] if filler_dir == src_dir else load_source(filler_dir)["pools"]
    n, shards = a.papers, a.shards
    if a.target_bytes:
        n, shards = max(1, int(parse_size(a.target_bytes) / (a.mean_kb * 1024))), 1
    _PLAN = make_plan(n, _SRC, a.rw_rate, a.link_rate, a.outside_rate, a.mean_kb, a.seed)
    out = Path(a.out)
    for sub in ("metadata", "pdf_parses"):
        (out/sub).mkdir(parents=True, exist_ok=True)
        for f in (out/sub).glob("*.jsonl.gz"): f.unlink()
    bounds = [(k, k * n // shards, (k + 1) * n // shards, str(out), a.seed, a.gzip_level) for k in range(shards)]
    if a.jobs > 1 and shards > 1:
        with get_context("fork").Pool(min(a.jobs, shards)) as pool: parts = pool.map(write_shard, bounds)
    else: parts = [write_shard(b) for b in bounds]
    total = sum(p["pdf_parses_bytes"] for p in parts)
    info = {"source": str(src_dir), "filler_source": str(filler_dir), "source_identities": len(_SRC["identities"]),
            "source_paragraphs": {k: len(v) for k, v in _SRC["pools"].items()},
            "papers": n, "shards": shards, "rw_rate": a.rw_rate, "papers_with_related_work": sum(p["papers_with_related_work"] for p in parts),
            "seed": a.seed, "link_rate": a.link_rate, "outside_rate": a.outside_rate, "mean_kb_requested": a.mean_kb,
            "pdf_parses_bytes": total, "mean_line_kb": round(total / n / 1024, 1),
            "pdf_parses_gz_bytes": sum(f.stat().st_size for f in (out/"pdf_parses").glob("*.gz")),
            "metadata_gz_bytes": sum(f.stat().st_size for f in (out/"metadata").glob("*.gz")),
            "seconds": round(time.time() - t0, 1), "shards_detail": parts}
    (out/"corpus.json").write_text(json.dumps(info, indent=2) + "\n")
    print(json.dumps({k: v for k, v in info.items() if k != "shards_detail"}))
    return info


if __name__ == "__main__":
    main()
