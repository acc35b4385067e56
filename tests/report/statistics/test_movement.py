"""Movement at several horizons: evidence counted by author groups, shares against the categories'
mix, moves of a size that matters, new and ended units, the false discovery rate by family."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from pipeline.report.statistics.movement import (
    change_test,
    horizons,
    movement,
    movers,
    needed,
    shrunk_ratios,
    since,
    tarone_bh,
    units_of,
    weeks_of,
)
from pipeline.config import ReportConfig
from pipeline.report.statistics.trends import benjamini_hochberg, rate_test

MONDAY = pd.Timestamp("2025-12-15", tz="UTC")
WEEKS = [MONDAY - pd.Timedelta(weeks=w) for w in range(26, -1, -1)]
ANY = ReportConfig(min_change=1.0)  # any change, as the tests of a point null


def field(rng, themes: int = 30, per_week: int = 300, grow: dict[int, tuple[int, float]] | None = None) -> pd.DataFrame:
    """Weekly counts of ``themes`` equal themes; ``grow``: theme -> (weeks before the end it began, factor)."""
    base = np.full(themes, 1.0 / themes)
    rows = []
    for i, _ in enumerate(WEEKS):
        p = base.copy()
        for t, (since_weeks, factor) in (grow or {}).items():
            if i >= len(WEEKS) - since_weeks:
                p[t] *= factor
        rows.append(rng.multinomial(per_week, p / p.sum()))
    return pd.DataFrame(rows, index=WEEKS, columns=range(themes))


@dataclasses.dataclass
class Papers:
    week: list
    unit: list
    category: list
    authors: list


def papers_of(counts: pd.DataFrame, category: dict | None = None, author: dict | None = None) -> Papers:
    """One paper per count, each with an author of its own (``author``: (week, unit) -> one author
    for all those papers), in its unit's ``category`` (default "cs.X")."""
    out = Papers([], [], [], [])
    serial = 0
    for week, row in counts.iterrows():
        for unit, n in row.items():
            for _ in range(int(n)):
                serial += 1
                out.week.append(week)
                out.unit.append(unit)
                out.category.append((category or {}).get(unit, "cs.X"))
                out.authors.append([(author or {}).get((week, unit), f"author {serial}")])
    return out


def level(counts: pd.DataFrame, name: str = "theme", **kw):  # noqa: ANN003, ANN201
    p = papers_of(counts, **kw)
    return units_of(name, WEEKS, p.week, p.unit, p.category, p.authors, p.week, p.category, list(counts.columns))


def test_a_theme_that_tripled_over_four_weeks_moves_and_the_rest_do_not():
    counts = field(np.random.default_rng(0), grow={3: (4, 3.0)})
    table = movement([level(counts)], MONDAY)
    found = movers(table)
    assert found["unit"].tolist() == [3] and found.iloc[0]["direction"] == "up"
    month = table[(table["unit"] == 3) & (table["horizon"] == "month")].iloc[0]
    assert month["mover"] and 1.8 < month["estimate"] < 3.5 and month["low"] > 1.0
    assert set(table["horizon"]) == {"week", "month", "quarter"}


def test_a_steady_field_names_no_mover_at_any_horizon():
    for seed in range(5):
        counts = field(np.random.default_rng(seed))
        assert movers(movement([level(counts)], MONDAY, ANY)).empty


def test_few_papers_do_not_make_a_large_ratio():
    # one theme: 2 papers this week against 0.5 expected; the raw ratio is 4, the shrunk one far less
    k, n, k0, n0 = np.array([2, 10, 10, 10]), np.full(4, 100), np.array([4, 80, 80, 80]), np.full(4, 800)
    estimate, low, high, tau = shrunk_ratios(k, n, k0, n0)
    assert (k[0] / n[0]) / (k0[0] / n0[0]) == pytest.approx(4.0)
    assert estimate[0] < 2.0 and low[0] < 1.0 < high[0] and tau >= 0.2
    estimate, low, high, _ = shrunk_ratios(np.array([400, 100]), np.full(2, 1000), np.array([800, 800]), np.full(2, 8000))
    assert estimate[0] == pytest.approx(4.0, rel=0.15) and low[0] > 3.0


