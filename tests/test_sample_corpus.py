"""The bundled S2ORC-format sample corpus: schema, offsets, links, and byte-identical regeneration."""
import gzip
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

import citesum_nb

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "make_sample_corpus.py"
DATA = REPO / "tools" / "sample_corpus"
SAMPLE = Path(str(files(citesum_nb) / "sample" / "s2orc"))
NAMES = [f"{sub}/{sub}_{k}.jsonl.gz" for k in (0, 1) for sub in ("metadata", "pdf_parses")]

META_KEYS_NO_PDF = ["paper_id", "title", "authors", "abstract", "year", "arxiv_id", "acl_id", "pmc_id", "pubmed_id",
                    "doi", "venue", "journal", "mag_id", "mag_field_of_study", "outbound_citations",
                    "inbound_citations", "has_outbound_citations", "has_inbound_citations", "has_pdf_parse", "s2_url"]
META_KEYS_PDF = ["paper_id", "title", "authors", "abstract", "year", "arxiv_id", "acl_id", "pmc_id", "pubmed_id",
                 "doi", "venue", "journal", "has_pdf_body_text", "mag_id", "mag_field_of_study",
                 "outbound_citations", "inbound_citations", "has_outbound_citations", "has_inbound_citations",
                 "has_pdf_parse", "has_pdf_parsed_abstract", "has_pdf_parsed_body_text",
                 "has_pdf_parsed_bib_entries", "has_pdf_parsed_ref_entries", "s2_url"]
PDF_KEYS = ["paper_id", "_pdf_hash", "abstract", "body_text", "bib_entries", "ref_entries"]


def load(name):
    with gzip.open(SAMPLE / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def corpus():
    meta = {k: load(f"metadata/metadata_{k}.jsonl.gz") for k in (0, 1)}
    pdf = {k: load(f"pdf_parses/pdf_parses_{k}.jsonl.gz") for k in (0, 1)}
    return meta, pdf


def paragraphs(rec):
    return rec["abstract"] + rec["body_text"]


def test_files_are_package_data():
    for name in NAMES:
        assert (SAMPLE / name).is_file(), f"missing {name} under {SAMPLE}"
    assert (SAMPLE.parent / "README.md").is_file()
    assert sum((SAMPLE / n).stat().st_size for n in NAMES) < 300_000


def test_metadata_schema(corpus):
    meta, _ = corpus
    ids = [r["paper_id"] for k in meta for r in meta[k]]
    assert 60 <= len(ids) <= 72 and len(set(ids)) == len(ids)
    fields = set()
    for k in meta:
        for r in meta[k]:
            assert list(r) == (META_KEYS_PDF if r["has_pdf_parse"] else META_KEYS_NO_PDF)
            assert r["paper_id"].isdigit() and isinstance(r["year"], int)
            assert all(set(a) == {"first", "middle", "last", "suffix"} for a in r["authors"])
            assert r["abstract"] is None or isinstance(r["abstract"], str)
            fields.update(r["mag_field_of_study"])
    assert len(fields) >= 7


def test_pdf_parses_schema_and_order(corpus):
    meta, pdf = corpus
    for k in (0, 1):
        assert [r["paper_id"] for r in pdf[k]] == [r["paper_id"] for r in meta[k] if r["has_pdf_parse"]]
        for r in pdf[k]:
            assert list(r) == PDF_KEYS
            for p in paragraphs(r):
                assert list(p) == ["section", "text", "cite_spans", "ref_spans"]
            for e in r["bib_entries"].values():
                assert list(e) == ["title", "authors", "year", "venue", "link"]
                assert e["link"] is None or e["link"].isdigit()


def test_cite_span_offsets_and_ref_ids(corpus):
    _, pdf = corpus
    n_spans = n_null = 0
    for k in pdf:
        for r in pdf[k]:
            for p in paragraphs(r):
                for s in p["cite_spans"]:
                    assert list(s) == ["start", "end", "text", "ref_id"]
                    assert p["text"][s["start"]:s["end"]] == s["text"], (r["paper_id"], s)
                    n_spans += 1
                    if s["ref_id"] is None:
                        n_null += 1
                    else:
                        assert s["ref_id"] in r["bib_entries"], (r["paper_id"], s)
                for s in p["ref_spans"]:
                    assert p["text"][s["start"]:s["end"]] == s["text"]
                    assert s["ref_id"] in r["ref_entries"]
    assert n_spans > 100 and 0 < n_null < n_spans


def test_links_cross_shards_and_include_unknown_and_null(corpus):
    meta, pdf = corpus
    shard_of = {r["paper_id"]: k for k in meta for r in meta[k]}
    kinds = {"cross": 0, "same": 0, "unknown": 0, "null": 0}
    for k in pdf:
        for r in pdf[k]:
            for e in r["bib_entries"].values():
                if e["link"] is None:
                    kinds["null"] += 1
                elif e["link"] not in shard_of:
                    kinds["unknown"] += 1
                else:
                    kinds["cross" if shard_of[e["link"]] != k else "same"] += 1
    assert all(v > 0 for v in kinds.values()), kinds


def test_related_work_and_section_variety(corpus):
    _, pdf = corpus
    titles = {p["section"] for k in pdf for r in pdf[k] for p in r["body_text"]}
    for t in ["Related Work", "2 Related Work", "Background and Related Work", "RELATED WORK", "Related Works",
              "5. Related work"]:
        assert t in titles, t
    assert any(t.startswith("2.1 ") for t in titles) and any(t.startswith("3 ") for t in titles)
    n_rw = sum(any("related work" in p["section"].lower() for p in r["body_text"]) for k in pdf for r in pdf[k])
    n_all = sum(len(m) for m in corpus[0].values())
    assert 0.35 <= n_rw / n_all <= 0.55


def test_texts_are_data_files(corpus):
    "The hand-written papers live in YAML beside the script, which only renders them."
    import yaml
    papers = yaml.safe_load((DATA / "papers.yaml").read_text(encoding="utf-8"))
    external = yaml.safe_load((DATA / "external.yaml").read_text(encoding="utf-8"))
    meta, _ = corpus
    titles = [r["title"] for k in meta for r in meta[k]]
    assert sorted(p["title"] for p in papers) == sorted(titles)
    assert len({p["key"] for p in papers}) == len(papers) and not set(external) & {p["key"] for p in papers}
    script = SCRIPT.read_text(encoding="utf-8")
    assert "\nP(" not in script and "\nX(" not in script and len(script.splitlines()) < 800


def test_regeneration_is_byte_identical(tmp_path):
    out = tmp_path / "s2orc"
    readme = tmp_path / "README.md"
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--readme", str(readme)], check=True,
                   capture_output=True)
    for name in NAMES:
        assert (out / name).read_bytes() == (SAMPLE / name).read_bytes(), f"{name} differs: rerun the script"
    assert readme.read_text() == (SAMPLE.parent / "README.md").read_text()
