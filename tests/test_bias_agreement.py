"""`citesum bias` follows CDEvalSumm's released `Data-bias-metrics` code by default: one summary per document (the first
reference), spaCy's English tokens for the fragment measures, spaCy's lookup lemmas in sentence fusion; and on
pre-tokenised, lower-cased text it gives the released code's numbers."""
import json

import pytest

from conftest import citesum, need_shared


def last_json(stdout:str)->dict: return json.loads(stdout.strip().splitlines()[-1])


def _folder(tmp_path, recs):
    (tmp_path/"test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return tmp_path


def test_default_is_one_summary_per_document_the_first_reference(tmp_path):
    "The released code's get_metrics takes one summary per document: the first reference here; every reference with --references all"
    folder = _folder(tmp_path, [{"paper_id": "a", "source": ["The cat sat on the mat.", "The dog ran."],
                                 "target": ["The cat sat on the dog.", "A dog ran away quickly."]},
                                {"paper_id": "b", "source": ["Red blue green.", "Yellow."], "target": ["Red blue green."]}])
    first = last_json(citesum("bias", "--data", folder, "--split", "test", "--json").stdout)
    every = last_json(citesum("bias", "--data", folder, "--split", "test", "--references", "all", "--json").stdout)
    assert (first["n"], every["n"]) == (2, 3)
    assert first["coverage"] == pytest.approx(1.0)                      # both first references are copied whole
    assert every["coverage"] < 1.0


def test_default_tokens_are_spacys(tmp_path):
    """spaCy splits "state-of-the-art" at its hyphens (7 tokens), NLTK's Treebank tokenizer keeps one token: a fully copied
    "State-of-the-art models ." has density 9 (one fragment of 9 tokens) with spaCy, 3 with Treebank tokens."""
    folder = _folder(tmp_path, [{"paper_id": "a", "source": ["We train state-of-the-art models ."], "target": ["State-of-the-art models ."]}])
    spacy_run = last_json(citesum("bias", "--data", folder, "--split", "test", "--json").stdout)
    treebank = last_json(citesum("bias", "--data", folder, "--split", "test", "--tokenizer", "treebank", "--json").stdout)
    assert spacy_run["density"] == pytest.approx(9.0) and spacy_run["compression"] == pytest.approx(11 / 9)
    assert treebank["density"] == pytest.approx(3.0)


def test_fusion_lemmas_option(tmp_path):
    """Sentence fusion compares spaCy's lookup lemmas by default ("models were running" matches "model is run"); with
    --lemmas none it compares words, and the summary sentence is no longer fused from two document sentences."""
    recs = [{"paper_id": "a", "source": ["The models were running fast on graphs .", "Proteins folded slowly in cells ."],
             "target": ["The model is run fast while proteins fold slowly in cells ."]}]
    folder = _folder(tmp_path, recs)
    lookup = last_json(citesum("bias", "--data", folder, "--split", "test", "--json").stdout)
    words = last_json(citesum("bias", "--data", folder, "--split", "test", "--lemmas", "none", "--json").stdout)
    assert (lookup["fusion"], words["fusion"]) == (1.0, 0.0)


# ---- agreement with the released code -----------------------------------------------------------------------------

def _released_rule(S:list, D:list)->list:
    """Fragment lengths by the rule of `metrics/fragment.py` (`Fragments._match`), written out plainly here: from each
    summary position, scan the document left to right; a match of length k at j is measured and the scan goes on at
    j + k; keep the longest; move past it in the summary (or one token when nothing matches)."""
    out, i = [], 0
    while i < len(S):
        best, j = 0, 0
        while j < len(D):
            k = 0
            while i + k < len(S) and j + k < len(D) and S[i + k] == D[j + k]: k += 1
            best, j = max(best, k), j + max(k, 1)
        if best: out.append(best)
        i += max(best, 1)
    return out


def _independent(docs:list, sums:list)->dict:
    "Coverage, density, compression and copy length from spaCy tokens as `metrics/density.py` makes them, and `_released_rule`"
    import spacy
    nlp = spacy.blank("en")
    rows = []
    for doc, summ in zip(docs, sums):
        S, D = [t.text.lower() for t in nlp("\n".join(summ))], [t.text.lower() for t in nlp(" ".join(doc))]
        f = _released_rule(S, D)
        rows.append((sum(f) / len(S), sum(x * x for x in f) / len(S), len(D) / len(S), sum(f) / len(f) if f else 0.0))
    return {k: sum(r[i] for r in rows) / len(rows) for i, k in enumerate(("coverage", "density", "compression", "copy_length"))}


def test_released_rule_by_hand():
    # "a a b" in "a a a b": the match "a a" at 0 is measured, the scan resumes at 2 and finds "a b" (2): the first is
    # kept (not longer), and the exhaustive longest match "a a b" at 1 is never seen
    assert _released_rule("a a b".split(), "a a a b".split()) == [2, 1]
    assert _released_rule("x y".split(), "a b".split()) == []


RELEASED_SCITLDR_PRETOKENISED = {"coverage": 0.773793894895126, "density": 3.4800428309394724,
                                 "compression": 10.44631670279035, "copy_length": 2.854230043837945, "n": 618}


def test_agrees_with_the_released_code_on_pretokenised_scitldr(tmp_path):
    """`citesum bias` on a single-reference SciTLDR-A-style folder of pre-tokenised, lower-cased text (the SciTLDR-A test
    split written by `citesum_nb.bias.pretokenised_folder`), against

    - fixed expectations, RELEASED_SCITLDR_PRETOKENISED: what zide05/CDEvalSumm's `Data-bias-metrics/metrics/density.py`,
      run unchanged on the same sentences (document sentences from the file, the reference split by
      `citesum_nb.data.text_sentences`), printed as the means of its four lists, with `spacy.load("en_core_web_sm")`
      replaced by `spacy.blank("en")` (the same tokenizer rules; the model cannot be downloaded here);
    - the numbers of `_independent`, a plain implementation written in this test.

    Each must agree within 0.2%."""
    from citesum_nb.bias import pretokenised_folder
    from citesum_nb.data import load_split, source_sentences, text_sentences
    folder = pretokenised_folder(load_split(need_shared("scitldr")/"SciTLDR-A", "test"), tmp_path/"scitldr_pt")
    ours = last_json(citesum("bias", "--data", folder, "--split", "test", "--json").stdout)
    assert ours["n"] == RELEASED_SCITLDR_PRETOKENISED["n"]
    ds = load_split(folder, "test")
    independent = _independent(source_sentences(ds), [text_sentences(r[0]) for r in ds["tgt"]])
    for k in ("coverage", "density", "compression", "copy_length"):
        assert ours[k] == pytest.approx(RELEASED_SCITLDR_PRETOKENISED[k], rel=0.002), k
        assert ours[k] == pytest.approx(independent[k], rel=0.002), k
