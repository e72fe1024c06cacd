#!/usr/bin/env python
"""Where the time of `citesum build` goes: each stage of the two passes timed on its own, per shard task.

On a corpus in the 2020-07-05 layout (the synthetic benchmark corpus, or the real CL-SciSumm papers), every stage is
run by itself over the same data, `--repeat` times (CPU seconds of this process, and wall seconds; the fastest run is
shown with the spread of all runs), in one process:

  first pass, per full-text shard   decompression; line splitting; UTF-8 check; the Related Work pre-check (section
                                     titles); the side-table extraction (id, abstract, introduction, conclusion) of the
                                     papers without Related Work; writing the side table; JSON parsing of the papers
                                     with Related Work; sentence splitting (citation sentences); the whole shard task
  second pass                        metadata of the cited papers; reading the side tables; the join; ROUGE; the writers
  Dask                               the overhead of one task on a local cluster of single-threaded workers

It also runs against an older checkout of the library (`--library DIR`, e.g. a `git worktree` of an earlier commit):
the stages the older code does not have are left out, and the table says which reader it used.

Usage: python bench/profile_build.py --corpus bench/out/corpus_rw0.025 [--repeat 3] [--out bench/out/profile.json]
"""

import argparse, json, os, sys, time
from pathlib import Path


def _timed(fn, repeat: int) -> dict:
    "CPU and wall seconds of `fn()`, fastest of `repeat` runs, with every run"
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c); wall.append(time.perf_counter() - w)
    return {"cpu_s": min(cpu), "wall_s": min(wall), "cpu_runs": [round(x, 3) for x in cpu], "wall_runs": [round(x, 3) for x in wall]}


def _add(total: dict, key: str, t: dict):
    a = total.setdefault(key, {"cpu_s": 0.0, "wall_s": 0.0, "cpu_runs": None, "wall_runs": None})
    a["cpu_s"] += t["cpu_s"]; a["wall_s"] += t["wall_s"]
    for k in ("cpu_runs", "wall_runs"):
        a[k] = t[k] if a[k] is None else [x + y for x, y in zip(a[k], t[k])]


def first_pass_stages(shards, work: Path, repeat: int) -> tuple[dict, list]:
    "Per-stage times summed over the shards, and the candidates of every shard"
    import msgspec
    from citesum_nb import s2orc, shards as _shards, raw_texts, build, citations
    new = hasattr(raw_texts, "paper_texts")
    out, cands, mb = {}, [], 0
    for k, f in enumerate(shards.fulltext_files):
        chunks = lambda: [None for _ in _shards._raw_chunks(Path(f))]
        _add(out, "decompression", _timed(chunks, repeat))
        if new: lines_of = lambda: [None for _ in s2orc.line_views(f)]
        else: lines_of = lambda: [None for _ in s2orc.read_lines(f)]
        t = _timed(lines_of, repeat)
        d = out["decompression"]
        _add(out, "decompression + line splitting", t)
        lines = [bytes(v) for v in s2orc.line_views(f)] if new else [l for l in s2orc.read_lines(f)]
        mb += sum(map(len, lines)) / 1e6
        _add(out, "UTF-8 check", _timed(lambda: [s2orc.valid_utf8(l) for l in lines], repeat))
        if new:
            class _Para(msgspec.Struct): section: str | None = None
            class _Sections(msgspec.Struct): paper_id: str | int | None = None; body_text: list[_Para] = []
            dec = msgspec.json.Decoder(_Sections).decode
            def precheck(): return [any(citations.is_related_work(t) for t in {p.section for p in dec(l).body_text} if t) for l in lines]
        else:
            def precheck(): return [s2orc.has_related_work(l, shards.fmt) for l in lines]
        _add(out, "Related Work pre-check (section titles)", _timed(precheck, repeat))
        rw = precheck()
        plain = [l for l, r in zip(lines, rw) if not r]; with_rw = [l for l, r in zip(lines, rw) if r]
        log = s2orc.BadInputLog()
        if new: side = lambda: [raw_texts.paper_texts(l, log) for l in plain]
        else: side = lambda: [raw_texts.paper_texts_from_bytes(l) for l in plain]
        _add(out, "side-table extraction (papers without Related Work; pre-check included)", _timed(side, repeat))
        rows = side()
        def write():
            t = raw_texts.TextTable(work/f"texts-{k}.parquet")
            for r in rows:
                if new: t.add(r[0], r[2], *r[3])
                else: t.add(r[0], r[2], *r[3])
            t.close()
        _add(out, "side-table writing", _timed(write, repeat))
        parse = lambda: [s2orc.parse_fulltext(l, shards.fmt, s2orc.BadInputLog()) for l in with_rw]
        _add(out, "JSON parsing of the papers with Related Work", _timed(parse, repeat))
        recs = [r for r in parse() if r is not None]
        _add(out, "sentence splitting (citation sentences)", _timed(lambda: [list(citations.citation_sentences(r)) for r in recs], repeat))
        tab = work/f"texts-{k}.parquet"
        _add(out, "whole shard task (extract_candidates)", _timed(lambda: build.extract_candidates(f, shards.fmt, build.BuildParams(), texts_out=tab), repeat))
        cands.append(build.extract_candidates(f, shards.fmt, build.BuildParams(), texts_out=tab))
        del lines, plain, with_rw, rows, recs
    out["line splitting"] = {k: (out["decompression + line splitting"][k] - out["decompression"][k]) if "runs" not in k else None
                             for k in ("cpu_s", "wall_s", "cpu_runs", "wall_runs")}
    return out, cands, mb


