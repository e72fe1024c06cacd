"""Parameters: one class per stage, the notebooks' parameters cells written from it, one name and one type per knob,
every params file, experiments table and run spec planned (checked by name, type and range, every path made absolute)
through the one loader, the YAML reader's refusal of aliases, and the checks on the command line."""
import contextlib, importlib, io, json, re, time, typing
from pathlib import Path
from typing import Literal

import papermill as pm
import pytest

from citesum_nb.core import CitesumError
from citesum_nb.engine import Scheduler
from citesum_nb.params import (PATH, PATH_OR_NAME, FilePath, NestedPaths, PathOrName, StageParams, path_kinds, read_yaml,
                               value_from_text)
from citesum_nb.run import plan_run

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT/"params"
NOTEBOOK_FILES = sorted(p for p in PARAMS.glob("*.yaml"))                     # per-notebook profiles
TABLES = sorted((PARAMS/"experiments").glob("*.yaml"))                        # experiments tables
RUN_SPECS = sorted((PARAMS/"runs").glob("*.yaml"))                            # run specs
NOTEBOOKS = sorted((ROOT/"nbs").glob("[0-9]*.ipynb"))


@pytest.fixture(scope="module")
def stage_cells()->dict:
    "{notebook: (its parameters cell's index, the cell its class writes)}, from the tool that writes them (each class read once)"
    import sys; sys.path.insert(0, str(ROOT/"tools"))
    import sync_params
    return {n: (i, want) for n, i, want in sync_params.stage_cells()}


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_cell_is_written_from_the_stage_class(nb, stage_cells):
    cell = stage_cells[nb]
    assert cell[1] is not None, f"{nb.name}: no StageParams class with notebook = {nb.stem!r}"
    got = "".join(json.loads(nb.read_text())["cells"][cell[0]]["source"])
    assert got == cell[1], f"{nb.name}: the parameters cell differs from its class; run `python tools/sync_params.py`"


def test_there_are_params_files_of_every_kind():
    assert (PARAMS/"runs"/"demo.yaml").exists()
    assert len(NOTEBOOK_FILES) >= 10 and len(TABLES) >= 4 and len(RUN_SPECS) >= 2


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_params_file_plans(path):
    rdir, steps = plan_run(path, root=ROOT)
    assert len(steps) == 1 and steps[0]["notebook"].stem == path.name.split(".")[0]


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_experiments_table_plans_in_every_profile(path):
    spec = read_yaml(path)
    for profile in [None, *spec.get("profiles", {})]:
        rdir, steps = plan_run(path, root=ROOT, profile=profile)
        assert [s["name"] for s in steps][:len(spec["rows"])] == list(spec["rows"])


@pytest.mark.parametrize("path", RUN_SPECS, ids=lambda p: p.name)
def test_run_spec_plans(path):
    rdir, steps = plan_run(path, root=ROOT)
    assert steps and len({s["name"] for s in steps}) == len(steps)


def test_unknown_parameter_wrong_type_and_bad_range_are_errors_before_anything_runs(tmp_path):
    cases = {"out_dirr: x\n": "03b_build: unknown parameter\\(s\\) out_dirr",
             "workers: two\n": "workers must be an integer, got 'two'",
             "use_stemmer: 'false'\n": "use_stemmer must be true or false, got 'false'"}
    for text, msg in cases.items():
        bad = tmp_path/"03b_build.typo.yaml"; bad.write_text(text)
        with pytest.raises(CitesumError, match=msg): plan_run(bad, root=ROOT)


def test_experiment_rows_fail_fast_on_a_bad_path(tmp_path):
    "`citesum transfer --params <table> --row <any row>` stops in a second on a path that is not there, before any data is read"
    from citesum_nb.cli import transfer_cli
    for table in sorted((PARAMS/"experiments").glob("table[6-9].yaml")):
        for rid in read_yaml(table)["rows"]:
            with pytest.raises(CitesumError, match="no such file or folder"):
                transfer_cli(["--params", str(table), "--row", rid, "--set", f"data_dir={tmp_path/'missing'}",
                              "--out-dir", str(tmp_path/rid)])
            assert not (tmp_path/rid).exists()


