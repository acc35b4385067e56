"""A theme one author carries is not named by a phrase of that series (``series.py``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import pandas as pd

from pipeline import voice
from pipeline.config import TopicsConfig
from pipeline.topics import name_run
from pipeline.topics.naming import series
from pipeline.topics.naming.names import ThemeToName
from pipeline.topics.state import RunResult
from tests.topics.weekly.test_update import three_themes

ESSAYS = 36  # of theme 0's 60 papers, one author's essays: most of it


def carried_store(essays: int = ESSAYS) -> tuple[RunResult, pd.DataFrame, list[str]]:
    """Three themes; ``essays`` of theme 0's papers are one author's series on "category mistakes",
    and theme 0 is labelled by the series' phrase; the others are on graph partitioning."""
    store = three_themes()
    texts, authors = list(store["texts"]), [[f"Author {i}", f"Coauthor {i}"] for i in range(len(store["texts"]))]
    for i in range(essays):
        texts[i] = f"The category mistake, essay {i}. Why a category mistake hides in how we talk of systems."
        authors[i] = ["Ana Essayist"]
    state = copy.deepcopy(store["state"])
    state.labels[0] = "Category mistake"
    result = RunResult(store["topics"].copy(), np.ones(len(texts)), state, [], "fit")
    return result, pd.DataFrame({"authors": authors}), texts


def test_a_theme_named_by_one_authors_series_is_named_again_from_its_other_papers():
    result, papers, texts = carried_store()
    [job] = series.renames(result, papers, texts, TopicsConfig())
    assert isinstance(job, ThemeToName) and job.theme == 0
    assert sorted(job.rows.tolist()) == list(range(ESSAYS, 60))  # the theme's papers outside the series
    assert sorted(job.support_on.tolist()) == list(range(60))

    result.to_name = [job]
    name_run(result, texts, None, TopicsConfig())
    label = result.state.labels[0].lower()
    assert "category" not in label and "mistake" not in label
    assert any(word in label for word in ("graph", "partitioning", "solvers")), label
    assert "category" not in result.state.descriptions[0].lower()
    # its support is the share of all its papers, the series' included, that write the label
    assert result.state.support[0] == (60 - ESSAYS) / 60
    assert series.renames(result, papers, texts, TopicsConfig()) == []  # named so, it is asked no more


def test_the_runs_one_naming_applies_the_series_rule_when_given_the_papers():
    result, papers, texts = carried_store()
    name_run(result, texts, None, TopicsConfig())  # without the papers: nothing to say of authors
    assert result.state.labels[0] == "Category mistake"
    name_run(result, texts, None, TopicsConfig(), papers=papers)
    label = result.state.labels[0].lower()
    assert "category" not in label and "mistake" not in label and result.to_name == []


def test_a_carried_theme_whose_label_fits_its_other_papers_and_a_theme_that_is_all_series_keep_their_labels():
    result, papers, texts = carried_store()
    result.state.labels[0] = "Graph partitioning"
    assert series.renames(result, papers, texts, TopicsConfig()) == []
    result, papers, texts = carried_store(essays=57)  # 3 other papers: the theme is the series
    assert series.renames(result, papers, texts, TopicsConfig()) == []


def test_a_phrase_one_author_coined_in_a_minority_of_a_theme_does_not_name_it():
    result, papers, texts = carried_store(essays=17)  # 17 of 60 (28 %): the author does not carry the theme
    assert voice.one_voice(papers["authors"][:60]) is None
    [job] = series.renames(result, papers, texts, TopicsConfig())  # but every paper writing its label is theirs
    assert sorted(job.rows.tolist()) == list(range(17, 60))
    result.to_name = [job]
    name_run(result, texts, None, TopicsConfig())
    label = result.state.labels[0].lower()
    assert "category" not in label and "mistake" not in label, label
    # a label the other authors write too, or one author's papers with no authors given, asks nothing
    result, papers, texts = carried_store(essays=17)
    result.state.labels[0] = "Graph partitioning"
    assert series.renames(result, papers, texts, TopicsConfig()) == []
    result, papers, texts = carried_store()
    assert series.renames(result, papers.drop(columns="authors"), texts, TopicsConfig()) == []


def test_the_series_rename_never_takes_a_label_that_fits_few_of_the_papers_it_names(monkeypatch):
    from pipeline.topics.naming import names
    from pipeline.topics.naming.label import Named

    result, papers, texts = carried_store()
    [job] = series.renames(result, papers, texts, TopicsConfig())
    real = names.name_groups

    def two_papers_phrase(*args, **kwargs):  # the best the other papers offer: a phrase 2 of 24 write
        named = real(*args, **kwargs)
        return {**named, 0: Named("Sparse tensor solvers", named[0].description, 2 / 24, True)}

    monkeypatch.setattr(names, "name_groups", two_papers_phrase)
    result.to_name = [job]
    name_run(result, texts, None, TopicsConfig())
    assert result.state.labels[0] == "Category mistake"  # kept, beside the reports' note, not 2 papers' phrase


def test_the_stage_names_a_series_theme_again_from_the_papers_table(project, hash_embedder, monkeypatch):
    """Through the stage, with the authors as the papers table holds them: every theme made to count
    as carried (thresholds lowered, its label taken as not fitting its other papers) is asked to be
    named again, and the label support written is measured on all its papers."""
    import dataclasses

    from pipeline import clean, config, ingest, topics
    from pipeline.io import read_table
    from pipeline.schemas import DocTopics, Papers, TopicInfo
    from pipeline.topics.naming.vocabulary import stop_words
    from pipeline.topics.naming.words import WordIndex

    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    real, asked = series.renames, []

    def renames(result, papers, texts, settings):  # noqa: ANN001, ANN202
        assert all(t in result.state.labels for t in result.state.ids.tolist())  # after the run's naming
        assert len(papers) == len(texts) == len(result.topics)
        asked.extend(real(result, papers, texts, dataclasses.replace(settings, min_label_support=1.01)))
        return asked

    monkeypatch.setattr(series, "renames", renames)
    monkeypatch.setattr(voice, "VOICE_SHARE", 0.0)
    monkeypatch.setattr(voice, "VOICE_PAPERS", 1)
    topics.run(cfg, embedder=hash_embedder)
    assert asked and all(job.support_on is not None for job in asked)
    papers = read_table(cfg.paths.papers, Papers)
    info = read_table(cfg.paths.topic_info, TopicInfo).set_index("topic")
    theme = read_table(cfg.paths.doc_topics, DocTopics).set_index("paper_id").loc[papers["paper_id"], "topic"].to_numpy()
    stop = frozenset(stop_words(cfg.topics.stop_words))
    texts = topics.paper_texts(papers)
    for job in asked:
        rows = [i for i in range(len(texts)) if theme[i] == job.theme]
        index = WordIndex([texts[i] for i in rows])
        label = info.loc[job.theme, "label"]
        assert info.loc[job.theme, "label_support"] == pytest.approx(len(index.having(index.words(label, stop))) / len(rows))


def test_the_series_rename_never_takes_another_authors_phrase():
    result, papers, texts = carried_store()
    papers.loc[ESSAYS:59, "authors"] = pd.Series([["Bo Second"]] * (60 - ESSAYS), index=range(ESSAYS, 60))
    [job] = series.renames(result, papers, texts, TopicsConfig())  # Ana Essayist carries it: named from the rest
    result.to_name = [job]
    name_run(result, texts, None, TopicsConfig())
    assert result.state.labels[0] == "Category mistake"  # the rest are all Bo Second's: their phrase is a series too