def second_pass_stages(shards, cands: list, work: Path, out_dir: Path, repeat: int) -> dict:
    import pandas as pd
    from citesum_nb import build
    res = {}
    frame = pd.concat([c[0] for c in cands], ignore_index=True).drop_duplicates(["citing_paper_id", "sentence", "cited_id"], ignore_index=True)
    wanted = frozenset(frame["cited_id"].dropna())
    res["metadata of the cited papers"] = _timed(lambda: [build.cited_metadata(f, shards.fmt, wanted) for f in shards.metadata_files], repeat)
    tables = sorted(work.glob("texts-*.parquet"))
    res["reading the side tables"] = _timed(lambda: [build.cited_texts(t, wanted) for t in tables], repeat)
    meta = pd.concat([build.cited_metadata(f, shards.fmt, wanted)[0] for f in shards.metadata_files], ignore_index=True)
    texts = pd.concat([build.cited_texts(t, wanted) for t in tables], ignore_index=True)
    def join():
        cited = meta.drop_duplicates("paper_id").assign(has_meta=True).merge(texts.drop_duplicates("paper_id").assign(has_text=True), on="paper_id", how="outer")
        return frame.merge(cited, left_on="cited_id", right_on="paper_id", how="left")
    res["the join"] = _timed(join, repeat)
    joined = join()
    res["ROUGE (finish_partition)"] = _timed(lambda: build.finish_partition(joined, build.BuildParams()), repeat)
    fin = build.finish_partition(joined, build.BuildParams()).sort_values("id", kind="stable").reset_index(drop=True)
    t = time.process_time(); w = time.perf_counter(); import datasets  # noqa: F401  (imported once by the writers)
    res["import of datasets (once, by the writers)"] = {"cpu_s": time.process_time() - t, "wall_s": time.perf_counter() - w, "cpu_runs": None, "wall_runs": None}
    def write():
        import shutil, dask
        from citesum_nb.engine import Engine
        shutil.rmtree(out_dir, ignore_errors=True); out_dir.mkdir(parents=True)
        with Engine("synchronous", progress=False) as eng:   # one partition, in this process
            build.write_outputs(eng, (dask.delayed(fin),), build.part_summary(fin), out_dir, build.BuildParams())
    res["writers (JSONL, Parquet, HF)"] = _timed(write, repeat)
    return res


