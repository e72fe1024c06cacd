#!/usr/bin/env python
"""Every parser of the `citesum` command as text: each action's option strings, dest, default, type, choices, nargs,
required, metavar, const, class and help, subparsers included; and the text of `citesum --help`.

Usage: `python tools/dump_parsers.py > parsers.txt`. Run it before and after a change to the command line's machinery:
the two files must be identical (except help texts changed on purpose). Each command is run with its parser's
`parse_args` replaced by one that hands the parser back, so nothing runs and no option needs to be valid."""
import argparse, contextlib, io, sys


class _Caught(BaseException):
    "Raised by the patched `parse_args` with the parser it was called on"
    def __init__(self, parser): self.parser = parser


def _catch(self, args=None, namespace=None): raise _Caught(self)


def _name(x)->str:
    "A stable text for a default, type or choices value (no memory addresses)"
    if x is None or isinstance(x, (str, int, float, bool)): return repr(x)
    if isinstance(x, (list, tuple)): return "[" + ", ".join(map(_name, x)) + "]"
    if isinstance(x, dict): return "{" + ", ".join(f"{_name(k)}: {_name(v)}" for k, v in x.items()) + "}"
    return getattr(x, "__qualname__", None) or type(x).__qualname__


def dump_parser(ap:argparse.ArgumentParser, indent:str="")->list:
    "The lines that describe `ap` and its subparsers"
    lines = [f"{indent}parser prog={ap.prog!r} description={ap.description!r} epilog={ap.epilog!r} class={type(ap).__qualname__}"]
    for a in ap._actions:
        lines.append(f"{indent}  {type(a).__qualname__} strings={a.option_strings} dest={a.dest!r} default={_name(a.default)} "
                     f"type={_name(a.type)} choices={_name(list(a.choices) if isinstance(a.choices, dict) else a.choices)} nargs={a.nargs!r} "
                     f"required={a.required} metavar={a.metavar!r} const={_name(a.const)}")
        lines.append(f"{indent}    help={a.help!r}")
        if isinstance(a, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in a._choices_actions}
            for name, sub in a.choices.items():
                lines.append(f"{indent}  subcommand {name!r} help={helps.get(name)!r}"); lines += dump_parser(sub, indent + "    ")
    return lines


def command_parser(argv:list)->argparse.ArgumentParser:
    "The parser `citesum <argv>` parses its options with"
    from citesum_nb.cli import main
    saved = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = _catch
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()): main(argv)
    except _Caught as c: return c.parser
    finally: argparse.ArgumentParser.parse_args = saved
    raise SystemExit(f"citesum {' '.join(argv)}: no parser was built")


def commands()->list:
    "Every command and verb, from the text of `citesum --help`"
    from citesum_nb.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out): main(["--help"])
    names = [l.split()[0] for l in out.getvalue().split("commands:\n", 1)[1].split("\n\n")[0].splitlines()]
    return [[n] for n in names] + [["cloze", "build"], ["cloze", "baseline"]], out.getvalue()


if __name__ == "__main__":
    cmds, usage = commands()
    print("citesum --help:"); print(usage)
    for c in cmds:
        print(f"\n=== citesum {' '.join(c)}"); print("\n".join(dump_parser(command_parser(c))))
