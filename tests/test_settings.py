"""Every setting of ``TopicsConfig`` has a test that fails when the code ignores it (uses its
default, or a constant, instead): ``TESTED`` names it. The table must list exactly the settings, of
which there are at most 35, and every test it names must exist, so a new setting without a test
fails here. Settings that had no such test elsewhere have theirs below."""

from __future__ import annotations

import ast
import copy
import dataclasses

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics.embedding import hardware
from tests.helpers import REPO, cleaned_copy
from tests.topics.three_themes import corpus

MAX_SETTINGS = 35

TESTED = {
    "seed": "tests/topics/test_stage.py::test_a_corpus_above_the_sample_bound_is_fitted_on_a_sample_and_every_paper_placed",
    "embedder": "tests/test_settings.py::test_the_embedder_setting_picks_the_model",
    "batch_size": "tests/test_settings.py::test_the_embedding_settings_reach_the_model",
    "max_tokens": "tests/test_settings.py::test_the_embedding_settings_reach_the_model",
    "threads": "tests/test_settings.py::test_the_embedding_settings_reach_the_model",
    "device": "tests/test_settings.py::test_the_embedding_settings_reach_the_model",
    "precision": "tests/test_settings.py::test_the_embedding_settings_reach_the_model",
    "clustering": "tests/topics/clustering/test_clustering.py::test_with_cuml_and_a_gpu_umap_and_hdbscan_are_cumls",
    "clustering_device": "tests/topics/clustering/test_clustering.py::test_without_a_gpu_or_when_told_cpu_umap_and_hdbscan_stay_on_the_cpu",
    "graph_neighbors": "tests/test_settings.py::test_leiden_and_its_layouts_are_built_with_the_settings",
    "resolution": "tests/test_settings.py::test_leiden_and_its_layouts_are_built_with_the_settings",
    "n_neighbors": "tests/test_settings.py::test_umap_and_hdbscan_are_built_with_the_settings",
    "n_components": "tests/test_settings.py::test_umap_and_hdbscan_are_built_with_the_settings",
    "bertopic_min_papers": "tests/topics/clustering/test_model.py::test_a_small_corpus_gets_the_same_themes_and_keywords_without_bertopic",
    "fit_sample_size": "tests/topics/clustering/test_split_areas.py::test_papers_placed_outside_the_sample_do_not_push_a_theme_past_the_size_bound",
    "cluster": "tests/test_settings.py::test_the_cluster_setting_sends_embedding_and_placement_to_the_cluster",
    "min_cluster_size": "tests/topics/clustering/test_clustering.py::test_sizes_scale_with_the_corpus",
    "min_samples": "tests/test_settings.py::test_umap_and_hdbscan_are_built_with_the_settings",
    "max_theme_share": "tests/test_settings.py::test_max_theme_share_bounds_the_themes_that_placed_papers_fill",
    "min_label_support": "tests/topics/clustering/test_model.py::test_the_fit_names_its_themes_with_the_label_support_floor",
    "max_outlier_share": "tests/topics/weekly/test_update.py::test_the_cap_on_unassigned_papers_places_scattered_pool_papers_before_a_forming_group",
    "min_similarity": "tests/test_settings.py::test_min_similarity_decides_which_new_papers_join_a_theme",
    "ngram_max": "tests/test_settings.py::test_ngram_max_is_the_longest_keyword",
    "min_df": "tests/test_settings.py::test_min_df_leaves_rarer_terms_out_of_the_vocabulary",
    "max_df": "tests/test_settings.py::test_max_df_leaves_terms_of_many_themes_out_of_the_keywords",
    "stop_words": "tests/test_settings.py::test_stop_words_stay_out_of_labels_and_keywords",
    "n_keywords": "tests/test_settings.py::test_topic_info_holds_n_keywords_and_n_representatives",
    "n_representatives": "tests/test_settings.py::test_topic_info_holds_n_keywords_and_n_representatives",
    "align_threshold": "tests/test_settings.py::test_align_threshold_decides_whether_a_refit_keeps_the_old_ids",
    "refit_every_weeks": "tests/topics/test_policy.py::test_decide",
    "refit_keeps_placed": "tests/test_settings.py::test_without_refit_keeps_placed_a_refit_moves_papers_placed_before",
    "emerge": "tests/topics/weekly/test_update.py::test_without_emerge_an_update_finds_no_new_theme",
    "emerge_window": "tests/topics/weekly/test_update.py::test_the_pool_reaches_back_emerge_window_weeks",
    "emerge_min_size": "tests/topics/weekly/test_update.py::test_a_group_smaller_than_emerge_min_size_is_forming_not_born",
}


