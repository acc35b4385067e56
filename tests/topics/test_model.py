from __future__ import annotations

import dataclasses
import importlib.machinery

import numpy as np
import pytest
from pipeline.config import TopicsConfig
from pipeline.topics.clustering import LAYOUTS, layout_seeds, scaled, umap_class
from pipeline.topics.model import Naming, Placement, ThemeModel, central, consolidate, links
from pipeline.topics.placement import bound_sizes, reassign_outliers

CFG = TopicsConfig()

# three themes with their own vocabulary, and embeddings that are three tight blobs
THEMES = {
    "federated learning": "Federated learning trains models across clients; federated averaging handles non-IID client data and privacy.",
    "gpu kernels": "GPU kernels for sparse matrix multiplication; the CUDA kernels use tensor cores and shared memory tiling.",
    "edge offloading": "Edge offloading moves inference tasks from mobile devices to edge servers to cut latency and energy.",
}


def corpus(per_theme: int = 40, seed: int = 0) -> tuple[list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    docs, vectors, truth = [], [], []
    centers = rng.normal(size=(len(THEMES), 32))
    for k, (name, text) in enumerate(THEMES.items()):
        for i in range(per_theme):
            docs.append(f"{name.title()} study {i}. {text} Variant {i} of the setup.")
            vectors.append(centers[k] + 0.05 * rng.normal(size=32))
            truth.append(k)
    vectors = np.asarray(vectors, dtype=np.float32)
    return docs, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), np.array(truth)


def test_sizes_scale_with_the_corpus():
    small, year = scaled(100, CFG), scaled(40_000, CFG)
    assert scaled(2000, CFG).min_cluster_size == 10 and scaled(8000, CFG).min_cluster_size == 20
    assert small.min_cluster_size == 5 and year.min_cluster_size > small.min_cluster_size
    assert 5 <= small.n_neighbors < year.n_neighbors <= 30
    assert scaled(4000, dataclasses.replace(CFG, min_cluster_size=7)).min_cluster_size == 7


def test_reassign_outliers_respects_threshold_and_cap():
    topics = np.array([0, 1, -1, -1, -1, -1, -1, -1, -1, -1])
    similarity = np.array([0.9, 0.9, 0.8, 0.5, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02])
    nearest = np.array([0, 1, 1, 0, 0, 1, 0, 1, 0, 1])
    out = reassign_outliers(topics, similarity, nearest, min_similarity=0.3, max_share=0.2)
    # 0.8 and 0.5 pass the threshold; then the most similar join until 2 of 10 remain
    assert out.tolist() == [0, 1, 1, 0, 0, 1, 0, 1, -1, -1]
    untouched = reassign_outliers(topics, similarity, nearest, 0.3, 0.2, candidates=np.zeros(10, bool))
    assert untouched.tolist() == topics.tolist()


def test_fit_finds_the_three_themes_with_readable_distinct_labels():
    docs, vectors, truth = corpus()
    model = ThemeModel(CFG).fit(docs, vectors)
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


def test_same_seed_same_output_and_labels():
    docs, vectors, _ = corpus()
    a = ThemeModel(CFG).fit(docs, vectors)
    b = ThemeModel(CFG).fit(docs, vectors)
    assert a.topics_.tolist() == b.topics_.tolist()
    assert a.labels_ == b.labels_ and a.words_ == b.words_
    np.testing.assert_array_equal(a.centroids_, b.centroids_)


def test_a_small_corpus_gets_the_same_themes_and_keywords_without_bertopic():
    docs, vectors, _ = corpus()
    direct = ThemeModel(CFG).fit(docs, vectors)  # 120 papers: under bertopic_min_papers
    through = ThemeModel(dataclasses.replace(CFG, bertopic_min_papers=0)).fit(docs, vectors)
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
    model = ThemeModel(CFG).fit(docs, vectors)
    assert model.topic_ids_.tolist() == [0] and (model.topics_ == 0).all()
    assert model.labels_[0] and model.keywords(0)


def test_one_paper_is_one_theme():
    docs, vectors, _ = corpus(per_theme=1)
    model = ThemeModel(CFG).fit(docs[:1], vectors[:1])
    assert model.topics_.tolist() == [0] and model.representatives_ == {0: [0]}


