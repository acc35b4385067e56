"""arXiv ids in every form the listings write them, and ids made from titles."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from pipeline.clean.ids import abs_url, normalise_title, parse_arxiv_id, title_id

RAW = Path(__file__).parents[2] / "data" / "raw"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2606.04101", ("2606.04101", None)),
        ("2606.04101v2", ("2606.04101", 2)),
        ("2606.04101v12", ("2606.04101", 12)),
        ("  2606.04101v2\n", ("2606.04101", 2)),
        ("0704.0001", ("0704.0001", None)),  # the first new-style id
        ("1412.9999", ("1412.9999", None)),  # four digits until 2014 ...
        ("1501.00001", ("1501.00001", None)),  # ... five from 2015
        ("arXiv:2606.04101", ("2606.04101", None)),
        ("ARXIV:2606.04101V3", ("2606.04101", 3)),
        ("http://arxiv.org/abs/2606.04101v2", ("2606.04101", 2)),
        ("https://arxiv.org/abs/2606.04101", ("2606.04101", None)),
        ("https://arxiv.org/pdf/2606.04101v2", ("2606.04101", 2)),
        ("https://arxiv.org/pdf/2606.04101v2.pdf", ("2606.04101", 2)),
        ("https://export.arxiv.org/abs/2606.04101", ("2606.04101", None)),
        ("https://www.arxiv.org/abs/2606.04101v1", ("2606.04101", 1)),
        ("arxiv.org/abs/2606.04101", ("2606.04101", None)),
        ("hep-th/9901001", ("hep-th/9901001", None)),
        ("hep-th/9901001v3", ("hep-th/9901001", 3)),
        ("math.GT/0309136v2", ("math.GT/0309136", 2)),
        ("MATH.gt/0309136", ("math.GT/0309136", None)),  # archive lower case, subject class upper
        ("cond-mat/0601001", ("cond-mat/0601001", None)),
        ("q-bio.NC/0401001", ("q-bio.NC/0401001", None)),
        ("http://arxiv.org/abs/hep-th/9901001v1", ("hep-th/9901001", 1)),
        ("https://arxiv.org/pdf/math.GT/0309136v2", ("math.GT/0309136", 2)),
    ],
)
def test_parse_arxiv_id(text: str, expected: tuple[str, int | None]) -> None:
    assert parse_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "   ",
        "not an id",
        "2606.041",  # too few digits
        "2606.041011",  # too many
        "2606.04101v",  # a "v" without a version
        "2606.04101v0",  # versions start at 1
        "2606.04101 v2",
        "2613.04101",  # month 13
        "2600.04101",  # month 0
        "0703.0001",  # new-style ids began in April 2007
        "0704.00001",  # five digits before 2015
        "1501.0001",  # four digits from 2015
        "hep-th/990100",  # old style has seven digits
        "hep-th/9913001",  # month 13
        "hep-th9901001",
        "https://example.com/abs/2606.04101",
        "https://arxiv.org/list/2606.04101",
        "doi:10.1103/PhysRevD.76.013009",
        "title:46a939301ca2b16d",
    ],
)
def test_parse_arxiv_id_rejects(text: str | None) -> None:
    assert parse_arxiv_id(text) is None


def test_every_id_in_the_seeds_and_the_snapshot_parses(formats_dir: Path) -> None:
    seed = (RAW / "001_604093044f557937.txt").read_text(encoding="utf-8")
    seed_urls = re.findall(r"https?://arxiv\.org/abs/\d{4}\.\d{5}v\d+", seed)
    assert "http://arxiv.org/abs/2505.07833v2" in seed_urls
    assert all(parse_arxiv_id(url) for url in seed_urls)
    snapshot = formats_dir / "arxiv-metadata-oai-snapshot_head200.jsonl"
    lines = snapshot.read_text(encoding="utf-8").splitlines()
    snapshot_ids = [json.loads(line)["id"] for line in lines]
    assert [parse_arxiv_id(i) for i in snapshot_ids] == [(i, None) for i in snapshot_ids]


@pytest.mark.corpus
def test_every_id_in_a_daily_file_parses(corpus_dir: Path) -> None:
    with gzip.open(sorted(corpus_dir.glob("*.jsonl.gz"))[0], "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    for record in records:
        assert parse_arxiv_id(record["id"]) == (record["id"], None)
        assert parse_arxiv_id(record["abs"])[0] == record["id"]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Calculation of Prompt Diphoton Production: Cross-Sections!",
         "calculation of prompt diphoton production cross sections"),
        ("  Multiple   spaces\nand  lines ", "multiple spaces and lines"),
        ("Ångström São Paulo Gröbner", "angstrom sao paulo grobner"),
        ("ﬁne-tuning with x²", "fine tuning with x2"),  # compatibility forms fold
        ("Øbro's Φ(G)", "øbro s φ g"),  # letters without a decomposition stay
        ("STRASSE", "strasse"),
        ("", ""),
    ],
)
def test_normalise_title(title: str, expected: str) -> None:
    assert normalise_title(title) == expected


def test_title_id_ignores_case_accents_punctuation_and_spacing() -> None:
    base = title_id("Calculation of prompt diphoton production cross sections")
    assert re.fullmatch(r"title:[0-9a-f]{16}", base)
    assert title_id("CALCULATION of Prompt-Diphoton production:  cross sections.") == base
    assert title_id("Calculation of prompt diphoton production cross section") != base
    assert title_id("Gröbner bases") == title_id("Grobner Bases")


def test_title_id_is_stable_across_runs() -> None:
    # ids made from titles are stored; changing normalise_title or the hash would orphan them
    assert title_id("Calculation of prompt diphoton production cross sections") == "title:8670680d59707670"


@pytest.mark.parametrize(
    ("paper_id", "expected"),
    [
        ("2606.04101", "https://arxiv.org/abs/2606.04101"),
        ("hep-th/9901001", "https://arxiv.org/abs/hep-th/9901001"),
        ("math.GT/0309136", "https://arxiv.org/abs/math.GT/0309136"),
        ("title:46a939301ca2b16d", None),
    ],
)
def test_abs_url(paper_id: str, expected: str | None) -> None:
    assert abs_url(paper_id) == expected