def test_every_parameter_line_is_understood_by_papermill():
    "papermill silently drops a parameter whose line it cannot parse (e.g. a help comment containing '=')"
    for nb in NOTEBOOKS:
        cells = json.loads(nb.read_text())["cells"]
        cell = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
        assigned = re.findall(r"^(\w+)\s*(?::[^=]+)?=", "".join(cell["source"]), flags=re.M)
        assert list(pm.inspect_notebook(str(nb))) == assigned, f"{nb.name}: papermill does not see every parameter line"


def test_export_cells_never_run_under_papermill():
    "papermill ignores nbdev's flags: only the skip-execution tag keeps it from running nbdev_export() in a user's checkout"
    for nb in sorted((ROOT/"nbs").glob("*.ipynb")):
        for c in json.loads(nb.read_text())["cells"]:
            if c["cell_type"] == "code" and "nbdev_export(" in "".join(c["source"]):
                assert "skip-execution" in c.get("metadata", {}).get("tags", []), f"{nb.name}: nbdev_export cell lacks the skip-execution tag"


# --- one name, one type ---------------------------------------------------------------------------------------------

def stage_classes()->list:
    "Every loaded stage's parameter class (every numbered notebook's `default_exp` module imported first)"
    for nb in NOTEBOOKS:
        m = re.search(r"#\|\s*default_exp:?\s*(\w+)", nb.read_text())
        if m: importlib.import_module(f"citesum_nb.{m.group(1)}")
    todo, seen = [StageParams], []
    while todo:
        c = todo.pop(); seen.append(c); todo += c.__subclasses__()
    return sorted({c for c in seen if c.notebook and not c.__name__.startswith("_")}, key=lambda c: c.notebook)


PRECISION = Literal["auto", "fp32", "bf16", "fp16"]
SHARED = {   # name -> (its one type, its one meaning), for every name that two parameter classes share
    "out_dir": (FilePath, "the folder the stage writes"),
    "fig_dir": (FilePath, "the folder its figures go to"),
    "data_dir": (PathOrName, "the dataset the stage reads: a folder or file our loaders read, or a Hub name"),
    "s2orc_dir": (FilePath, "an S2ORC corpus folder, either layout; empty: the bundled sample"),
    "scitldr_dir": (PathOrName, "SciTLDR-A: a folder or allenai/scitldr; empty: the shared copy when present"),
    "model_name_or_path": (PathOrName, "a seq2seq checkpoint folder or Hub name; empty: a tiny random model"),
    "published": (FilePath, "a published-numbers YAML; empty: the copy shipped in the package"),
    "scheduler": (Scheduler, "the Dask scheduler of the stage (citesum_nb.engine)"),
    "workers": (int, "Dask workers; 0: one per core"),
    "fmt": (Literal["auto", "s2orc-2020", "s2-api"], "the S2ORC layout"),
    "splitter": (Literal["fast", "spacy"], "the sentence splitter"),
    "split_ratios": (list[float], "train/val/test shares"),
    "seed": (int, "the random seed of the stage"),
    "split": (str, "the split the stage reads"),
    "max_examples": (int, "the first N examples; 0: all"),
    "max_train_examples": (int, "the first N training examples; 0: all"),
    "max_test_examples": (int, "the first N test examples; 0: all"),
    "max_words": (int, "words the extractive step keeps"),
    "n_boot": (int, "bootstrap samples"),
    "n_jobs": (int, "ROUGE worker processes; -1: all cores"),
    "overlap_threshold": (float, "TF-IDF cosine from which two sources are near-duplicates"),
    "prompt": (str, "words every generated summary starts with"),
    "experiment": (str, "the experiment id (a row id of an experiments table)"),
    "row": (str, "the row label shown in a results table"),
    "table": (Literal["", "5", "6", "7", "8", "9"], "the paper table of the experiment"),
    "target": (Literal["tldr", "title", "disci", "tldr/title", "tldr/title/disci"], "what the model generates"),
    "tiny_arch": (Literal["bart", "pegasus", "t5"], "the architecture of the tiny random model"),
    "precision": (PRECISION, "the training precision"),
    "lr": (float, "the learning rate"), "batch_size": (int, "examples per batch"), "epochs": (float, "training epochs"),
    "max_steps": (int, "optimisation steps"), "eval_steps": (int, "steps between evaluations"),
    "max_source_length": (int, "input tokens"), "max_target_length": (int, "target tokens"),
    "num_beams": (int | None, "beams at test time; null: the dataset's generation preset"),
    "eval_num_beams": (int, "beams when generating for validation"),
    "min_length": (int | None, "minimum generated tokens; null: the dataset's preset"),
    "max_length": (int | None, "maximum generated tokens; null: the dataset's preset"),
}
DIVERGING = {   # (class, name) -> why it differs; empty: every shared name has its one type
}


