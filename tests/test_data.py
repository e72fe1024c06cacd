"Loading data where the notebook cannot: without the network, and the real SciTLDR-A files."
import pytest

from citesum_nb.core import CitesumError
from citesum_nb.data import load_split, source_sentences
from conftest import need_shared


def test_hub_name_without_network_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1"); monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("allenai/scitldr", "abisee/cnn_dailymail:3.0.0"):
        with pytest.raises(CitesumError, match="Hugging Face Hub"): load_split(name, "test")


def test_scitldr_a_splits():
    root = need_shared("scitldr")/"SciTLDR-A"
    test = load_split(root, "test")
    assert len(test) == 618 and sum(map(len, test["tgt"])) == 1967     # the last line has no newline: still read
    assert all("\n" not in s and s == s.strip() for ss in test["src_sents"][:100] for s in ss)
    assert (len(load_split(root, "validation")), len(load_split(root, "dev", n=5))) == (619, 5)
    assert source_sentences(test)[:3] == test["src_sents"][:3]
