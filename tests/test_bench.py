"""The benchmark scripts of bench/README.md run: their --help, and the stage profile on the bundled sample corpus."""
import json, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args):
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_bench_build_help():
    r = _run("bench/bench_build.py", "--help")
    assert r.returncode == 0 and "--targets" in r.stdout and "--baseline-library" in r.stdout


def test_profile_build_on_the_sample(tmp_path):
    from citesum_nb.core import sample_corpus_dir
    r = _run("bench/profile_build.py", "--corpus", sample_corpus_dir(), "--repeat", "1", "--no-dask", "--out", tmp_path/"p.json")
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads((tmp_path/"p.json").read_text())
    assert res["papers"] > 50 and "whole shard task (extract_candidates)" in res["first_pass"] and "the join" in res["second_pass"]
    assert "| decompression |" in r.stdout