def test_a_shared_name_has_one_type():
    "Every name two parameter classes share is in SHARED, and every class types it so (the exceptions are listed, with a reason)"
    seen, found = {}, set()
    for cls in stage_classes():
        for n in cls.names():   # a name inherited from one declaration (e.g. every TrainSettings field) has one home
            home = next(k for k in reversed(cls.__mro__) if n in vars(k).get("__annotations__", {}))
            assert cls.types()[n] == home.types()[n], f"{cls.__name__}.{n} re-declares {home.__name__}.{n} with another type"
            seen.setdefault(n, {})[home.__name__] = cls.types()[n]
    for n, by_cls in seen.items():
        if len(by_cls) < 2: continue
        assert n in SHARED, f"{n} is shared by {sorted(by_cls)}: add it to SHARED with its one type and meaning"
        found |= {(c, n) for c, a in by_cls.items() if a != SHARED[n][0]}
    assert found == set(DIVERGING), f"types that differ from SHARED: {sorted(found - set(DIVERGING))}; fixed: {sorted(set(DIVERGING) - found)}"


def test_every_path_field_has_a_path_type():
    "A field whose name says it is a path (`*_dir`, `*_path`, `*_file`) is a FilePath or a PathOrName, so every run resolves it"
    untyped = [f"{c.__name__}.{n}" for c in stage_classes() for n in c.names()
               if n.endswith(("_dir", "_path", "_file")) and n not in path_kinds(c)]
    assert untyped == []


def _paths_of(step)->list:
    "(parameter, value, kind) of every path a planned step gives its notebook"
    kinds, out = path_kinds(step["cls"]), []
    for k, v in step["parameters"].items():
        kind = kinds.get(k)
        if isinstance(kind, NestedPaths): out += [(f"{k}[{i}].{key}", d[key], PATH_OR_NAME) for i, d in enumerate(v) for key in kind.keys if key in d]
        elif kind: out.append((k, v, kind))
    return out


def _is_name(v:str)->bool: return re.fullmatch(r"[\w.-]+(/[\w.-]+)?(:[\w.-]+)?", v) is not None and not v.startswith(".")   # a Hub id, with a :config


@pytest.mark.parametrize("path", NOTEBOOK_FILES + TABLES + RUN_SPECS, ids=lambda p: p.name)
def test_planning_resolves_every_path_to_an_absolute_one(path):
    "Whatever the notebook's working folder (nbs/), every path a run gives it is absolute; a PathOrName may stay a Hub name"
    spec = read_yaml(path)
    for profile in [None, *(spec.get("profiles") or {})]:
        rdir, steps = plan_run(path, root=ROOT, profile=profile)
        for s in steps:
            for name, v, kind in _paths_of(s):
                ok = v == "" or Path(v).is_absolute() or (kind == PATH_OR_NAME and _is_name(v))
                assert ok, f"{path.name} [{profile}] step {s['name']}: {name}={v!r} is relative"
                if Path(v).is_absolute() and name in ("out_dir", "fig_dir"): assert ROOT in Path(v).parents, (s["name"], name, v)