def test_small_data_umap_builds_the_same_neighbour_graph_as_umap_itself():
    from umap import UMAP

    rng = np.random.default_rng(3)
    points = rng.normal(size=(300, 16)).astype(np.float32)
    kwargs = dict(n_neighbors=10, n_components=2, min_dist=0.0, random_state=7, metric="euclidean")
    ours = umap_class()(**kwargs)
    layout = ours.fit_transform(points)
    reference = UMAP(**kwargs).fit(points)
    assert ours.precomputed_ and ours.metric == "euclidean"
    assert abs(ours.graph_ - reference.graph_).max() < 1e-4
    assert np.array_equal(layout, umap_class()(**kwargs).fit_transform(points))
    with pytest.raises(NotImplementedError, match="only the papers it was fitted on"):
        ours.transform(points[:5])


def test_outliers_do_not_push_a_theme_past_the_size_bound():
    core = np.array([0, 0, 0, 1, -1, -1, -1])
    topics = np.array([0, 0, 0, 1, 0, 0, 1])  # two outliers joined theme 0, one joined theme 1
    sims = np.array([[0.9, 0.1], [0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.8, 0.7], [0.6, 0.5], [0.2, 0.9]])
    asked = []

    def sims_of(rows):
        asked.append(rows.tolist())
        return sims[rows]

    out = bound_sizes(topics, core == -1, sims_of, np.array([0, 1]), bound=4)
    # theme 0 holds 5 > 4: its least similar outlier (row 5) moves to theme 1; core papers never move
    assert out.tolist() == [0, 0, 0, 1, 0, 1, 1]
    assert asked == [[4, 5], [5]]  # asked only for the movable papers of the theme over the bound, then those leaving
    assert bound_sizes(topics, core == -1, sims_of, np.array([0, 1]), bound=10).tolist() == topics.tolist()
    assert asked == [[4, 5], [5]]


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
    from pipeline.topics.model import KEYWORD_CORE

    similarity = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1, 0.95, 0.2, 0.3, 0.4, 0.5])
    core = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1])
    assert KEYWORD_CORE == 0.6  # three of five papers
    assert central(core, similarity).tolist() == [0, 0, 0, -1, -1, -1, 1, -1, 1, 1, -1]


@pytest.mark.parametrize("clustering", ["leiden", "hdbscan"])
def test_both_clusterings_find_the_three_themes(clustering):
    docs, vectors, truth = corpus()
    model = ThemeModel(dataclasses.replace(CFG, clustering=clustering)).fit(docs, vectors)
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


def test_numba_caching_never_shares_code_between_a_serial_and_a_parallel_twin():
    from umap import layouts

    umap_class()
    serial = layouts._nb_optimize_layout_euclidean_single_epoch
    parallel = layouts._nb_optimize_layout_euclidean_single_epoch_parallel
    assert serial.py_func is parallel.py_func and parallel.targetoptions.get("parallel")
    assert type(parallel._cache).__name__ == "NullCache"


def test_theme_vectorizer_counts_the_kept_candidates_in_one_pass():
    from pipeline.topics.vocabulary import analyzer, topic_vectorizer_class
    from sklearn.feature_extraction.text import CountVectorizer

    themes = ["Federated learning on edge devices. Federated learning, again.",
              "KV cache for LLM serving; the KV cache grows.", "Edge devices and LLM serving.",
              "LLM serving on edge devices.", "Quantum circuits."]
    candidates = ["federated learning", "kv cache", "edge devices", "llm serving", "never written"]
    calls = []

    class Counting(type(analyzer(CFG))):
        def __call__(self, doc: str) -> list[str]:
            calls.append(doc)
            return super().__call__(doc)

    counting = Counting(CFG.ngram_max, analyzer(CFG).stop)
    vectorizer = topic_vectorizer_class()(candidates=candidates, topic_max_df=0.5, analyzer=counting)
    counts = vectorizer.fit_transform(themes)
    # in more than half of the themes ("edge devices", "llm serving") or in none: left out
    assert vectorizer.get_feature_names_out().tolist() == ["federated learning", "kv cache"]
    assert counts.toarray().tolist() == [[2, 0], [0, 2], [0, 0], [0, 0], [0, 0]]
    assert len(calls) == len(themes)  # each theme's document analysed once
    plain = CountVectorizer(vocabulary=["federated learning", "kv cache"], analyzer=analyzer(CFG))
    assert (plain.fit_transform(themes) != counts).nnz == 0
    assert (vectorizer.transform(themes) != counts).nnz == 0
    nothing = topic_vectorizer_class()(candidates=["never written"], analyzer=analyzer(CFG))
    counts = nothing.fit_transform(themes)  # no candidate left: every term of the themes
    assert nothing.vocabulary is None and counts.shape == (5, len(nothing.get_feature_names_out()))
    assert {"federated learning", "quantum circuits"} <= set(nothing.get_feature_names_out())


