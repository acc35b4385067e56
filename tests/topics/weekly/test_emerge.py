"""Detection of new themes among the papers waiting in the pool (``emerge.py``), function by function;
the weekly update that runs it is tested in test_update.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline.topics.weekly import emerge

DIM = 48
SUBJECTS = ["graph partitioning for sparse solvers", "consensus protocols for blockchains",
            "federated learning with stragglers"]


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def around(rng: np.random.Generator, centre: np.ndarray, n: int, spread: float = 0.35) -> np.ndarray:
    return unit(centre + spread * rng.standard_normal((n, DIM)) / np.sqrt(DIM))


def test_calibration_and_the_explanation_test():
    rng = np.random.default_rng(1)
    centre = unit(rng.standard_normal(DIM))
    members = around(rng, centre, 50).astype(np.float32)
    cal = emerge.calibrate(members, np.zeros(50, int), np.array([0]), centre[None, :].astype(np.float32),
                           emerge.Rules(quantile=0.1))
    # about 90 % of the members themselves pass both counts
    _, _, ok = emerge.explained(members, np.arange(50), cal, centre[None, :].astype(np.float32), emerge.Rules())
    assert 0.75 <= ok.mean() <= 0.95
    far = unit(rng.standard_normal((5, DIM))).astype(np.float32)
    both = np.vstack([members, far])
    _, _, ok = emerge.explained(both, np.arange(50, 55), cal, centre[None, :].astype(np.float32), emerge.Rules())
    assert not ok.any()
    assert emerge.mean_pairwise(np.vstack([centre, centre])) == pytest.approx(1.0)


@pytest.mark.parametrize("theme_cohesion, born", [(0.99, False), (0.05, True)])
def test_a_group_beside_a_theme_is_born_only_when_tighter_than_it(theme_cohesion, born):
    rng = np.random.default_rng(5)
    centres = unit(rng.standard_normal((2, DIM)))
    pool_vectors = around(rng, unit(centres[0] + 0.8 * centres[1]), 12, spread=0.3).astype(np.float32)
    members = [around(rng, c, 30).astype(np.float32) for c in centres]
    embeddings = np.vstack([*members, pool_vectors])
    pool = np.arange(60, 72)
    closeness = float((unit(pool_vectors.mean(0)) @ centres.T).max())
    # neighbouring themes lie as close to each other as the group lies to its nearest (the split bound),
    # and no closer than it (so it is far enough by the distance test alone)
    cal = emerge.Calibration(ids=np.array([0, 1]), centroid=np.zeros(2), neighbourhood=np.zeros(2),
                             members={0: np.arange(30), 1: np.arange(30, 60)},
                             cohesion=np.array([theme_cohesion, 0.05]),  # the group is nearest theme 0
                             nearest_theme=np.array([closeness - 0.02, closeness + 0.01]))
    rules = emerge.Rules(dense_quantile=0.0)
    [group] = emerge.groups_of(embeddings, pool, cal, centres.astype(np.float32), rules, np.zeros(12, int))
    assert group.dense and group.born is born


@pytest.mark.parametrize("old_papers_there, placed_by_updates, born",
                         [(True, False, False), (False, False, True), (True, True, True)])
def test_a_group_among_placed_papers_is_a_subject_the_themes_hold_not_a_new_one(old_papers_there, placed_by_updates,
                                                                                 born):
    """A dense group far from every centroid is born only when its papers' nearest papers arrived
    recently far more often than chance: when placed papers of the same subject lie all around it
    (a subject the fit put inside a broader theme), it is not born again; papers of its subject that
    weekly updates placed within the window count as recent, like the pool."""
    rng = np.random.default_rng(7)
    centres = unit(rng.standard_normal((3, DIM)))
    members = [around(rng, centres[0], 40), around(rng, centres[1], 40)]
    # placed papers of theme 0 on the group's subject (centre 2), or elsewhere in theme 0
    members.append(around(rng, centres[2] if old_papers_there else centres[0], 30, spread=0.25))
    pool_vectors = around(rng, centres[2], 12, spread=0.25)
    embeddings = np.vstack([*members, pool_vectors]).astype(np.float32)
    topics = np.array([0] * 40 + [1] * 40 + [0] * 30 + [-2] * 12)
    ids = np.array([0, 1])
    theme_centroids = unit(np.stack([embeddings[topics == t].mean(0) for t in ids])).astype(np.float32)
    pool = np.arange(110, 122)
    closeness = float((unit(pool_vectors.mean(0)) @ theme_centroids.T).max())
    # far enough by the distance test (the closest themes lie closer to each other than the group to either)
    cal = emerge.Calibration(ids=ids, centroid=np.zeros(2), neighbourhood=np.zeros(2),
                             members={0: np.flatnonzero(topics == 0), 1: np.arange(40, 80)},
                             cohesion=np.array([0.05, 0.05]), nearest_theme=np.full(2, closeness + 0.05))
    rules = emerge.Rules(dense_quantile=0.0, far_quantile=1.0)
    on_subject = np.arange(80, 110)
    placed, recent = (np.arange(80), on_subject) if placed_by_updates else (np.arange(110), None)
    [group] = [g for g in emerge.groups_of(embeddings, pool, cal, theme_centroids, rules, np.zeros(12, int),
                                           placed=placed, recent=recent) if len(g.rows) >= 10]
    assert group.dense and group.far
    assert group.recent is born and group.born is born
    assert group.recency < 0.5 if not born else group.recency >= 0.5
    # without the placed papers to compare with, the test is not made
    [alone] = [g for g in emerge.groups_of(embeddings, pool, cal, theme_centroids, rules, np.zeros(12, int))
               if len(g.rows) >= 10]
    assert alone.born


def test_recency_is_measured_against_the_stores_share_of_recent_papers():
    """Pool papers mixed evenly among recent and older papers of their subject have recent neighbours
    as often as chance gives: recency about 0, whatever the raw share (here about 0.65)."""
    rng = np.random.default_rng(11)
    centre = unit(rng.standard_normal(DIM))
    pool_vectors, recent_vectors, placed_vectors = (around(rng, centre, n, spread=0.3) for n in (12, 60, 40))
    embeddings = np.vstack([placed_vectors, recent_vectors, pool_vectors]).astype(np.float32)
    placed, recent, pool = np.arange(40), np.arange(40, 100), np.arange(100, 112)
    cal = emerge.Calibration(ids=np.array([0]), centroid=np.zeros(1), neighbourhood=np.zeros(1),
                             members={0: placed}, cohesion=np.array([0.05]), nearest_theme=np.array([np.nan]))
    rules = emerge.Rules(dense_quantile=0.0)
    [group] = emerge.groups_of(embeddings, pool, cal, centre[None].astype(np.float32), rules, np.zeros(12, int),
                               placed=placed, recent=recent)
    assert group.recency < 0.25 and not group.recent


def test_a_young_theme_takes_a_paper_whose_nearest_members_are_its_though_an_old_centroid_is_nearer():
    rng = np.random.default_rng(11)
    c_old, c_young = unit(rng.standard_normal((2, DIM)))
    old = around(rng, c_old, 40, spread=1.6)  # a broad old theme: its papers are loosely alike
    young = around(rng, c_young, 10, spread=0.1)  # a tight young theme
    near_young = unit(0.56 * c_old + 0.44 * c_young + 0.05 * rng.standard_normal(DIM) / np.sqrt(DIM))
    near_old = old[0] * 0.999 + 0.001 * c_young  # a copy of an old member, the young centre far away
    embeddings = np.vstack([old, young, near_young, unit(near_old)]).astype(np.float32)
    centroids = unit(np.stack([old.mean(0), young.mean(0)])).astype(np.float32)
    rows = np.array([50, 51])
    cal = emerge.Calibration(ids=np.array([0, 7]), centroid=np.array([-1.0, -1.0]), neighbourhood=np.array([-1.0, -1.0]),
                             members={0: np.arange(40), 7: np.arange(40, 50)}, cohesion=np.ones(2),
                             nearest_theme=np.zeros(2))
    rules = emerge.Rules()
    near, score, ok = emerge.explained(embeddings, rows, cal, centroids, rules)
    assert near.tolist() == [0, 0] and ok.all()  # by centroid, both papers are the old theme's
    around_old = emerge.top_k_mean(embeddings[rows] @ embeddings[:40].T, rules.k)
    around_young = emerge.top_k_mean(embeddings[rows] @ embeddings[40:50].T, rules.k)
    assert score.tolist() == pytest.approx(around_old.tolist())  # explained gives the neighbourhood score
    assert around_young[0] > around_old[0] and around_young[1] < around_old[1]
    joined, explained_now = emerge.nearer_young(embeddings, rows, near, score, ok, cal, centroids, {7}, rules)
    assert joined.tolist() == [7, 0] and explained_now.all()
    # no young theme, or one that does not explain the paper (its neighbourhood threshold not met): unchanged
    assert emerge.nearer_young(embeddings, rows, near, score, ok, cal, centroids, set(), rules)[0].tolist() == [0, 0]
    strict = dataclasses.replace(cal, neighbourhood=np.array([-1.0, 0.999]))
    assert emerge.nearer_young(embeddings, rows, near, score, ok, strict, centroids, {7}, rules)[0].tolist() == [0, 0]
    # a young theme's centroid count must hold too
    far = dataclasses.replace(cal, centroid=np.array([-1.0, 0.999]))
    assert emerge.nearer_young(embeddings, rows, near, score, ok, far, centroids, {7}, rules)[0].tolist() == [0, 0]
    # a paper held back from its old theme (not explained, or novel) joins a young theme that explains
    # it, even where the old theme's members lie nearer
    held = np.array([True, False])
    joined, explained_now = emerge.nearer_young(embeddings, rows, near, score, held, cal, centroids, {7}, rules)
    assert joined.tolist() == [7, 7] and explained_now.tolist() == [True, True]


def test_between_two_young_themes_the_one_whose_members_lie_nearer_takes_the_paper():
    rng = np.random.default_rng(12)
    c_old, c_a, c_b = unit(rng.standard_normal((3, DIM)))
    paper = unit(0.1 * c_old + 0.6 * c_a + 0.4 * c_b)
    members = [around(rng, c, 10, spread=0.1) for c in (c_old, c_a, c_b)]
    embeddings = np.vstack([*members, paper[None, :]]).astype(np.float32)
    centroids = unit(np.stack([m.mean(0) for m in members])).astype(np.float32)
    cal = emerge.Calibration(ids=np.array([0, 7, 9]), centroid=np.full(3, -1.0), neighbourhood=np.full(3, -1.0),
                             members={0: np.arange(10), 7: np.arange(10, 20), 9: np.arange(20, 30)},
                             cohesion=np.ones(3), nearest_theme=np.zeros(3))
    rules = emerge.Rules()
    scores = [emerge.top_k_mean((paper @ m.T)[None, :], rules.k)[0] for m in members]
    assert scores[1] > scores[2] > scores[0]  # both young themes beat the old one; 7 beats 9
    for young in ({7, 9}, {9, 7}):
        joined, _ = emerge.nearer_young(embeddings, np.array([30]), np.array([0]), np.array([scores[0]]),
                                        np.array([True]), cal, centroids, young, rules)
        assert joined.tolist() == [7]


@pytest.mark.parametrize("alpha, held", [(0.05, False), (0.2, True)])
def test_a_paper_is_novel_when_more_of_its_nearest_papers_are_unplaced_than_chance_at_the_bound(alpha, held):
    rng = np.random.default_rng(3)
    x = unit(rng.standard_normal(DIM))
    placed_near = around(rng, x, 7, spread=0.5)  # 7 placed papers close to it
    new_near = around(rng, x, 3, spread=0.5)  # and 3 new ones
    placed_far = unit(rng.standard_normal((193, DIM)))
    new_far = unit(rng.standard_normal((26, DIM)))
    embeddings = np.vstack([x[None, :], new_near, new_far, placed_near, placed_far]).astype(np.float32)
    rows, placed = np.arange(30), np.arange(30, 230)
    top = emerge.nearest_among(embeddings, rows[:1], np.concatenate([rows, placed]), 10, themselves=True)
    assert (top < 30).sum() == 3  # 3 of its 10 nearest papers are unplaced: P(>= 3) = 0.12 by chance
    assert bool(emerge.novel(embeddings, rows, placed, emerge.Rules(novel_alpha=alpha))[0]) is held


def test_a_newborn_theme_takes_the_papers_it_explains_whose_nearest_theme_it_is():
    rng = np.random.default_rng(21)
    c_old, c_new = unit(rng.standard_normal((2, DIM)))
    old = around(rng, c_old, 30, spread=0.6)
    newborn = around(rng, c_new, 12, spread=0.3)
    taken = around(rng, c_new, 1, spread=0.3)  # an old theme took it a moment ago; it is the newborn's
    stays = around(rng, c_old, 1, spread=0.3)  # an old theme's paper: it stays
    waiting_near = around(rng, c_new, 1, spread=0.3)
    waiting_far = unit(rng.standard_normal((1, DIM)))
    embeddings = np.vstack([old, newborn, taken, stays, waiting_near, waiting_far]).astype(np.float32)
    topics = np.array([0] * 30 + [4] * 12 + [0, 0, -2, -2])
    ids = np.array([0, 4])
    centroids = unit(np.stack([old.mean(0), newborn.mean(0)])).astype(np.float32)
    rows = np.array([42, 43, 44, 45])
    out = emerge.join_newborn(embeddings, topics, rows, [4], ids, centroids, emerge.Rules())
    assert out[rows].tolist() == [4, 0, 4, -2]
    # a waiting paper an old theme explains stays waiting (only a newborn theme takes papers here), and
    # one whose nearest theme is the newborn but lies far from its papers too
    far_along = unit(0.3 * c_new + rng.standard_normal(DIM) / np.sqrt(DIM))
    more = np.vstack([embeddings, around(rng, c_old, 1, spread=0.3), far_along[None, :]]).astype(np.float32)
    assert float(far_along @ centroids[1]) > float(far_along @ centroids[0])
    waiting = np.concatenate([topics, [-2, -2]])
    out = emerge.join_newborn(more, waiting, np.array([46, 47]), [4], ids, centroids, emerge.Rules())
    assert out[46:].tolist() == [-2, -2]
    assert out[:42].tolist() == topics[:42].tolist()  # other papers untouched
    assert emerge.join_newborn(embeddings, topics, np.array([], dtype=int), [4], ids, centroids,
                               emerge.Rules()).tolist() == topics.tolist()


