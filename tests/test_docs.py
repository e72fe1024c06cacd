"`citesum docs`: every notebook and the API reference as a website (Sphinx), warnings as errors, every internal link checked; nbdev's own processing; run folders get an index.html."
import json, os, subprocess, sys, time
from pathlib import Path

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from conftest import ROOT, citesum, documents
from citesum_nb.core import CitesumError
from citesum_nb.docs import check_links
from citesum_nb.pages import mixed_import_cells
from citesum_nb.run_index import write_run_index

NBS = ROOT/"nbs"
NOTEBOOKS = sorted(p.stem for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))
EXPLAINED = sorted(p.stem for p in (NBS/"explanations").glob("*.ipynb"))   # the explanation notebooks: pages of their own, after the notebooks
MODULES = sorted(p.stem for p in (ROOT/"citesum_nb").glob("*.py") if not p.name.startswith("_"))


@pytest.fixture(scope="module")
def site(docs_site):
    "The whole site, as `citesum docs --out _docs` builds it in a `citesum init` project; (folder, stdout, seconds)"
    return Path(docs_site["site"]), docs_site["stdout"], docs_site["seconds"]


@documents("citesum docs --out _docs")   # the docs_site fixture runs it
def test_every_notebook_and_module_has_a_page_and_every_link_resolves(site):
    out, stdout, seconds = site
    print(f"site built in {seconds:.0f} s: {stdout.strip().splitlines()[-2:]}")
    from nbdev.config import nbpath2html
    pages = {nbpath2html(NBS/f"{nb}.ipynb").name for nb in NOTEBOOKS}
    assert pages <= {p.name for p in out.glob("*.html")}, pages - {p.name for p in out.glob("*.html")}
    assert {f"{m}.html" for m in MODULES} <= {p.name for p in (out/"api").glob("*.html")}
    explained = {f"{e}.html" for e in EXPLAINED}
    assert explained <= {p.name for p in out.glob("*.html")}, explained - {p.name for p in out.glob("*.html")}
    assert f"{len(NOTEBOOKS) + len(EXPLAINED)} page(s)" in stdout and "every local link and image resolves" in stdout
    assert check_links(out) == []                    # again, independently of the command's own check
    home = (out/"index.html").read_text()
    assert all(f'href="{p}"' in home for p in (pages | explained) - {"index.html"}) and 'href="api/index.html"' in home   # the table of contents
    assert not EXPLAINED or "Explanations" in home
    assert "searchindex.js" in (out/"search.html").read_text() and (out/"searchindex.js").stat().st_size > 10_000


def test_pages_show_prose_api_entries_and_no_hidden_cells(site):
    out = site[0]
    page = (out/"summarize.html").read_text()
    assert "<h1>Summarize" in page and "TLDRs with the paper" in page
    assert 'id="summarize"' in page                                                 # the show_doc entry of `summarize`
    assert "#| export" not in page and "from fastcore.test import" not in page      # exported source and hidden cells stay out
    assert 'href="api/summarize.html#citesum_nb.summarize.summarize"' in page       # a name in backticks links to the API reference
    api = (out/"api"/"summarize.html").read_text()
    assert 'id="citesum_nb.summarize.summarize"' in api
    assert "an abstract (str), a list of them, or (id, text) pairs" in api          # docments comments are the parameter list
    assert 'id="plot_accuracy"' in (out/"citation_resolution.html").read_text()
    assert 'id="citesum_nb.resolve.plot_accuracy"' in (out/"api"/"resolve.html").read_text()


def test_unknown_notebook_and_missing_sphinx_are_one_line_errors(tmp_path):
    r = citesum("docs", "--out", tmp_path, "--only", "99_nope", check=False)
    assert r.returncode == 2 and "no notebook 99_nope in" in r.stderr and r.stderr.strip().count("\n") == 0
    code = ("import sys; sys.modules['myst_nb'] = None; from citesum_nb.cli import main; sys.exit(main(['docs', '--out', sys.argv[1]]))")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "pip install 'sphinx>=" in r.stderr and "citesum-nb[docs]" not in r.stderr and r.stderr.strip().count("\n") == 0
    (tmp_path/"elsewhere").mkdir()   # a folder that is no project: one line that says where to run it, nothing written
    r = citesum("docs", "--out", "site", cwd=tmp_path/"elsewhere", check=False)
    assert r.returncode == 2 and "no notebooks folder" in r.stderr and r.stderr.strip().count("\n") == 0 and not list((tmp_path/"elsewhere").iterdir())


