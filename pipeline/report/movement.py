"""How themes, areas and watched themes moved, at several horizons, with the false discovery rate held
over everything a report tests.

A unit's count only means something against the field's volume (a busy week lifts every theme), so
each test compares shares. For a horizon of ``recent`` weeks against the ``before`` weeks preceding
them, a unit with ``k`` of the ``n`` papers of the recent weeks and ``k0`` of the ``n0`` before has,
under "its share did not change", its ``k + k0`` papers fall in the recent weeks with probability
``n / (n + n0)``: the exact conditional binomial test of two Poisson rates (``trends.rate_test``).

Horizons: **this week** against the ``window`` weeks before (8), the **last 4 weeks** against the 12
before them, and the **last 13 weeks** (a quarter) against the 13 before. A horizon is tested only
when at least half of its earlier weeks hold papers (a young store has no quarter to compare).
A unit that **went quiet** is one whose drop is itself significant with no paper in the recent weeks
of that horizon (silent this week, for 4 or for 13 weeks, against what its earlier share expects):
the same fixed windows, so a silence picked after the fact, after a short busy spell, is not
mistaken for one.

Every p-value of the report (every unit, every horizon) enters one Benjamini-Hochberg adjustment, so
``alpha`` bounds the expected share of false results among all the tests a report flags (a unit
flagged at several horizons is named once, at its strongest).

The size of a move is the **rate ratio** (share now / share before), shrunk towards 1 by an
empirical-Bayes prior fitted across the units of a level and horizon: ``log ratio ~ Normal(0, tau)``,
``tau`` by maximum marginal likelihood on a grid (at least 0.2), each unit's posterior computed on a grid of log
ratios (binomial likelihood of ``k`` given ``k + k0``). A theme with 2 papers against 0.5 expected
is not reported as a 4x rise: with few papers the estimate stays near 1 and its interval is wide.
The estimate is the posterior median, the interval the central ``interval`` (90 %) of the posterior.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.report.trends import TrendConfig, benjamini_hochberg, rate_test


@dataclass(frozen=True)
class Horizon:
    name: str  # "week", "month", "quarter"
    recent: int  # weeks that end with the report's week
    before: int  # weeks before them, compared with
    phrase: str  # how the report says it: "this week", "over 4 weeks", "over the quarter"


def horizons(cfg: TrendConfig = TrendConfig()) -> tuple[Horizon, ...]:
    return (Horizon("week", 1, cfg.window, "this week"),
            Horizon("month", 4, 12, "over 4 weeks"),
            Horizon("quarter", 13, 13, "over the quarter"))


_GRID = np.linspace(-4.0, 4.0, 801)  # log rate ratios
# prior spreads of the log ratio; the smallest keeps a unit's interval from being narrower than its own
# papers allow when the units happen to agree (a prior alone would then claim "1.0x (1.0-1.0)")
_TAUS = np.array([0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5, 2.0])
COLUMNS = ["unit", "level", "horizon", "k", "n", "k0", "n0", "expected", "ratio", "estimate", "low", "high",
           "p_value", "q_value", "direction", "mover"]


def weeks_of(monday: pd.Timestamp, h: Horizon) -> tuple[list[pd.Timestamp], list[pd.Timestamp]]:
    """(recent weeks ending with ``monday``, the weeks before them), Mondays, oldest first."""
    recent = [monday - pd.Timedelta(weeks=w) for w in range(h.recent - 1, -1, -1)]
    first = recent[0]
    before = [first - pd.Timedelta(weeks=w) for w in range(h.before, 0, -1)]
    return recent, before


def _log_binomial(k: np.ndarray, total: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """log P(k | total, pi) without the binomial coefficient (it cancels in every posterior)."""
    pi = np.clip(pi, 1e-12, 1 - 1e-12)
    return k * np.log(pi) + (total - k) * np.log1p(-pi)


def shrunk_ratios(k: np.ndarray, n: np.ndarray, k0: np.ndarray, n0: np.ndarray, interval: float = 0.9,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Empirical-Bayes rate ratios: (posterior median, low, high, tau) for each unit (see the module
    docstring). Units with no paper in either window get ratio 1 and the prior's interval."""
    k, n, k0, n0 = (np.asarray(a, dtype=float) for a in (k, n, k0, n0))
    total = k + k0
    # pi(R) = n R / (n R + n0) for each unit (rows) and grid point (columns)
    ratio = np.exp(_GRID)[None, :]
    pi = n[:, None] * ratio / (n[:, None] * ratio + n0[:, None])
    loglik = _log_binomial(k[:, None], total[:, None], pi)
    loglik -= loglik.max(axis=1, keepdims=True)
    lik = np.exp(loglik)
    step = _GRID[1] - _GRID[0]
    best_tau, best_ll = _TAUS[0], -np.inf
    for tau in _TAUS:
        prior = np.exp(-0.5 * (_GRID / tau) ** 2)
        prior /= prior.sum()
        marginal = (lik * prior[None, :]).sum(axis=1)
        ll = float(np.log(np.maximum(marginal, 1e-300)).sum())
        if ll > best_ll + 1e-9:
            best_tau, best_ll = tau, ll
    prior = np.exp(-0.5 * (_GRID / best_tau) ** 2)
    post = lik * prior[None, :]
    post /= post.sum(axis=1, keepdims=True)
    cdf = np.cumsum(post, axis=1)
    tail = (1 - interval) / 2

    def quantile(q: float) -> np.ndarray:
        return np.exp(_GRID[np.minimum((cdf < q).sum(axis=1), len(_GRID) - 1)] + (step / 2 if q > 0.5 else 0))

    return quantile(0.5), quantile(tail), quantile(1 - tail), float(best_tau)