def _noop(x=None): return x


def dask_overhead(repeat: int, n_tasks: int = 200) -> dict:
    "Seconds per task of trivial tasks on the local cluster `citesum build` starts (1 and 2 workers)"
    from distributed import Client
    from citesum_nb.engine import local_cluster
    res = {}
    for w in (1, 2):
        cluster = local_cluster(w); client = Client(cluster)
        client.gather(client.map(_noop, range(10), pure=False))   # warm up
        ts = []
        for _ in range(repeat):
            t = time.perf_counter(); client.gather(client.map(_noop, range(n_tasks), pure=False)); ts.append((time.perf_counter() - t) / n_tasks)
        res[f"{w} worker{'s' if w > 1 else ''}"] = {"ms_per_task": round(min(ts) * 1e3, 3), "runs_ms": [round(x * 1e3, 3) for x in ts]}
        client.close(); cluster.close()
    return res


def table(res: dict) -> str:
    tot = sum(v["cpu_s"] for k, v in res["first_pass"].items() if k.startswith("whole")) + sum(v["cpu_s"] for v in res["second_pass"].values())
    L = [f"Corpus: {res['corpus']} ({res['papers']:,} papers, {res['mb']:.0f} MB of pdf_parses, {res['shards']} shards); "
         f"library: {res['library']}; {res['repeat']} runs per stage, the fastest shown, all runs in brackets; "
         f"1-minute load average {res['load'][0]:.1f} at start, {res['load'][1]:.1f} at end", "",
         "| stage | CPU s | wall s | MB/s (CPU) | CPU s of every run |", "| --- | ---: | ---: | ---: | --- |"]
    for part in ("first_pass", "second_pass"):
        for k, v in res[part].items():
            runs = ", ".join(f"{x:.2f}" for x in v["cpu_runs"]) if v.get("cpu_runs") else ""
            mbs = f"{res['mb'] / v['cpu_s']:,.0f}" if part == "first_pass" and v["cpu_s"] > 0 else ""
            L.append(f"| {k} | {v['cpu_s']:.2f} | {v['wall_s']:.2f} | {mbs} | {runs} |")
    if res.get("dask"):
        L += ["", "Dask overhead per trivial task on the local cluster: " + "; ".join(f"{k}: {v['ms_per_task']} ms (runs {v['runs_ms']})" for k, v in res["dask"].items())]
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Profile the stages of citesum build on one corpus")
    ap.add_argument("--corpus", required=True, help="an S2ORC folder in the 2020-07-05 layout")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--library", default=None, help="a folder holding another citesum_nb package to profile instead")
    ap.add_argument("--no-dask", action="store_true", help="leave out the Dask overhead measurement")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    a = ap.parse_args(argv)
    if a.library: sys.path.insert(0, str(Path(a.library).resolve()))
    import tempfile
    import citesum_nb
    from citesum_nb.s2orc import find_shards
    shards = find_shards(a.corpus)
    work = Path(tempfile.mkdtemp(prefix="citesum-profile-"))
    load0 = os.getloadavg()[0]
    fp, cands, mb = first_pass_stages(shards, work, a.repeat)
    sp = second_pass_stages(shards, cands, work, work/"out", a.repeat)
    from citesum_nb import raw_texts
    res = {"corpus": str(a.corpus), "library": f"{Path(citesum_nb.__file__).parent} ({'paper_texts' if hasattr(raw_texts, 'paper_texts') else 'paper_texts_from_bytes'})",
           "papers": sum(len(c[1]) for c in cands), "shards": len(shards.fulltext_files), "repeat": a.repeat,
           "mb": mb,
           "first_pass": fp, "second_pass": sp, "dask": None if a.no_dask else dask_overhead(a.repeat)}
    res["load"] = [load0, os.getloadavg()[0]]
    import shutil; shutil.rmtree(work, ignore_errors=True)
    print(table(res))
    if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
