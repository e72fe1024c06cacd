"""The shape of the library: short functions, no private names across modules, an example or test after every exported cell,
and the notebooks' rhythm (one definition per exported cell, short cells and paragraphs, small notebooks), measured by
tools/notebook_shape.py against its TARGETS."""
import ast, json, re, sys, warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p for p in (ROOT/"citesum_nb").glob("*.py") if not p.name.startswith("_"))
NOTEBOOKS = sorted(p for p in (ROOT/"nbs").glob("[0-9]*.ipynb"))
sys.path.insert(0, str(ROOT/"tools"))
import notebook_shape
MAX_FUNCTION_LINES = notebook_shape.LIMITS["longest function (lines)"]   # the target (50) warns, the limit fails


def over_target(what:str, found)->None:
    "A figure over its target (not its limit) is a smell: a warning that names it, seen in pytest's summary"
    warnings.warn(f"shape: {what} over its target: {found} (`python tools/notebook_shape.py`)", UserWarning, stacklevel=2)


def _functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)): yield node


def long_functions(path:Path)->list:
    "`name (n lines)` of every function in `path` longer than MAX_FUNCTION_LINES (signature and body)"
    tree = ast.parse(path.read_text())
    return [f"{f.name} ({f.end_lineno - f.lineno + 1} lines)" for f in _functions(tree)
            if f.end_lineno - f.lineno + 1 > MAX_FUNCTION_LINES]


def private_imports(path:Path)->list:
    "Private names (`_x`) imported from another module of the package, or from another package's private API"
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            ours = node.level > 0 or mod.startswith("citesum_nb")
            private_mod = any(part.startswith("_") and part != "__future__" for part in mod.split("."))
            out += [f"from {'.'*node.level}{mod} import {a.name}" for a in node.names
                    if (a.name.startswith("_") and not a.name.startswith("__")) or (private_mod and not ours)]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in ("rouge_scorer", "rouge_tokenize", "tokenizers"):
                out.append(f"{node.value.id}.{node.attr}")
    return out