def test_the_size_bound_asks_for_similarities_a_block_at_a_time_with_the_same_result(monkeypatch):
    from pipeline.topics import placement

    rng = np.random.default_rng(3)
    sims = rng.random((300, 4))
    topics = np.where(rng.random(300) < 0.7, 0, rng.integers(1, 4, 300))  # theme 0 far over the bound
    movable = rng.random(300) < 0.6
    asked = []

    def sims_of(rows):
        asked.append(len(rows))
        return sims[rows]

    whole = bound_sizes(topics, movable, sims_of, np.arange(4), bound=90)
    monkeypatch.setattr(placement, "BLOCK", 7)
    asked.clear()
    blocked = bound_sizes(topics, movable, sims_of, np.arange(4), bound=90)
    assert blocked.tolist() == whole.tolist() and not np.array_equal(whole, topics)
    assert max(asked) <= 7 and len(asked) > 2
    assert np.bincount(blocked[blocked >= 0]).max() <= max(90, np.bincount(topics[~movable]).max())


@pytest.fixture
def stand_in_cuml(monkeypatch):
    """A ``cuml`` package whose UMAP and HDBSCAN record how they were built and run umap-learn's and
    hdbscan's: it checks which classes the model picks and what it passes them (cuML's keyword
    names), not cuML itself, which needs a CUDA GPU this machine lacks."""
    import sys
    import types

    import hdbscan
    import umap

    built: list[tuple[str, dict]] = []

    class StandIn:
        cpu: type

        def __init__(self, *, output_type=None, **kwargs):
            built.append((type(self).__name__, {"output_type": output_type, **kwargs}))
            self._cpu = self.cpu(**kwargs)

        def __getattr__(self, name):  # fit, fit_transform, labels_, condensed_tree_: the CPU library's
            return getattr(self.__dict__["_cpu"], name)

    UMAP = type("UMAP", (StandIn,), {"cpu": umap.UMAP})
    HDBSCAN = type("HDBSCAN", (StandIn,), {"cpu": hdbscan.HDBSCAN})

    package = types.ModuleType("cuml")
    package.__spec__ = importlib.machinery.ModuleSpec("cuml", None)
    modules = {"cuml": package, "cuml.manifold": types.ModuleType("cuml.manifold"),
               "cuml.cluster": types.ModuleType("cuml.cluster"), "cuml.cluster.hdbscan": types.ModuleType("cuml.cluster.hdbscan")}
    modules["cuml.manifold"].UMAP = UMAP
    modules["cuml.cluster.hdbscan"].HDBSCAN = HDBSCAN
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return built


@pytest.mark.parametrize("clustering", ["leiden", "hdbscan"])
def test_with_cuml_and_a_gpu_umap_and_hdbscan_are_cumls(stand_in_cuml, monkeypatch, clustering):
    from pipeline.topics import clustering as model_module

    monkeypatch.setattr(model_module, "cuda_visible", lambda: True)
    docs, vectors, truth = corpus()
    fitted = ThemeModel(dataclasses.replace(CFG, clustering=clustering)).fit(docs, vectors)
    names = sorted(name for name, _ in stand_in_cuml)
    assert names == (["UMAP"] * LAYOUTS if clustering == "leiden" else ["HDBSCAN", "UMAP"])
    assert all(kwargs["output_type"] == "numpy" and "core_dist_n_jobs" not in kwargs for _, kwargs in stand_in_cuml)
    umap_kwargs = next(kwargs for name, kwargs in stand_in_cuml if name == "UMAP")
    assert umap_kwargs["random_state"] == CFG.seed and umap_kwargs["n_components"] == CFG.n_components
    assert len(fitted.topic_ids_) == 3 and all(len(set(truth[fitted.topics_ == t])) == 1 for t in fitted.topic_ids_)


