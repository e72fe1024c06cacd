"""Every figure a notebook saves is also shown in it, once, and no check figure is: the checker of run folders
(`figures_shown.py`), the mechanism, and the executed `04_analysis` with its run page.

The demo run itself is checked with `unshown_figures` where the suite runs it once, and its executed `04_analysis`
with its run page here; and a three-cell reproduction of the way figures went missing (the first figure of a kernel
drawn under `paper_style`, a later one outside) runs through `citesum run`'s own step executor, with `MPLBACKEND=Agg` exported as CI does.
"""
import base64, io, json

import nbformat
from PIL import Image

from figures_shown import figure_counts, saved_pngs, shown_not_saved, shown_sizes, unshown_figures


def _png(path, size):
    "A blank PNG of `size` at `path` (folders made)"
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, "white").save(path)
    return path


def _image_output(size)->dict:
    buf = io.BytesIO(); Image.new("RGB", size, "white").save(buf, format="PNG")
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": "<Figure>"}}


def _notebook(path, outputs:list):
    "An executed notebook with one code cell per output list"
    cells = [{"cell_type": "code", "execution_count": 1, "id": f"c{i}", "metadata": {}, "source": "x", "outputs": o}
             for i, o in enumerate(outputs)]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_unshown_figures_of_a_fake_run(tmp_path):
    "Matched one to one by aspect ratio; `_` folders skipped; a step without its notebook shows nothing"
    run = tmp_path/"run"
    _png(run/"a"/"figures"/"wide.png", (990, 330))       # 3:1, shown below at 1/3 the size
    _png(run/"a"/"figures"/"square.png", (600, 600))     # 1:1, not shown (the notebook shows two 3:1 images)
    _png(run/"a"/"figures"/"wide2.png", (900, 310))      # 2.9:1, within 5% of 3:1: takes the second 3:1 image
    _png(run/"a"/"_checks"/"check.png", (100, 900))      # a check figure: not counted
    _png(run/"a"/"data"/"sub"/"tall.png", (300, 600))    # anywhere else under the step's folder: counted, shown
    _notebook(run/"a.ipynb", [[_image_output((330, 110))], [_image_output((330, 110)), _image_output((150, 300))],
                              [{"output_type": "stream", "name": "stdout", "text": "no image"}]])
    _png(run/"b"/"x.png", (400, 300))                     # step b's notebook is missing
    _png(run/"c"/"x.png", (400, 300))                     # a folder that is no step (not in run.yaml): not counted
    (run/"run.yaml").write_text("steps:\n  - {name: a, notebook: a.ipynb}\n  - {name: b, notebook: b.ipynb}\n")
    assert [p.name for p in saved_pngs(run/"a")] == ["tall.png", "square.png", "wide.png", "wide2.png"]
    assert shown_sizes(run/"a.ipynb") == [(330, 110), (330, 110), (150, 300)]
    assert unshown_figures(run) == ["a/figures/square.png", "b/x.png"]
    assert figure_counts(run) == {"a": (3, 4, ["a/figures/square.png"]), "b": (0, 1, ["b/x.png"])}
    assert shown_not_saved(run) == []                      # 3 shown, each matched to one of the 4 saved
    _notebook(run/"a.ipynb", [[_image_output((330, 110))] * 3, [_image_output((150, 300))] * 2])
    assert shown_not_saved(run) == ["a: 5 images shown for 4 figures saved"]   # a figure shown twice, or a check shown
    (run/"run.yaml").unlink()                             # without a plan: the executed notebooks are the steps
    assert unshown_figures(run) == ["a/figures/square.png"]
    _notebook(run/"a.ipynb", [[_image_output((330, 110))]])   # count alone would pass 1 of 4; matching names each file
    assert unshown_figures(run) == ["a/data/sub/tall.png", "a/figures/square.png", "a/figures/wide2.png"]


def test_figures_drawn_under_paper_style_are_shown(tmp_path, monkeypatch):
    "A kernel's first figure drawn under paper_style, a later one outside: both are image outputs of the executed notebook"
    from citesum_nb.run import _execute_step
    monkeypatch.setenv("MPLBACKEND", "Agg")   # as CI exports it: citesum run's kernels must still draw inline
    run, figs = tmp_path/"run", tmp_path/"run"/"repro"/"figures"
    run.mkdir()
    cells = ["import matplotlib.pyplot as plt\nfrom citesum_nb.analysis import paper_style, save_figure",
             f"with paper_style():\n    fig, ax = plt.subplots(figsize=(3.3, 1.1)); ax.plot([1, 2])\n_ = save_figure(fig, {str(figs)!r}, 'first')",
             f"fig2, ax2 = plt.subplots(figsize=(2, 2)); ax2.plot([2, 1])\n_ = save_figure(fig2, {str(figs)!r}, 'second')"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells],
                                  metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(nb, tmp_path/"repro.ipynb")
    _execute_step({"name": "repro", "notebook": tmp_path/"repro.ipynb", "parameters": {}}, run, "python3", False, False)
    ran = nbformat.read(run/"repro.ipynb", as_version=4).cells
    assert [[o.output_type for o in c.outputs if "image/png" in o.get("data", {})] for c in ran] == [[], ["display_data"], ["display_data"]]
    assert unshown_figures(run) == [] and figure_counts(run) == {"repro": (2, 2, [])}


def test_the_executed_analysis_shows_each_saved_figure_once(demo):
    """04_analysis on the bundled sample as `citesum run` executed it in the demo run (README command 1's job, no SciTLDR
    beside the clone): exactly its saved figures are shown (no check figure, none twice), each says it is drawn from the
    sample, and its run page folds the cells of checks and gives every image its caption as alt text"""
    from pathlib import Path
    from bs4 import BeautifulSoup
    from citesum_nb.analysis import SAMPLE_NOTE, figure_caption
    run = Path(demo["run"])
    out = run/"04_analysis"
    saved = [p.name for p in saved_pngs(out)]
    assert saved == ["04_citation_distribution.png", "04_discipline_distribution.png", "04_extractiveness.png"]
    assert figure_counts(run)["04_analysis"] == (3, 3, []) and shown_not_saved(run) == []
    caps = [figure_caption(p) for p in saved_pngs(out)]
    assert all(c.endswith(f"({SAMPLE_NOTE})") for c in caps), caps          # drawn from the bundled sample, and saying so
    page = BeautifulSoup((run/"html"/"04_analysis.html").read_text(), "html.parser")   # the page the run index made
    alts = [img.get("alt", "") for img in page.select(".jp-OutputArea img")]
    assert len(alts) == 3 and all(alts) and all(any(c.startswith(a) for c in caps) for a in alts), alts
    real = [img["src"] for img in page.select(".jp-MarkdownCell img")]     # the real-data figures of figures/, carried by the notebook
    assert len(real) == 2 and all(s.startswith("data:image/png;base64,") for s in real), [s[:40] for s in real]
    open_checks = [c for c in page.select(".jp-CodeCell") if "test_eq(" in c.get_text() and not c.find("details", class_="report-code")]
    assert open_checks == [], [c.get_text()[:120] for c in open_checks]  # every cell of checks is folded
