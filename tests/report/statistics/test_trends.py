from __future__ import annotations

import pandas as pd
import pytest

from pipeline.config import ReportConfig
from pipeline.report.statistics.trends import benjamini_hochberg, rate_test, trends

WEEK = pd.Timestamp("2025-06-02", tz="UTC")  # a Monday
PAST = [WEEK - pd.Timedelta(weeks=w) for w in range(8, 0, -1)]


def counts(this_week: dict[int, int], per_past_week: dict[int, int]) -> pd.DataFrame:
    rows = {day: per_past_week for day in PAST} | {WEEK: this_week}
    return pd.DataFrame.from_dict(rows, orient="index").fillna(0).astype(int).sort_index()


def test_benjamini_hochberg_by_hand():
    q = benjamini_hochberg([0.01, 0.04, 0.03, 0.5])
    assert q.tolist() == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5])


def test_rate_test_edges():
    assert rate_test(0, 0, 5, 100) == 1.0 and rate_test(0, 10, 0, 100) == 1.0
    # 10 of 100 now vs 10 of 1000 before: the share went from 1 % to 10 %
    assert rate_test(10, 100, 10, 1000) < 1e-4


def test_doubling_in_a_big_week_is_not_a_trend_but_in_a_small_week_it_is():
    first = pd.Series({0: PAST[0], 1: PAST[0]})
    # 8 trailing weeks of 1000 papers, theme 0 has 50 (5 %)
    big = trends(counts({0: 100, 1: 1900}, {0: 50, 1: 950}), WEEK, first)  # count doubles, volume doubles
    small = trends(counts({0: 50, 1: 450}, {0: 50, 1: 950}), WEEK, first)  # count same, volume halves
    big0, small0 = big.set_index("topic").loc[0], small.set_index("topic").loc[0]
    assert big0["count"] == 100 and big0["change"] == 0 and big0["status"] == "steady"
    assert big0["p_value"] > 0.5
    assert small0["count"] == 50 and small0["change"] == 25 and small0["status"] == "rising"
    assert small0["share"] == pytest.approx(0.10) and small0["trailing_share"] == pytest.approx(0.05)
    assert small0["q_value"] < 0.05


def test_new_quiet_and_falling_themes():
    first = pd.Series({0: PAST[0], 1: PAST[0], 2: WEEK, 3: PAST[0]})
    table = trends(counts({0: 5, 1: 900, 2: 20, 3: 0}, {0: 100, 1: 880, 2: 0, 3: 20}), WEEK, first).set_index("topic")
    assert table.loc[0, "status"] == "falling"  # 10 % of papers before, under 1 % now
    assert table.loc[2, "status"] == "new"
    assert table.loc[3, "status"] == "quiet"
    assert table.loc[1, "status"] in {"rising", "steady"}


def test_unassigned_papers_count_in_volume_only():
    first = pd.Series({0: PAST[0]})
    table = trends(counts({-1: 900, 0: 100}, {-1: 900, 0: 100}), WEEK, first)
    assert table["topic"].tolist() == [0]
    assert table.loc[0, "share"] == pytest.approx(0.1) and table.loc[0, "status"] == "steady"


def test_empty_week():
    first = pd.Series({0: PAST[0]})
    table = trends(counts({0: 0}, {0: 10}), WEEK + pd.Timedelta(weeks=5), first, ReportConfig(window=8))
    assert table.loc[0, "count"] == 0 and table.loc[0, "share"] == 0.0


def test_trailing_mean_counts_only_weeks_that_hold_papers():
    first = pd.Series({0: PAST[-2], 1: PAST[-2]})
    table = counts({0: 30, 1: 70}, {0: 30, 1: 70})
    table.loc[PAST[:-2]] = 0  # the listings begin two weeks before this one
    result = trends(table, WEEK, first).set_index("topic")
    assert result.loc[0, "trailing_mean"] == 30 and result.loc[1, "trailing_mean"] == 70
    assert result.loc[0, "status"] == "steady"


def test_rate_test_matches_scipys_exact_binomial_test():
    from scipy.stats import binomtest

    for k, n, k0, n0 in [(10, 100, 10, 1000), (0, 50, 30, 400), (7, 7, 1, 100), (145, 2035, 363, 8080),
                         (3, 417, 40, 5000), (50, 500, 400, 8000), (1, 1000, 0, 5), (1500, 20000, 9000, 100000)]:
        expected = binomtest(k, k + k0, n / (n + n0)).pvalue
        assert rate_test(k, n, k0, n0) == pytest.approx(expected, rel=1e-6, abs=1e-300)
