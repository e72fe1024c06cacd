#!/usr/bin/env python
"""Benchmark `citesum build` against the scan floor and a plain reference implementation.

For each setting (share of papers with a Related Work section; default 2.5% and 25%), on the same synthetic corpus
(made by `make_synthetic_corpus.py` when missing), every measurement runs in a fresh process:

(a) floor      decompress every metadata and pdf_parses shard and loop over its lines (gzip + a loop, nothing else;
               timed with the gzip module and with zlib chunks + bytes.split, the faster counts)
(b) reference  `reference_build.py`: json.loads of every paper, spaCy sentencizer, rouge-score, one Python loop;
               run with spaCy (the paper-style baseline) and with the library's fast splitter (for the equality check)
(c) citesum    `build_citesum` with one process (scheduler="synchronous") and on a LocalCluster with 1 and 2
               single-threaded worker processes (the cluster is started first, timed separately, and passed as
               its tcp:// address, so that each worker can report its own peak RSS)

It prints absolute figures (seconds, papers/s, papers/s per core, MB/s of uncompressed pdf_parses, CPU seconds) and
the targets on the 2.5% setting (one process <= 2.0x the floor, >= 5x the spaCy reference per core, 2 workers >= 1.8x
over 1 in time and >= 1.9x in CPU seconds on the critical path, N workers within 80% of linear, a worker's peak RSS on
the ~1 GB shard <= 700 MB, examples byte-identical to the build before the speed work), each with the spread over runs
and the same ratio in CPU seconds; the scaling curve (1, 2, 4 workers: wall time, CPU seconds of each worker and of this
process); it checks that (b) and (c) keep identical examples with the same splitter, and classifies the differences
with their own splitters. `--targets` runs everything the targets need (20,000 and 80,000 papers, 3 runs, workers
1/2/4, the ~1 GB shard) and prints the table; `--scales 20000` and `--repeat 1` make it shorter.
`--rss-1g` adds the peak RSS of one worker building a corpus with one ~1 GB pdf_parses shard.
Results: bench/out/bench_build.json and bench/out/bench_build.md.

Usage: python bench/bench_build.py --targets
       python bench/bench_build.py --targets --scales 20000 --repeat 1     # the same at 20,000 papers only, one run each
       python bench/bench_build.py [--papers 20000 | --scales 20000,80000] [--settings 0.025,0.25] [--repeat 3] [--workers 1,2,4] [--rss-1g]
"""
from __future__ import annotations

import argparse, gzip, json, zlib, os, platform, re, resource, subprocess, sys, time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE/"out"
FILLER = Path("/work/shared/data/clscisumm")


def _json_line(stdout: str) -> dict:
    "The last line of `stdout` that is a JSON object"
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"): return json.loads(line)
    raise RuntimeError(f"no JSON result in output:\n{stdout[-2000:]}")


def run_child(args: list, label: str, library: str | None = None) -> dict:
    "Run `python args...` in a fresh process (importing `citesum_nb` from `library` when given); its JSON result plus the wall time seen from outside"
    t = time.time(); r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(Path(library).resolve())} if library else None
    args = [Path(a).resolve() if isinstance(a, Path) else a for a in args]
    p = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=env, cwd=Path(library).resolve() if library else None)
    wall = time.time() - t; r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0: raise RuntimeError(f"{label} failed:\n{p.stdout[-3000:]}\n{p.stderr[-5000:]}")
    r = _json_line(p.stdout); r["process_wall_s"] = round(wall, 2)
    # CPU seconds of the process and all its descendants (Dask workers included): robust to other load on the machine
    r["process_cpu_s"] = round(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, 2)
    return r


# ------------------------------------------------------------------------------------------------ child commands
def _lines_gzip_module(f: Path):
    with gzip.open(f, "rb") as fh: yield from fh


def _lines_zlib_chunks(f: Path, chunk: int = 1 << 20, inflate=zlib):
    d, rest = inflate.decompressobj(31), b""
    with open(f, "rb") as fh:
        while data := fh.read(chunk):
            while data:
                lines = (rest + d.decompress(data)).split(b"\n"); rest = lines.pop()
                yield from lines
                data = d.unused_data if d.eof else b""
                if d.eof: d = inflate.decompressobj(31)
    if rest: yield rest


def _lines_isal_chunks(f: Path):
    "The same loop with Intel ISA-L's inflate (what citesum_nb.s2orc.read_lines uses when isal is installed)"
    from isal import isal_zlib
    yield from _lines_zlib_chunks(f, inflate=isal_zlib)