def test_without_a_gpu_or_when_told_cpu_umap_and_hdbscan_stay_on_the_cpu(stand_in_cuml, monkeypatch):
    from pipeline.topics import clustering as model_module

    monkeypatch.setattr(model_module, "cuda_visible", lambda: False)  # cuML installed, no device: "auto" is the CPU
    docs, vectors, _ = corpus()
    ThemeModel(dataclasses.replace(CFG, clustering="hdbscan")).fit(docs, vectors)
    monkeypatch.setattr(model_module, "cuda_visible", lambda: True)
    ThemeModel(dataclasses.replace(CFG, clustering="hdbscan", clustering_device="cpu")).fit(docs, vectors)
    assert stand_in_cuml == []
    assert model_module.on_gpu("cuda") and not model_module.on_gpu("cpu")


def test_clustering_on_cuda_without_cuml_is_a_clear_error(monkeypatch):
    import importlib.util

    from pipeline.config import ConfigError
    from pipeline.topics.clustering import on_gpu

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "cuml" else real(name, *a))
    assert on_gpu("auto") is False
    with pytest.raises(RuntimeError, match="needs cuML"):
        on_gpu("cuda")
    with pytest.raises(ConfigError, match="clustering_device"):
        TopicsConfig(clustering_device="gpu")


def test_the_layouts_have_seeds_of_their_own_that_the_next_seed_does_not_share():
    from pipeline.topics.clustering import LAYOUTS

    seeds, after = layout_seeds(42), layout_seeds(43)
    assert LAYOUTS == 3 and seeds[0] == 42 and len(set(seeds)) == 3 and not set(seeds) & set(after)


def test_the_layouts_neighbour_graphs_are_averaged_into_the_graph():
    from pipeline.topics.graph import LeidenThemes, neighbour_graph

    class Fixed:  # a "layout" that returns given coordinates
        def __init__(self, coordinates):
            self.coordinates = coordinates

        def fit_transform(self, x):
            return self.coordinates

    _, vectors, _ = corpus(per_theme=10)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(len(vectors), 2)), rng.normal(size=(len(vectors), 2))
    fitted = LeidenThemes(n_neighbors=5, runs=1, layout=[Fixed(a), Fixed(b)]).fit(vectors)
    expected = neighbour_graph(vectors, 5) + (neighbour_graph(a, 5, "euclidean") + neighbour_graph(b, 5, "euclidean")) / 2
    np.testing.assert_allclose(fitted.graph_.toarray(), expected.toarray(), rtol=1e-6)


def test_a_cuml_that_cannot_be_imported_leaves_auto_on_the_cpu(monkeypatch):
    import importlib.util
    import sys

    from pipeline.topics import clustering as model_module

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",  # found on disk, but its import fails
                        lambda name, *a: importlib.machinery.ModuleSpec("cuml", None) if name == "cuml" else real(name, *a))
    monkeypatch.setitem(sys.modules, "cuml", None)
    monkeypatch.setattr(model_module, "cuda_visible", lambda: True)
    assert model_module.on_gpu("auto") is False and model_module.on_gpu("cuda") is True


def test_the_fit_names_its_themes_with_the_label_support_floor(monkeypatch):
    import pipeline.topics.model as model_module
    from tests.helpers import keyword_spy

    floors = keyword_spy(monkeypatch, model_module, "name_groups", "floor")
    docs, vectors, _ = corpus()
    ThemeModel(dataclasses.replace(CFG, min_label_support=0.2)).fit(docs, vectors)
    assert floors and set(floors) == {0.2}
