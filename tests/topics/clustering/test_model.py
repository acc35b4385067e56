from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics.clustering.model import Naming, Placement, ThemeModel, central, consolidate, links
from tests.topics.three_themes import corpus

CFG = TopicsConfig()

def test_fit_finds_the_three_themes_with_readable_distinct_labels(fitted):
    model, docs, vectors, truth = fitted
    assert len(model.topic_ids_) == 3
    assert (model.topics_ == -1).mean() <= 0.05
    for t in model.topic_ids_:  # each theme is one true group
        assert len(set(truth[model.topics_ == t])) == 1
    labels = set(model.labels_.values())
    assert labels == {"Federated learning", "GPU kernels", "Edge offloading"} or all(
        2 <= len(label.replace("/", " ").split()) <= 4 for label in labels
    )
    assert len(labels) == 3
    assert all(len(model.representatives_[t]) == 3 for t in model.topic_ids_)
    assert all(model.keywords(t) for t in model.topic_ids_)


def test_same_seed_same_output_and_labels(fitted):
    a, docs, vectors, _ = fitted
    b = ThemeModel.from_config(CFG).fit(docs, vectors)
    assert a.topics_.tolist() == b.topics_.tolist()
    assert a.labels_ == b.labels_ and a.words_ == b.words_
    np.testing.assert_array_equal(a.centroids_, b.centroids_)


def test_a_small_corpus_gets_the_same_themes_and_keywords_without_bertopic(fitted):
    direct, docs, vectors, _ = fitted  # 120 papers: under bertopic_min_papers
    through = ThemeModel.from_config(CFG).set_params(bertopic_min_papers=0).fit(docs, vectors)
    assert direct.bertopic_ is None and through.bertopic_ is not None
    members = lambda m: {frozenset(np.flatnonzero(m.topics_ == t).tolist()): t for t in m.topic_ids_}  # noqa: E731
    a, b = members(direct), members(through)
    assert set(a) == set(b)
    for group in a:
        assert direct.labels_[a[group]] == through.labels_[b[group]]
        mine, theirs = dict(direct.ctfidf_words_[a[group]]), dict(through.ctfidf_words_[b[group]])
        np.testing.assert_allclose(sorted(mine.values()), sorted(theirs.values()), rtol=1e-6)
        for word in set(mine) & set(theirs):  # terms of equal score may be cut off in another order
            assert mine[word] == pytest.approx(theirs[word], rel=1e-6)
        assert len(set(mine) & set(theirs)) >= 0.8 * len(mine)


def test_tiny_corpus_is_one_theme():
    docs, vectors, _ = corpus(per_theme=3)
    model = ThemeModel.from_config(CFG).fit(docs, vectors)
    assert model.topic_ids_.tolist() == [0] and (model.topics_ == 0).all()
    assert model.labels_[0] and model.keywords(0)


def test_one_paper_is_one_theme():
    docs, vectors, _ = corpus(per_theme=1)
    model = ThemeModel.from_config(CFG).fit(docs[:1], vectors[:1])
    assert model.topics_.tolist() == [0] and model.representatives_ == {0: [0]}


def _placed(centroids: np.ndarray, topics: np.ndarray) -> Placement:
    """A placement of ``topics`` (every paper clustered) around ``centroids``."""
    ids = np.arange(len(centroids))
    return Placement(topics.copy(), topics, ids, np.asarray(centroids, dtype=np.float32), np.ones(len(topics)),
                     {int(t): int((topics == t).sum()) for t in ids}, {})


def _named(faithful: dict, support: dict) -> Naming:
    return Naming({t: f"theme {t}" for t in faithful}, {t: "" for t in faithful}, support, faithful)


def test_themes_that_cannot_be_named_merge_into_a_neighbour_or_dissolve():
    centroids = np.eye(4, dtype=np.float32) + np.array([[0, 0.5, 0, 0], [0.5, 0, 0, 0], [0, 0, 0, 0.2], [0, 0, 0.2, 0]])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    placement = _placed(centroids, np.array([0] * 5 + [1] * 3 + [2] * 6 + [3] * 2))
    naming = _named({0: True, 1: False, 2: True, 3: True}, {0: 0.5, 1: 0.4, 2: 0.6, 3: 0.05})
    core, merged = consolidate(placement, naming, bound=8, floor=0.10)
    # theme 3 (support below 0.10) joins its nearest theme 2 (6 + 2 <= 8); theme 1 (unfaithful) joins 0
    assert core.tolist() == [0] * 8 + [2] * 8 and merged == [(3, 2), (1, 0)]
    core, merged = consolidate(placement, naming, bound=4, floor=0.10)  # neither fits anywhere: both dissolve
    assert (core[5:8] == -1).all() and (core[14:] == -1).all() and merged == [(3, -1), (1, -1)]
    assert consolidate(placement, _named(dict.fromkeys(range(4), True), dict.fromkeys(range(4), 0.5)), 8, 0.10) is None