def _cells(nb:Path)->list:
    return [c for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code"]


_EXPORT = notebook_shape.EXPORT   # an exported cell: the same test as the shape measure


def exports_without_example(nb:Path)->list:
    "First line of every exported cell that is followed by another exported cell (or the end) with no example or test between"
    cells = [("".join(c["source"])) for c in _cells(nb)]
    out = []
    for i, s in enumerate(cells):
        if not _EXPORT.search(s): continue
        nxt = next((t for t in cells[i+1:] if t.strip()), "")
        if not nxt or _EXPORT.search(nxt) or "nbdev_export(" in nxt:
            body = [l for l in s.splitlines() if l.strip() and not l.startswith("#|")]
            out.append(body[0][:80] if body else "(empty)")
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_long_functions(path):
    assert long_functions(path) == [], f"{path.name}: functions over {MAX_FUNCTION_LINES} lines"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_private_names_across_modules(path):
    assert private_imports(path) == [], f"{path.name} uses private names of other modules"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_every_exported_cell_has_an_example_or_test_below(nb):
    assert exports_without_example(nb) == [], f"{nb.name}: exported cells followed by no example or test"


def test_checks_find_what_they_look_for(tmp_path):
    "The checks themselves: each finds a planted case"
    f = tmp_path/"m.py"
    f.write_text("from .core import _open\nfrom rouge_score.rouge_scorer import _score_ngrams\nimport rouge_scorer\n"
                 "x = rouge_scorer._create_ngrams\n" + "def long():\n" + "    pass\n" * MAX_FUNCTION_LINES)
    assert long_functions(f) == [f"long ({MAX_FUNCTION_LINES + 1} lines)"]
    assert private_imports(f) == ["from .core import _open", "from rouge_score.rouge_scorer import _score_ngrams", "rouge_scorer._create_ngrams"]
    nb = tmp_path/"n.ipynb"
    cell = lambda s: {"cell_type": "code", "source": [s], "metadata": {}, "outputs": []}
    nb.write_text(json.dumps({"cells": [cell("#| export\ndef a(): pass"), cell("#| export\ndef b(): pass"), cell("a()"),
                                        cell("#| export\ndef c(): pass")]}))
    assert exports_without_example(nb) == ["def a(): pass", "def c(): pass"]


def test_notebooks_stay_within_the_shape_limits():
    "Lines and definitions per exported cell, long cells, long Markdown, cells per notebook, the longest function: under the"
    "limits, and a warning for each figure over its target"
    totals = notebook_shape.project_shape(ROOT)["totals"]
    over = {k: (v, notebook_shape.LIMITS[k]) for k, v in totals.items() if v > notebook_shape.LIMITS[k]}
    assert over == {}, f"over the limit (now, limit): {over}; `python tools/notebook_shape.py` lists the notebooks"
    smells = {k: (v, notebook_shape.TARGETS[k]) for k, v in totals.items() if v > notebook_shape.TARGETS[k]}
    if smells: over_target("(now, target)", smells)


def test_hand_written_options_stay_few():
    "Options come from parameter classes and from the signatures and docments of the functions the commands call; few are written by hand"
    rows = notebook_shape.hand_written_options(ROOT/"citesum_nb")
    assert len(rows) <= notebook_shape.MAX_HAND_WRITTEN_OPTIONS, f"{len(rows)} hand-written option rows (at most {notebook_shape.MAX_HAND_WRITTEN_OPTIONS}): {rows}"


def test_hand_written_options_counts_what_it_says(tmp_path):
    "The count itself, on a planted module: table rows, a command's options with keywords (help alone counted apart), literal add_argument calls"
    (tmp_path/"m.py").write_text(
        'OPTIONS = {"a": dict(help="x"), "b": dict()}\nRUN_OPTIONS = {"c": {}}\n'
        'def t_cli(argv): return tool_parser("t", "d", "a b e f", signature=(fn, "g"), a="help only", e=dict(type=int), f=dict(flags=["-f"]))\n'
        'def s_cli(argv): return stage_command(C, "s", "d", "h a", exclude=("x",), h=dict(nargs="+"), a="help only")\n'
        'ap.add_argument("--i")\nap.add_argument(*flags)\n')
    assert sorted(notebook_shape.hand_written_options(tmp_path)) == ["m add_argument --i", "m.OPTIONS:a", "m.OPTIONS:b", "m.RUN_OPTIONS:c", "s:h", "t:e", "t:f"]
    assert sorted(notebook_shape.hand_written_options(tmp_path, help_only=True)) == ["s:a", "t:a"]


def test_shape_measures_what_it_says(tmp_path):
    "The measures themselves, on a planted notebook: directives and blank lines do not count, a class and a function are two definitions"
    cell = lambda t, s: {"cell_type": t, "source": [s], "metadata": {}, **({"outputs": []} if t == "code" else {})}
    nb = tmp_path/"01_x.ipynb"
    nb.write_text(json.dumps({"cells": [cell("markdown", "word " * 151), cell("markdown", "short"),
                                        cell("code", "#| export\n\nclass A: pass\ndef f():\n    return 1"), cell("code", "f()"),
                                        cell("code", "#| export\n" + "x = 1\n" * 50), cell("code", "def g(): pass")]}))
    got = notebook_shape.notebook_shape(nb)
    assert (got["cells"], got["exported"], got["lines"], got["definitions"], got["long_cells"], got["long_markdown"]) == (6, 2, 53, 2, 1, 1)


def test_the_index_lists_every_notebook_and_explanation():
    "nbs/index.ipynb (the docs' home page) links every numbered notebook and every explanation"
    text = "".join("".join(c["source"]) for c in json.loads((ROOT/"nbs"/"index.ipynb").read_text())["cells"])
    listed = set(re.findall(r"\]\(([\w/.-]+\.ipynb)\)", text))
    present = {p.name for p in NOTEBOOKS} | {f"explanations/{p.name}" for p in (ROOT/"nbs"/"explanations").glob("*.ipynb")}
    assert present - listed == set() and listed - present == set(), (sorted(present - listed), sorted(listed - present))
