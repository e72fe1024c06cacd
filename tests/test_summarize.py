"`citesum summarize` on a tiny offline model: every way in, every way out, and each bad input as a one-line error."
import json, warnings

import pytest

from conftest import ROOT, citesum
from citesum_nb.cli import main
from citesum_nb.core import read_jsonl, sample_corpus_dir, write_jsonl

ABSTRACT = ("We study the problem of transferring a sample in one domain to an analog sample in another domain, "
            "with a compound loss that keeps a given function of the sample unchanged.")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    "A tiny random BART (NOT pretrained) with a tokenizer trained on the bundled sample's abstracts"
    from citesum_nb.s2orc import load_papers
    from citesum_nb.models import make_tiny_model
    texts = [p["abstract"] for p in load_papers() if p["abstract"]] + [ABSTRACT]
    return make_tiny_model(texts, tmp_path_factory.mktemp("tiny")/"model", vocab_size=800)


def test_prints_a_tldr(tiny):
    "The issue's 'done when': `citesum summarize --model <tiny model> \"some abstract\"` prints a TLDR"
    r = citesum("summarize", "--model", tiny, "--device", "cpu", ABSTRACT, timeout=300)
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("This paper") and "REF" not in lines[0]
    assert "NOT PRETRAINED" in r.stderr and r.stderr.count("\n") == 1


def test_reads_standard_input_one_abstract_per_line(tiny):
    # in this process, standard input replaced (conftest.citesum): a new Python would only import the library again
    r = citesum("summarize", "--model", tiny, "--json", input=f"{ABSTRACT}\n\nA second abstract about ROUGE.\n", check=False)
    assert r.returncode == 0, r.stderr
    assert [json.loads(l)["id"] for l in r.stdout.splitlines()] == ["1", "3"]   # ids are line numbers; blank lines skipped


@pytest.mark.parametrize("model, message", [
    ("no-such-org/no-such-model", "not in the local Hugging Face cache and the Hub is offline"),
    ("./no/such/folder", "model folder not found"),
])
def test_bad_model_is_a_one_line_error(model, message):
    r = citesum("summarize", "--model", model, ABSTRACT, check=False, timeout=300)
    assert r.returncode == 2 and r.stdout == ""
    assert message in r.stderr and r.stderr.strip().count("\n") == 0, r.stderr


def test_a_model_that_is_not_seq2seq_is_refused(tmp_path, capsys):
    from transformers import BertConfig
    BertConfig(num_hidden_layers=1, hidden_size=16, num_attention_heads=2, intermediate_size=32).save_pretrained(tmp_path/"bert")
    assert main(["summarize", "--model", str(tmp_path/"bert"), ABSTRACT]) == 2
    assert "is a bert model, not a sequence-to-sequence (encoder-decoder) model" in capsys.readouterr().err


def test_empty_text_is_an_error_naming_it(tiny, tmp_path, capsys):
    assert main(["summarize", "--model", str(tiny), ABSTRACT, " "]) == 2
    assert capsys.readouterr().err.strip() == "citesum summarize: error: arguments: text 2 is empty"
    write_jsonl([{"id": "x", "src": ABSTRACT}, {"id": "y", "src": ""}], tmp_path/"in.jsonl")
    assert main(["summarize", "--model", str(tiny), "--file", str(tmp_path/"in.jsonl")]) == 2
    assert "in.jsonl: text y is empty" in capsys.readouterr().err


def test_jsonl_with_a_field_and_out_file(tiny, tmp_path, capsys):
    write_jsonl([{"paper": "p1", "abstract": ABSTRACT}, {"paper": "p2", "abstract": "Short abstract on citation texts."}], tmp_path/"in.jsonl")
    rc = main(["summarize", "--model", str(tiny), "--device", "cpu", "--file", str(tmp_path/"in.jsonl"), "--field", "abstract",
               "--id-field", "paper", "--out", str(tmp_path/"out"/"tldrs.jsonl"), "--batch-size", "1", "--num-beams", "2"])
    assert rc == 0
    out = read_jsonl(tmp_path/"out"/"tldrs.jsonl")
    assert [r["id"] for r in out] == ["p1", "p2"] and all(r["tldr"].startswith("This paper") for r in out)
    assert "wrote 2 TLDR(s)" in capsys.readouterr().err
    assert main(["summarize", "--model", str(tiny), "--file", str(tmp_path/"in.jsonl")]) == 2
    assert "in.jsonl:1: no field 'src' (it has: paper, abstract); choose the field with --field" in capsys.readouterr().err


