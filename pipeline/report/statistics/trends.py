"""Trend statistics: the exact rate test and the false discovery rate (used by ``movement.py`` at
every horizon), and this week's table of themes against the trailing weeks (counts, shares, the
change against what the earlier share predicts; the report replaces its statuses by the movers).

A theme's count is only meaningful relative to the week's volume (a busy week lifts every theme),
so the test compares shares, not counts. Given ``k`` papers of a theme among ``n`` papers this week
and ``k0`` among ``n0`` papers in the trailing window, under "the theme's share did not change" the
``k`` of the ``k + k0`` theme papers fall in this week with probability ``n / (n + n0)``: the
conditional binomial test of two Poisson rates (exact, two-sided). p-values are adjusted for testing
every theme at once with Benjamini-Hochberg (false discovery rate ``alpha``).

A theme is **rising** or **falling** when its adjusted p-value is below ``alpha``; **new** when its
first paper ever is this week; **quiet** when it had papers in the window but none this week.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipeline.config import ReportConfig



def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Adjusted p-values (q-values) controlling the false discovery rate."""
    p = np.asarray(p, dtype=float)
    n = len(p)
    if n == 0:
        return p
    order = np.argsort(p)
    ranked = p[order] * n / np.arange(1, n + 1)
    q = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(n)
    out[order] = np.minimum(q, 1.0)
    return out


def rate_test(k: int, n: int, k0: int, n0: int) -> float:
    """Two-sided exact p-value that a theme's share is the same this week (k of n) as before (k0 of n0).

    The binomial test of ``k`` successes in ``k + k0`` trials with success probability
    ``n / (n + n0)``; two-sided as in scipy's ``binomtest``: the total probability of every outcome
    no more likely than the one observed. Written out with numpy (log binomial coefficients as a
    running sum of log ratios) because importing scipy.stats, or even scipy.special, costs the weekly
    report about a second or more."""
    if n == 0 or n0 == 0 or k + k0 == 0:
        return 1.0
    trials, p = int(k + k0), n / (n + n0)
    i = np.arange(1, trials + 1)
    log_choose = np.concatenate([[0.0], np.cumsum(np.log(trials - i + 1) - np.log(i))])
    i = np.arange(trials + 1)
    log_pmf = log_choose + i * np.log(p) + (trials - i) * np.log1p(-p)
    pmf = np.exp(log_pmf)
    return float(min(1.0, pmf[pmf <= pmf[int(k)] * (1 + 1e-7)].sum()))


def week_range(end_week_start: pd.Timestamp, weeks: int) -> list[pd.Timestamp]:
    """The ``weeks`` Mondays before ``end_week_start`` (oldest first)."""
    return [end_week_start - pd.Timedelta(weeks=w) for w in range(weeks, 0, -1)]


def trailing_weeks(before: pd.DataFrame) -> int:
    """How many of the trailing weeks hold papers (at least 1): a week with none is a gap in the
    listings (before the corpus starts, say), not a week in which every theme had zero papers."""
    return max(1, int((before.to_numpy().sum(axis=1) > 0).sum()))


def trends(counts: pd.DataFrame, week: pd.Timestamp, first_seen: pd.Series, cfg: ReportConfig = ReportConfig()) -> pd.DataFrame:
    """Per theme: this week's count and share, the trailing window's, the change, p and q values,
    and a status (rising, falling, new, quiet, steady).

    ``counts``: papers per week (index: Monday) and theme (columns; -1 = unassigned, counted in the
    week's volume but not tested). Trailing means are over the trailing weeks that hold papers. ``first_seen``: each theme's first week (Monday)."""
    window = week_range(week, cfg.window)
    this = counts.loc[week] if week in counts.index else pd.Series(0, index=counts.columns)
    before = counts.reindex(window, fill_value=0)
    n, n0 = int(this.sum()), int(before.values.sum())
    covered = trailing_weeks(before)
    themes = [t for t in counts.columns if t != -1]
    rows = []
    for t in themes:
        k, k0 = int(this.get(t, 0)), int(before[t].sum())
        rows.append({
            "topic": t, "count": k, "share": k / n if n else 0.0,
            "trailing_mean": k0 / covered, "trailing_share": k0 / n0 if n0 else 0.0,
            "p_value": rate_test(k, n, k0, n0),
        })
    table = pd.DataFrame(rows, columns=["topic", "count", "share", "trailing_mean", "trailing_share", "p_value"])
    # papers above (+) or below (-) what the theme's trailing share predicts for this week's volume,
    # so the sign agrees with rising/falling even in an unusually busy or quiet week
    table["expected"] = table["trailing_share"] * n
    table["change"] = table["count"] - table["expected"]
    table["q_value"] = benjamini_hochberg(table["p_value"].to_numpy())
    born = table["topic"].map(lambda t: first_seen.get(t) == week).astype(bool)
    significant = table["q_value"] < cfg.alpha
    up = table["share"] > table["trailing_share"]
    table["status"] = np.select(
        [born & (table["count"] > 0), (table["count"] == 0) & (table["trailing_mean"] > 0),
         significant & up, significant & ~up],
        ["new", "quiet", "rising", "falling"], default="steady",
    )
    return table.sort_values(["share", "topic"], ascending=[False, True]).reset_index(drop=True)
