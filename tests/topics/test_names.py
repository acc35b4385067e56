"""Naming once per run (``names.py``): an update asks, ``name_run`` names, as things stood when asked."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics import name_run, update
from pipeline.topics.names import FormingToName, ThemeToName
from tests.topics.test_emerge import around
from tests.topics.test_update import quantum_group, three_themes


@pytest.fixture
def store():
    return three_themes()


def asked(store: dict, group: np.ndarray, week: str, cfg: TopicsConfig = TopicsConfig()):  # noqa: ANN201
    """An update with ``group`` arriving in ``week``, not yet named; with the inputs of its naming."""
    embeddings = np.vstack([store["embeddings"], group]).astype(np.float32)
    ids = [f"p{i}" for i in range(len(embeddings))]
    weeks = store["weeks"] + [week] * len(group)
    previous = {p: int(t) for p, t in zip(ids, store["topics"])}
    return update(embeddings, ids, cfg, copy.deepcopy(store["state"]), previous, weeks=weeks)


def test_an_update_names_nothing_itself_and_name_run_names_what_it_asked(store):
    group, texts = quantum_group(store)
    result = asked(store, group, "2025-W05")
    [job] = result.to_name
    assert isinstance(job, ThemeToName) and job.theme == 3 and job.born == result.lineage[0]
    assert 3 not in result.state.labels  # born, not yet named
    name_run(result, store["texts"] + texts, None, TopicsConfig())
    assert "annealing" in result.state.labels[3].lower() and result.to_name == []
    assert result.state.descriptions[3].lower().startswith(result.state.labels[3].lower())
    assert next(r for r in result.state.tree if r["node"] == "theme:3")["label"] == result.state.labels[3]


def test_a_forming_group_is_labelled_in_the_result_and_in_the_state(store):
    cfg = dataclasses.replace(TopicsConfig(), emerge_min_size=12, max_outlier_share=0.2)
    group = around(store["rng"], store["centres"][3], 8, spread=0.2)
    result = asked(store, group, "2025-W05", cfg)
    [job] = result.to_name
    assert isinstance(job, FormingToName) and result.forming[0].label == ""
    name_run(result, store["texts"] + [f"Quantum annealing, paper {i}." for i in range(8)], None, cfg)
    [forming] = result.forming
    assert "annealing" in forming.label.lower() and result.state.forming[0]["label"] == forming.label


def test_a_theme_is_named_against_the_themes_there_were_when_it_asked(store, monkeypatch):
    import pipeline.topics.names as names_module

    group, texts = quantum_group(store)
    result = asked(store, group, "2025-W05")
    alone = copy.deepcopy(result)
    name_run(alone, store["texts"] + texts, None, TopicsConfig())
    # a theme added to the state after the request (here by hand, with the label the birth gets
    # without it) is not among its neighbours
    state = result.state
    state.ids = np.append(state.ids, 9)
    state.centroids = np.vstack([state.centroids, state.centroids[3:4]]).astype(np.float32)
    state.labels[9] = alone.state.labels[3]
    [job] = result.to_name
    state.centroids[:4] = state.centroids[[1, 2, 3, 0]]  # and the state's centroids moved since
    seen = []
    real = names_module.name_groups

    def spy(texts, titles, groups, ids, centroids, *args, **kwargs):  # noqa: ANN001, ANN202
        seen.append((list(ids), centroids))
        return real(texts, titles, groups, ids, centroids, *args, **kwargs)

    monkeypatch.setattr(names_module, "name_groups", spy)
    name_run(result, store["texts"] + texts, None, TopicsConfig())
    [(ids, centroids)] = seen
    assert ids[0] == 3 and sorted(ids) == [0, 1, 2, 3]
    assert np.array_equal(centroids, job.centroids[ids])  # the themes' centroids when it asked
    # but its label is unique among the labels there are when it is named
    assert result.state.labels[3] != alone.state.labels[3]
