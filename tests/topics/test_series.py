"""A theme one author carries is not named by a phrase of that series (``series.py``)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from pipeline.config import TopicsConfig
from pipeline.topics import name_run, series
from pipeline.topics.names import ThemeToName
from pipeline.topics.state import Assignment
from tests.topics.test_update import three_themes

ESSAYS = 36  # of theme 0's 60 papers, one author's essays: most of it


def carried_store(essays: int = ESSAYS) -> tuple[Assignment, pd.DataFrame, list[str]]:
    """Three themes; ``essays`` of theme 0's papers are one author's series on "category mistakes",
    and theme 0 is labelled by the series' phrase; the others are on graph partitioning."""
    store = three_themes()
    texts, authors = list(store["texts"]), [[f"Author {i}", f"Coauthor {i}"] for i in range(len(store["texts"]))]
    for i in range(essays):
        texts[i] = f"The category mistake, essay {i}. Why a category mistake hides in how we talk of systems."
        authors[i] = ["Ana Essayist"]
    state = copy.deepcopy(store["state"])
    state.labels[0] = "Category mistake"
    result = Assignment(store["topics"].copy(), np.ones(len(texts)), state, [], "fit")
    return result, pd.DataFrame({"authors": authors}), texts


def test_a_theme_named_by_one_authors_series_is_named_again_from_its_other_papers():
    result, papers, texts = carried_store()
    [job] = series.renames(result, papers, texts, TopicsConfig())
    assert isinstance(job, ThemeToName) and job.theme == 0
    assert sorted(job.rows.tolist()) == list(range(ESSAYS, 60))  # the theme's papers outside the series

    result.to_name = [job]
    name_run(result, texts, None, TopicsConfig())
    label = result.state.labels[0].lower()
    assert "category" not in label and "mistake" not in label
    assert any(word in label for word in ("graph", "partitioning", "solvers")), label
    assert "category" not in result.state.descriptions[0].lower()
    assert series.renames(result, papers, texts, TopicsConfig()) == []  # named so, it is asked no more


def test_a_carried_theme_whose_label_fits_its_other_papers_and_a_theme_that_is_all_series_keep_their_labels():
    result, papers, texts = carried_store()
    result.state.labels[0] = "Graph partitioning"
    assert series.renames(result, papers, texts, TopicsConfig()) == []
    result, papers, texts = carried_store(essays=57)  # 3 other papers: the theme is the series
    assert series.renames(result, papers, texts, TopicsConfig()) == []


def test_no_author_on_30_percent_of_a_theme_or_no_authors_asks_nothing():
    result, papers, texts = carried_store(essays=17)  # 17 of 60: under CARRIED_SHARE
    assert series.CARRIED_SHARE * 60 > 17
    assert series.renames(result, papers, texts, TopicsConfig()) == []
    result, papers, texts = carried_store()
    assert series.renames(result, papers.drop(columns="authors"), texts, TopicsConfig()) == []
