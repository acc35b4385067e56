from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pipeline.config import TopicsConfig
from pipeline.topics.model import ThemeModel, _surface_form, make_labels, reassign_outliers, scaled

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
    assert scaled(4000, CFG).min_cluster_size == 28 and scaled(16_000, CFG).min_cluster_size == 56
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


def test_tiny_corpus_is_one_theme():
    docs, vectors, _ = corpus(per_theme=3)
    model = ThemeModel(CFG).fit(docs, vectors)
    assert model.topic_ids_.tolist() == [0] and (model.topics_ == 0).all()
    assert model.labels_[0] and model.keywords(0)


def test_labels_use_phrases_the_papers_write():
    docs = ["We study MoE serving at scale.", "MoE serving with experts.", "Retrieval-augmented generation (RAG) helps."] * 2
    topics = np.zeros(len(docs), dtype=int)
    words = {0: [("generation rag", 0.9), ("moe serving", 0.5), ("moe", 0.4), ("serving", 0.3)]}
    # "generation rag" only arises across punctuation, so the label is the phrase papers write
    assert make_labels(words, {0: 6}, docs, topics) == {0: "MoE serving"}
    # a phrase that its papers nearly always continue is grown: "LiDAR point" -> "LiDAR point clouds"
    lidar = ["LiDAR point clouds for driving.", "Sparse LiDAR point clouds.", "lidar point clouds again."]
    assert make_labels({0: [("lidar point", 1.0)]}, {0: 3}, lidar, np.zeros(3, int)) == {0: "LiDAR point clouds"}
    assert _surface_form("test time scaling", ["Test-time scaling works; test-time scaling helps."]) == (
        "Test-time scaling", 1,
    )


def test_labels_are_unique_and_fall_back_to_two_words():
    docs = ["alpha beta one", "alpha beta x", "alpha beta two", "alpha beta y", "alpha beta three", "alpha beta z"]
    topics = np.array([0, 1] * 3)
    words = {0: [("alpha beta", 1.0), ("alpha", 0.5)], 1: [("alpha beta", 1.0), ("speech", 0.9), ("asr", 0.8)]}
    labels = make_labels(words, {0: 3, 1: 3}, docs, topics)
    assert labels[0] == "Alpha beta"
    assert labels[1] == "Speech / Asr" or labels[1] == "Speech / asr"


def test_one_paper_is_one_theme():
    docs, vectors, _ = corpus(per_theme=1)
    model = ThemeModel(CFG).fit(docs[:1], vectors[:1])
    assert model.topics_.tolist() == [0] and model.representatives_ == {0: [0]}


def test_small_data_umap_builds_the_same_neighbour_graph_as_umap_itself():
    from umap import UMAP

    from pipeline.topics.model import _umap_class

    rng = np.random.default_rng(3)
    points = rng.normal(size=(300, 16)).astype(np.float32)
    kwargs = dict(n_neighbors=10, n_components=2, min_dist=0.0, random_state=7, metric="euclidean")
    ours = _umap_class()(**kwargs)
    layout = ours.fit_transform(points)
    reference = UMAP(**kwargs).fit(points)
    assert ours.precomputed_ and ours.metric == "euclidean"
    assert abs(ours.graph_ - reference.graph_).max() < 1e-4
    assert np.array_equal(layout, _umap_class()(**kwargs).fit_transform(points))
    with pytest.raises(NotImplementedError, match="only the papers it was fitted on"):
        ours.transform(points[:5])


def test_labels_are_sentence_case_but_keep_names_and_acronyms():
    from pipeline.topics.model import _sentence_case

    texts = ["federated learning on edge devices", "Federated Learning Systems", "we use federated learning",
             "Gaussian splatting with LiDAR", "3D Gaussian Splatting", "class-incremental learning", "driving"]
    assert _sentence_case("Federated Learning", texts) == "Federated learning"
    assert _sentence_case("Gaussian Splatting", texts) == "Gaussian splatting"  # "Gaussian" is never lower case
    assert _sentence_case("autonomous Driving systems", texts) == "Autonomous driving systems"
    assert _sentence_case("Class-Incremental Learning", texts) == "Class-incremental learning"
    assert _sentence_case("LiDAR point clouds", texts) == "LiDAR point clouds"
    assert _sentence_case("KV cache", texts) == "KV cache"


def test_labels_grow_by_a_word_written_in_singular_and_plural():
    docs = ["Tracking from unmanned aerial vehicles.", "An unmanned aerial vehicle dataset.",
            "Unmanned aerial vehicles at night.", "Swarms of unmanned aerial vehicles."]
    labels = make_labels({0: [("unmanned aerial", 1.0)]}, {0: 4}, docs, np.zeros(4, int))
    assert labels == {0: "Unmanned aerial vehicles"}
