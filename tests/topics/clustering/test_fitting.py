"""Fit and refit (``fitting.py``): a refit that keeps history moves placed papers only into themes
that are new or split off their own, and only where the part that leaves lies apart."""

from __future__ import annotations

from pipeline import topics
from pipeline.config import TopicsConfig
from pipeline.topics.clustering import fitting, refit


def kept_placed(new, old, fitted, lineage, cfg, previous, vectors):
    """``refit.keep_placed`` on lineage rows written as dicts, as a tuple: assignment, lineage,
    changed themes, receiving themes, revived themes."""
    from pipeline.topics.state import Change

    kept = refit.keep_placed(new, old, fitted, [Change(**row) for row in lineage], cfg, previous, vectors)
    return kept.topics, kept.lineage, kept.changed, kept.receiving, kept.revived


def test_a_refit_moves_placed_papers_only_into_new_or_split_themes():
    import numpy as np

    def state_of(ids, labels):
        return topics.State(ids=np.array(ids), centroids=np.eye(4, dtype=np.float32)[: len(ids)],
                            words={t: [] for t in ids}, labels=dict(zip(ids, labels)), embedder="x", next_id=6,
                            fitted_at="")

    previous = state_of([0, 1, 2], ["a", "b", "c"])
    # the refit matched 0 and 1, did not match 2 (it merged it into 1), and split theme 5 off 1
    fitted = state_of([0, 1, 5], ["a", "b", "e"])
    lineage = [{"from_topic": 0, "to_topic": 0, "relation": "same", "similarity": 0.9, "shared_papers": 3},
               {"from_topic": 1, "to_topic": 1, "relation": "same", "similarity": 0.9, "shared_papers": 2},
               {"from_topic": 1, "to_topic": 5, "relation": "split", "similarity": 0.5, "shared_papers": 11},
               {"from_topic": 2, "to_topic": 1, "relation": "merged", "similarity": 0.4, "shared_papers": 2}]
    old = np.array([0, 0, 1, 1, 0, -1, 2, 2] + [1] * 10)
    new = np.array([1, 0, 5, 1, 5, 5, 1, 1] + [5] * 10)
    # the papers split off theme 1 are written unlike those that stay in it
    vectors = np.tile(np.float32([0, 0, 1, 0]), (len(old), 1))
    vectors[(old == 1) & (new == 5)] = [1, 0, 0, 0]
    vectors[(old == 1) & (new == 1)] = [0, 1, 0, 0]
    out, rows, changed, receiving, revived = kept_placed(new, old, fitted, lineage, TopicsConfig(),
                                                                  previous, vectors)
    # 0 -> 1 between persisting themes: stays; 1 -> 5 (split off 1): moves; 0 -> 5: stays; 2 persists
    assert out.tolist() == [0, 0, 5, 1, 0, 5, 2, 2] + [5] * 10
    assert fitted.ids.tolist() == [0, 1, 2, 5] and fitted.labels[2] == "c"
    assert {(r.from_topic, r.to_topic, r.relation) for r in rows} == {
        (0, 0, "same"), (1, 1, "same"), (2, 2, "same"), (1, 5, "split")}
    assert {2, 5} <= changed
    # only theme 1's papers may move into 5 (split off 1); theme 2 came back as it was
    assert receiving == {5: {1}} and revived == {2}
    # a new theme left too small is dropped (its papers unassigned until recentred)
    fitted = state_of([0, 1, 5], ["a", "b", "e"])
    out, rows, _, receiving, _ = kept_placed(new[:8], old[:8], fitted, lineage, TopicsConfig(), previous,
                                                      vectors[:8])
    assert 5 not in out.tolist() and 5 not in fitted.ids.tolist() and receiving == {}
    assert all(r.to_topic != 5 for r in rows)