def test_relative_values_resolve_from_the_project_root_not_nbs(tmp_path):
    "The two files issue 21 names: CL-SciSumm's S2ORC folder is ../shared beside the project, and the cloze build writes into runs/"
    _, (s,) = plan_run(PARAMS/"09a_citation_resolution.clscisumm.yaml", root=ROOT)
    assert s["parameters"]["s2orc_dir"] == str((ROOT/".."/"shared"/"data"/"clscisumm").resolve())
    _, (s,) = plan_run(PARAMS/"10_cloze.full.yaml", root=ROOT)
    assert s["parameters"]["out_dir"] == str(ROOT/"runs"/"10_cloze.full") and s["parameters"]["s2orc_dir"] == str(ROOT/"data"/"s2orc")


# --- YAML: no aliases -----------------------------------------------------------------------------------------------

def _laughs(width:int, depth:int, where:str="top")->str:
    "A 'billion laughs' YAML: `depth` levels of `width` aliases each (width**depth strings once expanded), under `where`"
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"l{d}: &l{d} [" + ", ".join([f"*l{d-1}"] * width) + "]" for d in range(1, depth)]
    body = "\n".join(lines)
    if where == "top": return body + "\n"
    if where == "table": return "notebook: 00_core\nrows:\n  r1: {out_dir: x}\ndefaults:\n" + "\n".join("  " + l for l in lines) + "\n"
    return "steps:\n  - notebook: 00_core\n    parameters:\n" + "\n".join("      " + l for l in lines) + "\n"   # a run spec


ALIAS_CASES = ([(w, d, where) for w in (2, 9, 50) for d in (2, 5, 9, 30) for where in ("top", "table", "spec")] +
               [("merge", 0, "top"), ("scalar", 0, "top"), ("key", 0, "top")])


@pytest.mark.parametrize("case", ALIAS_CASES, ids=lambda c: "-".join(map(str, c)))
def test_yaml_aliases_are_refused_at_once(tmp_path, case):
    "Every alias is refused where the reader meets it: a bomb of any width and depth, a merge key, an aliased scalar or key"
    w, d, where = case
    text = {"merge": "base: &b {lr: 1}\nother:\n  <<: *b\n", "scalar": "a: &x 3\nb: *x\n", "key": "a: &k x\n*k : 3\n"}.get(w) \
           or _laughs(w, d, where)
    f = tmp_path/"03b_build.bomb.yaml"; f.write_text(text)
    t = time.process_time()
    with pytest.raises(CitesumError, match=r"YAML aliases \(\*\w+\) are not accepted"): read_yaml(f)
    with pytest.raises(CitesumError, match="YAML aliases"): plan_run(f, root=ROOT)
    assert time.process_time() - t < 2, "the reader expanded the aliases before refusing them"


def test_a_command_line_value_refuses_aliases_too():
    with pytest.raises(CitesumError, match="YAML aliases"): value_from_text("[&a [1, 2], *a]", list[list[int]], "x")


def test_an_oversized_params_file_is_refused_unread(tmp_path):
    f = tmp_path/"big.yaml"; f.write_text("a: " + "x" * (2**20 + 1) + "\n")
    with pytest.raises(CitesumError, match="a parameter file holds at most"): read_yaml(f)


# --- the checks on the command line ---------------------------------------------------------------------------------

