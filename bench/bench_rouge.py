"""Benchmark: multi-reference ROUGE on 10,000 predictions x 4 references (target: < 60 s on 2 cores).

Text is synthetic but TLDR-like: words drawn from a Zipf distribution over a generated vocabulary (so stems
repeat as in real text), predictions of 12-35 words and references of 10-30 words, one sentence each.
Run: python bench/bench_rouge.py [--n 10000] [--refs 4]
     python bench/bench_rouge.py --overlap   # also: TF-IDF overlap of 100,000 x 1,000 abstract-length documents
"""
import argparse, itertools, string, time

import numpy as np

from citesum_nb.evaluate import overlap_report
from citesum_nb.metrics import porter_stem, rouge_scores, shared_scorer


def synthetic_corpus(n:int, n_refs:int, seed:int=0):
    rng = np.random.default_rng(seed)
    letters = np.array(list(string.ascii_lowercase))
    vocab = np.array(["".join(rng.choice(letters, rng.integers(2, 11))) + rng.choice(["", "s", "ed", "ing", "ation"]) for _ in range(20000)])
    p = 1 / np.arange(1, len(vocab) + 1) ** 1.1; p /= p.sum()
    sent = lambda lo, hi: " ".join(vocab[rng.choice(len(vocab), rng.integers(lo, hi), p=p)]).capitalize() + "."
    preds = [sent(12, 36) for _ in range(n)]
    refs = [[sent(10, 31) for _ in range(n_refs)] for _ in range(n)]
    return preds, refs


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10000); ap.add_argument("--refs", type=int, default=4)
    ap.add_argument("--overlap", action="store_true", help="also time overlap_report on 100k x 1k documents")
    a = ap.parse_args()
    preds, refs = synthetic_corpus(a.n, a.refs)
    print(f"{a.n} predictions x {a.refs} references ({a.n * a.refs} pairs), ROUGE-1/2/L/Lsum, stemming on, multi-max")
    results = {}
    for n_jobs in (1, 2):
        shared_scorer.cache_clear(); porter_stem.cache_clear()  # cold token/stem caches for each measurement (forked workers would inherit warm ones)
        t = time.perf_counter()
        s = rouge_scores(preds, refs, multi_ref="max", n_jobs=n_jobs)
        results[n_jobs] = s
        print(f"n_jobs={n_jobs}: {time.perf_counter() - t:.1f} s  (R-1 {s['rouge1']:.2f}, R-2 {s['rouge2']:.2f}, R-L {s['rougeL']:.2f}, n={s['n']})")
    assert results[1] == results[2], "parallel and serial scores differ"
    if a.overlap:
        docs, _ = synthetic_corpus(101000, 0, seed=1)
        docs = [d + " " + e + " " + f for d, e, f in zip(docs, docs[1:] + docs[:1], docs[2:] + docs[:2])]  # ~70 words
        a_docs, b_docs = docs[:100000], docs[100000:] + docs[:50]  # 50 of B are copies of A documents
        t = time.perf_counter()
        rep = overlap_report(a_docs, b_docs, threshold=0.9)
        print(f"overlap 100,000 x 1,000 documents: {time.perf_counter() - t:.1f} s, {rep['n_b_covered']} of B covered (50 planted)")