def _tests(counts: pd.DataFrame, volume: pd.Series, monday: pd.Timestamp, h: Horizon, level: str,
           estimates: bool = True) -> pd.DataFrame:
    recent, before = weeks_of(monday, h)
    held = volume.reindex(before, fill_value=0)
    if (held > 0).sum() * 2 < h.before or volume.reindex(recent, fill_value=0).sum() == 0:
        return pd.DataFrame(columns=COLUMNS)
    now = counts.reindex(recent, fill_value=0).sum()
    then = counts.reindex(before, fill_value=0).sum()
    n, n0 = int(volume.reindex(recent, fill_value=0).sum()), int(held.sum())
    units = [u for u in counts.columns if now.get(u, 0) + then.get(u, 0) > 0]
    if not units:
        return pd.DataFrame(columns=COLUMNS)
    k = np.array([int(now[u]) for u in units])
    k0 = np.array([int(then[u]) for u in units])
    if estimates:
        estimate, low, high, _ = shrunk_ratios(k, np.full(len(k), n), k0, np.full(len(k), n0))
    else:  # the tests alone (the backtest): no estimate
        estimate = low = high = np.full(len(k), np.nan)
    expected = k0 / n0 * n
    rows = pd.DataFrame({
        "unit": units, "level": level, "horizon": h.name, "k": k, "n": n, "k0": k0, "n0": n0,
        "expected": expected, "ratio": np.where(k0 > 0, (k / n) / np.maximum(k0 / n0, 1e-12), np.inf),
        "estimate": estimate, "low": low, "high": high,
        "p_value": [rate_test(int(a), n, int(b), n0) for a, b in zip(k, k0)],
    })
    rows["direction"] = np.where(k > expected, "up", "down")
    return rows


def movement(levels: dict[str, pd.DataFrame], volume: pd.Series | dict[str, pd.Series], monday: pd.Timestamp,
             cfg: TrendConfig = TrendConfig(), *, estimates: bool = True) -> pd.DataFrame:
    """Every test a weekly report makes, one row each: ``levels`` maps a level ("theme", "area",
    "watched") to its papers per week (index: Mondays; columns: units, without the unassigned -1);
    ``volume``: the papers per week the shares are of (one series, or one per level: a theme's share
    of the papers placed in a theme, a watched theme's of every paper). Rows hold the counts, the
    raw and shrunk rate ratio with its interval, p and q (Benjamini-Hochberg over all rows) and
    ``mover`` (q below ``alpha``). Without ``estimates`` only the tests are made (no shrinkage)."""
    parts = []
    for level, counts in levels.items():
        counts = counts[[c for c in counts.columns if c != -1]]
        for h in horizons(cfg):
            parts.append(_tests(counts, volume[level] if isinstance(volume, dict) else volume, monday, h, level,
                                estimates))
    parts = [p for p in parts if not p.empty]
    if not parts:
        return _empty()
    table = pd.concat(parts, ignore_index=True)
    table["q_value"] = benjamini_hochberg(table["p_value"].to_numpy(dtype=float))
    table["mover"] = table["q_value"] < cfg.alpha
    return table.reset_index(drop=True)


def _empty() -> pd.DataFrame:
    """No test at all, with the columns (and a boolean ``mover``) every caller reads."""
    table = pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})
    return table.astype({"mover": bool, "k": int, "n": int, "k0": int, "n0": int, "expected": float,
                         "p_value": float, "q_value": float})


def movers(table: pd.DataFrame) -> pd.DataFrame:
    """The movers, each unit once at its strongest horizon (lowest q), strongest first."""
    found = table[table["mover"].astype(bool)]
    if found.empty:
        return found
    return (found.sort_values(["q_value", "p_value"]).drop_duplicates(["level", "unit"])
            .reset_index(drop=True))


def needed(n: int, n0: int, share: float, tests: int, alpha: float) -> int | None:
    """The fewest papers, of ``n`` this period, that a unit holding ``share`` of the ``n0`` papers
    before would need to count as rising when it is the only mover among ``tests`` tests (BH's first
    threshold, ``alpha / tests``); None when no count up to ``n`` would do."""
    if n <= 0 or n0 <= 0 or tests <= 0:
        return None
    k0 = max(1, round(share * n0))
    k = int(math.ceil(share * n))
    while k <= n:
        if rate_test(k, n, k0, n0) <= alpha / tests:
            return k
        k += 1
    return None
