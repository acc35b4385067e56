"""Naming once per run (``names.py``): an update asks, ``name_run`` names, as things stood when asked."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics import name_run, update
from pipeline.topics.naming.names import FormingToName, ThemeToName
from tests.topics.weekly.test_emerge import around
from tests.topics.weekly.test_update import quantum_group, three_themes


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
    import pipeline.topics.naming.names as names_module

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


def _areas_to_name(texts_by_theme: dict[int, list[str]], area_of: dict[int, int], embed=None,  # noqa: ANN001, ANN202
                   kept: dict[int, str] | None = None):
    """A run that left only its areas to name: each theme's papers and the area each theme is in, the
    areas' centroids unit vectors along their own axes; ``kept``: labels kept from a previous fit."""
    from pipeline.topics.naming.names import AreasToName
    from pipeline.topics.state import RunResult, State

    themes = np.array([t for t, texts in texts_by_theme.items() for _ in texts])
    texts = [text for t in texts_by_theme for text in texts_by_theme[t]]
    area_ids = sorted(set(area_of.values()))
    state = State(np.array(sorted(texts_by_theme)), np.eye(len(texts_by_theme), 4, dtype=np.float32), {},
                  {t: f"Theme label {t}" for t in texts_by_theme}, "test", max(texts_by_theme) + 1, "now",
                  area_of=dict(area_of), tree=[{"node": f"area:{a}", "parent": None, "level": "area", "topic": None,
                                                "area": a, "label": None, "size": 0, "distance": 0.0} for a in area_ids])
    job = AreasToName(np.arange(len(texts)), np.array([area_of[t] for t in themes]), themes, area_ids,
                      np.eye(len(area_ids), 4, dtype=np.float32), kept or {})
    result = RunResult(themes, np.ones(len(texts)), state, [], "fit", to_name=[job])
    name_run(result, texts, None, TopicsConfig(), embed=embed)
    return result.state.area_labels, result, texts


def _papers(phrase: str, n: int, filler: str) -> list[str]:
    return [f"Paper {i} on {phrase} with {filler} number {i}. We study {phrase} and {filler} in depth."
            for i in range(n)]


def test_an_area_is_named_by_a_phrase_its_themes_share_or_else_by_its_two_largest_themes():
    texts = {
        # area 0: "stream processing" is written in two of its three themes, which hold most of its papers
        1: _papers("stream processing", 12, "windowed joins"),
        2: _papers("stream processing", 10, "watermark delays"),
        3: _papers("graph partitioning", 6, "edge cuts"),
        # area 1: each theme writes its own phrase; the largest's is the area's best, but one theme's
        4: _papers("protein folding", 14, "contact maps"),
        5: _papers("crop yields", 8, "soil moisture"),
        6: _papers("sea ice", 7, "melt ponds"),
        # area 2: "cache coherence" is written in two themes, but they hold under half its papers
        7: _papers("lock elision", 14, "hardware transactions"),
        8: _papers("cache coherence", 4, "directory protocols"),
        9: _papers("cache coherence", 4, "snooping buses"),
        # area 3: one theme
        10: _papers("quantum annealing", 6, "spin glasses"),
    }
    area_of = {1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 2, 8: 2, 9: 2, 10: 3}
    labels, result, all_texts = _areas_to_name(texts, area_of)
    assert labels[0] == "Stream processing"
    # nothing shared: the list of its themes, largest first (not "A & B": one subject made of two)
    assert labels[1] == "Theme label 4 · Theme label 5 · Theme label 6"
    assert labels[2] == "Theme label 7 · Theme label 8 · Theme label 9"  # 8 of 22 papers write "cache coherence"
    assert labels[3] == "Theme label 10"
    # a kept label stays where its themes still share it, and only there
    assert _areas_to_name(texts, area_of, kept={0: "Stream processing"})[0][0] == "Stream processing"
    refused = _areas_to_name(texts, area_of, kept={0: "Graph partitioning", 2: "Cache coherence"})[0]
    assert refused[0] == "Stream processing" and refused[2] == "Theme label 7 · Theme label 8 · Theme label 9"
    # a theme named again (one author's series, a young theme): the area says its new label
    state = result.state
    result.to_name = [ThemeToName(4, np.flatnonzero(result.topics == 4), result.topics, state.ids, state.centroids)]
    name_run(result, all_texts, None, TopicsConfig())
    assert state.labels[4] != "Theme label 4"
    assert state.area_labels[1] == f"{state.labels[4]} · Theme label 5 · Theme label 6"
    result.to_name = [ThemeToName(10, np.flatnonzero(result.topics == 10), result.topics, state.ids, state.centroids)]
    name_run(result, all_texts, None, TopicsConfig())
    assert state.labels[10] != "Theme label 10" and state.area_labels[3] == state.labels[10]  # its one theme's
    assert [row["label"] for row in state.tree] == [state.area_labels[a] for a in range(4)]


def test_an_area_phrase_that_lies_as_near_another_area_is_not_its_name():
    texts = {1: _papers("stream processing", 12, "windowed joins"), 2: _papers("stream processing", 10, "watermarks"),
             4: _papers("protein folding", 14, "contact maps"), 5: _papers("protein folding", 8, "soil moisture")}
    area_of = {1: 0, 2: 0, 4: 1, 5: 1}

    def embed(phrases: list[str]) -> np.ndarray:  # area 0's centroid is the first axis, area 1's the second
        vectors = {"stream processing": [1, 0.97, 0, 0], "protein folding": [0, 1, 0, 0]}
        return np.array([vectors.get(p, [0, 0, 1, 0]) for p in phrases], np.float32)

    labels = _areas_to_name(texts, area_of, embed)[0]
    assert labels[1] == "Protein folding"  # clearly nearest its own area
    assert labels[0] == "Theme label 1 · Theme label 2"  # 0.72 against 0.70: not clearly its own
    assert _areas_to_name(texts, area_of)[0][0] == "Stream processing"  # without the embedder, shared is enough


def test_an_area_can_be_named_by_an_acronym_its_themes_share_but_not_by_a_common_word():
    def papers(phrase: str, n: int, word: str) -> list[str]:
        return [f"Paper {i} on {phrase}. The {word}, we find, matters. We study {phrase} on machines, case {i}."
                for i in range(n)]

    texts = {1: papers("job scheduling", 12, "HPC"), 2: papers("checkpoint restart", 10, "HPC"),
             3: papers("mesh refinement", 9, "HPC"),
             4: papers("protein folding", 12, "cells"), 5: papers("gene expression", 10, "tissues"),
             6: papers("leader election", 12, "protocol"), 7: papers("state replication", 10, "protocol")}
    labels = _areas_to_name(texts, {1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 2, 7: 2})[0]
    assert labels[0] == "HPC"  # an acronym every theme of area 0 writes, and no paper elsewhere
    # "machines" and "case" are written everywhere: area 1 shares no word of its own, and is listed
    assert labels[1] == "Theme label 4 · Theme label 5"
    # "protocol" is area 2's alone, but a common word names one strand of an area, not the area
    assert labels[2] == "Theme label 6 · Theme label 7"