def test_a_refit_that_only_recuts_a_theme_moves_none_of_its_papers():
    """Two clusterings of the same papers cut a theme along different lines: a part of a theme that
    lies as close to the rest of it as themes never lie to each other is no split."""
    import numpy as np

    centroids = np.float32([[1, 0, 0, 0], [0, 1, 0, 0], [0.6, 0.8, 0, 0]])  # theme 5 between 0 and 1
    previous = topics.State(ids=np.array([0, 1]), centroids=centroids[:2], words={0: [], 1: []},
                            labels={0: "a", 1: "b"}, embedder="x", next_id=6, fitted_at="")
    lineage = [{"from_topic": 0, "to_topic": 0, "relation": "same", "similarity": 0.9, "shared_papers": 10},
               {"from_topic": 1, "to_topic": 1, "relation": "same", "similarity": 0.9, "shared_papers": 10},
               {"from_topic": 1, "to_topic": 5, "relation": "split", "similarity": 0.8, "shared_papers": 12}]
    old = np.array([0] * 10 + [1] * 22)
    new = np.array([0] * 10 + [1] * 10 + [5] * 12)
    rng = np.random.default_rng(0)
    # theme 1's papers are one blob: the half the refit cut off lies right beside the rest
    vectors = np.vstack([np.tile(np.float32([1, 0, 0, 0]), (10, 1)),
                         np.float32([0, 1, 0, 0]) + 0.05 * rng.standard_normal((22, 4)).astype(np.float32)])

    def refit(vectors):
        fitted = topics.State(ids=np.array([0, 1, 5]), centroids=centroids.copy(), words={t: [] for t in (0, 1, 5)},
                              labels={0: "a", 1: "b", 5: "e"}, embedder="x", next_id=6, fitted_at="")
        return kept_placed(new, old, fitted, lineage, TopicsConfig(), previous, vectors), fitted

    (out, rows, _, receiving, _), fitted = refit(vectors)
    assert out.tolist() == old.tolist()  # nobody moved; theme 5, left empty, is dropped
    assert 5 not in fitted.ids.tolist() and receiving == {}
    assert all(r.relation == "same" for r in rows)
    # unless theme 1 has outgrown the size bound of a fit: then it is cut where the refit cuts it
    small_bound = TopicsConfig(max_theme_share=0.01)  # 50 papers at the least (MIN_THEME_BOUND)
    assert (old == 1).sum() <= 50
    fitted = topics.State(ids=np.array([0, 1, 5]), centroids=centroids.copy(), words={t: [] for t in (0, 1, 5)},
                          labels={0: "a", 1: "b", 5: "e"}, embedder="x", next_id=6, fitted_at="")
    many = np.concatenate([old, np.ones(40, int)]), np.concatenate([new, np.ones(40, int)])
    grown = np.vstack([vectors, np.tile(np.float32([0, 1, 0, 0]), (40, 1))])
    out, *_ = kept_placed(many[1], many[0], fitted, lineage, small_bound, previous, grown)
    assert (out == 5).sum() == 12
    # the same cut where the part that leaves is written otherwise is a split
    vectors[20:] = np.float32([0, 0, 1, 0])
    (out, rows, _, receiving, _), fitted = refit(vectors)
    assert out.tolist() == new.tolist() and receiving == {5: {1}}
    assert (1, 5, "split") in {(r.from_topic, r.to_topic, r.relation) for r in rows}


def test_a_refit_refuses_a_re_cut_flow_by_flow():
    """A theme the refit found that draws on two old themes: the flow that only re-cuts its theme
    stays (and leaves no lineage row), the other moves; papers of a sampled fit outside the sample
    follow the same flows (``receiving``)."""
    import numpy as np

    centroids = np.float32([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])
    previous = topics.State(ids=np.array([0, 1]), centroids=centroids[:2], words={0: [], 1: []},
                            labels={0: "a", 1: "b"}, embedder="x", next_id=6, fitted_at="")
    old = np.array([0] * 20 + [1] * 20)
    new = np.array([0] * 8 + [5] * 12 + [1] * 8 + [5] * 12)
    vectors = np.zeros((40, 4), np.float32)
    vectors[:8] = [1, 0, 0, 0]
    vectors[8:20] = [0.99, 0.1, 0, 0]  # theme 0's part lies beside the rest of theme 0: a re-cut
    vectors[20:28] = [0, 1, 0, 0]
    vectors[28:] = [0, 0, 1, 0]  # theme 1's part is written otherwise: a split

    for relation, rule in (("split", [{"from_topic": 0, "to_topic": 5, "relation": "split", "similarity": 0.5,
                                       "shared_papers": 12},
                                      {"from_topic": 1, "to_topic": 5, "relation": "split", "similarity": 0.5,
                                       "shared_papers": 12}]),
                           ("new", [{"from_topic": None, "to_topic": 5, "relation": "new", "similarity": None,
                                     "shared_papers": 0}])):
        lineage = [{"from_topic": t, "to_topic": t, "relation": "same", "similarity": 0.9, "shared_papers": 8}
                   for t in (0, 1)] + rule
        fitted = topics.State(ids=np.array([0, 1, 5]), centroids=centroids.copy(), words={t: [] for t in (0, 1, 5)},
                              labels={0: "a", 1: "b", 5: "e"}, embedder="x", next_id=6, fitted_at="")
        out, rows, _, receiving, _ = kept_placed(new, old, fitted, lineage, TopicsConfig(), previous,
                                                          vectors)
        assert out.tolist() == [0] * 20 + [1] * 8 + [5] * 12, relation
        assert receiving == {5: {1}}, relation
        kept = {(r.from_topic, r.to_topic, r.relation) for r in rows}
        assert (0, 5, "split") not in kept
        assert ((1, 5, "split") in kept) == (relation == "split")
