"""No command destroys or mixes into existing work: every command that writes, against every kind of output that is not
its own to take (a user's file, a user's folder, one of its inputs, a folder holding one, symbolic links to them, a
dangling link, another command's output, its own previous output with and without --overwrite). Commands run in this
process (`citesum_nb.cli.main`); the heavy ones have their work replaced by a tripwire, so a refusal is shown to come
before any work. The instances are generated from the tables below."""
import contextlib, functools, hashlib, io, json, os, re, shutil, stat, subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = ".citesum-output.json"


class WorkStarted(Exception):
    "The command started its expensive work"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    "A small built dataset, a predictions file, a summary-cloze dataset and an abstracts file (copied into each test's folder)"
    from citesum_nb.build import build_sample_dataset
    from citesum_nb.cloze import ClozeParams, build_cloze
    d = tmp_path_factory.mktemp("inputs")
    build = build_sample_dataset(d/"s").rename(d/"b")
    build_cloze(ClozeParams(scheduler="synchronous"), d/"cloze")
    n = sum(1 for _ in open(build/"test.jsonl"))
    (d/"pred.txt").write_text("".join("a prediction\n" for _ in range(n)))
    (d/"abstracts.txt").write_text("We study the transfer of samples.\n")
    (d/"model").mkdir(); (d/"model"/"config.json").write_text("{}")
    return d


def main(*args):
    "(exit status, stdout, stderr) of `citesum ARGS` run in this process"
    from citesum_nb.cli import main as cli_main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try: rc = cli_main([str(a) for a in args])
        except SystemExit as e: rc = e.code
    return rc, out.getvalue(), err.getvalue()


def snapshot(folder:Path)->dict:
    "Every path under `folder`: file bytes' digest, link target, or 'dir'"
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = Path(dirpath)/n; rel = str(p.relative_to(folder))
            if p.is_symlink(): out[rel] = "link:" + os.readlink(p)
            elif p.is_dir(): out[rel] = "dir"
            else: out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def trip(monkeypatch, target:str):
    "Replace `module.attr` by a tripwire: the command's expensive work"
    mod, attr = target.rsplit(".", 1)
    m = __import__(mod, fromlist=[attr])
    @functools.wraps(getattr(m, attr))   # the original's signature and docments: a parser may read its options from them
    def tripwire(*a, **k): raise WorkStarted(target)
    monkeypatch.setattr(m, attr, tripwire)


# --- the commands ---------------------------------------------------------------------------------------------------
# kind: what --out is; args(out, box): the command line; inputs: names under `box` the command reads, the first used as
# "the output is an input"; work: the function a refusal must come before; runs: cheap enough to run for real

