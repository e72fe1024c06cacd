#!/usr/bin/env python
"""Write every notebook's tagged `parameters` cell from its stage's parameter class (citesum_nb.params.parameters_cell).

A stage states its parameters once, in a `StageParams` dataclass; after adding or changing a field, run
`python tools/sync_params.py` (then `nbdev-clean`). `tests/test_params.py` fails while a cell and its class disagree.
Usage: python tools/sync_params.py [--check]
"""
import importlib, json, re, sys
from pathlib import Path

from fastcore.script import call_parse

ROOT = Path(__file__).resolve().parents[1]


def stage_cells():
    "(notebook path, its parameters cell index, the cell text its class writes) for every numbered notebook"
    from citesum_nb.params import parameters_cell, stage_params
    for nb in sorted((ROOT/"nbs").glob("[0-9]*.ipynb")):
        text = nb.read_text()
        cls = stage_params(nb.stem)   # a class an earlier module defined (06b's is in train_settings): its notebook's module is not imported
        m = re.search(r"#\|\s*default_exp:?\s*(\w+)", text)
        if cls is None and m: importlib.import_module(f"citesum_nb.{m.group(1)}"); cls = stage_params(nb.stem)
        cells = json.loads(text)["cells"]
        i = next((k for k, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", [])), None)
        yield nb, i, (parameters_cell(cls) if cls else None)


def main(check:bool=False,  # only list the notebooks whose cell differs (exit 1 if any)
        )->int:
    "Write every notebook's tagged `parameters` cell from its stage's parameter class"
    stale = []
    for nb, i, want in stage_cells():
        if want is None or i is None: print(f"{nb.name}: no parameter class or no parameters cell", file=sys.stderr); stale.append(nb); continue
        d = json.loads(nb.read_text()); cell = d["cells"][i]
        if "".join(cell["source"]) == want: continue
        stale.append(nb)
        if not check:
            lines = want.split("\n")
            cell["source"] = [l + "\n" for l in lines[:-1]] + [lines[-1]]
            nb.write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
        print(f"{nb.name}: parameters cell {'differs from' if check else 'rewritten from'} its class")
    return 1 if check and stale else 0


if __name__ == "__main__": sys.exit(call_parse(main))   # fastcore: the options and help come from main's docments