def test_with_a_graph_a_theme_that_cannot_be_named_joins_the_theme_it_is_most_linked_to():
    from scipy import sparse

    # theme 2's centroid lies nearest theme 0's, but its papers are linked to theme 1's
    placement = _placed(np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.44]]), np.array([0] * 4 + [1] * 4 + [2] * 2))
    naming = _named({0: True, 1: True, 2: False}, {0: 0.5, 1: 0.5, 2: 0.5})
    edges = [(8, 4), (8, 5), (9, 6), (9, 0)]
    rows, cols = zip(*edges)
    graph = sparse.csr_matrix((np.ones(4), (rows, cols)), shape=(10, 10))
    graph = (graph + graph.T).tocsr()
    core, merged = consolidate(placement, naming, 10, 0.10, links(graph, placement))
    assert core.tolist() == [0] * 4 + [1] * 6 and merged == [(2, 1)]
    core, merged = consolidate(placement, naming, 10, 0.10, links(sparse.csr_matrix((10, 10)), placement))
    assert core.tolist() == [0] * 4 + [1] * 4 + [0] * 2 and merged == [(2, 0)]  # linked to no theme: nearest centroid
    core, merged = consolidate(placement, naming, 10, 0.10)  # without a graph: the nearest centroid
    assert core.tolist() == [0] * 4 + [1] * 4 + [0] * 2 and merged == [(2, 0)]


def test_a_leiden_themes_keywords_come_from_its_most_central_papers():
    from pipeline.topics.clustering.model import KEYWORD_CORE

    similarity = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1, 0.95, 0.2, 0.3, 0.4, 0.5])
    core = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1])
    assert KEYWORD_CORE == 0.6  # three of five papers
    assert central(core, similarity).tolist() == [0, 0, 0, -1, -1, -1, 1, -1, 1, 1, -1]


@pytest.mark.parametrize("clustering", ["leiden", "hdbscan"])
def test_both_clusterings_find_the_three_themes(clustering, fitted):
    model, docs, vectors, truth = fitted  # the default: Leiden
    if clustering != CFG.clustering:
        model = ThemeModel.from_config(CFG).set_params(clustering=clustering).fit(docs, vectors)
    assert len(model.topic_ids_) == 3
    for t in model.topic_ids_:
        assert len(set(truth[model.topics_ == t])) == 1


def test_consolidation_never_merges_a_theme_into_itself_nor_dissolves_the_last_one():
    placement = _placed(np.array([[1.0, 0.0], [0.6, 0.8]]), np.array([0] * 5 + [1] * 5))
    naming = _named({0: False, 1: False}, {0: 0.5, 1: 0.5})
    core, merged = consolidate(placement, naming, 10, 0.10)  # theme 0 joins theme 1; theme 1 took it, so it stays
    assert core.tolist() == [1] * 10 and merged == [(0, 1)]
    core, merged = consolidate(placement, naming, 8, 0.10)  # no room: theme 0 dissolves, theme 1 is the last one
    assert core.tolist() == [-1] * 5 + [1] * 5 and merged == [(0, -1)]


def test_the_fit_names_its_themes_with_the_label_support_floor(monkeypatch):
    import pipeline.topics.clustering.model as model_module
    from tests.helpers import keyword_spy

    floors = keyword_spy(monkeypatch, model_module, "name_groups", "floor")
    docs, vectors, _ = corpus()
    ThemeModel.from_config(CFG).set_params(min_label_support=0.2).fit(docs, vectors)
    assert floors and set(floors) == {0.2}


def test_the_theme_model_takes_its_settings_by_name():
    from pipeline.config import TopicsConfig
    from pipeline.topics.clustering.model import MODEL_SETTINGS

    defaults = ThemeModel().get_params()
    assert defaults == {name: getattr(TopicsConfig(), name) for name in MODEL_SETTINGS}
    model = ThemeModel(clustering="hdbscan", seed=7)
    assert model.clustering == "hdbscan" and model.seed == 7 and model.cfg.clustering == "hdbscan"
    assert ThemeModel.from_config(CFG).get_params() == {name: getattr(CFG, name) for name in MODEL_SETTINGS}
    with pytest.raises(ValueError, match="no parameter colour"):
        ThemeModel().set_params(colour="blue")
    with pytest.raises(TypeError):
        ThemeModel(CFG)  # no longer the whole section