COMMANDS = {
    "build": dict(kind="folder", args=lambda o, b: ["build", "--s2orc", b/"corpus", "--out", o, "--scheduler", "synchronous", "--quiet"],
                  inputs=["corpus"], work="citesum_nb.build.run_passes", runs=True),
    "cloze build": dict(kind="folder", args=lambda o, b: ["cloze", "build", "--s2orc", b/"corpus", "--out", o, "--scheduler", "synchronous"],
                        inputs=["corpus"], work="citesum_nb.cloze.build_instances", runs=True),
    "resolve": dict(kind="folder", args=lambda o, b: ["resolve", "--s2orc", b/"corpus", "--out", o, "--quiet"], inputs=["corpus"],
                    work="citesum_nb.resolve.gather_corpus", runs=False),   # seconds of work: refusals only
    "tiny-model": dict(kind="folder", args=lambda o, b: ["tiny-model", "--data", b/"b", "--out", o], inputs=["b"],
                       work="citesum_nb.models.make_tiny_model", runs=False),
    "train": dict(kind="folder", args=lambda o, b: ["train", "--data-dir", b/"b", "--out-dir", o], inputs=["b"],
                  work="citesum_nb.train.train_cites", runs=False),
    "crosseval": dict(kind="folder", args=lambda o, b: ["crosseval", "--out-dir", o], inputs=[],
                      work="citesum_nb.crosseval.run_crosseval", runs=False),
    "docs": dict(kind="folder", args=lambda o, b: ["docs", "--out", o, "--nbs", b/"nbs", "--workers", "0"], inputs=["nbs"],
                 work="fastcore.parallel.parallel", runs=False),
    "human-eval sample": dict(kind="folder", args=lambda o, b: ["human-eval", "sample", "--data", b/"b", "--out", o, "-n", "3"],
                              inputs=["b"], work="citesum_nb.analysis.sample_for_rating", runs=True),
    "summarize": dict(kind="file", args=lambda o, b: ["summarize", "--model", b/"model", "--file", b/"abstracts.txt", "--out", o],
                      inputs=["abstracts.txt", "model"], work="citesum_nb.summarize.load_summarizer", runs=False),
    "eval": dict(kind="file", args=lambda o, b: ["eval", "--pred", b/"pred.txt", "--data", b/"b", "--per-example", o],
                 inputs=["pred.txt", "b"], work="citesum_nb.metrics.per_example_rouge", runs=True),
    "bias": dict(kind="file", args=lambda o, b: ["bias", "--data", b/"b", "--out", o, "--json"], inputs=["b"],
                 work="citesum_nb.bias.dataset_bias", runs=False),
    "baseline": dict(kind="file", args=lambda o, b: ["baseline", "lead", "--data", b/"b", "--out", o, "--json"], inputs=["b"],
                     work="citesum_nb.evaluate.baseline_predictions", runs=True),
    "overlap": dict(kind="file", args=lambda o, b: ["overlap", "--a", b/"b", "--b", b/"b", "--out", o, "--json"], inputs=["b"],
                    work="citesum_nb.evaluate.overlap_report", runs=True),
    "cloze baseline": dict(kind="file", args=lambda o, b: ["cloze", "baseline", "lead1", "--data", b/"cloze", "--out", o, "--json"],
                           inputs=["cloze"], work="citesum_nb.cloze_baselines.score_baseline", runs=True),
}
FOLDER_CMDS = [c for c, s in COMMANDS.items() if s["kind"] == "folder"]
FILE_CMDS = [c for c, s in COMMANDS.items() if s["kind"] == "file"]


def sandbox(tmp_path:Path, inputs:Path)->Path:
    "The test's folder: copies of the inputs (a command that destroys one destroys only its copy)"
    box = tmp_path/"box"; box.mkdir()
    shutil.copytree(inputs/"b", box/"b"); shutil.copytree(inputs/"cloze", box/"cloze"); shutil.copytree(inputs/"model", box/"model")
    for f in ("pred.txt", "abstracts.txt"): shutil.copy(inputs/f, box/f)
    from citesum_nb.core import sample_corpus_dir
    shutil.copytree(sample_corpus_dir(), box/"corpus")
    (box/"nbs").symlink_to(ROOT/"nbs")   # the project's notebooks, read by citesum docs
    return box


def user_folder(p:Path)->Path:
    "A folder of the user's own whose names a build also writes: README.md and report.json"
    p.mkdir(parents=True)
    (p/"README.md").write_text("# my project\n"); (p/"report.json").write_text('{"mine": true}\n')
    return p


def marked(p:Path, command:str, names=("report.json", "train.jsonl"))->Path:
    "A previous output of `command`: its files and the marker that lists them"
    p.mkdir(parents=True)
    for n in names: (p/n).write_text(f"written by {command}\n")
    (p/MARKER).write_text(json.dumps({"command": command, "files": sorted(names)}))
    return p


REASONS = re.compile(r"did not write|holds|is the input|exists|not a folder|is a folder|--overwrite|symbolic link|not a card|not a run index")


def refused(rc, err, box, before, what=""):
    "A one-line refusal that names why (not a usage error) and changed nothing in the sandbox"
    assert rc not in (0, None), f"{what}: exit {rc}, expected a refusal; stderr: {err[-500:]}"
    lines = [l for l in err.splitlines() if l.strip() and "warning" not in l]
    assert lines and lines[-1].startswith("citesum ") and "Traceback" not in err, f"{what}: not one line: {err[-800:]}"
    assert REASONS.search(lines[-1]) and "unrecognized arguments" not in lines[-1], f"{what}: not a refusal of the output: {lines[-1]}"
    after = snapshot(box)
    assert after == before, f"{what}: changed {sorted(set(after.items()) ^ set(before.items()))[:6]}"


# --- instances, by class --------------------------------------------------------------------------------------------

