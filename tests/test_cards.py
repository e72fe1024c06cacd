"Dataset and model cards: `datasets.load_dataset` reads a build folder offline, `huggingface_hub` loads both cards, uploads call the Hub as documented."
import json
from pathlib import Path

import pytest

from conftest import citesum


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    from citesum_nb.build import build_sample_dataset
    return build_sample_dataset(tmp_path_factory.mktemp("build"))


@pytest.fixture(scope="module")
def run(build, tmp_path_factory):
    "A training run folder of a tiny model (NOT pretrained), two steps"
    from citesum_nb.train import train_cites
    out = tmp_path_factory.mktemp("run")/"cites"
    train_cites({"data_dir": str(build), "out_dir": str(out), "max_steps": 2, "eval_steps": 1, "max_eval_examples": 2,
                 "max_test_examples": 2, "num_beams": 1, "max_length": 20, "disable_tqdm": True})
    return out


def test_build_folder_loads_with_load_dataset_offline(build, tmp_path):
    "The issue's 'done when': a build folder loads with datasets.load_dataset(OUT) and its card validates with DatasetCard"
    import datasets
    from huggingface_hub import DatasetCard
    from citesum_nb.build import citesum_features
    r = citesum("card", "dataset", build)
    assert "dataset card written and checked" in r.stdout
    ds = datasets.load_dataset(str(build), cache_dir=str(tmp_path/"cache"))
    report = json.loads((build/"report.json").read_text())
    assert {k: v.num_rows for k, v in ds.items()} == {"train": report["splits"]["train"]["examples"],
                                                      "validation": report["splits"]["validation"]["examples"],
                                                      "test": report["splits"]["test"]["examples"]}
    assert all(v.features == citesum_features() for v in ds.values())
    card = DatasetCard.load(build/"README.md")
    assert card.data.license == "apache-2.0" and card.data.task_categories == ["summarization"] and card.data.language == ["en"]
    assert card.data.size_categories == ["n<1K"] and card.data.configs[0]["data_files"][1] == {"split": "validation", "path": "parquet/validation.parquet"}
    assert "citesum build --out" in card.text and "@inproceedings{lo-etal-2020-s2orc" in card.text and "10922--10935" in card.text


def test_dataset_card_records_the_exact_command_with_paths_by_name(build):
    from citesum_nb.cards import dataset_card
    from huggingface_hub import DatasetCard
    dataset_card(build, argv=["--out", str(build), "--workers", "2", "--thresholds", "50,20,40"])
    text = DatasetCard.load(build/"README.md").text
    assert f"citesum build --out {build.name} --workers 2 --thresholds 50,20,40" in text and str(build) not in text


def test_notebook_route_writes_the_card_citesum_build_writes(build, tmp_path):
    "The build of the notebooks (`build_sample_dataset`, 03b_build's last steps) and `citesum build` write the same files and card, the command line aside"
    from citesum_nb.cards import dataset_card
    cli = tmp_path/build.name   # the same folder name: a card names its folder
    r = citesum("build", "--out", cli, "--scheduler", "synchronous", "--quiet")
    assert r.returncode == 0
    nb_card, cli_card = dataset_card(build).read_text(), (cli/"README.md").read_text()
    strip = lambda t: [l for l in t.splitlines() if "citesum build" not in l]
    assert strip(nb_card) == strip(cli_card) and "validation" in nb_card and "parquet/validation.parquet" in cli_card
    assert sorted(p.name for p in cli.glob("*.jsonl")) == ["candidates.jsonl", "test.jsonl", "train.jsonl", "validation.jsonl"]
    assert sorted(p.name for p in (cli/"parquet").iterdir()) == ["test.parquet", "train.parquet", "validation.parquet"]
    for f in ("train.jsonl", "validation.jsonl", "test.jsonl"): assert (build/f).read_bytes() == (cli/f).read_bytes()


def _leaks(text:str, *local:Path)->list:
    "What a card must not publish: this machine's absolute paths, and timings"
    from citesum_nb.cards import card_leaks
    return card_leaks(text) + [str(p) for p in local if str(p) in text] + [w for w in ("Timings", "total_s", "runtime") if w in text]


def test_cards_publish_no_absolute_path_and_no_timing(build, run, tmp_path):
    "Both cards, written by the commands a user runs, hold neither a local path nor a timing"
    citesum("card", "dataset", build); citesum("card", "model", run)
    for card in (build/"README.md", run/"best"/"README.md"):
        text = card.read_text()
        assert _leaks(text, build, run, Path.cwd(), Path.home(), Path(__file__).resolve().parents[1]) == [], (card, _leaks(text, build, run))
    assert "Timings" in (build/"report.md").read_text()          # the build's own report keeps them: only the card leaves them out


def test_a_card_that_would_leak_is_refused(build, tmp_path):
    import shutil
    from citesum_nb.cards import check_dataset_card, dataset_card
    leaky = tmp_path/"leaky"; shutil.copytree(build, leaky)
    card = dataset_card(leaky)
    card.write_text(card.read_text() + f"\nBuilt in {leaky}/x in 3 s.\n")
    with pytest.raises(Exception, match="must not publish local paths or timings"): check_dataset_card(card)


