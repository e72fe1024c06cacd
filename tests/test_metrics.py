"ROUGE on real text: the metrics module gives exactly rouge-score's numbers on SciTLDR-A's TLDRs and abstracts."
import json

import numpy as np
import pytest
from rouge_score import rouge_scorer

from citesum_nb.metrics import ROUGE_TYPES, RecallScorer, per_example_rouge
from conftest import need_shared


@pytest.fixture(scope="module")
def pairs():
    "(TLDR, abstract) pairs of the first 300 SciTLDR-A test papers, two TLDRs each"
    out = []
    for line in (need_shared("scitldr")/"SciTLDR-A"/"test.jsonl").read_text().splitlines()[:300]:
        d = json.loads(line)
        out += [(t, " ".join(d["source"])) for t in d["target"][:2]]
    return out


@pytest.mark.parametrize("stem", [True, False])
def test_recall_scorer_equals_rouge_score_on_real_text(pairs, stem):
    "The build filter's recall (bit-parallel LCS, memoised stemming; no REF in SciTLDR) is rouge-score's, to the last bit"
    ours, ref = RecallScorer(stem), rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stem)
    for sent, abstract in pairs:
        a, b = ours(sent, abstract), ref.score(target=sent, prediction=abstract)
        assert a == {k: 100*b[m].recall for k, m in (("r1", "rouge1"), ("r2", "rouge2"), ("rl", "rougeL"))}, sent


def test_per_example_rouge_equals_rouge_score_on_real_text(pairs):
    "Multi-reference ROUGE with the first reference: every P/R/F of rouge-score's RougeScorer, to the last bit"
    preds = [abstract.split(". ")[0] for _, abstract in pairs[::2]]    # each paper's first sentence against its TLDRs
    refs = [[t for t, _ in pairs[i:i+2]] for i in range(0, len(pairs), 2)]
    ours = per_example_rouge(preds, refs, multi_ref="first")
    plain = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    want = [plain.score(r[0], p) for p, r in zip(preds, refs)]
    for t, short in zip(ROUGE_TYPES, ("r1", "r2", "rL", "rLsum")):
        for m, k in (("p", "precision"), ("r", "recall"), ("f", "fmeasure")):
            assert ours[f"{short}_{m}"].tolist() == [getattr(w[t], k) * 100 for w in want], (t, m)
