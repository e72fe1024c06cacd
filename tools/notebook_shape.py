#!/usr/bin/env python
"""The shape of the numbered notebooks, measured with an ast scan: lines and definitions per exported cell, long
exported cells, long Markdown cells, cells per notebook, the longest function of the library; and the command line's
hand-written option rows (the others come from parameter classes and from the signatures and docments of functions).

Usage: `python tools/notebook_shape.py [PROJECT]` prints one row per notebook and the totals that
tests/test_structure.py holds (the targets in `TARGETS` warn, the `LIMITS` fail)."""
import ast, json, re, statistics, sys
from pathlib import Path

EXPORT = re.compile(r"^#\|\s*export[si]?\s*$", re.M)
TARGETS = {"median lines per exported cell": 14, "definitions per exported cell": 1.3, "exported cells of 50+ lines": 3,
           "Markdown cells over 150 words": 20, "most cells in a notebook": 90, "longest function (lines)": 50}
# Targets are what a good notebook usually meets: a figure over its target is a smell to look at (the tests warn, and
# `python tools/notebook_shape.py` says "over"), never a cap to trim a notebook to. LIMITS, with room above the targets,
# are where the tests fail: a notebook that long is past splitting where its topic changes (STYLE.md §3: about 150 cells).
LIMITS = {"median lines per exported cell": 20, "definitions per exported cell": 1.6, "exported cells of 50+ lines": 8,
          "Markdown cells over 150 words": 40, "most cells in a notebook": 150, "longest function (lines)": 80}
MAX_HAND_WRITTEN_OPTIONS = 61   # option rows written by hand (`hand_written_options`, which also sees the rows written in a command's own call); fastcore/nbdev write none


def code_lines(source:str)->list:
    "The lines of a cell that count: not blank, not an nbdev directive (`#| ...`)"
    return [l for l in source.splitlines() if l.strip() and not l.lstrip().startswith("#|")]


def definitions(source:str)->int:
    "Top-level functions and classes a cell defines"
    tree = ast.parse("\n".join(l for l in source.splitlines() if not l.lstrip().startswith("#|")))
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body)


def notebook_shape(nb:Path)->dict:
    "The figures of one notebook"
    cells = json.loads(nb.read_text())["cells"]
    exported = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and EXPORT.search("".join(c["source"]))]
    lines = [len(code_lines(s)) for s in exported]
    words = [len("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown"]
    return {"notebook": nb.stem, "cells": len(cells), "exported": len(exported), "lines": sum(lines),
            "definitions": sum(definitions(s) for s in exported), "long_cells": sum(n >= 50 for n in lines),
            "long_markdown": sum(w > 150 for w in words), "longest_markdown": max(words, default=0)}


def longest_function(package:Path)->tuple:
    "`(lines, 'module.function')` of the longest function of the package (signature and body)"
    best = (0, "")
    for p in sorted(package.glob("*.py")):
        if p.name.startswith("_"): continue
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)): best = max(best, (n.end_lineno - n.lineno + 1, f"{p.stem}.{n.name}"))
    return best


def _keyword_rows(call:ast.Call, where:str)->list:
    "The options of a `dict(...)` of options that carry argparse keywords of their own (a text alone is a help said another way)"
    return [f"{where}:{k.arg}" for k in call.keywords
            if k.arg and not (isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)) and not isinstance(k.value, ast.JoinedStr)]


_COMMAND_CALLS = {"tool_parser", "stage_command", "add_options", "signature_options"}   # the calls that declare a command's options
_NOT_OPTIONS = {"params", "signature", "table", "exclude", "aliases", "defaults", "fields"}  # their keywords that are not options


def _call_name(node:ast.Call)->str:
    return getattr(node.func, "id", None) or getattr(node.func, "attr", "")


def _command_label(node:ast.Call)->str:
    "What a declaring call names: its first text argument (`tool_parser(\"overlap\", ...)`), or that of the parser it is given"
    for a in node.args[:2]:
        if isinstance(a, ast.Constant) and isinstance(a.value, str): return a.value
        if isinstance(a, ast.Call) and a.args and isinstance(a.args[0], ast.Constant): return str(a.args[0].value)
    return _call_name(node)


def hand_written_options(package:Path, help_only:bool=False)->list:
    "The hand-written option rows of the package: rows of `OPTIONS` / `RUN_OPTIONS`, a command's own options with argparse keywords (the keywords of `tool_parser`, `stage_command`, `add_options`, `signature_options`), `add_argument` calls with literal flags; `help_only`: the options whose help alone is said again for a command"
    rows = []
    for f in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, (ast.Assign, ast.AugAssign)) and isinstance(node.value, ast.Dict) and not help_only:
                name = getattr(node.targets[0] if isinstance(node, ast.Assign) else node.target, "id", None)
                if name in ("OPTIONS", "RUN_OPTIONS"): rows += [f"{f.stem}.{name}:{k.value}" for k in node.value.keys]
            if isinstance(node, ast.Call) and _call_name(node) in _COMMAND_CALLS:
                text = lambda v: (isinstance(v, ast.Constant) and isinstance(v.value, str)) or isinstance(v, ast.JoinedStr)
                rows += [f"{_command_label(node)}:{k.arg}" for k in node.keywords
                         if k.arg and k.arg not in _NOT_OPTIONS and text(k.value) == help_only]
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" and node.args and isinstance(node.args[0], ast.Constant) and not help_only:
                rows.append(f"{f.stem} add_argument {node.args[0].value}")
    return rows


def project_shape(root:Path)->dict:
    "Every notebook's figures and the totals that `TARGETS` names"
    rows = [notebook_shape(nb) for nb in sorted((root/"nbs").glob("[0-9]*.ipynb"))]
    per_cell = [r["lines"] / r["exported"] for r in rows if r["exported"]]
    cells = sum(r["exported"] for r in rows)
    totals = {"median lines per exported cell": round(statistics.median(per_cell), 1),
              "definitions per exported cell": round(sum(r["definitions"] for r in rows) / cells, 2),
              "exported cells of 50+ lines": sum(r["long_cells"] for r in rows),
              "Markdown cells over 150 words": sum(r["long_markdown"] for r in rows),
              "most cells in a notebook": max(r["cells"] for r in rows),
              "longest function (lines)": longest_function(root/"citesum_nb")[0]}
    return {"rows": rows, "totals": totals}


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    shape = project_shape(root)
    print(f"{'notebook':26}{'cells':>6}{'exported':>9}{'lines/cell':>11}{'defs/cell':>10}{'50+ lines':>10}{'md>150':>7}")
    for r in shape["rows"]:
        n = r["exported"] or 1
        print(f"{r['notebook']:26}{r['cells']:6}{r['exported']:9}{r['lines']/n:11.1f}{r['definitions']/n:10.2f}{r['long_cells']:10}{r['long_markdown']:7}")
    print(f"\n{'':34}{'now':>8}{'target':>8}{'limit':>8}")
    for k, v in shape["totals"].items(): print(f"{k:34}{v:8}{TARGETS[k]:>8}{LIMITS[k]:>8}{'' if v <= TARGETS[k] else '  over target' if v <= LIMITS[k] else '  OVER LIMIT'}")
    print(f"longest function: {longest_function(root/'citesum_nb')[1]}")
    print(f"hand-written option rows: {len(hand_written_options(root/'citesum_nb'))} (at most {MAX_HAND_WRITTEN_OPTIONS}); "
          f"and {len(hand_written_options(root/'citesum_nb', help_only=True))} help texts said again for one command")