def test_sidebar_is_generated_from_the_notebooks_present():
    "nbs/sidebar.yml is nbdev_sidebar's output (not kept in git), and the site's table of contents follows it"
    from citesum_nb.docs import site_pages, write_sidebar
    entries = write_sidebar(NBS)
    assert entries == ["index.ipynb"] + sorted(f"{n}.ipynb" for n in NOTEBOOKS if n != "index")
    pages = site_pages(NBS)
    assert [p["src"].name for p in pages if not p["section"]] == entries
    assert [p["stem"] for p in pages if p["section"]] == EXPLAINED    # then the explanations, in name order
    tracked = subprocess.run(["git", "ls-files", "nbs/sidebar.yml"], cwd=ROOT, capture_output=True, text=True).stdout
    assert tracked.strip() == "", "nbs/sidebar.yml is generated: it must not be kept in git"


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_imports_have_cells_of_their_own(nb):
    "nbdev's docs processing runs every cell that holds an import: such cells hold nothing else"
    assert mixed_import_cells(json.loads((NBS/f"{nb}.ipynb").read_text())) == []


@pytest.fixture(scope="module")
def nbdev_processing():
    "nbdev's own docs processing (`FilterDefaults`, what nbdev-docs runs, no repairs) of every notebook: {stem: error or ''}"
    # config_read_once: the nbdev settings read once per notebook, not twice per cell (the same processors, the same settings)
    code = """import json, os, sys
from pathlib import Path
from fastcore.nbio import read_nb
from nbdev.processors import FilterDefaults
from citesum_nb.pages import config_read_once
os.environ["IN_TEST"] = "1"
for p in sys.argv[1:]:
    try:
        with config_read_once(): FilterDefaults()(read_nb(p))
        err = ""
    except Exception as e: err = f"{type(e).__name__}: {str(e).splitlines()[-1][:300]}"
    print(json.dumps({"nb": Path(p).stem, "error": err}), flush=True)
os._exit(0)   # done: not IPython's exit hooks, a full garbage collection per notebook's shell
"""
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code, *[str(NBS/f"{n}.ipynb") for n in NOTEBOOKS]], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    return {d["nb"]: d["error"] for d in map(json.loads, r.stdout.splitlines())}


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_nbdev_own_processing_passes(nb, nbdev_processing):
    "What `nbdev-docs` does before Quarto works on the notebook as it is (cwd = project root, as nbdev-docs sets it)"
    assert nbdev_processing[nb] == ""


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
    assert 'href="html/one.html"' in index and "<td>two</td><td>not run</td><td class=\"num\"></td><td></td>" in index
    assert 'src="one/figures/01_line.png"' in index
    assert 'href="one/figures/01_line.pdf"' in index and 'href="one/results/table6.csv"' in index and "<td>tiny</td>" in index.replace(' style="text-align:left"', "")
    assert "CiteSum build report" in index and "ok" in index
    assert (run/"html"/"one.html").is_file() and check_links(run) == []


HOSTILE = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '"><svg onload=alert(1)>']


def _live_tags(page:str)->list:
    "Script elements, event-handler attributes and javascript: links of a page: what would run in a browser"
    from bs4 import BeautifulSoup
    soup, found = BeautifulSoup(page, "html.parser"), []
    found += [str(t)[:80] for t in soup.find_all(["script", "svg", "iframe", "object", "embed"])]
    for t in soup.find_all(True):
        found += [f"{t.name} {a}" for a in t.attrs if a.lower().startswith("on")]
        found += [f"{t.name} {a}={v}" for a, v in t.attrs.items() if a in ("href", "src") and str(v).strip().lower().startswith("javascript:")]
    return found


