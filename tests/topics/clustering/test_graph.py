from __future__ import annotations

import numpy as np
import pytest

from pipeline.config import ConfigError, TopicsConfig
from pipeline.topics.clustering.graph import LeidenThemes, bound, consensus, leiden, neighbour_graph


def blobs(sizes: tuple[int, ...], dim: int = 16, spread: float = 0.05, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(len(sizes), dim))
    x = np.concatenate([c + spread * rng.normal(size=(n, dim)) for c, n in zip(centers, sizes)])
    truth = np.repeat(np.arange(len(sizes)), sizes)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32), truth


def test_the_graph_joins_each_paper_to_its_nearest_others_once_and_symmetrically():
    x, _ = blobs((30, 30))
    graph = neighbour_graph(x, 5)
    assert (graph != graph.T).nnz == 0 and graph.diagonal().sum() == 0
    sims = x @ x.T
    np.fill_diagonal(sims, -np.inf)
    for i in (0, 17, 45):  # each row holds at least its own 5 nearest, weighed by their cosine
        nearest = np.argsort(-sims[i])[:5]
        row = graph.getrow(i).toarray().ravel()
        np.testing.assert_allclose(row[nearest], sims[i, nearest], rtol=1e-5)
    assert (graph.getnnz(axis=1) >= 5).all()
    small = neighbour_graph(x, 5)  # computed a block of rows at a time: the same graph
    import pipeline.topics.clustering.graph as graph_module

    block, graph_module.BLOCK = graph_module.BLOCK, 7
    try:  # the same edges; weights to float32 rounding (BLAS may sum a block of 7 rows in another order)
        blocked = neighbour_graph(x, 5)
        assert ((blocked != 0) != (small != 0)).nnz == 0
        np.testing.assert_allclose(blocked.toarray(), small.toarray(), rtol=1e-6, atol=1e-7)
    finally:
        graph_module.BLOCK = block


def test_a_partition_depends_on_its_seed_alone_not_on_calls_before_it():
    x, _ = blobs((40, 40, 40), spread=0.3)
    graph = neighbour_graph(x, 10)
    firsts = {seed: leiden(graph, 3.0, seed) for seed in range(6)}
    for _ in range(3):  # other calls in between draw from the C library's generator
        for seed in range(6):
            leiden(graph, 3.0, seed + 100)
            assert (leiden(graph, 3.0, seed) == firsts[seed]).all()
    assert any((firsts[s] != firsts[0]).any() for s in firsts)  # and the seed does matter at this resolution
    assert (leiden(graph, 3.0, 2**32 + 5) == leiden(graph, 3.0, 5)).all()  # any int is a seed
    a, b = consensus(graph, 3.0, 5, 11), consensus(graph, 3.0, 5, 11)
    assert (a[0] == b[0]).all() and (a[1] != b[1]).nnz == 0


def test_separate_groups_come_out_whole_and_small_ones_unassigned():
    x, truth = blobs((50, 40, 30, 4))
    model = LeidenThemes(n_neighbors=8, resolution=1.0, runs=5, min_cluster_size=5).fit(x)
    labels = model.labels_
    assert (labels[truth == 3] == -1).all()  # four papers: under the smallest theme
    for g, expected in zip(range(3), (0, 1, 2)):  # numbered by size, largest first
        assert (labels[truth == g] == expected).all()


def test_communities_above_the_size_bound_are_cut_until_they_fit():
    x, _ = blobs((120,), spread=0.5)
    graph = neighbour_graph(x, 10)
    whole = np.zeros(120, dtype=int)
    cut = bound(graph, whole, 0.5, 50, seed=3)
    assert np.bincount(cut).max() <= 50 and len(np.unique(cut)) >= 3
    assert (bound(graph, whole, 0.5, 0, seed=3) == whole).all()  # no bound: unchanged
    labels = LeidenThemes(n_neighbors=10, resolution=0.5, runs=3, min_cluster_size=1, max_cluster_size=30).fit(x).labels_
    assert np.bincount(labels).max() <= 30


def test_a_graph_without_edges_leaves_every_paper_alone():
    x, _ = blobs((1,))
    assert LeidenThemes(min_cluster_size=1).fit(x).labels_.tolist() == [0]


def test_the_config_refuses_an_unknown_clustering():
    with pytest.raises(ConfigError, match="clustering"):
        TopicsConfig(clustering="kmeans")
    for bad in (0, float("nan")):
        with pytest.raises(ConfigError, match="resolution"):
            TopicsConfig(resolution=bad)