def test_every_setting_has_a_test_and_no_test_names_a_lost_setting():
    assert set(TESTED) == {f.name for f in dataclasses.fields(TopicsConfig)}


def test_there_are_at_most_35_settings():
    assert len(dataclasses.fields(TopicsConfig)) <= MAX_SETTINGS


@pytest.mark.parametrize("setting", sorted(TESTED))
def test_the_named_test_exists(setting):
    path, name = TESTED[setting].split("::")
    assert name.startswith("test_"), TESTED[setting]
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert name in functions, f"{setting}: no function {name} in {path}"


# --- embedding ------------------------------------------------------------------------------------


def test_the_embedder_setting_picks_the_model():
    from pipeline.topics.embedding.embed import make_embedder

    assert make_embedder(TopicsConfig()).name == "all-MiniLM-L6-v2"
    with pytest.raises(ValueError, match="unknown embedder 'e5-small'"):
        make_embedder(TopicsConfig(embedder="e5-small"))


class RecordingModel:
    """Stands in for the loaded encoder: records each batch (size, token limit, device) and whether
    bfloat16 autocast was on, and returns the same hidden states for every token."""

    hidden_size = 4

    def __init__(self) -> None:
        self.batches: list[tuple[int, int, str]] = []
        self.autocast: list[bool] = []

    def tokenize(self, texts: list[str], max_tokens: int, device: str) -> dict:
        import torch

        self.batches.append((len(texts), max_tokens, device))
        ones = torch.ones(len(texts), 2, dtype=torch.long)
        return {"input_ids": ones, "attention_mask": ones}

    def __call__(self, **batch):
        import torch

        self.autocast.append(torch.is_autocast_enabled("cpu"))
        return torch.ones(len(batch["input_ids"]), 2, self.hidden_size)


def test_the_embedding_settings_reach_the_model(monkeypatch):
    """``make_embedder`` passes every embedding setting on, and ``encode`` runs with them: batches of
    ``batch_size`` cut at ``max_tokens``, on ``device`` (here the CPU where "auto" would pick a GPU),
    with ``threads`` torch threads (the default: every core, here 8), in ``precision`` (bfloat16,
    where "auto" would pick float32)."""
    import os

    import torch

    from pipeline.topics.embedding import bert, embed

    model = RecordingModel()
    threads: list[int] = []
    monkeypatch.setattr(bert, "load", lambda folder, device: model)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(hardware, "cpu_has_bf16", lambda: False)
    cfg = TopicsConfig(batch_size=3, max_tokens=17, threads=5, device="cpu", precision="bfloat16")
    embedder = embed.make_embedder(cfg)
    vectors = embedder.encode([f"paper {i}" for i in range(7)])
    assert vectors.shape == (7, 4)
    assert model.batches == [(3, 17, "cpu"), (3, 17, "cpu"), (1, 17, "cpu")]
    assert threads == [5]
    assert model.autocast == [True, True, True]
    assert embedder.identity.endswith("-max17-bf16")


# --- clustering -----------------------------------------------------------------------------------