def test_dataset_card_licence_comes_from_the_input_corpus(tmp_path):
    "A build parameter (S2ORC's odc-by by default); the CL-SciSumm params file sets CC BY 4.0; the bundled sample is Apache-2.0"
    import shutil, yaml
    from huggingface_hub import DatasetCard
    from citesum_nb.build import BuildParams, build_citesum
    from citesum_nb.cards import dataset_card
    from citesum_nb.core import sample_corpus_dir
    root = Path(__file__).resolve().parents[1]
    assert BuildParams().license == "odc-by" and yaml.safe_load((root/"params"/"03b_build.clscisumm.yaml").read_text())["license"] == "cc-by-4.0"
    corpus = shutil.copytree(sample_corpus_dir(), tmp_path/"corpus")              # not the bundled sample any more
    for lic in ("cc-by-4.0", None):
        out = tmp_path/f"build-{lic}"
        build_citesum(BuildParams(s2orc_dir=str(corpus), **({"license": lic} if lic else {})), out, progress=False)
        card = DatasetCard.load(dataset_card(out))
        assert card.data.license == (lic or "odc-by")
        assert ("ODC-By 1.0" in card.text) == (lic is None)


def test_model_card_has_a_model_index_and_the_warning(run):
    from huggingface_hub import ModelCard
    from citesum_nb.cards import model_card
    card = ModelCard.load(model_card(run, name="me/cites-tiny", dataset="me/citesum"))
    assert card.data.pipeline_tag == "summarization" and card.data.library_name == "transformers"
    assert {e.metric_name for e in card.data.eval_results} >= {"ROUGE-1", "ROUGE-2", "ROUGE-L"}
    assert all(e.dataset_split == "test" and e.task_type == "summarization" and e.dataset_type == "me/citesum" for e in card.data.eval_results)
    assert "NOT PRETRAINED" in card.text and "not-pretrained" in card.data.tags
    assert "AutoModelForSeq2SeqLM.from_pretrained('me/cites-tiny')" in card.text and "| `max_steps` | 2 |" in card.text


def test_model_card_is_written_without_the_builders_dependencies(run):
    "Training writes its card with the dependencies of training alone: with Dask blocked, the card module imports and writes (not the builder)"
    import subprocess, sys
    code = ("import sys; sys.modules['dask'] = None; from citesum_nb.cards import model_card; "
            f"p = model_card({str(run)!r}); print(p.name, 'citesum_nb.build' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 0 and r.stdout.split() == ["README.md", "False"], r.stderr[-1500:]


def test_base_model_comes_from_the_run_when_it_is_a_hub_name(run):
    from citesum_nb.cards import model_card_data
    assert model_card_data(run).base_model is None                     # a tiny local model has no Hub base
    assert model_card_data(run, base_model="facebook/bart-large").base_model == "facebook/bart-large"


def test_model_card_takes_training_data_and_licence_from_the_run(run, build):
    "The run's data is a local build of the bundled sample: its name and licence; no Hub id, so no model-index (whose dataset.type must be one)"
    from huggingface_hub import ModelCard
    from citesum_nb.cards import model_card, model_card_data, training_data
    assert training_data(run) == {"hub_id": None, "name": build.name, "license": "apache-2.0"}
    d = model_card_data(run)
    assert (d.license, d.datasets, d.eval_results) == ("apache-2.0", None, None)
    card = ModelCard.load(model_card(run))
    assert card.data.eval_results is None and "model-index:" not in card.content and "| ROUGE-1 |" in card.text and "not in the card's model-index" in card.text
    assert f"CiteSum, {build.name} (" in card.text and "apache-2.0: the licence of the training data" in card.text
    assert model_card_data(run, license="mit").license == "mit"


def test_cards_refuse_folders_that_are_not_builds_or_runs(tmp_path):
    r = citesum("card", "dataset", tmp_path, check=False)
    assert r.returncode == 2 and "report.json not found" in r.stderr and r.stderr.strip().count("\n") == 0
    r = citesum("card", "model", tmp_path, check=False)
    assert r.returncode == 2 and "has no model: is" in r.stderr and r.stderr.strip().count("\n") == 0


class _FakeHub:
    "Stands in for the Hub: records the calls (the real upload needs a token and the network)"
    calls = []
    def __init__(self, token=None): self.token = token
    def create_repo(self, repo_id, **kw): _FakeHub.calls.append(("create_repo", repo_id, kw.get("repo_type"))); return f"https://hf.co/{repo_id}"
    def upload_file(self, **kw): _FakeHub.calls.append(("upload_file", kw["repo_id"], kw["path_in_repo"], Path(kw["path_or_fileobj"]).read_text()[:3]))
    def upload_folder(self, **kw): _FakeHub.calls.append(("upload_folder", kw["repo_id"], sorted(p.name for p in Path(kw["folder_path"]).iterdir())))


def test_push_calls_the_hub_as_documented(build, run, monkeypatch):
    import datasets, huggingface_hub
    from citesum_nb.cards import dataset_card, model_card, push_dataset, push_model
    monkeypatch.setattr(huggingface_hub, "HfApi", _FakeHub)
    pushed = []
    monkeypatch.setattr(datasets.DatasetDict, "push_to_hub", lambda self, repo, **kw: pushed.append((repo, sorted(self), kw.get("private"))))
    dataset_card(build); model_card(run, dataset="me/citesum")
    _FakeHub.calls.clear()
    assert push_dataset(build, "me/citesum", private=True) == "https://hf.co/me/citesum"
    assert _FakeHub.calls == [("create_repo", "me/citesum", "dataset"), ("upload_file", "me/citesum", "README.md", "---")]
    assert pushed == [("me/citesum", ["test", "train", "validation"], True)]
    assert push_model(run, "me/cites") == "https://hf.co/me/cites"
    assert _FakeHub.calls[-1][0] == "upload_folder" and {"README.md", "config.json", "model.safetensors"} <= set(_FakeHub.calls[-1][2])


def test_notebook_parameters_cell_is_written_from_the_class():
    from citesum_nb.params import parameters_cell
    from citesum_nb.cards import CardsParams
    nb = json.loads((Path(__file__).resolve().parents[1]/"nbs"/"13_cards.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    assert "".join(cell["source"]).strip() == parameters_cell(CardsParams).strip()
