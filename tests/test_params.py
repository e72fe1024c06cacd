"Every parameter file names only parameters that its notebook declares (papermill would silently ignore a typo)."
from pathlib import Path

import papermill as pm
import pytest
import yaml

from citesum_nb.cli import plan_run
from citesum_nb.core import CitesumError

ROOT = Path(__file__).resolve().parents[1]
PARAM_FILES = sorted(p for p in (ROOT/"params").glob("*.yaml"))


def test_there_are_parameter_files():
    assert (ROOT/"params"/"demo.yaml").exists()
    assert len(PARAM_FILES) >= 3


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: p.name)
def test_parameter_file_matches_notebook(path):
    spec = yaml.safe_load(path.read_text())
    rdir, steps = plan_run(path, root=ROOT)          # raises CitesumError on an unknown parameter
    assert steps, f"{path.name} has no steps"
    for st in steps:
        declared = pm.inspect_notebook(str(st["notebook"]))
        assert set(st["parameters"]) <= set(declared)


def test_unknown_parameter_is_an_error(tmp_path):
    bad = tmp_path/"03_build.typo.yaml"
    bad.write_text("out_dirr: x\n")
    with pytest.raises(CitesumError, match="03_build: unknown parameter"):
        plan_run(bad, root=ROOT)


def test_every_notebook_has_a_tagged_parameters_cell():
    for nb in sorted((ROOT/"nbs").glob("[0-9]*.ipynb")):
        assert pm.inspect_notebook(str(nb)), f"{nb.name} has no cell tagged 'parameters'"


def test_every_parameter_line_is_understood_by_papermill():
    "papermill silently drops a parameter whose line it cannot parse (e.g. a help comment containing '=')"
    import json, re
    for nb in sorted((ROOT/"nbs").glob("[0-9]*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        cell = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
        src = "".join(cell["source"])
        assigned = re.findall(r"^(\w+)\s*(?::[^=]+)?=", src, flags=re.M)
        assert list(pm.inspect_notebook(str(nb))) == assigned, f"{nb.name}: papermill does not see every parameter line"


def test_export_cells_never_run_under_papermill():
    "papermill ignores nbdev's flags: only the skip-execution tag keeps it from running nbdev_export() in a user's checkout"
    import json
    for nb in sorted((ROOT/"nbs").glob("*.ipynb")):
        for c in json.loads(nb.read_text())["cells"]:
            if c["cell_type"] == "code" and "nbdev_export(" in "".join(c["source"]):
                assert "skip-execution" in c.get("metadata", {}).get("tags", []), f"{nb.name}: nbdev_export cell lacks the skip-execution tag"
