"""Weekly updates that find new themes (topics/emerge.py and topics.update)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics import State, emerge, update

DIM = 48
SUBJECTS = ["graph partitioning for sparse solvers", "consensus protocols for blockchains",
            "federated learning with stragglers"]


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def around(rng: np.random.Generator, centre: np.ndarray, n: int, spread: float = 0.35) -> np.ndarray:
    return unit(centre + spread * rng.standard_normal((n, DIM)) / np.sqrt(DIM))


@pytest.fixture
def store():
    """Three fitted themes of 60 papers each (weeks W01-W04), their state and assignment."""
    rng = np.random.default_rng(0)
    centres = unit(rng.standard_normal((4, DIM)))  # the fourth is where a new field will appear
    vectors, topics, texts, weeks = [], [], [], []
    for t in range(3):
        vectors.append(around(rng, centres[t], 60))
        topics += [t] * 60
        texts += [f"A study of {SUBJECTS[t]} number {i}. We improve {SUBJECTS[t]}." for i in range(60)]
        weeks += [f"2025-W0{1 + i % 4}" for i in range(60)]
    embeddings = np.vstack(vectors).astype(np.float32)
    ids = np.arange(3)
    state = State(ids=ids, centroids=unit(np.stack([embeddings[np.array(topics) == t].mean(0) for t in ids])),
                  words={t: [(SUBJECTS[t].split()[0], 1.0)] for t in ids},
                  labels={t: SUBJECTS[t].capitalize() for t in ids}, embedder="test", next_id=3,
                  fitted_at="2025-01-27T00:00:00+00:00", area_of={0: 0, 1: 0, 2: 0}, area_labels={0: "All"},
                  tree=[{"node": "area:0", "parent": None, "level": "area", "topic": None, "area": 0, "size": 180,
                         "distance": 0.0, "label": "All"}], next_area=1, fitted_week="2025-W04")
    return {"rng": rng, "centres": centres, "embeddings": embeddings, "topics": np.array(topics),
            "texts": texts, "weeks": weeks, "state": state}


def arrive(store: dict, vectors: np.ndarray, texts: list[str], week: str, cfg: TopicsConfig = TopicsConfig(),
           rules: emerge.Rules | None = None):
    embeddings = np.vstack([store["embeddings"], vectors]).astype(np.float32)
    texts = store["texts"] + texts
    weeks = store["weeks"] + [week] * len(vectors)
    ids = [f"p{i}" for i in range(len(embeddings))]
    previous = {p: int(t) for p, t in zip(ids, store["topics"])}
    result = update(embeddings, ids, cfg, store["state"], previous, weeks=weeks, texts=texts, rules=rules)
    return result, embeddings, ids, texts, weeks


def test_a_dense_group_far_from_every_theme_is_born_with_the_next_id(store):
    group = around(store["rng"], store["centres"][3], 12, spread=0.25)
    texts = [f"Quantum annealing schedules, paper {i}. Quantum annealing schedules on hardware." for i in range(12)]
    old_labels = dict(store["state"].labels)
    result, *_ = arrive(store, group, texts, "2025-W05")
    new = result.topics[-12:]
    assert set(new.tolist()) <= {3, -1} and (new == 3).sum() >= 10
    assert result.state.ids.tolist() == [0, 1, 2, 3] and result.state.next_id == 4
    assert result.state.born == {3: "2025-W05"}
    assert "annealing" in result.state.labels[3].lower()
    assert {t: result.state.labels[t] for t in (0, 1, 2)} == old_labels
    assert result.topics[:180].tolist() == store["topics"].tolist()  # placed papers never move
    assert result.state.area_of[3] == 0 and any(r["node"] == "theme:3" for r in result.state.tree)
    [row] = result.lineage
    assert row.relation == "new" and row.to_topic == 3 and row.week == "2025-W05"
    assert row.pool_size >= 12 and row.pool_start == "2025-W02"


def test_scattered_papers_give_no_theme_and_stay_within_the_cap(store):
    noise = unit(store["rng"].standard_normal((9, DIM))).astype(np.float32)
    result, *_ = arrive(store, noise, [f"Paper {i} on something else entirely." for i in range(9)], "2025-W05")
    assert result.lineage == [] and result.state.ids.tolist() == [0, 1, 2]
    assert (result.topics == -1).mean() <= TopicsConfig().max_outlier_share


def test_a_group_below_the_size_bound_is_forming_not_born(store):
    cfg = dataclasses.replace(TopicsConfig(), emerge_min_size=12, max_outlier_share=0.2)
    group = around(store["rng"], store["centres"][3], 8, spread=0.2)
    result, *_ = arrive(store, group, [f"Quantum annealing, paper {i}." for i in range(8)], "2025-W05", cfg)
    assert result.lineage == []
    assert len(result.forming) == 1 and set(result.forming[0].rows.tolist()) <= set(range(180, 188))
    assert "annealing" in result.forming[0].label.lower() and result.forming[0].week == "2025-W05"
    assert (result.topics[180:] == -1).all()


def quantum_group(store: dict) -> tuple[np.ndarray, list[str]]:
    """Twelve new papers on the store's fourth subject, a dense group far from every theme: born as
    a theme in 2025-W05 with the default settings (``test_a_dense_group_far_from_every_theme_...``)."""
    group = around(store["rng"], store["centres"][3], 12, spread=0.25)
    texts = [f"Quantum annealing schedules, paper {i}. Quantum annealing schedules on hardware." for i in range(12)]
    return group, texts


def test_without_emerge_an_update_finds_no_new_theme(store):
    import copy

    group, texts = quantum_group(store)
    assert arrive({**store, "state": copy.deepcopy(store["state"])}, group, texts, "2025-W05")[0].lineage
    result, *_ = arrive(store, group, texts, "2025-W05", dataclasses.replace(TopicsConfig(), emerge=False))
    assert result.lineage == [] and result.forming == [] and result.state.ids.tolist() == [0, 1, 2]


def test_the_pool_reaches_back_emerge_window_weeks(store):
    group, texts = quantum_group(store)
    result, *_ = arrive(store, group, texts, "2025-W05", dataclasses.replace(TopicsConfig(), emerge_window=2))
    [row] = result.lineage
    assert row.relation == "new" and row.pool_start == "2025-W04"  # 2025-W02 with the default window of 4


def test_a_group_smaller_than_emerge_min_size_is_forming_not_born(store):
    group, texts = quantum_group(store)
    cfg = dataclasses.replace(TopicsConfig(), emerge_min_size=13, max_outlier_share=0.2)
    result, *_ = arrive(store, group, texts, "2025-W05", cfg)
    assert result.lineage == [] and result.state.ids.tolist() == [0, 1, 2]
    [forming] = result.forming
    assert len(forming.rows) >= 10 and set(forming.rows.tolist()) <= set(range(180, 192))


@pytest.mark.parametrize("novelty", [0.05, 0.2])
def test_a_burst_of_papers_into_one_theme_waits_in_part_at_a_looser_novelty_bound(store, novelty):
    # ten new papers on one theme's subject and none on the others': at 0.2, from 2 of their 10
    # nearest papers new a paper is held back (a random draw gives as many with probability 0.08)
    close = around(store["rng"], store["state"].centroids[1], 10)
    result, *_ = arrive(store, close, [f"Consensus protocols for blockchains {i}." for i in range(10)], "2025-W05",
                        rules=emerge.Rules(novel_alpha=novelty))
    assert emerge.Rules().novel_alpha == 0.2
    new = result.topics[180:]
    assert result.lineage == [] and set(new.tolist()) <= {1, -1}
    if novelty == 0.05:
        assert (new == 1).mean() >= 0.8
    else:
        assert 0.3 <= (new == -1).mean() <= 0.6


def test_papers_close_to_a_theme_join_it(store):
    # an ordinary week: a few new papers on each theme's subject
    close = np.vstack([around(store["rng"], store["state"].centroids[t], 4) for t in range(3)])
    texts = [f"{SUBJECTS[t].capitalize()}, new paper {i}." for t in range(3) for i in range(4)]
    result, *_ = arrive(store, close, texts, "2025-W05")
    assert result.lineage == []
    assert (result.topics[180:] == np.repeat(np.arange(3), 4)).mean() >= 0.8


def test_the_pool_waits_for_the_window_then_its_papers_join_their_nearest_theme(store):
    cfg = dataclasses.replace(TopicsConfig(), emerge_min_size=12, max_outlier_share=0.2)
    group = around(store["rng"], store["centres"][3], 8, spread=0.2)
    texts = [f"Quantum annealing, paper {i}." for i in range(8)]
    result, embeddings, ids, all_texts, weeks = arrive(store, group, texts, "2025-W05", cfg)
    assert (result.topics[180:] == -1).all()
    # five weeks later the pool has let them go (window 4), and a few more papers arrive elsewhere
    previous = dict(zip(ids, result.topics.tolist()))
    late = around(store["rng"], store["state"].centroids[0], 3, spread=0.2)
    # no longer in the pool, they count as any unassigned paper: the cap makes them join a theme
    capped = dataclasses.replace(cfg, max_outlier_share=0.01)
    later = update(np.vstack([embeddings, late]).astype(np.float32), [*ids, "x0", "x1", "x2"], capped, result.state,
                   previous, weeks=[*weeks, *["2025-W10"] * 3], texts=[*all_texts, *["Graph partitioning."] * 3])
    assert (later.topics == -1).mean() <= 0.01 and later.lineage == []


def test_the_same_input_gives_the_same_births(store):
    import copy

    group = around(store["rng"], store["centres"][3], 12, spread=0.25)
    texts = [f"Quantum annealing schedules, paper {i}." for i in range(12)]
    first = arrive({**store, "state": copy.deepcopy(store["state"])}, group, texts, "2025-W05")[0]
    second = arrive({**store, "state": copy.deepcopy(store["state"])}, group, texts, "2025-W05")[0]
    assert first.lineage and first.topics.tolist() == second.topics.tolist()
    assert first.state.labels == second.state.labels and first.state.tree == second.state.tree


def test_a_store_of_one_theme_can_still_see_one_born():
    rng = np.random.default_rng(3)
    centres = unit(rng.standard_normal((2, DIM)))
    members = around(rng, centres[0], 60).astype(np.float32)
    state = State(ids=np.array([0]), centroids=unit(members.mean(0, keepdims=True)), words={0: []},
                  labels={0: "Graph partitioning"}, embedder="test", next_id=1, fitted_at="")
    group = around(rng, centres[1], 12, spread=0.25)
    embeddings = np.vstack([members, group]).astype(np.float32)
    texts = ["Graph partitioning for solvers."] * 60 + [f"Quantum annealing schedules {i}." for i in range(12)]
    ids = [f"p{i}" for i in range(72)]
    result = update(embeddings, ids, TopicsConfig(), state, {p: 0 for p in ids[:60]},
                    weeks=["2025-W01"] * 60 + ["2025-W05"] * 12, texts=texts)
    assert [row.relation for row in result.lineage] == ["new"] and (result.topics[60:] == 1).sum() >= 10


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


def born_then_later(store: dict, cfg: TopicsConfig, size: int, born_spread: float, later_week: str,
                    later_spread: float, refit_week: str = "", rules: emerge.Rules | None = None):
    """A theme born in 2025-W05 from ``size`` papers on the store's fourth subject, then an update
    in ``later_week`` with 8 more papers on it (spread ``later_spread``); with ``refit_week``, as if
    a refit came in that week. Returns both results and how many papers the first one held."""
    import copy

    store = {**store, "state": copy.deepcopy(store["state"])}
    group = around(store["rng"], store["centres"][3], size, spread=born_spread)
    texts = [f"Quantum annealing schedules, paper {i}." for i in range(size)]
    first, embeddings, ids, all_texts, weeks = arrive(store, group, texts, "2025-W05", cfg, rules)
    assert first.state.born == {3: "2025-W05"}
    if refit_week:
        first.state.fitted_week = refit_week
    later = around(store["rng"], store["centres"][3], 8, spread=later_spread)
    second = update(np.vstack([embeddings, later]).astype(np.float32), [*ids, *[f"n{i}" for i in range(8)]], cfg,
                    first.state, dict(zip(ids, first.topics.tolist())), weeks=[*weeks, *[later_week] * 8],
                    texts=[*all_texts, *[f"Quantum annealing on hardware {i}." for i in range(8)]], rules=rules)
    assert second.topics[: len(ids)].tolist() == first.topics.tolist()  # placed papers never move
    return first, second


@pytest.mark.parametrize("join_young", [True, False])
def test_later_papers_on_a_young_themes_subject_join_it_when_most_of_their_neighbours_are_its(store, join_young,
                                                                                              monkeypatch):
    cfg = dataclasses.replace(TopicsConfig(), max_outlier_share=0.2)
    if not join_young:  # without the young themes' rules (nearer_young, joins_young), as a control
        monkeypatch.setattr(emerge, "nearer_young", lambda embeddings, test, near, score, ok, *_: (near, ok))
        monkeypatch.setattr(emerge, "joins_young", lambda embeddings, rows, *_: np.zeros(len(rows), dtype=bool))
    # a week later, papers on the same subject but less typical than the theme's first papers
    _, second = born_then_later(store, cfg, 12, 0.2, "2025-W06", 0.5)
    joined = (second.topics[-8:] == 3).sum()
    if join_young:
        assert joined == 8
    else:
        assert joined < 8 and (second.topics[-8:] == -1).any()


@pytest.mark.parametrize("young_weeks, refit_since", [(0, False), (13, False), (13, True)])
def test_a_theme_born_in_an_update_takes_its_subjects_papers_after_the_window_when_young_longer(store, young_weeks,
                                                                                                refit_since):
    """Past the window a born theme is old: each week's papers on its subject lie near each other,
    so the novelty test holds them back from it, and they wait. Young for Rules.young_weeks, it
    takes them, unless a refit came since its birth."""
    cfg = dataclasses.replace(TopicsConfig(), max_outlier_share=0.5)
    # five weeks later (the window of four has passed): a tight batch on the same subject
    _, second = born_then_later(store, cfg, 20, 0.3, "2025-W10", 0.2, refit_week="2025-W06" if refit_since else "",
                                rules=emerge.Rules(young_weeks=young_weeks))
    if young_weeks and not refit_since:
        assert (second.topics[-8:] == 3).all()
    else:
        assert (second.topics[-8:] == -1).all() and not second.lineage


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


def test_the_cap_on_unassigned_papers_places_scattered_pool_papers_before_a_forming_group(store):
    """When the pool must shrink to respect ``max_outlier_share``, the scattered papers go first; a
    forming group keeps its papers waiting."""
    rng = store["rng"]
    # a tight group leaning towards theme 0 (nearer its centroid than the scattered papers are to any)
    group = around(rng, unit(store["centres"][3] + 0.22 * store["state"].centroids[0]), 8, spread=0.15)
    noise = unit(rng.standard_normal((9, DIM)))
    total = 180 + 8 + 9
    cfg = dataclasses.replace(TopicsConfig(), emerge_min_size=12, max_outlier_share=8.5 / total)
    texts = [f"Quantum annealing, paper {i}." for i in range(8)] + [f"Paper {i} on another subject." for i in range(9)]
    result, *_ = arrive(store, np.vstack([group, noise]), texts, "2025-W05", cfg)
    assert result.lineage == []
    [forming] = result.forming
    assert set(forming.rows.tolist()) == set(range(180, 188))
    assert (result.topics[180:188] == -1).all()  # the forming group waits
    assert (result.topics[188:] >= 0).all()  # the scattered papers were placed to respect the cap
    assert (result.topics == -1).sum() <= np.floor(cfg.max_outlier_share * total)


@pytest.mark.parametrize("fitted_week, born", [("2025-W04", True), ("2025-W05", False)])
def test_papers_placed_by_updates_since_the_fit_count_as_recent(store, fitted_week, born):
    """Papers of a new subject that an old theme took in week 5 surround the group that forms in week
    6. When week 5 came after the fit they are recent (placed by an update), and the group is born;
    when the fit saw week 5, they are papers the themes already held, and it is not."""
    rng = store["rng"]
    early = around(rng, store["centres"][3], 30, spread=0.25).astype(np.float32)
    store["embeddings"] = np.vstack([store["embeddings"], early])
    store["topics"] = np.concatenate([store["topics"], np.zeros(30, int)])  # an old theme took them
    store["texts"] = store["texts"] + [f"Quantum annealing, early paper {i}." for i in range(30)]
    store["weeks"] = store["weeks"] + ["2025-W05"] * 30
    store["state"].fitted_week = fitted_week
    group = around(rng, store["centres"][3], 12, spread=0.25)
    cfg = dataclasses.replace(TopicsConfig(), max_outlier_share=0.2)
    result, *_ = arrive(store, group, [f"Quantum annealing schedules, paper {i}." for i in range(12)], "2025-W06",
                        cfg)
    assert bool(result.lineage) is born
    assert result.topics[:210].tolist() == store["topics"].tolist()  # placed papers never move


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


def test_which_papers_may_join_a_newborn_theme():
    from pipeline.topics.incremental import newborn_candidates

    topics = np.array([0, 0, -2, 5, 0, -1, 5])
    placed_now = np.array([False, True, False, True, False, False, False])  # 1: placed in theme 0 by this update
    # 4, placed by an earlier update within the window, is not offered (emerge_adopt_placed was removed)
    assert newborn_candidates(topics, placed_now, [5]).tolist() == [1, 2]


def test_the_update_offers_a_newborn_theme_its_pool_and_the_papers_it_placed_itself(store, monkeypatch):
    seen = {}
    real = emerge.join_newborn

    def spy(embeddings, topics, rows, *args, **kwargs):
        seen["rows"], seen["topics"] = rows.copy(), topics.copy()
        return real(embeddings, topics, rows, *args, **kwargs)

    monkeypatch.setattr(emerge, "join_newborn", spy)
    group = around(store["rng"], store["centres"][3], 12, spread=0.25)
    usual = np.vstack([around(store["rng"], store["state"].centroids[t], 2) for t in range(3)])
    texts = [f"Quantum annealing schedules, paper {i}." for i in range(12)] + [f"Usual paper {i}." for i in range(6)]
    result, *_ = arrive(store, np.vstack([group, usual]), texts, "2025-W05")
    assert result.lineage and "rows" in seen
    rows = set(seen["rows"].tolist())
    assert rows.isdisjoint(range(180))  # the fit's papers are never offered
    placed_here = {i for i in range(192, 198) if seen["topics"][i] >= 0}
    assert placed_here and placed_here <= rows  # the usual papers this update placed are
    assert {i for i in range(180, 198) if seen["topics"][i] == -2} <= rows  # and the pool's


def test_a_born_theme_is_named_with_the_label_support_floor(store, monkeypatch):
    import pipeline.topics.label as label_module
    from tests.helpers import keyword_spy

    floors = keyword_spy(monkeypatch, label_module, "name_groups", "floor")
    group = around(store["rng"], store["centres"][3], 12, spread=0.25)
    texts = [f"Quantum annealing schedules, paper {i}. Quantum annealing schedules on hardware." for i in range(12)]
    result, *_ = arrive(store, group, texts, "2025-W05", TopicsConfig(min_label_support=0.3))
    assert result.state.born == {3: "2025-W05"} and 0.3 in floors
