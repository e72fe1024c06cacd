"""Parameters: one class per stage, the notebooks' parameters cells written from it, and every params file, experiments
table and run spec planned (checked by name, type and range) through the one loader."""
import json, re
from pathlib import Path

import papermill as pm
import pytest

from citesum_nb.cli import plan_run
from citesum_nb.core import CitesumError
from citesum_nb.params import read_yaml

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT/"params"
NOTEBOOK_FILES = sorted(p for p in PARAMS.glob("*.yaml"))                     # per-notebook profiles
TABLES = sorted((PARAMS/"experiments").glob("*.yaml"))                        # experiments tables
RUN_SPECS = sorted((PARAMS/"runs").glob("*.yaml"))                            # run specs
NOTEBOOKS = sorted((ROOT/"nbs").glob("[0-9]*.ipynb"))


def _sync():
    import sys; sys.path.insert(0, str(ROOT/"tools"))
    import sync_params
    return sync_params


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_parameters_cell_is_written_from_the_stage_class(nb):
    cell = {n: (i, want) for n, i, want in _sync().stage_cells()}[nb]
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
    cases = {"out_dirr: x\n": "03_build: unknown parameter\\(s\\) out_dirr",
             "workers: two\n": "workers must be an integer, got 'two'",
             "use_stemmer: 'false'\n": "use_stemmer must be true or false, got 'false'"}
    for text, msg in cases.items():
        bad = tmp_path/"03_build.typo.yaml"; bad.write_text(text)
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
