"""The weekly update (``incremental.update``): placed papers keep their theme, new papers join the
theme that explains them, the others wait in the pool, where new themes are born."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics import State, name_run, update
from pipeline.topics.state import WAITING
from pipeline.topics.weekly import emerge
from tests.topics.weekly.test_emerge import DIM, SUBJECTS, around, unit


@pytest.fixture
def store():
    return three_themes()


def three_themes() -> dict:
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


def updated(embeddings: np.ndarray, ids: list[str], cfg: TopicsConfig, state: State, previous: dict[str, int], *,
            weeks: list[str], texts: list[str], rules: emerge.Rules | None = None):
    """The weekly update, then what it left to be named named, as the stage runs them (without the
    stage's second naming, of a label that is one author's series: none here has authors)."""
    result = update(embeddings, ids, cfg, state, previous, weeks=weeks, rules=rules)
    name_run(result, texts, None, cfg)
    return result


def arrive(store: dict, vectors: np.ndarray, texts: list[str], week: str, cfg: TopicsConfig = TopicsConfig(),
           rules: emerge.Rules | None = None):
    embeddings = np.vstack([store["embeddings"], vectors]).astype(np.float32)
    texts = store["texts"] + texts
    weeks = store["weeks"] + [week] * len(vectors)
    ids = [f"p{i}" for i in range(len(embeddings))]
    previous = {p: int(t) for p, t in zip(ids, store["topics"])}
    result = updated(embeddings, ids, cfg, store["state"], previous, weeks=weeks, texts=texts, rules=rules)
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
    later = updated(np.vstack([embeddings, late]).astype(np.float32), [*ids, "x0", "x1", "x2"], capped, result.state,
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
    result = updated(embeddings, ids, TopicsConfig(), state, {p: 0 for p in ids[:60]},
                    weeks=["2025-W01"] * 60 + ["2025-W05"] * 12, texts=texts)
    assert [row.relation for row in result.lineage] == ["new"] and (result.topics[60:] == 1).sum() >= 10


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
    second = updated(np.vstack([embeddings, later]).astype(np.float32), [*ids, *[f"n{i}" for i in range(8)]], cfg,
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


def test_which_papers_may_join_a_newborn_theme():
    from pipeline.topics.weekly.emerge import newborn_candidates

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
    assert {i for i in range(180, 198) if seen["topics"][i] == WAITING} <= rows  # and the pool's


def test_a_born_theme_is_named_with_the_label_support_floor(store, monkeypatch):
    import pipeline.topics.naming.names as names_module
    from tests.helpers import keyword_spy

    floors = keyword_spy(monkeypatch, names_module, "name_groups", "floor")
    group = around(store["rng"], store["centres"][3], 12, spread=0.25)
    texts = [f"Quantum annealing schedules, paper {i}. Quantum annealing schedules on hardware." for i in range(12)]
    result, *_ = arrive(store, group, texts, "2025-W05", TopicsConfig(min_label_support=0.3))
    assert result.state.born == {3: "2025-W05"} and 0.3 in floors


def test_an_update_with_nothing_new_says_nothing_about_the_pool(store, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="pipeline"):
        arrive(store, np.zeros((0, DIM), np.float32), [], "2025-W05")
    assert not [r for r in caplog.records if "no theme explains" in r.getMessage()]
    with caplog.at_level(logging.INFO, logger="pipeline"):
        noise = unit(store["rng"].standard_normal((3, DIM))).astype(np.float32)
        arrive(store, noise, [f"Paper {i} on something else." for i in range(3)], "2025-W05")
    said = [r.getMessage() for r in caplog.records if "no theme explains" in r.getMessage()]
    assert said and "groups of none" not in said[-1]
