"""Run a command and print its wall time and the CPU seconds (user + sys) of its whole process tree.

`python tools/cpu_seconds.py bash tools/test.sh` gives the two figures the test suite's goal is stated in. The tree's CPU
time is read from a cgroup made for the command (cgroup v1 `cpuacct` or v2 `cpu.stat`), so processes that outlive their
parent (kernels, Dask workers) are counted; without a writable cgroup it falls back to the children's rusage."""
import os, resource, subprocess, sys, time, uuid
from pathlib import Path


def _cgroup():
    "A new cgroup for the command and a function that reads its CPU seconds; (None, None) when none can be made"
    name = f"cpu_seconds_{uuid.uuid4().hex[:8]}"
    for base, read in ((Path("/sys/fs/cgroup/cpuacct"), lambda d: int((d/"cpuacct.usage").read_text()) / 1e9),
                       (Path("/sys/fs/cgroup"), lambda d: int(dict(l.split() for l in (d/"cpu.stat").read_text().splitlines())["usage_usec"]) / 1e6)):
        try:
            d = base/name; d.mkdir(); read(d)
            return d, read
        except (OSError, KeyError, ValueError): continue
    return None, None


def main(argv:list)->int:
    if not argv: print(__doc__.strip().splitlines()[0]); return 2
    cg, read = _cgroup()
    pre = (lambda: (cg/"cgroup.procs").write_text(str(os.getpid()))) if cg else None
    t0, r0 = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.call(argv, preexec_fn=pre)
    wall, r1 = time.time() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = read(cg) if cg else (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    print(f"[cpu_seconds] exit {rc}: {wall:.0f} s wall, {cpu:.0f} s CPU ({'cgroup' if cg else 'rusage of children'}); load average {load}", file=sys.stderr)
    if cg:
        try: cg.rmdir()
        except OSError: pass
    return rc


if __name__ == "__main__": sys.exit(main(sys.argv[1:]))