def _setup(case:str, cmd:str, box:Path):
    "(the --out path, extra options) of one instance class"
    spec, out = COMMANDS[cmd], box/"out"
    if case == "user_file": out.write_text("my own notes\n"); return out, ["--overwrite"] if spec["kind"] == "folder" else []
    if case == "user_folder": user_folder(out); return out, ["--overwrite"]
    if case == "is_input": return box/spec["inputs"][0], ["--overwrite"]
    if case == "holds_input": return box, ["--overwrite"]
    if case == "link_to_user_folder": user_folder(box/"mine"); out.symlink_to(box/"mine"); return out, ["--overwrite"]
    if case == "link_to_input": out.symlink_to(box/spec["inputs"][0]); return out, ["--overwrite"]
    if case == "other_output": shutil.copytree(box/("cloze" if cmd == "build" else "b"), out); return out, ["--overwrite"]   # a real one
    if case == "own_output": marked(out, cmd); return out, []
    if case == "own_output_plus_user_file": marked(out, cmd); (out/"notes.md").write_text("mine\n"); return out, ["--overwrite"]
    raise KeyError(case)


FOLDER_CASES = ["user_file", "user_folder", "is_input", "holds_input", "link_to_user_folder", "link_to_input", "other_output",
                "own_output", "own_output_plus_user_file"]
FILE_CASES = ["user_file", "is_input", "link_to_input"]
NOT_APPLICABLE = {("crosseval", c) for c in ("is_input", "link_to_input")}   # its inputs are datasets named in a params file
# refused by build's own check before the shared claim existed (a file, files it does not write, its marker-less previous build)
HELD_BEFORE = {("build", c) for c in ("user_file", "is_input", "holds_input", "link_to_input", "own_output", "own_output_plus_user_file")}
REUSED = {"train"}   # a previous run of these is continued (a finished one needs --overwrite, tested below)
INSTANCES = [(cmd, case) for cmd in FOLDER_CMDS for case in FOLDER_CASES
             if (cmd, case) not in NOT_APPLICABLE | HELD_BEFORE and not (cmd in REUSED and case == "own_output")] + \
            [(cmd, case) for cmd in FILE_CMDS for case in FILE_CASES]


@pytest.mark.parametrize("cmd,case", INSTANCES, ids=[f"{c}-{k}" for c, k in INSTANCES])
def test_refused_before_any_work(cmd, case, inputs, tmp_path, monkeypatch):
    "Every output that is not the command's to take is refused in one line, before the work starts, and nothing changes"
    box = sandbox(tmp_path, inputs)
    out, extra = _setup(case, cmd, box)
    trip(monkeypatch, COMMANDS[cmd]["work"])
    before = snapshot(box)
    for opts in ([], extra) if extra else ([],):   # as a user types it today, and with --overwrite where the case allows it
        try: rc, _, err = main(*COMMANDS[cmd]["args"](out, box), *opts)
        except WorkStarted: pytest.fail(f"{cmd} {case} {opts}: the work started before the output was refused")
        refused(rc, err, box, before, f"{cmd} {case} {opts}")


# --- the command's own previous output --------------------------------------------------------------------------------

RUNNABLE_FOLDERS = [c for c in FOLDER_CMDS if COMMANDS[c]["runs"]]
RUNNABLE_FILES = [c for c in FILE_CMDS if COMMANDS[c]["runs"]]


@pytest.mark.parametrize("cmd", RUNNABLE_FOLDERS + RUNNABLE_FILES)
def test_own_output_needs_overwrite_then_replaced(cmd, inputs, tmp_path):
    "A command's own previous output: refused without --overwrite, replaced with it; the folder is marked as the command's"
    box = sandbox(tmp_path, inputs); spec = COMMANDS[cmd]
    out = box/("out.csv" if spec["kind"] == "file" else "out")
    rc, _, err = main(*spec["args"](out, box)); assert rc == 0, err
    before = snapshot(box)
    rc, _, err = main(*spec["args"](out, box)); refused(rc, err, box, before, f"{cmd} again")
    assert "--overwrite" in err
    rc, _, err = main(*spec["args"](out, box), "--overwrite"); assert rc == 0, err
    if spec["kind"] == "folder": assert json.loads((out/MARKER).read_text())["command"] == cmd
    assert not [p.name for p in box.iterdir() if p.name.startswith(".")], "a temporary file or folder was left beside the output"