def test_text_file_and_s2orc_paper_ids(tiny, tmp_path, capsys):
    (tmp_path/"in.txt").write_text(f"{ABSTRACT}\nAnother abstract.\n")
    assert main(["summarize", "--model", str(tiny), "--file", str(tmp_path/"in.txt"), "--out", str(tmp_path/"out.txt")]) == 0
    assert len((tmp_path/"out.txt").read_text().splitlines()) == 2
    capsys.readouterr()
    assert main(["summarize", "--model", str(tiny), "--s2orc", str(sample_corpus_dir()), "--paper-id", "179028692", "75303251", "--json"]) == 0
    assert [json.loads(l)["id"] for l in capsys.readouterr().out.splitlines()] == ["179028692", "75303251"]
    assert main(["summarize", "--model", str(tiny), "--s2orc", str(sample_corpus_dir()), "--paper-id", "nope"]) == 2
    assert "no abstract for paper(s) nope" in capsys.readouterr().err


def test_long_text_is_truncated_with_a_warning(tiny, capsys):
    assert main(["summarize", "--model", str(tiny), "--max-source-length", "32", "--json", ABSTRACT, "word " * 100]) == 0
    cap = capsys.readouterr()
    assert [json.loads(l)["truncated"] for l in cap.out.splitlines()] == [True, True]
    warn = [l for l in cap.err.splitlines() if "truncated" in l]
    assert warn == [l for l in warn if l.startswith("citesum summarize: warning: 2 text(s) longer than the model input of 32 tokens")]
    assert len(warn) == 1


def test_parameter_errors_come_from_the_parameter_class(tiny, capsys):
    with pytest.raises(SystemExit): main(["summarize", "--model", str(tiny), "--post-process", "drop", ABSTRACT])
    assert "invalid choice: 'drop'" in capsys.readouterr().err
    assert main(["summarize", "--model", str(tiny), "--min-length", "50", "--max-length", "20", ABSTRACT]) == 2
    assert "max_length=20: must be at least min_length (50)" in capsys.readouterr().err


def test_the_library_function_keeps_the_input_order(tiny):
    from citesum_nb.summarize import load_summarizer, summarize
    m = load_summarizer(str(tiny), "cpu")
    texts = [ABSTRACT, "A much shorter abstract.", ABSTRACT + " " + ABSTRACT]
    res = summarize(texts, m, batch_size=2)
    assert [r["id"] for r in res] == ["1", "2", "3"]
    assert [r["tldr"] for r in summarize(texts[::-1], m, batch_size=2)] == [r["tldr"] for r in res[::-1]]


def test_transformers_pipeline_takes_the_checkpoint(tiny):
    "The checkpoint is an ordinary Hugging Face folder: transformers 4.x's summarization pipeline loads and runs it"
    import transformers
    if int(transformers.__version__.split(".")[0]) >= 5:
        pytest.skip(f"transformers {transformers.__version__} has no summarization pipeline (removed in v5); "
                    "test_transformers_alone_summarizes covers the v5 route")
    summarizer = transformers.pipeline("summarization", model=str(tiny))
    out = summarizer(ABSTRACT, min_length=5, max_length=20)
    assert isinstance(out[0]["summary_text"], str)


def test_transformers_alone_summarizes(tiny):
    "The README's route without this library: AutoModelForSeq2SeqLM + generate (transformers 4 and 5)"
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
    tok, model = AutoTokenizer.from_pretrained(tiny), AutoModelForSeq2SeqLM.from_pretrained(tiny)
    ids = model.generate(**tok([ABSTRACT], return_tensors="pt", truncation=True), num_beams=1, min_length=10, max_length=45)
    assert isinstance(tok.decode(ids[0], skip_special_tokens=True), str) and ids.shape[1] <= 45


def test_notebook_parameters_cell_is_written_from_the_class():
    from citesum_nb.params import parameters_cell
    from citesum_nb.summarize import SummarizeParams
    nb = json.loads((ROOT/"nbs"/"12_summarize.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    assert "".join(cell["source"]).strip() == parameters_cell(SummarizeParams).strip()