def test_one_authors_batch_is_one_piece_of_evidence_and_never_a_mover():
    counts = field(np.random.default_rng(4), themes=30, per_week=300)
    batch = counts.copy()
    batch.loc[MONDAY, 2] += 25  # twenty-five more papers this week, all by one author
    p = papers_of(batch)
    ana = [i for i, (w, u) in enumerate(zip(p.week, p.unit)) if w == MONDAY and u == 2][-25:]
    for i in ana:
        p.authors[i] = ["Ana Prolific"]
    units = units_of("theme", WEEKS, p.week, p.unit, p.category, p.authors, p.week, p.category, list(batch.columns))
    week = movement([units], MONDAY, ANY)
    row = week[(week["unit"] == 2) & (week["horizon"] == "week")].iloc[0]
    assert row["papers"] == counts.loc[MONDAY, 2] + 25 and row["k"] == counts.loc[MONDAY, 2] + 1
    assert not movers(week)["unit"].eq(2).any()
    # counted as papers (each its own author) the same week is a mover: the grouping is what holds it back
    plain = movement([level(batch)], MONDAY, ANY)
    assert movers(plain)["unit"].eq(2).any()


def test_a_move_one_author_carries_is_set_apart_with_the_author():
    counts = field(np.random.default_rng(5), themes=10, per_week=200)
    counts[9] = 0
    counts.loc[WEEKS[:6], 9] = 1  # a small theme, once
    recent = WEEKS[-4:]
    counts.loc[recent, 9] = 10  # and now ten a week for a month, half of them by one author
    p = papers_of(counts)
    rows = [i for i, (w, u) in enumerate(zip(p.week, p.unit)) if u == 9 and w in recent]
    for i in rows[::2]:
        p.authors[i] = ["Bo Series", f"co {i % 3}"]
    units = units_of("theme", WEEKS, p.week, p.unit, p.category, p.authors, p.week, p.category, list(counts.columns))
    table = movement([units], MONDAY, ANY)
    rows = table[(table["unit"] == 9) & (table["q_value"] < ANY.alpha)]
    assert len(rows) and (rows["carried"] == "Bo Series").all() and not rows["mover"].any()


def test_a_categorys_wave_lifts_its_themes_by_no_more_than_it_predicts():
    rng = np.random.default_rng(6)
    counts = field(rng, themes=20, per_week=400)
    wave = counts.copy()
    cats = {t: "cs.CL" if t < 10 else "cs.CV" for t in counts.columns}
    # cs.CL's deadline: twice its papers this week, the extra spread over its themes as the usual ones are
    wave.loc[MONDAY, list(range(10))] += rng.multinomial(int(counts.loc[MONDAY, list(range(10))].sum()), [0.1] * 10)
    p = papers_of(wave, category=cats)
    units = units_of("theme", WEEKS, p.week, p.unit, p.category, p.authors, p.week, p.category, list(wave.columns))
    assert movers(movement([units], MONDAY, ANY)).empty
    # against the whole field's volume, the same week names the cs.CL themes
    flat = units_of("theme", WEEKS, p.week, p.unit, [""] * len(p.week), p.authors, p.week, [""] * len(p.week),
                    list(wave.columns))
    assert len(movers(movement([flat], MONDAY, ANY))) >= 3
    # and the category itself moved: the mix says it once
    mix = units_of("category", WEEKS, p.week, p.category, [""] * len(p.week), [None] * len(p.week), p.week,
                   [""] * len(p.week), ["cs.CL", "cs.CV"], grouped=False)
    found = movers(movement([mix], MONDAY))
    assert found[found["direction"] == "up"]["unit"].tolist() == ["cs.CL"]


def test_a_theme_that_grows_within_its_category_still_moves():
    counts = field(np.random.default_rng(7), themes=20, per_week=400, grow={3: (4, 3.0)})
    cats = {t: "cs.CL" if t < 10 else "cs.CV" for t in counts.columns}
    found = movers(movement([level(counts, category=cats)], MONDAY))
    assert found["unit"].tolist() == [3]


def test_a_small_drift_of_a_large_unit_is_not_a_move_of_a_size_that_matters():
    counts = field(np.random.default_rng(8), themes=4, per_week=2000, grow={0: (4, 0.8)})
    assert movers(movement([level(counts)], MONDAY, ANY))["unit"].eq(0).any()  # significant, at any change
    table = movement([level(counts)], MONDAY, ReportConfig(min_change=1.5))
    assert not table["mover"].any()
    p, _ = change_test(1920, 2400 * 3, 1 / 4, 1.5)  # 0.8x of many papers: inside the interval
    assert p > 0.5


