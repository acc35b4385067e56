"""The whole 2025 daily corpus in ../shared: ingest and clean it, check it against independent counts."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from pipeline import clean, config, ingest
from pipeline.io import read_table
from pipeline.schemas import Duplicates, Papers, Quarantine

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus_tables(corpus_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    cfg = config.load(root, overrides={"ingest": {"inputs": [str(corpus_dir)]}})
    ingested = ingest.run(cfg)
    cleaned = clean.run(cfg)
    paths = cfg.paths
    return (
        ingested,
        cleaned,
        read_table(paths.papers, Papers).set_index("paper_id"),
        read_table(paths.duplicates, Duplicates),
        read_table(paths.quarantine, Quarantine),
    )


def test_paper_count_equals_distinct_ids(corpus_dir, corpus_tables):
    ingested, cleaned, papers, duplicates, quarantine = corpus_tables
    lines, ids = 0, set()
    for path in sorted(corpus_dir.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                lines += 1
                ids.add(json.loads(line)["id"])
    assert ingested.counts["files"] == 228
    assert ingested.counts["records"] == lines
    assert len(papers) == len(ids)
    assert set(papers.index) == ids
    assert len(duplicates) == lines - len(ids)
    assert quarantine.empty
    assert cleaned.counts == {"raw records": lines, "papers": len(ids), "duplicates": lines - len(ids), "quarantined": 0}


@pytest.mark.parametrize(
    ("paper_id", "primary", "published", "week"),
    [
        # checked by hand with zcat/grep over the daily files
        ("2503.11731", "cs.CV", "2025-03-18", "2025-W12"),  # listed twice on its first day
        ("2504.02222", "eess.IV", "2025-04-04", "2025-W14"),  # announced Fri, Sat and Sun
        ("2512.23676", "cs.AI", "2025-12-30", "2026-W01"),  # a 2025 day in ISO week 2026-W01
        ("2512.22819", "cs.CV", "2025-12-30", "2026-W01"),
    ],
)
def test_hand_checked_papers(corpus_tables, paper_id, primary, published, week):
    papers = corpus_tables[2]
    paper = papers.loc[paper_id]
    assert paper["primary_category"] == primary
    assert paper["categories"][0] == primary
    assert paper["published"] == pd.Timestamp(published, tz="UTC")
    assert paper["week"] == week
    assert paper["week_start"].day_name() == "Monday"


def test_acm_classes_are_not_categories(corpus_tables):
    papers = corpus_tables[2]
    # 2503.18702 is listed once with categories ["cs.CL", "I.2.6; I.2.7; J.5"] and once with arXiv ones
    assert list(papers.loc["2503.18702", "categories"]) == ["cs.CL", "cs.AI", "cs.LG", "cs.MA"]
    assert not papers["categories"].map(lambda c: any(";" in x or x[:1].isupper() for x in c)).any()


def test_text_is_clean(corpus_tables):
    papers = corpus_tables[2]
    assert not papers["abstract"].str.contains("\n").any()
    assert not papers["abstract"].str.contains("  ").any()
    assert papers["title"].str.len().min() > 0
    assert papers["week"].str.match(r"^2025-W\d\d$|^2026-W01$").all()
