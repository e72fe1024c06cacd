"A real browser (headless Chromium) shows the docs site and the demo run's index.html, every image loads; the screenshots are kept as test artefacts."
import os
from pathlib import Path

import pytest

from conftest import ROOT
from citesum_nb.docs import check_links
from citesum_nb.run_index import browser_check, browser_screenshot, find_browser

SHOTS = ROOT/"runs"/"browser_check"   # the screenshots this test keeps (runs/ is scratch, ignored by git)


def _need_browser()->str:
    exe = find_browser()
    if exe: return exe
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail("no Chromium in CI: install it with `apt-get install -y chromium` (the browser check must run there)")
    pytest.skip("no Chromium or Chrome found: install Debian's `chromium` package (apt-get install -y chromium) to run the browser check")


def test_docs_and_run_index_in_a_real_browser(demo, docs_site):
    "The demo run's index.html (figures and tables), the docs home page and the analysis page with the demo's figures"
    browser = _need_browser()
    run, site = Path(demo["run"]), Path(docs_site["site"])
    pages = {"docs_home": site/"index.html", "docs_notebook": site/"analysis.html", "run_index": run/"index.html"}
    assert check_links(site) == [] and check_links(run) == []   # the run index and every step's page: links and images resolve
    seen = {k: browser_check(p, browser) for k, p in pages.items()}
    assert all(v["broken"] == [] for v in seen.values()), seen
    assert seen["docs_notebook"]["images"] >= 2 and seen["run_index"]["images"] >= 2, seen    # the figures are there and load
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = [browser_screenshot(pages["docs_home"], SHOTS/"docs_home.png", 1280, 1000, browser=browser),
             browser_screenshot(pages["docs_notebook"], SHOTS/"docs_notebook.png", 1280, 1400, "plot_discipline_distribution", browser),
             browser_screenshot(pages["run_index"], SHOTS/"run_index.png", 1280, 1400, "figures", browser)]
    assert all(s.stat().st_size > 20_000 for s in shots), [(s.name, s.stat().st_size) for s in shots]   # not a blank page