@pytest.fixture
def built(monkeypatch):
    """The clustering components the fit builds (still the real ones), with the keyword arguments
    each was built with."""
    import hdbscan

    from pipeline.topics.clustering import components as clustering, graph

    seen: dict[str, list[dict]] = {"UMAP": [], "HDBSCAN": [], "Leiden": []}

    def recorded(name: str, real):
        def build(**kwargs):
            seen[name].append(kwargs)
            return real(**kwargs)

        return build

    umap = clustering.umap_class()
    monkeypatch.setattr(clustering, "umap_class", lambda: recorded("UMAP", umap))
    monkeypatch.setattr(hdbscan, "HDBSCAN", recorded("HDBSCAN", hdbscan.HDBSCAN))
    monkeypatch.setattr(graph, "LeidenThemes", recorded("Leiden", graph.LeidenThemes))
    return seen


def test_leiden_and_its_layouts_are_built_with_the_settings(built):
    from pipeline.topics.clustering.components import LAYOUTS, layout_seeds
    from pipeline.topics.clustering.model import ThemeModel

    docs, vectors, _ = corpus()
    cfg = TopicsConfig(clustering_device="cpu", graph_neighbors=9, resolution=3.0, n_neighbors=7, n_components=4,
                       seed=7)
    ThemeModel.from_config(cfg).fit(docs, vectors)
    [leiden] = built["Leiden"]
    assert leiden["n_neighbors"] == 9
    assert leiden["resolution"] == pytest.approx(3.0 * len(docs) / 2000)  # scaled down below 2,000 papers
    assert leiden["random_state"] == 7
    assert len(built["UMAP"]) == LAYOUTS and not built["HDBSCAN"]
    assert [u["random_state"] for u in built["UMAP"]] == layout_seeds(7)
    assert all(u["n_neighbors"] == 7 and u["n_components"] == 4 for u in built["UMAP"])


def test_umap_and_hdbscan_are_built_with_the_settings(built):
    from pipeline.topics.clustering.model import ThemeModel

    docs, vectors, _ = corpus()
    cfg = TopicsConfig(clustering="hdbscan", clustering_device="cpu", n_neighbors=7, n_components=4,
                       min_cluster_size=6, min_samples=4)
    ThemeModel.from_config(cfg).fit(docs, vectors)
    [umap], [hdbscan] = built["UMAP"], built["HDBSCAN"]
    assert umap["n_neighbors"] == 7 and umap["n_components"] == 4  # 120 papers: 5 and 10 by default
    assert hdbscan["min_cluster_size"] == 6 and hdbscan["min_samples"] == 4  # by default 5 and 2
    assert not built["Leiden"]


# --- placing papers -------------------------------------------------------------------------------


def two_themes():
    """A state of two themes, along the first two axes of four dimensions."""
    from pipeline.topics.state import State

    return State(ids=np.array([0, 1]), centroids=np.eye(4, dtype=np.float32)[:2], words={0: [], 1: []},
                 labels={0: "a", 1: "b"}, embedder="test", next_id=2, fitted_at="")


