"""What `lean_process` (nbs/15c_entry.ipynb) saves: each case run in a fresh interpreter as Python leaves it, and tuned.

`python bench/bench_startup.py` prints, per case, the median wall and CPU seconds of `--repeat` runs of each, side by side,
and their ratio. The cases load what a command loads (transformers' Trainer, nbformat as papermill does), a command's
`--help`, and with `--train` a whole tiny training (`citesum train --params params/06b_train.small.yaml`, about 20 s)."""
import argparse, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUNE = "from citesum_nb.entry import lean_process; lean_process(); "
CLI = "import sys; from citesum_nb.cli import main; sys.exit(main(sys.argv[1:]))"   # `citesum ARGS`, tuned or not


def cases(train:bool)->list:
    "[(name, argv as Python leaves it, argv tuned)]"
    py = sys.executable
    out = [(f"import: {code}", [py, "-c", code], [py, "-c", TUNE + code])
           for code in ("from transformers import Seq2SeqTrainer", "import nbformat")]
    cli = lambda tuned, *args: [py, "-c", (TUNE if tuned else "") + CLI, *args]
    out.append(("citesum train --help", cli(False, "train", "--help"), cli(True, "train", "--help")))
    if train:
        args = ("train", "--params", str(ROOT/"params"/"06b_train.small.yaml"), "--overwrite", "--out-dir")
        out.append(("citesum train (tiny model, 06b_train.small)", cli(False, *args), cli(True, *args)))
    return out


def measure(argv:list, scratch:Path)->tuple:
    "(wall s, CPU s) of one run of `argv` (its output folder, if it takes one, in `scratch`)"
    argv = [*argv, str(scratch/"out")] if argv[-1] == "--out-dir" else argv
    r0, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wall, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3, help="runs of each case and mode (medians are printed)")
    p.add_argument("--train", action="store_true", help="also a whole tiny training (about 20 s a run)")
    a = p.parse_args(argv)
    env_note = f"load average before: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}" if Path("/proc/loadavg").exists() else ""
    print(f"| case | as Python leaves it: wall s (CPU s) | tuned: wall s (CPU s) | tuned / untuned (wall) |\n| --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as d:
        for name, plain, tuned in cases(a.train):
            runs = {"plain": [], "tuned": []}
            for _ in range(a.repeat):   # alternated, so that a change in the machine's load touches both
                for k, argv in (("plain", plain), ("tuned", tuned)): runs[k].append(measure(argv, Path(d)))
            med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
            print(f"| {name} | {med['plain'][0]:.2f} ({med['plain'][1]:.2f}) | {med['tuned'][0]:.2f} ({med['tuned'][1]:.2f}) | "
                  f"{med['tuned'][0] / med['plain'][0]:.2f} |")
    print(f"\n{a.repeat} runs each, medians; {env_note}")


if __name__ == "__main__":
    main()