def test_the_interval_test_at_one_is_the_exact_two_sided_test_and_widens_with_min_change():
    for k, k0, p0 in [(10, 10, 1 / 9), (30, 100, 0.2), (0, 12, 0.25)]:
        assert change_test(k, k0, p0, 1.0)[0] == pytest.approx(rate_test(k, 1000 * p0, k0, 1000 * (1 - p0)))
        assert change_test(k, k0, p0, 1.5)[0] >= change_test(k, k0, p0, 1.0)[0]
    p, p_min = change_test(3, 0 + 1, 0.5, 1.5)
    assert p_min <= p and change_test(0, 0, 0.5)[0] == 1.0


def test_a_unit_with_no_past_is_new_not_a_ratio_against_nothing():
    counts = field(np.random.default_rng(9), themes=10, per_week=200)
    counts[10] = 0
    counts.loc[WEEKS[-2:], 10] = 12  # born last week
    table = movement([level(counts)], MONDAY, ANY)
    assert table[table["unit"] == 10].empty  # too young at every horizon: never "rising against 0.0 expected"
    assert (table["expected"] > 0).all()


def test_a_steady_unit_that_began_within_the_earlier_weeks_is_not_rising():
    counts = field(np.random.default_rng(14), themes=10, per_week=300)
    counts[10] = 0
    counts.loc[WEEKS[7]:, 10] = 30  # steady from week 7 of the quarter's 13 earlier weeks on
    table = movement([level(counts)], MONDAY, ANY)
    assert not table[table["unit"] == 10]["mover"].any()
    quarter = table[(table["unit"] == 10) & (table["horizon"] == "quarter")].iloc[0]
    assert 0.8 < quarter["k"] / quarter["expected"] < 1.25  # compared with the weeks it existed in


def test_a_burst_that_ended_is_not_rising():
    counts = field(np.random.default_rng(10), themes=10, per_week=200)
    counts[10] = 0
    counts.loc[WEEKS[:10], 10] = 1
    counts.loc[WEEKS[-9:-5], 10] = 15  # a burst two to five weeks before the last month, then nothing
    table = movement([level(counts)], MONDAY, ANY)
    quarter = table[(table["unit"] == 10) & (table["horizon"] == "quarter")].iloc[0]
    assert quarter["direction"] == "up" and quarter["q_value"] < ANY.alpha and quarter["ended"]
    assert not table[(table["unit"] == 10) & (table["direction"] == "up")]["mover"].any()


def test_each_watched_theme_is_a_family_of_its_own():
    counts = field(np.random.default_rng(11), grow={3: (4, 3.0)})
    watched = field(np.random.default_rng(12), themes=4, per_week=60, grow={1: (4, 2.5)})
    alone = movement([level(counts)], MONDAY)
    both = movement([level(counts), level(watched, "watched")], MONDAY)
    themes, watch = both[both["level"] == "theme"], both[both["level"] == "watched"]
    assert themes["q_value"].to_numpy() == pytest.approx(alone["q_value"].to_numpy())  # untouched by the watched
    assert set(both["family"]) == {"report", "watched"}
    for _, own in watch.groupby("unit"):  # each watched theme a family of its own: its horizons together
        assert own["q_value"].to_numpy() == pytest.approx(
            tarone_bh(own["p_value"].to_numpy(), own["p_min"].to_numpy(), ReportConfig().alpha))


def test_themes_and_areas_share_one_false_discovery_rate():
    counts = field(np.random.default_rng(1), grow={3: (4, 3.0)})
    areas = counts.T.groupby(counts.columns % 5).sum().T
    both = movement([level(counts), level(areas, "area")], MONDAY, ANY)
    alone = movement([level(counts)], MONDAY, ANY)
    assert (both["family"] == "report").all() and len(both) > len(alone)
    assert both["q_value"].to_numpy() == pytest.approx(
        tarone_bh(both["p_value"].to_numpy(), both["p_min"].to_numpy(), ANY.alpha))


def test_tests_that_can_never_be_significant_do_not_dilute_the_rest():
    p = np.array([0.0004, 0.3, 0.5] + [1.0] * 40)
    p_min = np.array([1e-6, 1e-4, 1e-4] + [0.2] * 40)  # forty tests with too few papers to ever pass
    q = tarone_bh(p, p_min, 0.03)
    assert q[0] == pytest.approx(0.0004 * 3) and q[0] < 0.03
    assert benjamini_hochberg(p)[0] == pytest.approx(0.0004 * 43) and benjamini_hochberg(p)[0] > 0.01
    assert (q[3:] == 1.0).all()