@pytest.mark.parametrize("cmd", RUNNABLE_FOLDERS)
def test_dangling_link_is_followed_and_kept(cmd, inputs, tmp_path):
    "A symbolic link to a place that does not exist yet: the output is written there and the link stays a link"
    box = sandbox(tmp_path, inputs); spec = COMMANDS[cmd]
    target = box/"elsewhere"/("real.csv" if spec["kind"] == "file" else "real")
    (box/"elsewhere").mkdir(); (box/"out").symlink_to(target)
    rc, _, err = main(*spec["args"](box/"out", box)); assert rc == 0, err
    assert (box/"out").is_symlink() and os.readlink(box/"out") == str(target)
    assert target.is_dir() if spec["kind"] == "folder" else target.is_file()


@pytest.mark.parametrize("cmd", RUNNABLE_FOLDERS)
def test_link_to_empty_folder_is_filled(cmd, inputs, tmp_path):
    "A symbolic link to an empty folder: the output goes into that folder, the link stays, nothing is left beside it"
    box = sandbox(tmp_path, inputs); spec = COMMANDS[cmd]
    (box/"empty").mkdir(); (box/"out").symlink_to(box/"empty")
    rc, _, err = main(*spec["args"](box/"out", box)); assert rc == 0, err
    assert (box/"out").is_symlink() and (box/"empty"/MARKER).is_file()
    assert not [p.name for p in box.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o027, 0o007])
def test_build_folders_follow_the_umask(umask, inputs, tmp_path):
    "A build folder and its files get the modes the user's umask gives (never drwx------ from mkdtemp)"
    box = sandbox(tmp_path, inputs)
    old = os.umask(umask)
    try: rc, _, err = main(*COMMANDS["build"]["args"](box/"out", box))
    finally: os.umask(old)
    assert rc == 0, err
    assert stat.S_IMODE((box/"out").stat().st_mode) == 0o777 & ~umask
    assert stat.S_IMODE((box/"out"/"train.jsonl").stat().st_mode) == 0o666 & ~umask


# --- commands with their own rules ------------------------------------------------------------------------------------

def test_train_finished_run_needs_overwrite(inputs, tmp_path, monkeypatch):
    "A finished run of citesum train (metrics.json, best/) is never trained over without --overwrite"
    box = sandbox(tmp_path, inputs); run = box/"run"
    run.mkdir(); (run/"best").mkdir(); (run/"best"/"model.safetensors").write_text("trained weights")
    (run/"metrics.json").write_text("{}")
    (run/MARKER).write_text(json.dumps({"command": "train", "files": ["best/model.safetensors", "metrics.json"]}))
    trip(monkeypatch, COMMANDS["train"]["work"]); before = snapshot(box)
    try: rc, _, err = main(*COMMANDS["train"]["args"](run, box))
    except WorkStarted: pytest.fail("training started over a finished run")
    refused(rc, err, box, before, "train over a finished run")


def test_tiny_model_never_replaces_a_trained_model(inputs, tmp_path, monkeypatch):
    "tiny-model --out a training run's best/ (random weights over trained ones) is refused, --overwrite or not"
    box = sandbox(tmp_path, inputs); best = box/"run"/"best"; best.mkdir(parents=True)
    (best/"model.safetensors").write_text("trained weights"); (best/"README.md").write_text("card")
    (box/"run"/MARKER).write_text(json.dumps({"command": "train", "files": ["best/README.md", "best/model.safetensors"]}))
    trip(monkeypatch, COMMANDS["tiny-model"]["work"]); before = snapshot(box)
    rc, _, err = main(*COMMANDS["tiny-model"]["args"](best, box), "--overwrite")
    refused(rc, err, box, before, "tiny-model over best/")


def test_run_dir_of_someone_else_is_refused(inputs, tmp_path, monkeypatch):
    "citesum run --run-dir a user's folder (same-named files: run.yaml) is refused before the first step; its own folder is reused"
    box = sandbox(tmp_path, inputs)
    mine = box/"mine"; mine.mkdir(); (mine/"run.yaml").write_text("my notes\n"); (mine/"00_core.ipynb").write_text("{}")
    trip(monkeypatch, "citesum_nb.run._execute_step"); before = snapshot(box)
    try: rc, _, err = main("run", ROOT/"params"/"runs"/"demo.yaml", "--run-dir", mine)
    except WorkStarted: pytest.fail("a step ran in someone else's folder")
    refused(rc, err, box, before, "run --run-dir a user's folder")