def test_min_similarity_decides_which_new_papers_join_a_theme():
    from pipeline.topics.weekly.incremental import update

    held = np.repeat(np.eye(4, dtype=np.float32)[:2], 20, axis=0)  # 20 papers on each theme
    new = np.tile(np.float32([0.5, 0, np.sqrt(0.75), 0]), (4, 1))  # cosine 0.5 to theme 0
    embeddings = np.vstack([held, new])
    ids = [f"p{i}" for i in range(len(embeddings))]
    previous = {p: i // 20 for i, p in enumerate(ids[:40])}
    loose = dataclasses.replace(TopicsConfig(), min_similarity=0.4, max_outlier_share=0.2)
    strict = dataclasses.replace(loose, min_similarity=0.6)
    assert update(embeddings, ids, loose, two_themes(), previous).topics[40:].tolist() == [0, 0, 0, 0]
    assert update(embeddings, ids, strict, two_themes(), previous).topics[40:].tolist() == [-1, -1, -1, -1]


def test_max_theme_share_bounds_the_themes_that_placed_papers_fill():
    """A sampled fit of 10 papers, and 190 others all nearest theme 0: placed, they fill it up to
    ``max_theme_share`` of the 200 papers (100 here, where the default would stop at 50); the
    rest go to theme 1."""
    from pipeline.topics.clustering.fitting import place_rest
    from pipeline.topics.state import RunResult

    rng = np.random.default_rng(0)
    sample = np.arange(10)
    embeddings = np.zeros((200, 4), np.float32)
    embeddings[:5], embeddings[5:10] = np.eye(4)[0], np.eye(4)[1]
    rest = np.float32([1, 0.3, 0, 0]) + 0.05 * rng.standard_normal((190, 4)).astype(np.float32)
    embeddings[10:] = rest / np.linalg.norm(rest, axis=1, keepdims=True)
    fitted = RunResult(np.array([0] * 5 + [1] * 5), np.ones(10, np.float32), two_themes(), [], "fit")
    cfg = dataclasses.replace(TopicsConfig(), max_theme_share=0.5)
    result = place_rest(fitted, sample, embeddings, [f"p{i}" for i in range(200)], cfg, {})
    assert np.bincount(result.topics).tolist() == [100, 100]


# --- words ----------------------------------------------------------------------------------------


def test_ngram_max_is_the_longest_keyword():
    from pipeline.topics.naming.vocabulary import ctfidf_words

    docs, _, truth = corpus()
    longest = {}
    for n in (1, 3):
        words = ctfidf_words(docs, truth, dataclasses.replace(TopicsConfig(), ngram_max=n))
        longest[n] = max(len(w.split()) for terms in words.values() for w, _ in terms)
    assert longest == {1: 1, 3: 3}  # the default, 2, gives neither


def test_min_df_leaves_rarer_terms_out_of_the_vocabulary():
    from pipeline.topics.naming.vocabulary import candidate_terms

    docs, _, _ = corpus()
    docs = [d + " Quantum annealing." if i < 6 else d for i, d in enumerate(docs)]  # in 6 of 120 papers
    assert "quantum annealing" in candidate_terms(docs, TopicsConfig())  # by default, 2 papers suffice
    vocabulary = candidate_terms(docs, dataclasses.replace(TopicsConfig(), min_df=10))
    assert "quantum annealing" not in vocabulary and "federated learning" in vocabulary


def test_max_df_leaves_terms_of_many_themes_out_of_the_keywords():
    """Ten themes, three of which also write about compilers: kept at the default (0.3 of the
    themes), left out at 0.2."""
    from pipeline.topics.naming.vocabulary import ctfidf_words

    subjects = ["lattice", "sensing", "routing", "caching", "scheduling", "hashing", "sorting", "parsing",
                "rendering", "tracing"]
    docs = [f"Robust {s} study {i}. Adaptive {s} for {s} systems." + (" Compilers help." if t < 3 else "")
            for t, s in enumerate(subjects) for i in range(6)]
    topics = np.repeat(np.arange(10), 6)

    def with_compilers(cfg: TopicsConfig) -> list[int]:
        return [t for t, terms in ctfidf_words(docs, topics, cfg).items() if "compilers" in dict(terms)]

    assert with_compilers(TopicsConfig()) == [0, 1, 2]
    assert with_compilers(dataclasses.replace(TopicsConfig(), max_df=0.2)) == []


# --- fits and refits ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def first_fit():
    """The three themes of ``test_model.corpus``, fitted with the default settings."""
    from pipeline.topics.clustering.fitting import fit

    docs, vectors, truth = corpus()
    ids = [f"p{i}" for i in range(len(docs))]
    return docs, vectors, truth, ids, fit(docs, vectors, ids, TopicsConfig(), "test", None, {})


def test_stop_words_stay_out_of_labels_and_keywords(first_fit):
    from pipeline.topics.clustering.fitting import fit

    docs, vectors, _, ids, first = first_fit

    def says_federated(state) -> bool:
        return any("federated" in text.lower() for text in [*state.labels.values(),
                                                            *(w for terms in state.words.values() for w, _ in terms)])

    assert says_federated(first.state)  # by default one theme is "Federated learning"
    cfg = dataclasses.replace(TopicsConfig(), stop_words=("Federated",))
    assert not says_federated(fit(docs, vectors, ids, cfg, "test", None, {}).state)


def test_align_threshold_decides_whether_a_refit_keeps_the_old_ids(first_fit):
    from pipeline.topics.clustering.fitting import fit

    docs, vectors, _, ids, first = first_fit
    old = dict(zip(ids, first.topics.tolist()))
    cold = dataclasses.replace(TopicsConfig(), refit_keeps_placed=False)  # no theme comes back unmatched
    same = fit(docs, vectors, ids, cold, "test", copy.deepcopy(first.state), old)
    assert {row.relation for row in same.lineage} == {"same"}  # the same papers: every theme matched
    strict = dataclasses.replace(cold, align_threshold=1.01)  # above any similarity
    refit = fit(docs, vectors, ids, strict, "test", copy.deepcopy(first.state), old)
    assert "same" not in {row.relation for row in refit.lineage}
    assert not set(refit.state.ids.tolist()) & set(first.state.ids.tolist())


def test_without_refit_keeps_placed_a_refit_moves_papers_placed_before(first_fit):
    """Three papers of the first group were placed in the second group's theme: a refit that keeps
    history (the default) leaves them there; a cold one puts them with their group."""
    from pipeline.topics.clustering.fitting import fit

    docs, vectors, truth, ids, first = first_fit
    theme = [int(first.topics[truth == k][0]) for k in range(3)]
    placed = np.flatnonzero(truth == 0)[:3]
    before = first.topics.copy()
    before[placed] = theme[1]
    old = dict(zip(ids, before.tolist()))
    kept = fit(docs, vectors, ids, TopicsConfig(), "test", copy.deepcopy(first.state), old)
    assert kept.topics[placed].tolist() == [theme[1]] * 3
    cold = dataclasses.replace(TopicsConfig(), refit_keeps_placed=False)
    moved = fit(docs, vectors, ids, cold, "test", copy.deepcopy(first.state), old)
    assert moved.topics[placed].tolist() == [theme[0]] * 3


# --- the stage ------------------------------------------------------------------------------------


def test_topic_info_holds_n_keywords_and_n_representatives(tmp_path, hash_embedder):
    from pipeline import topics
    from pipeline.io import read_table
    from pipeline.schemas import TopicInfo

    cfg = cleaned_copy(tmp_path)
    cfg = dataclasses.replace(cfg, topics=dataclasses.replace(cfg.topics, n_keywords=3, n_representatives=2))
    topics.run(cfg, embedder=hash_embedder)
    info = read_table(cfg.paths.topic_info, TopicInfo)
    assert len(info) >= 2
    assert info["keywords"].map(len).tolist() == [3] * len(info)  # 10 by default
    assert info["representative_ids"].map(len).tolist() == [2] * len(info)  # 3 by default


def test_the_cluster_setting_sends_embedding_and_placement_to_the_cluster(tmp_path, hash_embedder, monkeypatch):
    """With ``cluster`` set, the stage connects to that scheduler, whose workers embed the papers and
    place those outside the sample (here a client that runs each task at once, in this process)."""
    from pipeline import topics
    from pipeline.topics.embedding import distributed

    calls: list[str] = []

    class RightHere:
        def map(self, fn, *iterables, pure=True):
            calls.append("map")
            return [fn(*args) for args in zip(*iterables)]

        def submit(self, fn, *args, pure=True):
            calls.append("submit")
            return fn(*args)

        def scatter(self, data, broadcast=False):
            return list(data)

        def gather(self, futures):
            return list(futures)

        def close(self) -> None:
            pass

    class Connected(distributed.Cluster):
        @property
        def client(self):
            calls.append(self.address)
            self._client = self._client or RightHere()
            return self._client

    monkeypatch.setattr(distributed, "Cluster", Connected)
    cfg = cleaned_copy(tmp_path)
    cfg = dataclasses.replace(cfg, topics=dataclasses.replace(cfg.topics, cluster="tcp://scheduler:8786",
                                                              fit_sample_size=60))
    topics.run(cfg, embedder=hash_embedder)
    assert {"tcp://scheduler:8786", "map", "submit"} <= set(calls)
