"""Movement at several horizons: shrunk rate ratios, one false discovery rate over the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.report.movement import horizons, movement, movers, needed, shrunk_ratios, weeks_of
from pipeline.report.trends import TrendConfig, rate_test

MONDAY = pd.Timestamp("2025-12-15", tz="UTC")
WEEKS = [MONDAY - pd.Timedelta(weeks=w) for w in range(26, -1, -1)]


def field(rng, themes: int = 30, per_week: int = 300, grow: dict[int, tuple[int, float]] | None = None) -> pd.DataFrame:
    """Weekly counts of ``themes`` equal themes; ``grow``: theme -> (weeks before the end it began, factor)."""
    base = np.full(themes, 1.0 / themes)
    rows = []
    for i, _ in enumerate(WEEKS):
        p = base.copy()
        for t, (since, factor) in (grow or {}).items():
            if i >= len(WEEKS) - since:
                p[t] *= factor
        rows.append(rng.multinomial(per_week, p / p.sum()))
    return pd.DataFrame(rows, index=WEEKS, columns=range(themes))


def test_a_theme_that_tripled_over_four_weeks_moves_and_the_rest_do_not():
    counts = field(np.random.default_rng(0), grow={3: (4, 3.0)})
    table = movement({"theme": counts}, counts.sum(axis=1), MONDAY)
    found = movers(table)
    assert found["unit"].tolist() == [3] and found.iloc[0]["direction"] == "up"
    month = table[(table["unit"] == 3) & (table["horizon"] == "month")].iloc[0]
    assert month["mover"] and 1.8 < month["estimate"] < 3.5 and month["low"] > 1.0
    assert set(table["horizon"]) == {"week", "month", "quarter"}


def test_a_steady_field_names_no_mover_at_any_horizon():
    for seed in range(5):
        counts = field(np.random.default_rng(seed))
        assert movers(movement({"theme": counts}, counts.sum(axis=1), MONDAY)).empty


def test_few_papers_do_not_make_a_large_ratio():
    # one theme: 2 papers this week against 0.5 expected; the raw ratio is 4, the shrunk one far less
    k, n, k0, n0 = np.array([2, 10, 10, 10]), np.full(4, 100), np.array([4, 80, 80, 80]), np.full(4, 800)
    estimate, low, high, tau = shrunk_ratios(k, n, k0, n0)
    assert (k[0] / n[0]) / (k0[0] / n0[0]) == pytest.approx(4.0)
    assert estimate[0] < 2.0 and low[0] < 1.0 < high[0] and tau >= 0.2
    # many papers: the estimate follows the data
    estimate, low, high, _ = shrunk_ratios(np.array([400, 100]), np.full(2, 1000), np.array([800, 800]), np.full(2, 8000))
    assert estimate[0] == pytest.approx(4.0, rel=0.15) and low[0] > 3.0


def test_the_false_discovery_rate_is_held_over_every_test_of_the_report():
    counts = field(np.random.default_rng(1), grow={3: (4, 3.0)})
    alone = movement({"theme": counts}, counts.sum(axis=1), MONDAY)
    # the same themes, with a second level of units tested beside them: more tests, larger q-values
    both = movement({"theme": counts, "area": counts.T.groupby(counts.columns % 5).sum().T}, counts.sum(axis=1),
                    MONDAY)
    assert len(both) > len(alone)
    from pipeline.report.trends import benjamini_hochberg

    # one adjustment over every row of the report (both levels, every horizon), not one per level
    assert both["q_value"].to_numpy() == pytest.approx(benjamini_hochberg(both["p_value"].to_numpy()))
    themes = both[both["level"] == "theme"]
    assert (themes["p_value"].to_numpy() == alone["p_value"].to_numpy()).all()
    assert not np.allclose(themes["q_value"].to_numpy(), alone["q_value"].to_numpy())


def test_a_horizon_is_tested_only_when_half_its_earlier_weeks_hold_papers():
    counts = field(np.random.default_rng(2))
    young = counts.copy()
    young.loc[young.index < MONDAY - pd.Timedelta(weeks=18)] = 0  # the listings began 18 weeks ago
    table = movement({"theme": young}, young.sum(axis=1), MONDAY)
    # the quarter (13 weeks against the 13 before) has only 5 of its 13 earlier weeks: not tested
    assert set(table["horizon"]) == {"week", "month"}


def test_a_theme_gone_silent_is_a_significant_drop_to_no_paper():
    counts = field(np.random.default_rng(3), themes=10, per_week=100)
    counts.loc[counts.index > MONDAY - pd.Timedelta(weeks=4), 7] = 0
    found = movers(movement({"theme": counts}, counts.sum(axis=1), MONDAY))
    row = found[found["unit"] == 7].iloc[0]
    assert row["direction"] == "down" and row["k"] == 0 and row["horizon"] in ("month", "quarter")


def test_weeks_of_each_horizon():
    recent, before = weeks_of(MONDAY, horizons()[1])
    assert recent[-1] == MONDAY and len(recent) == 4 and len(before) == 12 and before[-1] < recent[0]
    assert [h.name for h in horizons(TrendConfig(window=6))] == ["week", "month", "quarter"]
    assert horizons(TrendConfig(window=6))[0].before == 6


def test_what_it_would_take_is_the_first_count_that_passes():
    k = needed(97, 800, 0.02, 100, 0.05)
    assert k is not None
    assert rate_test(k, 97, 16, 800) <= 0.05 / 100 < rate_test(k - 1, 97, 16, 800)
    assert needed(0, 800, 0.02, 100, 0.05) is None
