"""Placement: outliers join their nearest theme within the threshold and the cap on unassigned
papers, and no theme grows past the size bound."""

from __future__ import annotations

import numpy as np

from pipeline.topics.clustering.placement import bound_sizes, reassign_outliers


def test_reassign_outliers_respects_threshold_and_cap():
    topics = np.array([0, 1, -1, -1, -1, -1, -1, -1, -1, -1])
    similarity = np.array([0.9, 0.9, 0.8, 0.5, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02])
    nearest = np.array([0, 1, 1, 0, 0, 1, 0, 1, 0, 1])
    out = reassign_outliers(topics, similarity, nearest, min_similarity=0.3, max_share=0.2)
    # 0.8 and 0.5 pass the threshold; then the most similar join until 2 of 10 remain
    assert out.tolist() == [0, 1, 1, 0, 0, 1, 0, 1, -1, -1]
    untouched = reassign_outliers(topics, similarity, nearest, 0.3, 0.2, candidates=np.zeros(10, bool))
    assert untouched.tolist() == topics.tolist()


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


def test_the_size_bound_asks_for_similarities_a_block_at_a_time_with_the_same_result(monkeypatch):
    from pipeline.topics.clustering import placement

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
