"""Benchmark: `split_sentences` on one paragraph with many citation spans, against the previous (quadratic) version.

The paragraph is made of author-year citation sentences ("Method 17 improves results (Smith et al., 17). "), one
citation span per sentence, so sentences = spans = candidate boundaries. Both versions give the same spans (checked
on every size that runs both). Times are CPU seconds (user + sys of this process), the best of --repeat runs.
Run: python bench/bench_split.py [--spans 1000 10000 100000] [--old-max 100000] [--repeat 3]
"""
import argparse, re, time

from citesum_nb.citations import ABBREVIATIONS, ANY_CASE_ABBREVIATIONS, _spans_from_gaps, split_sentences

_OLD_CANDIDATE = re.compile(r"""[.!?]+["'”’)\]]*(\s+)(?=["“'‘(\[]?[A-Z0-9À-ÖØ-Þ])""")
_OLD_INITIALS = re.compile(r"^(?:[A-Z]\.)*[A-Z]$")


def _old_rejected(text, m):
    p = m.start()
    if text[p] != ".": return False
    if text[p+1:m.start(1)].strip("."): return False
    w = max(text.rfind(" ", 0, p), text.rfind("\n", 0, p), text.rfind("\t", 0, p)) + 1   # back to the paragraph start
    word = text[w:p].lstrip("([\"'“‘")
    return word in ABBREVIATIONS or word.lower() in ANY_CASE_ABBREVIATIONS or _OLD_INITIALS.match(word) is not None


def quadratic_split(text, protected=()):
    "The previous `split_sentences`: every gap against every protected span; the baseline of this benchmark and of the equality test"
    gaps = [(m.start(1), m.end(1)) for m in _OLD_CANDIDATE.finditer(text) if not _old_rejected(text, m)]
    if protected: gaps = [(gs, ge) for gs, ge in gaps if not any(s < ge and gs < e for s, e in protected)]
    return _spans_from_gaps(text, gaps)


def citation_paragraph(n_spans:int)->tuple:
    "(text, spans): `n_spans` sentences, each with one author-year citation span"
    parts, spans, pos = [], [], 0
    for k in range(n_spans):
        s = f"Method {k} improves results (Smith et al., {k}). "
        spans.append((pos + s.index("("), pos + s.index(")") + 1)); parts.append(s); pos += len(s)
    return "".join(parts), spans


def cpu_seconds(f, *args, repeat:int=1)->tuple:
    "(best CPU seconds over `repeat` runs, the last result)"
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time(); r = f(*args); best = min(best, time.process_time() - t)
    return best, r


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spans", type=int, nargs="+", default=[1000, 10000, 100000], help="citation spans per paragraph")
    ap.add_argument("--old-max", type=int, default=100000, help="run the previous version only up to this many spans")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (the fastest counts); the old version runs once above 10,000 spans")
    a = ap.parse_args()
    print(f"{'spans':>8} {'MB':>6} {'new s':>8} {'old s':>9} {'old/new':>8}")
    for n in a.spans:
        text, spans = citation_paragraph(n)
        t_new, r_new = cpu_seconds(split_sentences, text, spans, repeat=a.repeat)
        assert len(r_new) == n, (len(r_new), n)
        row = f"{n:8,} {len(text) / 1e6:6.2f} {t_new:8.3f}"
        if n <= a.old_max:
            t_old, r_old = cpu_seconds(quadratic_split, text, spans, repeat=a.repeat if n <= 10000 else 1)
            assert r_old == r_new, "the two versions disagree"
            row += f" {t_old:9.3f} {t_old / max(t_new, 1e-9):8.1f}"
        else: row += f" {'skipped':>9} {'':>8}"
        print(row, flush=True)
