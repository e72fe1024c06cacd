"""The committed results of figures/ are what the committed code gives, and every image and link resolves.

`citesum run params/runs/figures.yaml` writes figures/ from real data, then figures/manifest.json (per step: the hash of
each input, code + parameters + data, and of each file written) and the notebooks' result cells. Re-running it takes
minutes, so the tests compare hashes instead: a changed input, a file edited by hand, a result cell typed by hand or a
file that no step writes fails with the command that refreshes them.
"""
import json, re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import ROOT, need_shared
from citesum_nb.results import RESULTS_COMMAND, _RESULT_MARK, check_manifest, stale_result_cells

FIGURES = ROOT/"figures"
FINDING_NOTEBOOKS = ["08_results", "09a_citation_resolution", "10a_cloze_baselines", "10c_content_selector", "11_bias", "11a_crosseval"]


def test_committed_results_come_from_the_committed_code_and_parameters():
    "Every input hash but the data's (code, published numbers, parameters) is the one recorded when figures/ was written"
    problems = check_manifest(FIGURES, ROOT, data=False)
    assert problems == [], "figures/ is stale:\n" + "\n".join(problems)


def test_committed_results_come_from_the_shared_data():
    "The data's hashes too (CL-SciSumm and SciTLDR-A as the run read them)"
    need_shared("clscisumm"); need_shared("scitldr")
    problems = check_manifest(FIGURES, ROOT)
    assert problems == [], "figures/ is stale:\n" + "\n".join(problems)


def test_manifest_names_the_refresh_command():
    man = json.loads((FIGURES/"manifest.json").read_text())
    assert man["command"] == RESULTS_COMMAND == "citesum run params/runs/figures.yaml" and man["run_spec"] == "params/runs/figures.yaml"


def test_result_cells_show_the_committed_files():
    "No result cell of a notebook (nbs/ and nbs/explanations/) differs from what its committed file gives"
    stale = stale_result_cells(ROOT/"nbs", FIGURES)
    assert stale == [], f"result cells that differ from figures/ (run `{RESULTS_COMMAND}`): {stale}"


def _markdown_cells(nb:Path)->list:
    return ["".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "markdown"]


def test_every_finding_notebook_shows_its_results():
    "Each notebook that makes a finding shows at least one committed result, and every result cell names a file of figures/"
    for name in FINDING_NOTEBOOKS:
        marks = [m for t in _markdown_cells(ROOT/"nbs"/f"{name}.ipynb") for m in [_RESULT_MARK.match(t)] if m]
        assert marks, f"{name} shows no committed result"
        for m in marks: assert (FIGURES/f"{m[1]}.md").is_file() or (FIGURES/f"{m[1]}.png").is_file(), (name, m[1])


_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<img [^>]*src=\"([^\"]+)\"|<a [^>]*href=\"([^\"]+)\"")


def local_links(markdown:str)->list:
    "The local targets of a Markdown text's links and images (code spans and blocks left out; anchors and queries cut)"
    out = []
    for m in _LINK.finditer(_CODE.sub("", markdown)):
        url = next(g for g in m.groups() if g)
        s = urlsplit(url)
        if s.scheme or s.netloc or url.startswith("#"): continue
        out.append(unquote(s.path))
    return out


def test_local_links_finds_images_and_links_not_code():
    md = "![a](figures/a.png) [b](b.md#x) [c](https://x.org/c) `[d](d.md)`\n```\n![e](e.png)\n```\n<img src=\"f.png\"> [g](#top)"
    assert local_links(md) == ["figures/a.png", "b.md", "f.png"]


def _documents():
    yield ROOT/"README.md", (ROOT/"README.md").read_text()
    yield FIGURES/"README.md", (FIGURES/"README.md").read_text()
    for nb in sorted((ROOT/"nbs").rglob("*.ipynb")):
        if ".ipynb_checkpoints" not in nb.parts: yield nb, "\n".join(_markdown_cells(nb))


@pytest.mark.parametrize("doc", [p for p, _ in _documents()], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_image_and_link_resolves_from_where_it_is_written(doc):
    "README.md, figures/README.md and the notebooks' Markdown: every local image and link names a file that exists beside it"
    text = dict(_documents())[doc]
    broken = [t for t in local_links(text) if not (doc.parent/t).exists()]
    assert broken == [], f"{doc.relative_to(ROOT)}: links that resolve to nothing: {broken}"
