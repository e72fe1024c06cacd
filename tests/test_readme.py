"""What the README promises, a test keeps: every command line of README.md and bench/README.md runs here.

The commands run in order in a copy of the checkout, as a user types them. First README command 1's job
(`citesum run params/runs/demo.yaml`) in a clone with no ../shared beside it (a user's clone); then ../shared is put
beside the copy and every other command runs and must exit 0. A command marked `# needs: ...` (a GPU, the Hub, the full
S2ORC release, many minutes of CPU) is checked without running it: `citesum run` plans it (`--dry-run`: every parameter and path checked),
any other command shows its `--help`. A benchmark of `bench/README.md` (`python bench/*.py`) shows its `--help` here; its
figures are measured by running it (`bench/README.md`). A few commands are run by another test, marked
`@documents(command)` (tests/conftest.py). The set-up commands (venv, pip) and the test command are the ones `.ci/run` runs.
"""
import json, os, re, shlex, subprocess, sys, time
from pathlib import Path

import pytest
import yaml

from conftest import DOCUMENTED, ROOT, citesum, need_shared
from figures_shown import unshown_figures
from test_run import noisy_outputs

READMES = ("README.md", "bench/README.md")
SETUP = ("python3 -m venv", "pip install", ". .venv/bin/activate")
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`(citesum [^`]+)`")


def _split_comment(line:str)->tuple:
    "A command line and its trailing comment (`cmd  # comment`); a # inside quotes is part of the command"
    quote = None
    for i, ch in enumerate(line):
        if quote: quote = None if ch == quote else quote
        elif ch in "'\"": quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()): return line[:i].strip(), line[i + 1:].strip()
    return line.strip(), ""


def documented_commands(readme:str)->list:
    "[(command, comment, where)] for every command line of the Markdown file's bash blocks and its inline `citesum ...` spans"
    text, out = (ROOT/readme).read_text(), []
    for block in _BLOCK.findall(text):
        needs = ""   # a comment line `# needs: ...` marks every command after it in its block
        for line in block.replace("\\\n", " ").splitlines():
            cmd, comment = _split_comment(line)
            if not cmd and comment.startswith("needs:"): needs = comment
            if cmd: out.append((cmd, f"{needs}; {comment}" if needs and comment else comment or needs, f"{readme} (block)"))
    for span in _INLINE.findall(_BLOCK.sub("", text)):
        if span not in {c for c, *_ in out}: out.append((span, "", f"{readme} (inline)"))
    return out


def how_to_check(cmd:str, comment:str, where:str="", elsewhere=())->tuple:
    "('run'|'setup'|'tests'|'elsewhere'|'help'|'plan', command to execute or None) for one documented command; `elsewhere`: commands other tests run"
    if cmd in elsewhere: return "elsewhere", None
    if cmd.strip() == "bash tools/test.sh": return "tests", None
    if any(cmd.startswith(s) for s in SETUP): return "setup", None
    words = shlex.split(cmd)
    script = next((w for w in words if w.startswith("bench/") and w.endswith(".py")), None)
    if script: return "help", f"python {script} --help"   # a benchmark, however it is launched (python, torchrun, accelerate)
    if words[0] == "citesum" and (len(words) == 2 and "inline" in where or any(w.isupper() and len(w) > 1 or "<" in w for w in words)):
        return "help", f"citesum {words[1] if len(words) == 2 else ''} --help".replace("  ", " ")   # a name in prose, a placeholder
    if comment.startswith("needs:"):
        if "citesum" not in words: return "needs", None   # e.g. nvidia-smi on a GPU machine: nothing to run here
        i = words.index("citesum")
        sub = words[i:i + 2] + (words[i + 2:i + 3] if words[i + 1] in ("card", "cloze", "human-eval") else [])
        if sub[1] == "run": return "plan", shlex.join(words[i:] + ["--dry-run"])
        return "help", shlex.join(sub + ["--help"])
    return "run", cmd


def _all():
    "Every documented command; a chain `a && b` is its parts (README command 1: set-up parts, then the main job)"
    return [(p.strip(), comment, where) for r in READMES for cmd, comment, where in documented_commands(r) for p in cmd.split(" && ")]


COMMANDS = _all()


def test_the_readme_is_a_front_door():
    "Under 200 lines, the two commands first, every command either runs here or says what it needs"
    readme = (ROOT/"README.md").read_text()
    assert len(readme.splitlines()) <= 150
    first = _BLOCK.findall(readme)[0]
    assert first.index("# 1. set up") < first.index("# 2. run the tests")
    assert {how_to_check(c, m, w)[0] for c, m, w in COMMANDS} <= {"run", "setup", "tests", "elsewhere", "help", "plan", "needs"}


def test_setup_and_test_commands_are_what_ci_runs():
    "The set-up parts of command 1 and command 2 are exactly what .ci/run does (CI installs as the README says)"
    ci = (ROOT/".ci"/"run").read_text().replace(" -q ", " ")   # CI's pip is quiet; otherwise the same command
    for cmd, comment, where in COMMANDS:
        kind, _ = how_to_check(cmd, comment, where)
        if kind == "setup": assert cmd in ci, f"{cmd!r} is in the README but not in .ci/run"
    assert ci.rstrip().splitlines()[-1] == "bash tools/test.sh"
    assert re.search(r'^home="\$HOME/[^"/]* [^"/]*"$', ci, re.M) and 'cd "$home/citesum-nb"' in ci   # in a clone where users keep theirs