BAD_OPTIONS = [   # (command line, what the one line says): the stage's checks, applied to options and --set alike
    (["build", "--thresholds", "500,20,40"], "three ROUGE-1/2/L recall thresholds between 0 and 100"),
    (["build", "--thresholds", "-1e9"], "three ROUGE-1/2/L recall thresholds between 0 and 100"),
    (["build", "--thresholds", "-1e9,20,40"], "three ROUGE-1/2/L recall thresholds between 0 and 100"),
    (["build", "--thresholds", "nan"], "thresholds[0] must be a number, got nan"),
    (["build", "--thresholds", "inf,20,40"], "thresholds[0] must be a number, got inf"),
    (["build", "--set", "thresholds=[50, 20, .nan]"], "thresholds[2] must be a number, got nan"),
    (["build", "--set", "thresholds=50,20,40,10"], "three ROUGE-1/2/L recall thresholds"),
    (["build", "--split-ratios", "0.5,0.5,0.5"], "sum to 1"),
    (["build", "--workers", "-2"], "workers=-2"),
    (["build", "--scheduler", "spark"], "unknown scheduler 'spark'"),
    (["build", "--set", "scheduler=spark"], "unknown scheduler 'spark'"),
    (["build", "--max-abstract-chars", "two"], "max_abstract_chars must be an integer, got 'two'"),
    (["resolve", "--set", "scheduler=yarn://x"], "unknown scheduler 'yarn://x'"),
    (["cloze", "build", "--scheduler", "spark"], "unknown scheduler 'spark'"),
    (["cloze", "build", "--split-ratios", "nan,0.5,0.5"], "split_ratios[0] must be a number, got nan"),
    (["train", "--lr", "nan"], "lr must be a number, got nan"),
    (["transfer", "--n-test", "-1"], "n_test"),
    (["crosseval", "--overlap-threshold", "7"], "overlap_threshold=7.0"),
    (["summarize", "--num-beams", "0", "x"], "num_beams=0"),
]


@pytest.mark.parametrize("argv,msg", BAD_OPTIONS, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_bad_values_on_the_command_line_are_one_line_errors(tmp_path, monkeypatch, argv, msg):
    "Checked before any work: exit status 2, one line on stderr, nothing written"
    from citesum_nb.cli import main
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try: rc = main(argv)
        except SystemExit as e: rc = e.code
    assert rc == 2 and msg in err.getvalue() and err.getvalue().count("\n") == 1, err.getvalue()
    assert list(tmp_path.iterdir()) == []


def test_defaults_go_under_runs_of_the_current_folder(tmp_path, monkeypatch):
    "No params and no --out: the notebook's ../runs/demo/<stem> is read from the current folder, which the command names"
    from citesum_nb.cli import main
    work = tmp_path/"W"; work.mkdir(); monkeypatch.chdir(work)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()): assert main(["cloze", "build"]) == 0
    assert (work/"runs"/"demo"/"10_cloze"/"dataset"/"test.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["W"]
    assert f"writing under {work/'runs'/'demo'/'10_cloze'/'dataset'}" in err.getvalue()


def test_notebook_defaults_write_inside_the_project_wherever_the_kernel_runs(tmp_path, monkeypatch):
    "papermill from the project root (or from outside it): every notebook's relative path default lands in the project's runs/"
    import citesum_nb.params as params_mod
    for nb in NOTEBOOKS:
        m = re.search(r"#\|\s*default_exp:?\s*(\w+)", nb.read_text())
        if m: importlib.import_module(f"citesum_nb.{m.group(1)}")
    classes = [c for c in (params_mod.stage_params(nb.stem) for nb in NOTEBOOKS) if c is not None]
    checked = 0
    for where in (ROOT, tmp_path):            # the project root; a folder outside any project (the library's project then)
        monkeypatch.chdir(where)
        for cls in classes:
            ns = cls().to_dict()
            p = cls.from_globals(ns)
            for name, kind in path_kinds(cls).items():
                v = getattr(cls(), name)
                if kind != PATH or not isinstance(v, str) or not v.startswith(".."): continue
                assert ns[name] == getattr(p, name) == str((ROOT/"nbs"/v).resolve()), (cls.notebook, name, where)
                assert Path(ns[name]).is_relative_to(ROOT/"runs"), (cls.notebook, name, ns[name])
                checked += 1
    assert checked >= 2 * len(classes)
    monkeypatch.chdir(ROOT/"nbs")             # nbdev-test and citesum run: as written
    for cls in classes:
        ns = cls().to_dict(); cls.from_globals(ns)
        assert ns == cls().to_dict(), cls.notebook
    monkeypatch.chdir(ROOT)                   # a value papermill injected is the user's, read from where they ran it
    ns = {"out_dir": "runs/mine"}
    assert params_mod.CoreParams.from_globals(ns).out_dir == "runs/mine" and ns == {"out_dir": "runs/mine"}