def test_init_never_writes_through_a_link(tmp_path):
    "citesum init: a dangling link where a notebook goes would write outside the folder; refused, nothing written"
    proj = tmp_path/"proj"; (proj/"nbs").mkdir(parents=True)
    (proj/"nbs"/"00_core.ipynb").symlink_to(tmp_path/"outside.ipynb")
    rc, _, err = main("init", proj, "--overwrite")
    assert rc != 0 and not (tmp_path/"outside.ipynb").exists() and "symbolic link" in err


def test_init_into_the_project_itself_is_refused(tmp_path, monkeypatch):
    "citesum init DIR where DIR holds the project's own notebooks (the installed copy) is refused: nothing is copied onto itself"
    proj = tmp_path/"proj"; (proj/"nbs").mkdir(parents=True); (proj/"params").mkdir()
    (proj/"nbs"/"00_core.ipynb").write_text("{}"); (proj/"params"/"demo.yaml").write_text("a: 1\n")
    import citesum_nb.project
    monkeypatch.setattr(citesum_nb.project, "project_files", lambda: proj)   # a copy stands for the package's own files
    before = snapshot(tmp_path)
    for target in (proj, proj/"nbs"):
        rc, _, err = main("init", target, "--overwrite")
        refused(rc, err, tmp_path, before, f"init {target.name}")


def test_human_eval_never_replaces_a_filled_sheet(inputs, tmp_path):
    "human-eval sample --overwrite replaces blank sheets it wrote, never one that holds ratings"
    import pandas as pd
    box = sandbox(tmp_path, inputs); out = box/"sheets"
    assert main("human-eval", "sample", "--data", box/"b", "--out", out, "-n", "3")[0] == 0
    f = out/"rating_sheet_annotator1.csv"; df = pd.read_csv(f); df.loc[0, "rating"] = 4; df.to_csv(f, index=False)
    before = snapshot(box)
    rc, _, err = main("human-eval", "sample", "--data", box/"b", "--out", out, "-n", "3", "--overwrite")
    refused(rc, err, box, before, "human-eval over a filled sheet")


def test_card_never_takes_a_users_readme(inputs, tmp_path):
    "citesum card dataset DIR where DIR/README.md is the user's own (no marker lists it): refused, the README kept"
    box = sandbox(tmp_path, inputs); d = box/"b"
    (d/MARKER).unlink(missing_ok=True); (d/"README.md").write_text("# my notes\n")
    before = snapshot(box)
    rc, _, err = main("card", "dataset", d)
    refused(rc, err, box, before, "card over a user's README")


# --- --workers ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scheduler,extra", [(s, k) for s in ("threads", "processes") for k in (1, 10, 1000)])
def test_workers_capped_at_the_cores(scheduler, extra, capsys):
    "A stage asking for more workers than the machine has gets its cores, with a one-line warning"
    from citesum_nb.core import available_cores
    from citesum_nb.engine import Engine
    n = available_cores()
    with Engine(scheduler, n + extra, progress=False) as eng: assert eng.n_workers == n and eng.workers == n
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--workers {n + extra}" in err and f"using {n}" in err


# --- no user-given name becomes code (the cards) -------------------------------------------------------------------------

HOSTILE = ["x\n```\n<img src=x onerror=alert(1)>\n```", "it's \"quoted\"", "two\nlines\n# heading", "\\\"; touch pwned; echo \"",
           "~~~\n<script>alert(1)</script>", 'x") or __import__("os").system("id") #', "line\n```bash\nrm -rf ~\n```",
           # these three break only the model card's unquoted "how to use" (the dataset card quoted them for the shell already)
           "$(touch pwned)`touch pwned`", "<img src=x onerror=alert(1)>", "x'); import os; os.system('id') #"]
DATASET_HOSTILE = HOSTILE[:7]


def _card_tokens(md:str):
    "(structure, fenced blocks) of a card rendered as the Hub and GitHub do (CommonMark, raw HTML on)"
    import re as _re
    from markdown_it import MarkdownIt
    md = _re.sub(r"\A---\n.*?\n---\n", "", md, flags=_re.S)
    toks, struct, fences = MarkdownIt("commonmark", {"html": True}).parse(md), [], []
    def walk(ts):
        for t in ts:
            if t.type not in ("text", "softbreak"): struct.append((t.type, t.tag))
            if t.type == "fence": fences.append((t.info.strip(), t.content))
            if t.children: walk(t.children)
    walk(toks)
    return struct, fences