def test_commands_run_elsewhere_are_documented():
    "A test that says it runs a README command (`@documents`) names one the READMEs still document"
    documented = {c for c, *_ in COMMANDS}
    stale = {cmd: test for cmd, test in DOCUMENTED.items() if cmd not in documented}
    assert stale == {}, f"marked @documents, but no README documents the command: {stale}"


def _env(clone:Path)->dict:
    "The test's environment for a documented command in the copy: the venv's programs first, the copy's library"
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    return {**env, "PYTHONPATH": str(clone), "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}"}


@pytest.fixture(scope="module")
def clone(demo):
    "The copy of the checkout where README command 1's job ran with no ../shared beside it (the shared demo run)"
    return Path(demo["clone"]), demo


def test_main_job_runs_in_a_clone_without_shared_data(clone):
    "README command 1 on a user's clone: every stage runs, skipped steps say so in one line"
    clone, demo = clone
    run = Path(demo["run"])
    plan = yaml.safe_load((run/"run.yaml").read_text())["steps"]
    for step in plan: assert (run/f"{step['name']}.ipynb").exists(), f"step {step['name']} left no executed notebook"
    log = [json.loads(l) for l in (run/"run_log.jsonl").read_text().splitlines()]
    assert log[-1]["status"] == "ok" and log[-1]["steps_run"] == [s["name"] for s in plan]
    analysis = (run/"04_analysis.ipynb").read_text()
    assert "skipped the SciTLDR rows" in analysis and "allenai/scitldr" in analysis   # one line that says where to get it
    assert (run/"04_analysis"/"figures"/"04_extractiveness.png").exists()
    assert unshown_figures(run) == [], unshown_figures(run)                          # every figure a step saves, its notebook shows
    from citesum_nb.analysis import SAMPLE_NOTE, figure_caption
    figures = [f for f in run.rglob("*.png") if not {"_checks", "html"} & set(f.relative_to(run).parts)]
    unlabelled = [str(f.relative_to(run)) for f in figures if SAMPLE_NOTE not in (figure_caption(f) or "")]
    assert figures and unlabelled == [], unlabelled                                  # drawn from the bundled sample: each says so, no finding
    assert "run folder:" in demo["stdout"] and "03b_build/dataset/report.md" in demo["stdout"]
    assert len((demo["stdout"] + demo["stderr"]).splitlines()) <= 25, demo["stdout"] + demo["stderr"]   # a line per step, where to browse
    left = [str(p.relative_to(run)) for p in run.rglob("tmp*") if re.fullmatch(r"tmp[a-z0-9_]{8}", p.name)]
    assert left == [], left                                                          # no step leaves a temporary folder of its examples behind
    assert "without encryption" not in demo["stdout"] + demo["stderr"]                         # the kernels talk over IPC
    noisy = [x for s in plan for x in noisy_outputs(run/f"{s['name']}.ipynb")]
    assert noisy == [], "\n".join(noisy)                                             # no warning cells, one progress output per cell at most
    index = (run/"index.html").read_text()
    assert "_checks" not in index and "save_figure_check" not in index            # a notebook's own check figures stay out
    assert all(re.search(rf'<td>{re.escape(s["name"])}</td><td>ok</td><td class="num">\d', index) for s in plan)   # every step's duration


def _check(cmd:str, comment:str, where:str, clone:Path, helps:set):
    "One documented command in the copy with ../shared beside it: it runs and exits 0 (or shows its --help, or is planned)"
    kind, run = how_to_check(cmd, comment, where, DOCUMENTED)
    if kind in ("setup", "tests", "elsewhere", "needs") or cmd.startswith("citesum run params/runs/demo.yaml"):
        return   # checked by the tests above, by .ci/run, and by the fixture
    shared = clone.parent/"shared"      # ../shared, as the commands name it
    if "../shared" in run and not shared.exists():
        shared.symlink_to(need_shared("scitldr").parents[1], target_is_directory=True)   # ../shared/data beside the copy
    if kind == "help" and run in helps: return   # the same --help (a benchmark documented with other arguments) was checked
    t = time.time()
    words = shlex.split(run)
    if words[0] == "citesum" and not set(run) & set("|<>;$`&*"):   # a plain command: `citesum_nb.cli.main` in this process, in the copy
        r = citesum(*words[1:], cwd=clone, check=False)
    else:
        r = subprocess.run(run, shell=True, cwd=clone, env=_env(clone), capture_output=True, text=True, timeout=1200)
    print(f"{time.time() - t:6.1f} s  {run}")
    assert r.returncode == 0, f"{where}: `{run}` exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    if kind == "help": assert "usage:" in r.stdout; helps.add(run)


def test_documented_commands(clone, subtests):
    """Every documented command, in the README's order (they build on each other), in the copy after the main job: a line
    each. A command that a collected test runs (`@documents(...)`) is left to it; run alone, this test runs it too."""
    helps = set()
    for cmd, comment, where in COMMANDS:
        with subtests.test(msg=cmd[:100]): _check(cmd, comment, where, clone[0], helps)
