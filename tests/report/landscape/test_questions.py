"""The researcher's questions of notebook 04, on a small hand-made corpus."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.report.landscape import questions as q
from pipeline.report.data import Corpus


@pytest.fixture
def corpus() -> Corpus:
    weeks = ["2025-W01", "2025-W01", "2025-W02", "2025-W03", "2025-W03", "2025-W03"]
    mondays = pd.to_datetime(["2024-12-30", "2024-12-30", "2025-01-06", "2025-01-13", "2025-01-13", "2025-01-13"], utc=True)
    papers = pd.DataFrame({
        "paper_id": ["p1", "p2", "p3", "p4", "p5", "p6"],
        "title": ["MoE serving at scale", "Edge offloading", "KV cache for MoE serving", "Mixture-of-experts serving",
                  "Offloading to the edge", "Consensus"],
        "abstract": ["Serving experts.", "We offload.", "A KV-cache design.", "MoE-serving systems.", "Edge.", "BFT."],
        "week": weeks, "week_start": mondays, "published": mondays + pd.to_timedelta(np.arange(6), unit="h"),
        "primary_category": ["cs.DC", "cs.NI", "cs.DC", "cs.LG", "cs.NI", "cs.DC"],
        "topic": [0, 1, 0, 0, 1, -1],
    })
    themes = pd.DataFrame({
        "label": ["MoE serving", "Edge offloading"], "area_label": ["Systems", "Systems"],
        "keywords": [["moe", "serving"], ["edge", "offloading"]], "label_support": [0.67, 0.5],
        "description": ["MoE serving · experts", "edge offloading · edge"], "first_week": ["2025-W01", "2025-W01"],
        "size": [3, 2],
    }, index=pd.Index([0, 1], name="topic"))
    lineage = pd.DataFrame({"run": ["2025-01-01T00:00:00Z", "2025-01-20T00:00:00Z"], "from_topic": pd.array([None, 0], "Int64"),
                            "to_topic": pd.array([0, 1], "Int64"), "relation": ["new", "split"],
                            "shared_papers": pd.array([3, 1], "Int64"), "mode": ["fit", "update"], "week": [None, "2025-W03"]})
    return Corpus(papers, themes, lineage)


def test_similar_papers_are_nearest_by_cosine_and_never_the_paper_itself(corpus):
    embeddings = np.array([[1, 0], [0, 1], [0.9, 0.1], [0.7, 0.3], [0.1, 0.9], [-1, 0]], dtype=float)
    table = q.similar_papers(corpus, embeddings, "p1", k=3)
    assert table["paper_id"].tolist() == ["p3", "p4", "p5"]
    assert table["theme"].tolist() == ["MoE serving", "MoE serving", "Edge offloading"]
    assert table["similarity"].is_monotonic_decreasing
    with pytest.raises(ValueError, match="no paper 'nope'"):
        q.similar_papers(corpus, embeddings, "nope")


def test_a_theme_by_label_or_id_and_a_clear_error_otherwise(corpus):
    assert q.theme_id(corpus, "moe SERVING") == 0 and q.theme_id(corpus, 1) == 1
    with pytest.raises(ValueError, match="did you mean 'MoE serving'"):
        q.theme_id(corpus, "MoE")
    with pytest.raises(ValueError, match="no theme 7"):
        q.theme_id(corpus, 7)


def test_one_theme_week_by_week_counts_every_week_even_empty_ones(corpus):
    series, listed = q.theme_weeks(corpus, "Edge offloading")
    assert series["week"].tolist() == ["2025-W01", "2025-W02", "2025-W03"]
    assert series["papers"].tolist() == [1, 0, 1]
    assert series["share"].tolist() == [0.5, 0.0, pytest.approx(1 / 3, abs=1e-4)]
    assert listed["paper_id"].tolist() == ["p5", "p2"]  # newest first


def test_two_themes_side_by_side(corpus):
    weekly, table = q.compare_themes(corpus, 0, "Edge offloading")
    assert weekly.columns.tolist() == ["MoE serving", "Edge offloading"]
    assert weekly.loc["2025-W03"].tolist() == [1, 1] and weekly.loc["2025-W02"].tolist() == [1, 0]
    assert table.loc["papers"].tolist() == [3, 2]
    assert table.loc["top categories", "MoE serving"] == "cs.DC, cs.LG"


def test_a_phrase_matches_whole_words_across_hyphens_and_spaces(corpus):
    table, listed = q.phrase_by_theme_and_week(corpus, "MoE serving")
    assert set(listed["paper_id"]) == {"p1", "p3", "p4"}  # "MoE-serving" in p4's abstract counts
    assert table.loc["MoE serving", "all"] == 3
    assert q.phrase_matches(corpus, "KV cache").tolist() == [False, False, True, False, False, False]
    assert not q.phrase_matches(corpus, "edge offload").any()  # whole words only
    with pytest.raises(ValueError, match="empty phrase"):
        q.phrase_matches(corpus, "  ")


def test_a_themes_history_names_the_other_theme(corpus):
    history = q.theme_history(corpus, 0)
    assert history["relation"].tolist() == ["new", "split"]
    assert history.loc[1, "to"] == "Edge offloading" and history.loc[1, "from"] == "MoE serving"


def test_any_table_exports_to_csv_with_lists_joined(corpus, tmp_path):
    path = q.export_csv(corpus.themes, tmp_path / "out" / "themes.csv")
    back = pd.read_csv(path)
    assert back["topic"].tolist() == [0, 1]
    assert back["keywords"].tolist() == ["moe; serving", "edge; offloading"]