def test_run_index_escapes_everything_from_the_run(tmp_path):
    "Step names, table cells, report text, figure file names and captions that hold HTML are shown as text; nothing in the index runs"
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from citesum_nb.analysis import save_figure
    run = _fake_run(tmp_path/"run")
    (run/"run.yaml").write_text(yaml.safe_dump({"steps": [{"name": "one"}, *({"name": h} for h in HOSTILE)]}))
    with pytest.raises(CitesumError, match="no name that can be a file name"): write_run_index(run)   # a run never names a step so
    (run/"run.yaml").write_text(yaml.safe_dump({"steps": [{"name": "one"}]}))
    rows = "".join(f"| {h} | [link](javascript:alert(1)) |\n" for h in HOSTILE)
    (run/"one"/"results"/"table6.md").write_text("| title | link |\n| --- | --- |\n" + rows)
    (run/"one"/"dataset"/"report.md").write_text("# Report\n\n" + "\n\n".join(HOSTILE) + "\n")
    fig, ax = plt.subplots(); ax.plot([1, 2])
    save_figure(fig, run/"one"/"figures", "02_<img src=x onerror=alert(1)>", caption=HOSTILE[0]); plt.close(fig)
    page = write_run_index(run).read_text()
    assert _live_tags(page) == [], _live_tags(page)
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3   # a table cell, the report, the caption: shown as text
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert _live_tags('<p><img src=x onerror="alert(1)"><a href="javascript:x">a</a><script>1</script></p>') != []   # the check sees them


def test_run_index_shows_durations_captions_and_no_check_figures(tmp_path):
    "Each step with its status and duration from the run log; figures with their stored captions; a notebook's `_checks` figures left out"
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from citesum_nb.analysis import save_figure
    run = _fake_run(tmp_path/"run")
    (run/"run_log.jsonl").write_text(json.dumps({"started": "2026-01-01T10:00:00", "only": None, "steps_run": ["one"],
                                                 "status": "failed in two", "seconds": {"one": 75.2, "two": 3.0}}) + "\n")
    fig, ax = plt.subplots(); ax.plot([1, 2])
    save_figure(fig, run/"one"/"figures", "01_curve", caption="Loss against training steps")
    save_figure(fig, run/"one"/"_checks", "01_x"); plt.close(fig)
    page = write_run_index(run).read_text()
    assert '<td>one</td><td>ok</td><td class="num">1 min 15 s</td>' in page and '<td>two</td><td>failed</td><td class="num">3 s</td>' in page
    assert "<figcaption>Loss against training steps<" in page and "<figcaption>01 line<" in page   # stored caption; else the file name
    assert "_checks" not in page and 'href="one/figures/01_curve.png"' in page                    # a click opens the full-size image


def _with_outputs(src:Path, dest:Path, texts:list)->Path:
    "A copy of notebook `src` whose first example cell holds `texts` as its outputs (stderr, an HTML and a plain result), as an executed copy would"
    nb = nbformat.read(src, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.strip() and not c.source.lstrip().startswith("#|")
                and not c.metadata.get("tags"))
    cell.outputs = [new_output("stream", name="stderr", text="".join(f"{t}:2: UserWarning: here\n" for t in texts)),
                    new_output("execute_result", {"text/plain": repr(texts), "text/html": "<p>" + " ".join(texts) + "</p>"}, execution_count=1)]
    dest.parent.mkdir(parents=True, exist_ok=True); nbformat.write(nb, dest)
    return dest


def test_docs_show_the_demo_run_by_default_and_no_machine_path(tmp_path):
    "A project with a demo run: `citesum docs` shows its outputs without a flag, and no page names the project, the run, HOME or a temporary file"
    import shutil, tempfile
    proj = tmp_path/"proj"; proj.mkdir(); (proj/"nbs").symlink_to(NBS); shutil.copy(ROOT/"pyproject.toml", proj)
    run = proj/"runs"/"demo_run"
    paths = [f"{ROOT}/nbs/00_core.ipynb", f"{run}/00_core/x.jsonl", f"{Path.home()}/data/s2orc", f"{tempfile.gettempdir()}/ipykernel_42/7.py"]
    executed = _with_outputs(NBS/"00_core.ipynb", run/"00_core.ipynb", paths)
    import base64, io, matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(1, 1)); ax.plot([1, 2]); buf = io.BytesIO(); fig.savefig(buf, format="png"); plt.close(fig)
    nb = nbformat.read(executed, as_version=4)   # a figure the run drew, saved with its caption: the page's image says it
    nb.cells.append(new_code_cell('save_figure(fig, out, "x", caption="Loss [nats] by step")', outputs=[
        new_output("display_data", {"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": "<Figure>"})]))
    nbformat.write(nb, executed)
    r = citesum("docs", "--nbs", proj/"nbs", "--out", tmp_path/"site", "--only", "00_core", "--workers", "0")
    assert r.stdout.startswith("pages show the outputs of the demo run runs/demo_run")
    pages = {p: p.read_text() for p in (tmp_path/"site").rglob("*.html")}
    core = pages[tmp_path/"site"/"core.html"]
    assert "&lt;project&gt;/nbs/00_core.ipynb" in core and "&lt;tmp&gt;/ipykernel_42/7.py:2: UserWarning" in core   # the outputs, rewritten
    assert "~/data/s2orc" in core and "&lt;run&gt;/00_core/x.jsonl" in core
    assert '<img alt="Loss [nats] by step" src="data:image/png;base64,' in core   # the output image, with its caption as alt text
    for p in (str(ROOT), str(tmp_path), f"{Path.home()}/", tempfile.gettempdir() + "/"):
        assert not [f for f, t in pages.items() if p in t], (p, [f.name for f, t in pages.items() if p in t])
    (tmp_path/"bare").mkdir(); (tmp_path/"bare"/"nbs").symlink_to(NBS)
    r = citesum("docs", "--nbs", tmp_path/"bare"/"nbs", "--only", "99_nope", check=False)   # no demo run: one line says so
    assert r.stdout.splitlines()[0].startswith("no outputs to show: there is no demo run in runs/demo_run") and "no notebook 99_nope" in r.stderr