def child_floor(corpus: str) -> None:
    "(a): decompress every shard and loop over its lines; three ways (gzip module, zlib chunks, ISA-L chunks), the fastest is the floor"
    out = {}
    for name, lines_of in (("gzip_module", _lines_gzip_module), ("zlib_chunks", _lines_zlib_chunks), ("isal_chunks", _lines_isal_chunks)):
        t = time.time(); c = time.process_time(); lines = n_bytes = 0
        for sub in ("metadata", "pdf_parses"):
            for f in sorted((Path(corpus)/sub).glob("*.jsonl*")):
                for line in lines_of(f):
                    if line: lines += 1; n_bytes += len(line)
        out[name] = {"seconds": round(time.time() - t, 3), "cpu_s": round(time.process_time() - c, 3), "lines": lines, "bytes": n_bytes}
    best = min(out.values(), key=lambda v: v["seconds"])
    print(json.dumps({"seconds": best["seconds"], "lines": best["lines"], "bytes": best["bytes"], "variants": out,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))


def _worker_peak_rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime


SPLIT_FILES = (("train.jsonl",), ("validation.jsonl", "val.jsonl"), ("test.jsonl",))   # val.jsonl: a build made before the split took Hugging Face's name


def _split_file(out: Path, names: tuple) -> Path:
    return next((Path(out)/n for n in names if (Path(out)/n).exists()), Path(out)/names[0])


def _sha256(out: Path) -> dict:
    "sha256 of the three split files of a build, by their current names (an older library's val.jsonl counts as validation.jsonl)"
    import hashlib
    return {names[0]: hashlib.sha256(_split_file(out, names).read_bytes()).hexdigest() for names in SPLIT_FILES}


def _build_citesum(corpus, out, scheduler: str, splitter: str, with_aic: bool) -> dict:
    "build_citesum in the API of the library imported: the settings as one BuildParams, or as keywords (a library before that)"
    import inspect
    from citesum_nb import build
    if "p" in inspect.signature(build.build_citesum).parameters:
        p = build.BuildParams(s2orc_dir=str(corpus), scheduler=scheduler, splitter=splitter, with_aic=with_aic)
        return build.build_citesum(p, out, progress=False, overwrite=True)
    return build.build_citesum(corpus, out, scheduler=scheduler, progress=False, splitter=splitter, with_aic=with_aic, overwrite=True)


def child_build(corpus: str, out: str, mode: str, workers: int, splitter: str) -> None:
    """(c): build_citesum synchronously or on a LocalCluster of `workers` single-threaded processes. Besides the wall time it
    reports CPU seconds of the build alone: of this process, and of each worker (so that the critical path in CPU
    seconds, this process plus the busiest worker, can be compared where a loaded machine makes wall times useless)"""
    res = {"mode": mode, "workers": workers, "splitter": splitter}
    with_aic = not mode.endswith("-noaic")        # "-noaic": without the cited papers' introduction/conclusion pass
    mode = mode.removesuffix("-noaic")
    if mode == "synchronous":
        t, c = time.time(), _cpu_s()
        rep = _build_citesum(corpus, out, "synchronous", splitter, with_aic)
        res["seconds"] = round(time.time() - t, 3)
        res["client_cpu_s"] = res["critical_path_cpu_s"] = res["total_cpu_s"] = round(_cpu_s() - c, 3); res["worker_cpu_s"] = []
        res["worker_peak_rss_mb"] = [round(_worker_peak_rss_mb(), 1)]
    else:
        from distributed import Client, LocalCluster
        t = time.time()
        from citesum_nb.engine import local_cluster
        cluster = local_cluster(workers)   # the cluster citesum build starts: preloaded library, malloc settings
        client = Client(cluster)
        res["cluster_start_s"] = round(time.time() - t, 3)
        w0 = client.run(_cpu_s)
        t, c = time.time(), _cpu_s()
        rep = _build_citesum(corpus, out, cluster.scheduler_address, splitter, with_aic)
        res["seconds"] = round(time.time() - t, 3)
        res["client_cpu_s"] = round(_cpu_s() - c, 3)
        w1 = client.run(_cpu_s)
        res["worker_cpu_s"] = sorted(round(w1[k] - w0[k], 3) for k in w1)
        res["critical_path_cpu_s"] = round(res["client_cpu_s"] + max(res["worker_cpu_s"]), 3)
        res["total_cpu_s"] = round(res["client_cpu_s"] + sum(res["worker_cpu_s"]), 3)
        res["worker_peak_rss_mb"] = sorted(round(v, 1) for v in client.run(_worker_peak_rss_mb).values())
        client.close(); cluster.close()
    res["main_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    res["stages"] = rep["stages"]; res["timings_s"] = rep["timings_s"]; res["sha256"] = _sha256(out)
    print(json.dumps(res))


# ------------------------------------------------------------------------------------------------ comparison
def _read_jsonl(p: Path) -> list:
    return [json.loads(l) for l in p.read_text().splitlines() if l.strip()] if p.exists() else []


def built_examples(out: Path) -> set:
    return {(r["citing_paper_id"], r["paper_id"], r["tgt"]) for names in SPLIT_FILES for r in _read_jsonl(_split_file(out, names))}


_ABBR = {"al", "e.g", "i.e", "fig", "cf", "eq", "sec", "vs", "etc", "resp", "approx", "tab", "no"}


def _boundary_word(longer: str, shorter: str) -> str:
    "Classify why `shorter` is a piece of `longer`: the word before the extra boundary"
    i = longer.find(shorter)
    if i < 0: return "other"
    cut = i if i > 0 else i + len(shorter)  # a boundary before or after the piece
    before = longer[:cut].rstrip().split()
    w = before[-1] if before else ""
    core = w.rstrip(".").lstrip("([\"'").lower()
    if core == "al" or w.endswith("al.") and "et" in longer[max(0, cut - 12):cut]: return 'break after "et al."'
    if core in _ABBR: return f'break after "{w}"'
    if re.fullmatch(r"(?:[A-Z]\.)+", w.lstrip("([")): return "break after an initial"
    if re.search(r"\d\.$", w) and cut < len(longer) and longer[cut:cut + 1].isdigit(): return "break inside a decimal number"
    if not w.endswith((".", "!", "?", '."', ".)")): return "break without sentence punctuation"
    return f'break after "{w[-12:]}"'


def classify_differences(ref_cands: list, ref_kept: set, built_kept: set, built_cands: list, limit_examples: int = 3) -> dict:
    "Count examples kept by only one side, by cause (sentence boundary differences and what they did)"
    by_key_ref, by_key_built = {}, {}
    for c in ref_cands: by_key_ref.setdefault((c["citing_paper_id"], c["cited_id"]), []).append(c["tgt"])
    for c in built_cands: by_key_built.setdefault((c["citing_paper_id"], c["paper_id"]), []).append(c["tgt"])
    causes, examples = Counter(), {}
    for side, mine, other_kept, other_cands in (("reference only", ref_kept - built_kept, built_kept, by_key_built),
                                                ("citesum only", built_kept - ref_kept, ref_kept, by_key_ref)):
        for cit, cited, tgt in sorted(mine):
            others = other_cands.get((cit, cited), [])
            pieces = [o for o in others if o != tgt and (o in tgt or tgt in o)]
            if pieces:
                o = pieces[0]
                why = _boundary_word(tgt, o) if o in tgt else _boundary_word(o, tgt)
                fate = "kept with a different sentence" if (cit, cited, o) in other_kept else "its sentence failed the ROUGE filter"
                cause = f"{side}: {why} ({fate})"
            elif tgt in others: cause = f"{side}: same sentence, other side dropped it"
            else: cause = f"{side}: the other split gives this citation's sentence 0 or >= 2 citations"
            causes[cause] += 1
            ex = examples.setdefault(cause, [])
            if len(ex) < limit_examples: ex.append({"citing": cit, "cited": cited, "tgt": tgt[:300]})
    return {"counts": dict(causes.most_common()), "examples": examples}


# ------------------------------------------------------------------------------------------------ orchestration
def ensure_corpus(path: Path, papers: int, rw_rate: float, shards: int, seed: int, target_bytes: str | None = None) -> dict:
    info_p = path/"corpus.json"
    want = {"rw_rate": rw_rate, "seed": seed} | ({"shards": shards, "papers": papers} if not target_bytes else {"shards": 1})
    if info_p.exists():
        info = json.loads(info_p.read_text())
        if all(info.get(k) == v for k, v in want.items()): return info
    args = [HERE/"make_synthetic_corpus.py", "--rw-rate", rw_rate, "--out", path, "--seed", seed]
    args += ["--target-bytes", target_bytes] if target_bytes else ["--papers", papers, "--shards", shards]
    if FILLER.is_dir(): args += ["--filler-source", FILLER]
    print(f"generating {path} ...", flush=True)
    subprocess.run([sys.executable, *map(str, args)], check=True)
    return json.loads(info_p.read_text())


def fastest(args: list, label: str, repeat: int, seconds) -> dict:
    "Run a child `repeat` times and keep the fastest run (the machine's noise only ever adds time); all times are kept"
    runs = [run_child(args, label) for _ in range(max(1, repeat))]
    best = min(runs, key=seconds)
    return {**best, "all_variants": [r.get("variants", {}) for r in runs], "all_seconds": [round(seconds(r), 3) for r in runs], "all_process_cpu_s": [r["process_cpu_s"] for r in runs],
            "all_critical_path_cpu_s": [r.get("critical_path_cpu_s") for r in runs]}


def bench_setting(corpus: Path, info: dict, out: Path, builds: list, ref_splitters: list, repeat: int = 1) -> dict:
    n, mb = info["papers"], info["pdf_parses_bytes"] / 1e6
    res = {"load_avg_start": os.getloadavg()[0], "corpus": {"path": str(corpus), **{k: info[k] for k in ("papers", "shards", "rw_rate", "papers_with_related_work", "mean_line_kb",
                                            "pdf_parses_bytes", "pdf_parses_gz_bytes", "source", "filler_source")}}}
    def fig(seconds, cores): return {"seconds": seconds, "papers_per_s": round(n / seconds, 1),
                                     "papers_per_s_per_core": round(n / seconds / cores, 1), "MB_per_s": round(mb / seconds, 1), "cores": cores}
    print(f"[{corpus.name}] (a) floor ...", flush=True)
    fl = fastest([__file__, "_floor", corpus], "floor", repeat, lambda r: r["seconds"])
    res["floor"] = {**fig(fl["seconds"], 1), "all_seconds": fl["all_seconds"], "all_cpu_s": [min(v["cpu_s"] for v in r.values()) for r in fl["all_variants"]], "process_cpu_s": min(v["cpu_s"] for v in fl["variants"].values()), "peak_rss_mb": fl["peak_rss_mb"], "bytes_scanned": fl["bytes"], "variants": fl["variants"]}
    res["reference"] = {}
    for sp in ref_splitters:
        print(f"[{corpus.name}] (b) reference, {sp} splitter ...", flush=True)
        rp = out/f"{corpus.name}.reference_{sp}.json"
        r = fastest([HERE/"reference_build.py", "--s2orc", corpus, "--splitter", sp, "--out", rp], f"reference {sp}",
                    repeat if sp == "spacy" else 1, lambda r: r["timings_s"]["total_s"])   # the fast-splitter run is for the equality check
        res["reference"][sp] = {**fig(r["timings_s"]["total_s"], 1), "all_seconds": r["all_seconds"], "process_cpu_s": r["process_cpu_s"], "timings_s": r["timings_s"], "peak_rss_mb": r["peak_rss_mb"], "stages": r["stages"]}
    res["citesum"] = {}
    for mode, w, sp in builds:
        name = f"{mode}{'' if mode.startswith('synchronous') else w}_{sp}"
        print(f"[{corpus.name}] (c) citesum build, {name} ...", flush=True)
        b = fastest([__file__, "_build", corpus, out/f"{corpus.name}.build_{name}", mode, w, sp], f"build {name}", repeat, lambda r: r["seconds"])
        cores = 1 if mode.startswith("synchronous") else w
        res["citesum"][name] = {**fig(b["seconds"], cores), "all_seconds": b["all_seconds"], "process_cpu_s": b["process_cpu_s"], "cluster_start_s": b.get("cluster_start_s"),
                                "worker_peak_rss_mb": b["worker_peak_rss_mb"], "main_peak_rss_mb": b["main_peak_rss_mb"],
                                "timings_s": b["timings_s"], "stages": b["stages"], "sha256": b["sha256"],
                                "critical_path_cpu_s": min(b["all_critical_path_cpu_s"]), "all_critical_path_cpu_s": b["all_critical_path_cpu_s"],
                                "all_process_cpu_s": b["all_process_cpu_s"], "client_cpu_s": b["client_cpu_s"], "worker_cpu_s": b["worker_cpu_s"],
                                "total_cpu_s": b["total_cpu_s"]}
    # equality and differences
    cmp = {}
    ref = {sp: json.loads((out/f"{corpus.name}.reference_{sp}.json").read_text()) for sp in ref_splitters}
    ref_kept = {sp: {(e["citing_paper_id"], e["cited_id"], e["tgt"]) for e in r["examples"]} for sp, r in ref.items()}
    built = {name: built_examples(out/f"{corpus.name}.build_{name}") for name in res["citesum"]}
    for name, kept in built.items():
        sp = name.rsplit("_", 1)[1]
        if sp in ref_kept:
            cmp[f"{name} vs reference_{sp}"] = {"identical": kept == ref_kept[sp], "citesum": len(kept), "reference": len(ref_kept[sp]),
                                                "only_citesum": len(kept - ref_kept[sp]), "only_reference": len(ref_kept[sp] - kept)}
    fast_builds = [k for k in built if k.endswith("_fast")]
    if "spacy" in ref_kept and fast_builds:
        k = fast_builds[0]
        bc = _read_jsonl(out/f"{corpus.name}.build_{k}"/"candidates.jsonl")
        cmp[f"{k} vs reference_spacy (own splitters)"] = {
            "citesum": len(built[k]), "reference": len(ref_kept["spacy"]), "in_both": len(built[k] & ref_kept["spacy"]),
            "only_citesum": len(built[k] - ref_kept["spacy"]), "only_reference": len(ref_kept["spacy"] - built[k]),
            "why": classify_differences(ref["spacy"]["candidates"], ref_kept["spacy"], built[k], bc)}
    names = list(built)
    cmp["all citesum runs with the same splitter agree"] = all(built[a] == built[b] for a in names for b in names if a.rsplit("_", 1)[1] == b.rsplit("_", 1)[1])
    res["examples"] = cmp
    # ratios
    base = res["reference"].get("spacy") or next(iter(res["reference"].values()))
    rt = {}
    for name, c in res["citesum"].items():
        rt[f"{name}: papers/s per core vs reference ({base is res['reference'].get('spacy') and 'spacy' or 'fast'})"] = round(c["papers_per_s_per_core"] / base["papers_per_s"], 2)
        rt[f"{name}: time vs floor"] = round(c["seconds"] / res["floor"]["seconds"], 2)
        rt[f"{name}: core-seconds vs floor"] = round(c["seconds"] * c["cores"] / res["floor"]["seconds"], 2)
    for name, c in res["citesum"].items():  # the same comparisons in CPU seconds (whole processes, start-up included)
        rt[f"{name}: CPU seconds, reference (spacy) / citesum"] = round(base["process_cpu_s"] / c["process_cpu_s"], 2)
        rt[f"{name}: CPU seconds, citesum / floor"] = round(c["process_cpu_s"] / res["floor"]["process_cpu_s"], 2)
    if "local1_fast" in res["citesum"] and "local2_fast" in res["citesum"]:
        rt["speed-up 2 workers vs 1"] = round(res["citesum"]["local1_fast"]["seconds"] / res["citesum"]["local2_fast"]["seconds"], 2)
    res["ratios"] = rt
    res["load_avg_end"] = os.getloadavg()[0]
    return res


BASELINE = HERE/"examples_sha256.json"   # sha256 of the examples that the build wrote before the speed work, per corpus
RSS_TARGET_MB = 700                       # a worker's peak RSS on the ~1 GB shard


def corpus_key(info: dict) -> str:
    "What identifies a synthetic corpus (its generator settings and its size in bytes)"
    return f"{info['papers']}p-{info['shards']}s-rw{info['rw_rate']}-{info['pdf_parses_bytes']}B-filler:{Path(str(info.get('filler_source'))).name}"


def _spread(xs) -> str:
    xs = [x for x in xs if x is not None]
    return f"{min(xs):.2f}–{max(xs):.2f}" if xs else ""


def targets(res: dict, baseline: dict | None = None, rss: dict | None = None) -> dict:
    """The issue's targets on one setting, each with the fastest run's value, the spread over all runs, and the same
    ratio in CPU seconds (this process plus the busiest worker, the build alone), which a loaded machine disturbs less"""
    c, fl, t = res["citesum"], res["floor"], {}
    base = res["reference"].get("spacy")
    one = c.get("synchronous_fast")
    if one:
        t["one process, with AIC: time vs the floor"] = {
            "value": round(one["seconds"] / fl["seconds"], 2), "spread": _spread([x / fl["seconds"] for x in one["all_seconds"]]),
            "cpu": round(one["critical_path_cpu_s"] / fl["process_cpu_s"], 2), "target": "<= 2.0"}
    for name, label in (("synchronous_fast", "one process"), ("local2_fast", "2 workers")):
        if base and name in c:
            per_core = lambda s: res["corpus"]["papers"] / s / c[name]["cores"] / base["papers_per_s"]
            t[f"{label}: papers/s per core vs the spaCy reference"] = {
                "value": round(per_core(c[name]["seconds"]), 2), "spread": _spread([per_core(x) for x in c[name]["all_seconds"]]),
                "cpu": round(base["process_cpu_s"] / c[name]["total_cpu_s"], 2), "target": ">= 5"}
    for w in sorted(int(k[len("local"):-len("_fast")]) for k in c if re.fullmatch(r"local\d+_fast", k)):
        if w == 1 or "local1_fast" not in c: continue
        a, b = c["local1_fast"], c[f"local{w}_fast"]
        t[f"{w} workers vs 1 (time)"] = {"value": round(a["seconds"] / b["seconds"], 2),
                                         "spread": _spread([x / y for x in a["all_seconds"] for y in b["all_seconds"]]),
                                         "cpu": round(a["critical_path_cpu_s"] / b["critical_path_cpu_s"], 2),
                                         "target": ">= 1.8" if w == 2 else f">= {0.8 * w:g}", "target_cpu": ">= 1.9" if w == 2 else f">= {0.8 * w:g}"}
    if rss:
        v = rss["worker_peak_rss_mb"][0]
        t["peak RSS of a worker on a ~1 GB shard (MB)"] = {"value": round(v), "spread": "", "cpu": "", "target": f"<= {RSS_TARGET_MB}", "met": v <= RSS_TARGET_MB}
    want = (baseline or {}).get(corpus_key(res["corpus"]))
    same = {n: (r.get("sha256") == want) if want else None for n, r in c.items()}
    t["examples byte-identical to before the speed work (train/validation/test.jsonl sha256)"] = {
        "value": "no baseline for this corpus" if not want else ("yes" if all(same.values()) else "NO: " + ", ".join(n for n, v in same.items() if not v)),
        "spread": "", "cpu": "", "target": "identical", "met": bool(want) and all(same.values())}
    for k, v in t.items():
        if "met" not in v:
            ok = lambda x, target: x <= float(target[3:]) if target[:2] == "<=" else x >= float(target[3:])
            v["met"], v["met_cpu"] = ok(v["value"], v["target"]), ok(v["cpu"], v.get("target_cpu", v["target"]))
    return t


def target_table(t: dict) -> list:
    L = ["| target | value (fastest run) | spread over runs | value in CPU seconds | target | met (time) | met (CPU seconds) |",
         "| --- | ---: | --- | ---: | --- | --- | --- |"]
    yn = lambda b: "" if b is None else ("yes" if b else "**no**")
    tg = lambda v: v["target"] + (f" (CPU: {v['target_cpu']})" if v.get("target_cpu", v["target"]) != v["target"] else "")
    return L + [f"| {k} | {v['value']} | {v['spread']} | {v['cpu']} | {tg(v)} | {yn(v['met'])} | {yn(v.get('met_cpu'))} |" for k, v in t.items()]


def scaling_table(res: dict) -> list:
    "The scaling curve: each LocalCluster size, its wall time and CPU seconds (this process, each worker), speed-ups over 1 worker"
    c = {int(k[len("local"):-len("_fast")]): v for k, v in res["citesum"].items() if re.fullmatch(r"local\d+_fast", k)}
    if not c: return []
    one = c.get(1)
    L = ["| workers | wall s (fastest) | speed-up (wall) | critical path CPU s (this process + busiest worker) | speed-up (CPU) | "
         "CPU s per worker | CPU s, this process |", "| ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    for w, r in sorted(c.items()):
        L.append(f"| {w} | {r['seconds']:.1f} | {one['seconds'] / r['seconds']:.2f} | {r['critical_path_cpu_s']:.1f} | "
                 f"{one['critical_path_cpu_s'] / r['critical_path_cpu_s']:.2f} | {', '.join(f'{x:.1f}' for x in r['worker_cpu_s'])} | {r['client_cpu_s']:.1f} |"
                 if one else f"| {w} | {r['seconds']:.1f} | | {r['critical_path_cpu_s']:.1f} | | {', '.join(f'{x:.1f}' for x in r['worker_cpu_s'])} | {r['client_cpu_s']:.1f} |")
    return L


def all_targets(all_res: dict) -> str:
    "Every setting's target table, one after the other"
    L = ["", f"# Targets ({all_res['machine']})"]
    for key, res in all_res["settings"].items():
        if res.get("targets"): L += ["", f"## {key}", ""] + target_table(res["targets"])
    return "\n".join(L)


def markdown(all_res: dict) -> str:
    L = [f"# citesum build benchmark", "", f"Machine: {all_res['machine']}", ""]
    for key, res in all_res["settings"].items():
        c = res["corpus"]
        L += [f"## {key}: {c['papers']:,} papers, {c['papers_with_related_work']:,} with Related Work ({100 * c['rw_rate']:g}%), "
              f"{c['shards']} shards, {c['pdf_parses_bytes'] / 1e9:.2f} GB pdf_parses (mean line {c['mean_line_kb']} KB)", "",
              f"1-minute load average at start / end: {res.get('load_avg_start', 0):.2f} / {res.get('load_avg_end', 0):.2f}", "",
              "| run | cores | seconds (fastest) | all runs (s) | papers/s | papers/s per core | MB/s | CPU s (process) | peak RSS per worker (MB) |",
              "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
        rows = [("(a) floor: gunzip + line loop", res["floor"], [res["floor"]["peak_rss_mb"]])]
        rows += [(f"(b) reference, {sp}", r, [r["peak_rss_mb"]]) for sp, r in res["reference"].items()]
        rows += [(f"(c) citesum build, {n}" + (f" (+{r['cluster_start_s']:.1f} s cluster start)" if r.get("cluster_start_s") else ""), r, r["worker_peak_rss_mb"])
                 for n, r in res["citesum"].items()]
        L += [f"| {n} | {r['cores']} | {r['seconds']:.1f} | {', '.join(f'{x:.1f}' for x in r.get('all_seconds', [r['seconds']]))} | {r['papers_per_s']:,.0f} | {r['papers_per_s_per_core']:,.0f} | {r['MB_per_s']:.0f} | {r['process_cpu_s']:.1f} | "
              f"{', '.join(f'{x:.0f}' for x in rss)} |" for n, r, rss in rows]
        L += ["", "| ratio | value |", "| --- | ---: |"] + [f"| {k} | {v} |" for k, v in res["ratios"].items()]
        if scaling_table(res): L += ["", "Scaling (LocalCluster of single-threaded worker processes):", ""] + scaling_table(res)
        if res.get("targets"):
            L += [""] + target_table(res["targets"])
        L += ["", "Examples:", ""]
        for k, v in res["examples"].items():
            if isinstance(v, dict) and "why" in v:
                L += [f"- {k}: citesum {v['citesum']}, reference {v['reference']}, in both {v['in_both']}, only citesum "
                      f"{v['only_citesum']}, only reference {v['only_reference']}"]
                L += [f"  - {cause}: {n}" for cause, n in v["why"]["counts"].items()]
            elif isinstance(v, dict):
                L += [f"- {k}: {'IDENTICAL' if v['identical'] else 'DIFFERENT'} ({v['citesum']} vs {v['reference']} examples; "
                      f"only citesum {v['only_citesum']}, only reference {v['only_reference']})"]
            else: L += [f"- {k}: {v}"]
        st = next(iter(res["citesum"].values()))["stages"]
        L += ["", f"citesum stages: papers {st['papers_fulltext']:,}, with Related Work {st['papers_with_related_work']:,}, "
              f"linked single-citation candidates {st['candidates_linked']:,}, kept {st['kept']:,}", ""]
    if all_res.get("rss_1g"):
        r = all_res["rss_1g"]
        L += ["## Peak RSS on a ~1 GB shard", "", f"One pdf_parses shard of {r['corpus']['pdf_parses_bytes'] / 1e9:.2f} GB "
              f"({r['corpus']['papers']:,} papers, {100 * r['corpus']['rw_rate']:g}% with Related Work), citesum build on a "
              f"LocalCluster with 1 worker: worker peak RSS **{r['worker_peak_rss_mb'][0]:.0f} MB**, client process "
              f"{r['main_peak_rss_mb']:.0f} MB, {r['seconds']:.1f} s ({r['MB_per_s']:.0f} MB/s).", ""]
    return "\n".join(L)


def machine() -> str:
    cpu = ""
    try: cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception: pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Benchmark citesum build (floor / reference / citesum)")
    ap.add_argument("--papers", type=int, default=20000)
    ap.add_argument("--settings", default="0.025,0.25", help="comma-separated Related Work rates")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=None, help="run the floor, the spaCy reference and every build this many times and keep the fastest (default 1; 3 with --targets)")
    ap.add_argument("--workers", default=None, help="comma-separated LocalCluster sizes of the scaling curve (default 1,2; 1,2,4 with --targets)")
    ap.add_argument("--corpus-dir", default=str(OUT), help="where the synthetic corpora are (made when missing)")
    ap.add_argument("--out", default=str(OUT), help="results folder")
    ap.add_argument("--rss-1g", action="store_true", help="also measure the peak RSS of one worker on a ~1 GB shard")
    ap.add_argument("--spacy-builds", action="store_true", help="also run citesum build with the spaCy splitter (the equality check with the same splitter, spaCy flavour)")
    ap.add_argument("--compare-real", default=None, metavar="DIR", help="also compare the examples of the reference (spaCy and "
                    "fast splitters) and citesum build on a real corpus in the 2020-07-05 layout, e.g. ../shared/data/clscisumm")
    ap.add_argument("--merge", action="store_true", help="add to an existing bench_build.json instead of starting a new one")
    ap.add_argument("--only-extra", action="store_true", help="skip the synthetic settings; run only --compare-real / --rss-1g, "
                    "merged into an existing bench_build.json")
    ap.add_argument("--only-rss-1g", action="store_true", help="only the ~1 GB shard measurement (merged into an existing bench_build.json)")
    ap.add_argument("--scales", default=None, help="comma-separated corpus sizes in papers, measured one after the other in this run "
                    "(default: --papers); max(--shards, one per 10,000 papers) shards; corpora other than 20,000 papers go to <corpus-dir>/<N>k/")
    ap.add_argument("--no-noaic", action="store_true", help="leave out the builds without the cited papers' introduction/conclusion")
    ap.add_argument("--baseline-library", default=None, metavar="DIR", help="a checkout of the library before the speed work "
                    "(e.g. `git worktree add /tmp/before 1f59d04`): builds each corpus once with it, one process, and records the sha256 "
                    "of its train/validation/test.jsonl in <out>/examples_sha256.json, the baseline of the byte-identity target")
    ap.add_argument("--targets", action="store_true", help="everything the speed targets need, in one run: the 2.5%% setting at "
                    "20,000 and 80,000 papers, three runs of every measurement, the ~1 GB shard; prints the target table at the end")
    a = ap.parse_args(argv)
    if a.targets: a.settings, a.scales, a.repeat, a.rss_1g, a.no_noaic = "0.025", a.scales or "20000,80000", a.repeat or 3, True, True
    a.repeat, a.workers = a.repeat or 1, [int(w) for w in (a.workers or ("1,2,4" if a.targets else "1,2")).split(",")]
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    res_p = out/"bench_build.json"
    all_res = json.loads(res_p.read_text()) if (a.only_rss_1g or a.only_extra or a.merge) and res_p.exists() else {"machine": machine(), "settings": {}}
    def save():  # after every setting, so that a long run keeps what it measured
        res_p.write_text(json.dumps(all_res, indent=1) + "\n"); (out/"bench_build.md").write_text(markdown(all_res))
    if not (a.only_rss_1g or a.only_extra):
        builds = [("synchronous", 1, "fast"), ("synchronous-noaic", 1, "fast"), *[("local", w, "fast") for w in a.workers], ("local-noaic", 2, "fast")]
        if a.no_noaic: builds = [b for b in builds if "noaic" not in b[0]]
        if a.spacy_builds: builds.append(("synchronous", 1, "spacy"))
        for papers in (int(x) for x in (a.scales or str(a.papers)).split(",")):
            for rate in (float(x) for x in a.settings.split(",")):
                corpus = Path(a.corpus_dir)/("" if papers == 20000 else f"{papers // 1000}k")/f"corpus_rw{rate}"
                info = ensure_corpus(corpus, papers, rate, max(a.shards, papers // 10000) if a.scales else a.shards, a.seed)
                res = bench_setting(corpus, info, out, builds, ["spacy", "fast"], a.repeat)
                res["rate"] = rate
                all_res["settings"][f"rw {100 * rate:g}%" + ("" if papers == 20000 else f", {papers:,} papers")] = res
                print(json.dumps({k: res[k] for k in ("ratios", "examples")}, indent=1), flush=True)
                save()
    if a.compare_real:
        real = Path(a.compare_real)
        n = sum(1 for f in sorted((real/"pdf_parses").glob("*.jsonl*")) for _ in gzip.open(f, "rb"))
        nb = sum(len(l) for f in sorted((real/"pdf_parses").glob("*.jsonl*")) for l in gzip.open(f, "rb"))
        info = {"papers": n, "shards": len(list((real/"pdf_parses").glob("*.jsonl*"))), "rw_rate": None, "papers_with_related_work": None,
                "mean_line_kb": round(nb / n / 1024, 1), "pdf_parses_bytes": nb, "pdf_parses_gz_bytes": None, "source": str(real), "filler_source": None}
        r = bench_setting(real, info, out, [("synchronous", 1, "fast")], ["spacy", "fast"])
        r["corpus"]["papers_with_related_work"] = r["citesum"]["synchronous_fast"]["stages"]["papers_with_related_work"]
        r["corpus"]["rw_rate"] = round(r["corpus"]["papers_with_related_work"] / n, 4)
        r["targets"] = {}
        all_res["settings"][f"real: {real.name}"] = r
        print(json.dumps(r["examples"], indent=1), flush=True)
        save()
    if a.rss_1g or a.only_rss_1g:
        corpus = Path(a.corpus_dir)/"corpus_1g"
        info = ensure_corpus(corpus, 0, 0.025, 1, 1, target_bytes="1G")
        print("[1 GB shard] citesum build, 1 worker ...", flush=True)
        b = run_child([__file__, "_build", corpus, out/"corpus_1g.build", "local", 1, "fast"], "build 1g")
        all_res["rss_1g"] = {"corpus": {k: info[k] for k in ("papers", "rw_rate", "pdf_parses_bytes", "pdf_parses_gz_bytes")},
                             "seconds": b["seconds"], "MB_per_s": round(info["pdf_parses_bytes"] / 1e6 / b["seconds"], 1),
                             "worker_peak_rss_mb": b["worker_peak_rss_mb"], "main_peak_rss_mb": b["main_peak_rss_mb"], "timings_s": b["timings_s"]}
        print(json.dumps(all_res["rss_1g"]), flush=True)
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    local_p = out/"examples_sha256.json"
    baseline.update(json.loads(local_p.read_text()) if local_p.exists() else {})
    if a.baseline_library:
        for key, res in all_res["settings"].items():
            if key.startswith("real") or corpus_key(res["corpus"]) in baseline: continue
            print(f"[{key}] baseline build with {a.baseline_library} ...", flush=True)
            b = run_child([Path(__file__), "_build", Path(res["corpus"]["path"]), out/"baseline.build", "synchronous", 1, "fast"], "baseline build", a.baseline_library)
            baseline[corpus_key(res["corpus"])] = b["sha256"] if "sha256" in b else _sha256(out/"baseline.build")
        local_p.write_text(json.dumps({k: v for k, v in baseline.items() if not k.startswith("_")}, indent=1) + "\n")
    for key, res in all_res["settings"].items():   # the targets concern the 2.5% setting of the synthetic corpus
        if not key.startswith("real") and abs((res.get("rate") or res["corpus"].get("rw_rate") or 0) - 0.025) < 1e-9 and "synchronous_fast" in res["citesum"]:
            res["targets"] = targets(res, baseline, all_res.get("rss_1g"))
    save()
    print(markdown(all_res))
    print(all_targets(all_res))
    print(f"results: {res_p} and {out/'bench_build.md'}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_floor": child_floor(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "_build": child_build(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
    else: main()
