"`citesum docs`: the website builds offline with working links; run folders get an index.html; a real browser shows both."
import json, os
from pathlib import Path

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import ROOT, citesum
from citesum_nb.docs import browser_check, browser_screenshot, check_links, find_browser, mixed_import_cells, write_run_index

SHOTS = ROOT/"runs"/"browser_check"   # screenshots of the browser check (runs/ is scratch, ignored by git)


def test_site_of_some_notebooks_builds_offline_with_working_links(tmp_path):
    r = citesum("docs", "--out", tmp_path/"site", "--only", "index", "13_summarize", "10_cli", timeout=600)
    assert "3 page(s)" in r.stdout and "every local link and image resolves" in r.stdout
    site = tmp_path/"site"
    assert sorted(p.name for p in site.glob("*.html")) == ["cli.html", "index.html", "summarize.html"]
    assert check_links(site) == []
    page = (site/"summarize.html").read_text()
    assert '<h1>Summarize</h1>' in page and 'id="summarize"' in page                 # title, and the API entry of `summarize`
    assert "TLDRs with the paper&#x27;s zero-shot recipe" in page or "TLDRs with the paper's zero-shot recipe" in page
    assert "#| export" not in page and "from fastcore.test import" not in page       # exported source and hidden cells stay out
    home = (site/"index.html").read_text()
    assert 'href="summarize.html"' in home and 'href="cli.html"' in home              # links between pages
    assert 'href="core.html"' not in home and "00_core.ipynb" not in home             # pages this site leaves out: text, no link


def test_unknown_notebook_is_a_one_line_error(tmp_path):
    r = citesum("docs", "--out", tmp_path, "--only", "99_nope", check=False)
    assert r.returncode == 2 and "no notebook 99_nope in" in r.stderr and r.stderr.strip().count("\n") == 0


@pytest.mark.parametrize("nb", ["13_summarize", "14_cards", "15_docs"])
def test_docs_time_runs_no_test_code(nb):
    "nbdev's docs build runs every cell that holds an import: in these notebooks such cells hold nothing else"
    assert mixed_import_cells(json.loads((ROOT/"nbs"/f"{nb}.ipynb").read_text())) == []


def _fake_run(run:Path)->Path:
    "A run folder as `citesum run` leaves it: two planned steps (one run), a figure in PNG and PDF, a results table, a report"
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    run.mkdir(parents=True)
    nb = new_notebook(cells=[new_markdown_cell("# Step one"), new_code_cell("print(1 + 1)", outputs=[new_output("stream", name="stdout", text="2\n")])],
                      metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}})
    nbformat.write(nb, run/"one.ipynb")
    (run/"run.yaml").write_text(yaml.safe_dump({"source": "spec.yaml", "steps": [{"name": "one"}, {"name": "two"}]}))
    (run/"run_log.jsonl").write_text(json.dumps({"started": "2026-01-01T10:00:00", "only": ["one"], "steps_run": ["one"], "status": "ok"}) + "\n")
    (run/"one"/"figures").mkdir(parents=True); (run/"one"/"results").mkdir(); (run/"one"/"dataset").mkdir()
    fig, ax = plt.subplots(); ax.plot([1, 2]); fig.savefig(run/"one"/"figures"/"01_line.png"); fig.savefig(run/"one"/"figures"/"01_line.pdf"); plt.close(fig)
    (run/"one"/"results"/"table6.md").write_text("| row | R-1 |\n| --- | ---: |\n| tiny | 1.00 |\n")
    (run/"one"/"results"/"table6.csv").write_text("row,R-1\ntiny,1.0\n")
    (run/"one"/"dataset"/"report.md").write_text("# CiteSum build report\n\nKept: **60**\n")
    return run


def test_run_index_links_notebooks_figures_and_tables(tmp_path):
    run = _fake_run(tmp_path/"run")
    r = citesum("docs", "--run-index", run)
    assert "every local link and image resolves" in r.stdout
    index = (run/"index.html").read_text()
    assert 'href="html/one.html"' in index and "<td>two</td><td><span class=\"muted\">not run</span>" in index
    assert '<img alt="one/figures/01_line.png" src="one/figures/01_line.png"/>' in index or 'src="one/figures/01_line.png"' in index
    assert 'href="one/figures/01_line.pdf"' in index and 'href="one/results/table6.csv"' in index and "<td>tiny</td>" in index.replace(' style="text-align:left"', "")
    assert "CiteSum build report" in index and "ok" in index
    assert (run/"html"/"one.html").is_file() and check_links(run) == []


def _need_browser()->str:
    exe = find_browser()
    if exe: return exe
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail("no Chromium in CI: install it with `apt-get install -y chromium` (the browser check must run there)")
    pytest.skip("no Chromium or Chrome found: install Debian's `chromium` package (apt-get install -y chromium) to run the browser check")


def test_docs_and_run_index_in_a_real_browser(tmp_path):
    "A real run (04_analysis: figures and tables) and its index.html; the docs home page and the analysis page with its figures"
    browser = _need_browser()
    spec = tmp_path/"browser_run.yaml"
    spec.write_text(yaml.safe_dump({"run_dir": str(tmp_path/"run"), "steps": [{"notebook": "04_analysis", "parameters": {
        "out_dir": "{run_dir}/04_analysis", "fig_dir": "{run_dir}/04_analysis/figures"}}]}))
    citesum("run", spec, "--project", ROOT, timeout=900)
    run = tmp_path/"run"
    citesum("docs", "--run-index", run)
    citesum("docs", "--out", tmp_path/"site", "--only", "index", "04_analysis", "--execute", timeout=600)   # pages with every figure
    site = tmp_path/"site"
    pages = {"docs_home": site/"index.html", "docs_analysis": site/"analysis.html", "run_index": run/"index.html"}
    assert check_links(site) == [] and check_links(run, [run/"index.html"]) == []
    seen = {k: browser_check(p, browser) for k, p in pages.items()}
    assert all(v["broken"] == [] for v in seen.values()), seen
    assert seen["docs_analysis"]["images"] >= 2 and seen["run_index"]["images"] >= 2, seen    # the figures are there and load
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = [browser_screenshot(pages["docs_home"], SHOTS/"docs_home.png", 1280, 1000, browser=browser),
             browser_screenshot(pages["docs_analysis"], SHOTS/"docs_analysis_figure.png", 1280, 1400, "plot_discipline_distribution", browser),
             browser_screenshot(pages["run_index"], SHOTS/"run_index.png", 1280, 1400, browser=browser),
             browser_screenshot(pages["run_index"], SHOTS/"run_index_figures.png", 1280, 1400, "figures", browser)]
    assert all(s.stat().st_size > 20_000 for s in shots), [(s.name, s.stat().st_size) for s in shots]   # not a blank page