def test_run_pages_read_as_reports(tmp_path):
    "A step's page: no `#|` line, the parameters once and short, library code folded, a table of contents and a link back to the index"
    run = tmp_path/"run"; run.mkdir()
    nb = new_notebook(cells=[new_markdown_cell("# Step one\n> what it does"), new_code_cell("#| default_exp one"),
        new_code_cell("n: int = 20   # demo size\nout_dir: str = '../runs/demo/one'   # where it writes", metadata={"tags": ["parameters"]}),
        new_code_cell(f'# Parameters\nout_dir = "{run}/one"\n', metadata={"tags": ["injected-parameters"]}),
        new_code_cell("#| export\n@dataclass\nclass OneParams(StageParams):\n    n: int = 20\n    out_dir: str = ''"),
        new_code_cell("#| hide\nfrom fastcore.test import *"),
        new_code_cell("params = OneParams.from_globals(globals())\nparams", outputs=[new_output("execute_result", {"text/plain": "OneParams(n=20)"}, execution_count=3)]),
        new_markdown_cell("## Results"), new_code_cell("print(n)", outputs=[new_output("stream", name="stdout", text="20\n")]),
        new_markdown_cell("## More")], metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}})
    nbformat.write(nb, run/"one.ipynb")
    citesum("docs", "--run-index", run)
    page, index = (run/"html"/"one.html").read_text(), (run/"index.html").read_text()
    assert "#|" not in page and "from fastcore.test" not in page and "OneParams(n=20)" not in page and "# Parameters" not in page
    assert "<b>Parameters</b>: 1 of 2 set by this run" in page and "&lt;run&gt;/one" in page and page.count("demo size") == 1
    assert '<details class="report-code"><summary>code: class OneParams</summary>' in page
    assert '<a href="../index.html">← run index</a>' in page and '<a href="../one.ipynb">executed notebook</a>' in page
    assert '<nav class="report-toc"><b>Contents</b><ul><li><a href="#Results">Results</a></li><li><a href="#More">More</a></li></ul></nav>' in page
    assert '<a href="#steps">Steps</a> (1) · <a href="#figures">Figures</a> (0)' in index
    assert check_links(run) == []


def test_processed_notebooks_leave_no_exit_hook():
    "IPython registers an exit hook per shell (a full garbage collection each: 74 s after a 51-page site); the docs' shells drop theirs"
    code = """from fastcore.nbio import read_nb
from nbdev.processors import exec_show_docs
from IPython.core.interactiveshell import InteractiveShell
from citesum_nb.pages import RobustShowDocs
for proc in (RobustShowDocs, RobustShowDocs, exec_show_docs):   # nbdev's own processor keeps its hook: the check sees hooks
    p = proc(read_nb("00_core.ipynb")); p.begin(); p.end()
InteractiveShell._atexit_once = lambda self: print("exit hook ran", flush=True)   # what each hook left registered calls
"""
    r = subprocess.run([sys.executable, "-c", code], cwd=NBS, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("exit hook ran") == 1, r.stdout