def test_a_horizon_is_tested_only_when_half_its_earlier_weeks_hold_papers():
    counts = field(np.random.default_rng(2))
    young = counts.copy()
    young.loc[young.index < MONDAY - pd.Timedelta(weeks=18)] = 0  # the listings began 18 weeks ago
    table = movement([level(young)], MONDAY)
    assert set(table["horizon"]) == {"week", "month"}


def test_a_theme_gone_silent_is_a_significant_drop_to_no_paper():
    counts = field(np.random.default_rng(3), themes=10, per_week=100)
    counts.loc[counts.index > MONDAY - pd.Timedelta(weeks=4), 7] = 0
    found = movers(movement([level(counts)], MONDAY))
    row = found[found["unit"] == 7].iloc[0]
    assert row["direction"] == "down" and row["k"] == 0 and row["horizon"] in ("month", "quarter")


def test_still_rising_since_the_first_week_of_its_run():
    counts = field(np.random.default_rng(13), grow={3: (6, 4.0)})
    units = [level(counts)]
    found = movers(movement(units, MONDAY))
    first = since(units, MONDAY, found)
    assert first[("theme", 3)] < MONDAY  # it was already rising in earlier reports
    assert first[("theme", 3)] >= MONDAY - pd.Timedelta(weeks=6)


def test_weeks_of_each_horizon():
    recent, before = weeks_of(MONDAY, horizons()[1])
    assert recent[-1] == MONDAY and len(recent) == 4 and len(before) == 12 and before[-1] < recent[0]
    assert [h.name for h in horizons(ReportConfig(window=6))] == ["week", "month", "quarter"]
    assert horizons(ReportConfig(window=6))[0].before == 6


def test_what_it_would_take_is_the_first_count_that_passes():
    k = needed(97, 800, 0.02, 100, 0.05)
    assert k is not None
    assert rate_test(k, 97, 16, 800) <= 0.05 / 100 < rate_test(k - 1, 97, 16, 800)
    assert needed(0, 800, 0.02, 100, 0.05) is None
    assert needed(97, 800, 0.02, 100, 0.05, min_change=1.5) > k


def test_a_horizon_added_in_the_one_place_is_tested_and_read_far_enough_back(monkeypatch):
    from pipeline.report.statistics import movement as module
    from pipeline.report.week.weekly import PHRASES

    monkeypatch.setattr(module, "HORIZONS", module.HORIZONS + (("half", 26, 26, "over half a year"),))
    assert [h.name for h in horizons()] == ["week", "month", "quarter", "half"]
    assert module.history() == 26 + 26 - 1 and PHRASES["half"] == "over half a year"
    weeks = [MONDAY - pd.Timedelta(weeks=w) for w in range(59, -1, -1)]
    rng = np.random.default_rng(3)
    share = np.full(10, 0.1)
    rows = []
    for i in range(len(weeks)):  # theme 0 doubles for the last 26 weeks, slowly enough that no short horizon need see it
        p = share.copy()
        p[0] *= 2.0 if i >= len(weeks) - 26 else 1.0
        rows.append(rng.multinomial(200, p / p.sum()))
    counts = pd.DataFrame(rows, index=weeks, columns=range(10))
    p = papers_of(counts)
    units = units_of("theme", weeks, p.week, p.unit, p.category, p.authors, p.week, p.category, list(counts.columns))
    table = movement([units], MONDAY, ANY)
    half = table[table["horizon"] == "half"]
    assert len(half) == 10  # every theme tested at the new horizon
    assert half.loc[half["unit"] == 0, "mover"].item() and half.loc[half["unit"] == 0, "direction"].item() == "up"


def test_a_papers_monday_is_found_among_the_weeks_whatever_form_the_column_takes():
    from pipeline.report.statistics.movement import week_positions

    weeks = tuple(WEEKS[-3:])
    column = pd.Series([weeks[2], weeks[0], weeks[2] + pd.Timedelta(weeks=1), weeks[1]]).astype("datetime64[us, UTC]")
    assert week_positions(column, weeks).tolist() == [2, 0, -1, 1]  # another resolution, the same instants
    assert week_positions(list(column), weeks).tolist() == [2, 0, -1, 1]
    assert week_positions([str(weeks[0].date())], weeks).tolist() == [-1]  # a date as text is no Monday
    assert week_positions([], weeks).tolist() == []
    assert week_positions([3, 1], (1, 2, 3)).tolist() == [2, 0]
    assert week_positions([weeks[0]], (weeks[0], weeks[0])).tolist() == [1]  # the last of equal weeks