def _runs_nothing(fences, name:str):
    "Each bash block is one command whose arguments hold `name` whole; each Python block parses and calls nothing dangerous"
    import ast, shlex
    for lang, code in fences:
        if lang == "bash":   # read as bash reads it ($'...' quoting of control characters included), printing the words only
            assert code.startswith("citesum "), code
            words = subprocess.run(["bash", "-c", "printf '%s\\0' " + code[len("citesum "):]], capture_output=True, check=True).stdout
            args = ["citesum", *words.decode().split("\0")[:-1]]
            assert args[0] == "citesum" and any(name in a for a in args), (name, code)
            assert not any(ch in a for a in args[2:] for ch in ";|&") or any(name in a for a in args), code
        if lang == "python":
            tree = ast.parse(code)
            strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            assert any(name in s for s in strings), (name, code)
            assert not [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in ("system", "popen")], code
            assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import) and any(a.name == "os" for a in n.names)], code


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory):
    "What a model card reads of a training run: best/config.json, metrics.json, params_used.yaml"
    d = tmp_path_factory.mktemp("runs")/"run"
    (d/"best").mkdir(parents=True); (d/"best"/"config.json").write_text(json.dumps({"citesum_not_pretrained": True, "model_type": "bart"}))
    (d/"metrics.json").write_text(json.dumps({"predict_rouge": {"rouge1": 1.0, "rouge2": 0.5, "rougeL": 0.8}, "model": "x"}))
    (d/"params_used.yaml").write_text("data_dir: ''\n")
    return d


@pytest.mark.parametrize("name", DATASET_HOSTILE, ids=range(len(DATASET_HOSTILE)))
def test_dataset_card_quotes_every_name(name, inputs, tmp_path):
    "A hostile build-folder name, --s2orc folder and --license: the card has the structure of a plain one, its code runs nothing"
    from citesum_nb.cards import dataset_card_data, dataset_card_text
    plain, evil = tmp_path/"plain", tmp_path/name.replace("/", "_")
    for d in (plain, evil): shutil.copytree(inputs/"b", d)
    render = lambda d, v: dataset_card_text(d, dataset_card_data(d, license="cc-by-4.0"), ["--s2orc", f"/data/{v}", "--out", str(d), "--license", v])
    s0, _ = _card_tokens(render(plain, "plain"))
    s1, fences = _card_tokens(render(evil, name))
    assert s1 == s0 and not [t for t in s1 if t[0].startswith("html")]
    from citesum_nb.cards import public_arg
    _runs_nothing([f for f in fences if f[0] == "bash"], public_arg(name))   # as the card shows a value: a path by its last part
    _runs_nothing([f for f in fences if f[0] == "python"], evil.name)


@pytest.mark.parametrize("name", HOSTILE, ids=range(len(HOSTILE)))
def test_model_card_quotes_every_name(name, fake_run, tmp_path):
    "A hostile run-folder name, and a hostile --push-to-hub name: 'how to use' stays two code blocks that run nothing else"
    from citesum_nb.cards import model_card_data, model_card_text
    evil = tmp_path/name.replace("/", "_"); shutil.copytree(fake_run, evil)
    s0, _ = _card_tokens(model_card_text(fake_run, model_card_data(fake_run)))
    for run, hub in ((evil, None), (fake_run, name)):
        s1, fences = _card_tokens(model_card_text(run, model_card_data(run), hub))
        assert s1 == s0 and not [t for t in s1 if t[0].startswith("html")], (run.name, hub)
        _runs_nothing([f for f in fences if f[0] in ("bash", "python")], hub or evil.name)


@pytest.mark.parametrize("ext", ["png", "pdf"])
def test_crosseval_heatmap_never_replaces_a_file(ext, tmp_path):
    "crosseval --matrix M --out DIR where DIR already holds a figure of that name: refused without --overwrite"
    m = tmp_path/"m.csv"; m.write_text("train,A,B\nA,50,40\nB,30,60\n")
    figs = tmp_path/"figs"; figs.mkdir(); (figs/f"m_matrix.{ext}").write_text("my figure")
    before = snapshot(tmp_path)
    rc, _, err = main("crosseval", "--matrix", m, "--out", figs)
    refused(rc, err, tmp_path, before, f"crosseval heatmap over m_matrix.{ext}")
