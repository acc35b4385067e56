"""How themes, areas and watched themes moved, at several horizons, counted the way a reader weighs
news, with the false discovery rate held.

**Horizons** (``horizons``): this week against the ``window`` weeks before (8), the last 4 weeks
against the 12 before them, the last 13 weeks (a quarter) against the 13 before. A horizon is tested
only when at least half of its earlier weeks hold papers (a young store has no quarter to compare).

**Evidence, not papers.** Papers that share an author within a unit and a week count as one piece
of evidence (``voice.evidence``): one author's batch of twelve papers in a week is one event. The
week is the period because a longer one would count a steady author's weekly paper once in twelve
weeks and once in four, and make every such unit look like it rose. A move carried by one author
over the period (``voice.one_voice`` on the papers of its recent weeks for a rise, of its earlier
weeks for a fall) is never a mover: the report says it in its series line instead.

**The mix apart from the subject.** A unit's share is compared with what the field's mix of arXiv
categories predicts for it: under "nothing moved", the unit's papers of category ``c`` fall in the
recent weeks as the category's other papers do (``f_c``, its papers outside the unit in the recent
weeks over those in both, leaning towards the field's fraction by ``PRIOR_PAPERS`` when it has few),
so its ``k`` of ``k + k0`` pieces of evidence fall there with probability ``p0``, the mean of ``f_c``
over the unit's own categories (indirect standardisation: the exact conditional binomial test of
two Poisson rates, with each unit's own exposure). A unit's earlier weeks begin with its first
paper, so one that began within them is not compared with weeks it did not exist in. A category whose papers doubled for a deadline
lifts the themes of that category by exactly as much as it predicts, so they are not movers; the
wave itself is one row of the ``mix`` level. Within-area shares were the alternative the issue
offered; areas cut across categories on a broad stream, so they do not absorb a category's wave,
and a theme large within its area would lose most of its rise to its own area's growth.

**Moves of a size that matters.** The test's null is an interval: the rate ratio lies within
``[1 / min_change, min_change]``. A rise is tested against ``min_change`` (1.5), a fall against its
inverse, each one-sided and exact; the statistic is the smaller one-sided p-value, and the p-value
the largest chance of one as small at either end of the interval (``change_test``): a 0.8x drift of
a thousand papers is inside the interval and cannot be named however many papers carry it. (An interval on
the shrunk estimate would not give a p-value for the false discovery rate to hold.)

**New is new, ended is ended.** A unit that existed (had its first paper) in fewer than half of a
horizon's earlier weeks is too young to compare at that horizon: it is new there, never a ratio
against ~0 expected.
A unit with no paper in its last 4 weeks is not rising at any horizon.

**False discovery rate, by family, at low counts.** The themes and areas are one family, the
categories another, and each watched theme (a hypothesis the user stated before seeing the data) a
family of its own, its horizons together; each holds its own rate ``alpha``. Within a family a test that cannot reach significance given its total
count (its smallest attainable p-value, ``p_min``) does not dilute the others: Gilbert's (2005)
Tarone-BH finds the smallest ``K`` with at most ``K`` tests whose ``p_min <= alpha / K``, and adjusts
among those tests only (``tarone_bh``).

**The size of a move** is the rate ratio, shrunk towards 1 across the units of a level and horizon
(empirical Bayes, ``log ratio ~ Normal(0, tau)``, ``tau`` by maximum marginal likelihood, at least
0.2): the posterior median and its central 90 % interval. Few papers give an estimate near 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.config import ReportConfig
from pipeline.report.statistics.trends import benjamini_hochberg
from pipeline.voice import one_voice

ENDED_WEEKS = 4  # a unit with no paper in this many last weeks is not rising at any horizon
# a category's other papers that weigh as much as the field's own recent fraction in predicting it: a
# category with few papers besides the unit's says little about the mix
PRIOR_PAPERS = 20
FAMILY = {"theme": "report", "area": "report", "watched": "watched", "category": "mix"}


@dataclass(frozen=True)
class Horizon:
    name: str  # "week", "month", "quarter"
    recent: int  # weeks that end with the report's week
    before: int  # weeks before them, compared with
    phrase: str  # how the report says it: "this week", "over 4 weeks", "over the quarter"


# The horizons, the one place they are written: (name, recent weeks ending with the report's week,
# weeks before them (None: ``report.window``), how the report says it). Everything else (the weeks a
# report reads, its sentences, tables and the survey's columns) derives from them: a horizon added
# here is tested, read far enough back, and said.
HORIZONS: tuple[tuple[str, int, int | None, str], ...] = (
    ("week", 1, None, "this week"),
    ("month", 4, 12, "over 4 weeks"),
    ("quarter", 13, 13, "over the quarter"),
)


def horizons(cfg: ReportConfig = ReportConfig()) -> tuple[Horizon, ...]:
    """``HORIZONS`` as the report tests them, the week's compared with ``cfg.window`` weeks."""
    return tuple(Horizon(name, recent, cfg.window if before is None else before, phrase)
                 for name, recent, before, phrase in HORIZONS)


def phrases(cfg: ReportConfig = ReportConfig()) -> dict[str, str]:
    """Each horizon's name -> how the report says it ("month" -> "over 4 weeks")."""
    return {h.name: h.phrase for h in horizons(cfg)}


def spans_text(cfg: ReportConfig = ReportConfig()) -> str:
    """The horizons in words: "this week against the 8 weeks before, 4 weeks against the 12 before them, …"."""
    return ", ".join(f"{h.recent} week{'s' if h.recent != 1 else ''} against the {h.before} before"
                     if h.recent != 1 else f"this week against the {h.before} weeks before" for h in horizons(cfg))


def history(cfg: ReportConfig = ReportConfig()) -> int:
    """Weeks before the report's week that the longest horizon reads."""
    return max(h.recent + h.before for h in horizons(cfg)) - 1


_GRID = np.linspace(-4.0, 4.0, 801)  # log rate ratios
# prior spreads of the log ratio; the smallest keeps a unit's interval from being narrower than its own
# papers allow when the units happen to agree (a prior alone would then claim "1.0x (1.0-1.0)")
_TAUS = np.array([0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5, 2.0])
COLUMNS = ["unit", "level", "family", "horizon", "papers", "papers_before", "k", "k0", "p0", "expected", "ratio",
           "estimate", "low", "high", "p_value", "p_min", "q_value", "direction", "carried", "ended", "mover"]


@dataclass(frozen=True)
class Units:
    """One level's papers as its tests read them, week by week (``weeks``: consecutive Mondays,
    oldest first). ``evidence``: weeks x units x categories, each paper weighted by
    ``voice.evidence`` within its unit and week; ``papers``: weeks x units, papers as they are;
    ``volume``: weeks x categories, the papers the shares are of; ``rows``: one per (paper, unit),
    with its week index ``w``, unit index ``u`` and ``authors`` (whether one author carries a move),
    plus whatever else the caller keeps there."""

    level: str
    weeks: tuple[pd.Timestamp, ...]
    ids: tuple
    categories: tuple[str, ...]
    evidence: np.ndarray
    papers: np.ndarray
    volume: np.ndarray
    rows: pd.DataFrame

    @property
    def family(self) -> str:
        return FAMILY.get(self.level, self.level)


def units_of(level: str, weeks: Sequence[pd.Timestamp], week: Sequence, unit: Sequence, category: Sequence,
             authors: Sequence, volume_week: Sequence, volume_category: Sequence,
             ids: Sequence | None = None, *, grouped: bool = True, weight: np.ndarray | None = None,
             volume_weight: np.ndarray | None = None) -> Units:
    """``Units`` from one row per (paper, unit): its ``week`` (Monday), ``unit``, primary ``category``
    and ``authors``; and one row per paper of the field (``volume_week``, ``volume_category``). Rows
    outside ``weeks`` are left out. ``ids``: the units, in order (default: those seen, sorted).
    ``grouped=False`` counts every paper as one piece of evidence (the categories of the mix);
    ``weight``: each row's evidence, when the caller has it already; ``volume_weight``: each field
    paper's, so that the volume counts evidence as the units do (default: 1 each). A batch of one
    author's papers must not swell the volume while it counts once in its unit."""
    weeks = tuple(weeks)
    w, vw = week_positions(week, weeks), week_positions(volume_week, weeks)
    unit, category = np.asarray(list(unit), dtype=object), np.asarray(_categories(category), dtype=object)
    volume_category = np.asarray(_categories(volume_category), dtype=object)
    authors = list(authors)
    ids = tuple(ids) if ids is not None else tuple(sorted(set(unit[w >= 0].tolist()), key=_order))
    cats = tuple(sorted(set(category.tolist()) | set(volume_category.tolist())))
    uid, cid = {u: i for i, u in enumerate(ids)}, {c: i for i, c in enumerate(cats)}
    keep = (w >= 0) & np.array([u in uid for u in unit], dtype=bool)
    u = np.array([uid.get(x, -1) for x in unit], dtype=int)
    c = np.array([cid[x] for x in category], dtype=int)
    if weight is not None:
        weight = np.asarray(weight, dtype=float)[keep]
    elif grouped:
        weight = week_unit_evidence(w[keep], u[keep], [authors[i] for i in np.flatnonzero(keep)])
    else:
        weight = np.ones(int(keep.sum()))
    evidence = np.zeros((len(weeks), len(ids), len(cats)))
    np.add.at(evidence, (w[keep], u[keep], c[keep]), weight)
    papers = np.zeros((len(weeks), len(ids)), dtype=int)
    np.add.at(papers, (w[keep], u[keep]), 1)
    volume = np.zeros((len(weeks), len(cats)))
    vkeep = vw >= 0
    vweight = np.ones(int(vkeep.sum())) if volume_weight is None else np.asarray(volume_weight, dtype=float)[vkeep]
    np.add.at(volume, (vw[vkeep], np.array([cid[x] for x in volume_category[vkeep]], dtype=int)), vweight)
    rows = pd.DataFrame({"w": w[keep], "u": u[keep], "authors": [authors[i] for i in np.flatnonzero(keep)]})
    return Units(level, weeks, ids, cats, evidence, papers, volume, rows)


def week_positions(values: Sequence, weeks: tuple) -> np.ndarray:
    """Where each of ``values`` stands among ``weeks`` (-1: not one of them), by a hash lookup over
    the whole column (a column of Mondays is not turned into one Timestamp a paper); values of
    another kind than the weeks (a date written as text is not a Monday), or weeks that repeat (the
    last of equal weeks), one by one, as a mapping says."""
    if not isinstance(values, (pd.Index, pd.Series, np.ndarray)):
        values = list(values)
    where = pd.Index(list(weeks))
    found = None
    if where.is_unique and len(values):
        try:
            found = pd.Index(values)
        except (TypeError, ValueError):  # values the Index cannot hold as one kind
            found = None
    if found is not None and (found.dtype == where.dtype or (found.dtype.kind == "M" and where.dtype.kind == "M")):
        return where.get_indexer(found).astype(int)
    index = {x: i for i, x in enumerate(weeks)}
    return np.array([index.get(x, -1) for x in values], dtype=int)


def _order(x: object) -> tuple:
    return (0, x, "") if isinstance(x, (int, np.integer)) else (1, 0, str(x))


def _categories(values: Sequence) -> list[str]:
    return ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in values]


def week_unit_evidence(week: Sequence, unit: Sequence, authors: Sequence) -> np.ndarray:
    """``voice.evidence`` of papers grouped by their week and unit (any hashable values)."""
    from pipeline.voice import author_pairs, evidence_of

    weeks = pd.factorize(week if isinstance(week, (pd.Series, pd.Index, np.ndarray)) else pd.Series(list(week), dtype=object))[0]
    units = pd.factorize(pd.Series(list(unit), dtype=object))[0]
    groups = weeks.astype(np.int64) * (int(units.max(initial=0)) + 1) + units
    rows, names = author_pairs(list(authors))
    return evidence_of(groups, rows, pd.factorize(names)[0] if len(names) else names)


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
    docstring). ``n`` and ``n0``: each unit's exposure in the recent and earlier weeks (any scale).
    Units with no paper in either window get ratio 1 and the prior's interval."""
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


def _at(p0: float, ratio: float) -> float:
    """The chance that a piece of evidence falls in the recent weeks when the rate ratio is ``ratio``."""
    return p0 * ratio / (p0 * ratio + 1 - p0)


def _log_pmf(trials: int, p: float) -> np.ndarray:
    i = np.arange(1, trials + 1)
    log_choose = np.concatenate([[0.0], np.cumsum(np.log(trials - i + 1) - np.log(i))])
    i = np.arange(trials + 1)
    return log_choose + i * np.log(max(p, 1e-300)) + (trials - i) * np.log1p(-min(p, 1 - 1e-16))


def change_test(k: int, k0: int, p0: float, min_change: float = 1.0) -> tuple[float, float]:
    """(p-value, smallest attainable p-value) of "the rate ratio lies within ``[1 / min_change,
    min_change]``" for ``k`` pieces of evidence in the recent weeks and ``k0`` before, where one falls
    in the recent weeks with probability ``p0`` when nothing moved. The statistic is the smaller of
    the two exact one-sided p-values (a rise against ``min_change``, a fall against its inverse); the
    p-value is the largest chance, at either end of the interval, of a statistic as small: exact, so
    with ``min_change = 1`` it is about twice the smaller one-sided p-value, and with a wider interval
    nearly the smaller itself. The smallest attainable p-value depends on the total and ``p0`` alone,
    not on ``k``, so a test too small to ever be significant can be set aside."""
    trials = int(k + k0)
    if trials == 0 or not 0 < p0 < 1:
        return 1.0, 1.0
    pmf_up = np.exp(_log_pmf(trials, _at(p0, min_change)))
    pmf_down = np.exp(_log_pmf(trials, _at(p0, 1 / min_change)))
    p_up = np.cumsum(pmf_up[::-1])[::-1]  # P(X >= x) at the upper end
    p_down = np.cumsum(pmf_down)  # P(X <= x) at the lower end
    stat = np.minimum(p_up, p_down)
    tol = 1 + 1e-9

    def p_of(x: int) -> float:
        extreme = stat <= stat[x] * tol
        return float(min(1.0, max(pmf_up[extreme].sum(), pmf_down[extreme].sum())))

    return p_of(int(k)), min(p_of(0), p_of(trials))


def tarone_bh(p: np.ndarray, p_min: np.ndarray, alpha: float) -> np.ndarray:
    """q-values of Gilbert's Tarone-BH: for the smallest ``K`` with at most ``K`` tests whose
    smallest attainable p-value is at most ``alpha / K``, those tests are adjusted among themselves
    (Benjamini-Hochberg over ``K`` or fewer), and every other test gets q = 1: it could not have been
    significant, so it does not dilute the rest. Holds the false discovery rate at ``alpha``."""
    p, p_min = np.asarray(p, dtype=float), np.asarray(p_min, dtype=float)
    q = np.ones(len(p))
    if not len(p):
        return q
    for big_k in range(1, len(p) + 1):
        keep = p_min <= alpha / big_k
        if keep.sum() <= big_k:
            break
    if keep.any():
        q[keep] = benjamini_hochberg(p[keep])
    return q


def _tests(units: Units, recent: list[pd.Timestamp], before: list[pd.Timestamp], horizon: str,
           min_change: float) -> pd.DataFrame:
    """The tests of every unit of ``units``: its ``recent`` weeks against the weeks ``before``."""
    index = {w: i for i, w in enumerate(units.weeks)}
    ri = [index[w] for w in recent if w in index]
    bi = [index[w] for w in before if w in index]
    held = units.volume[bi].sum(axis=1) if bi else np.zeros(0)
    if (held > 0).sum() * 2 < len(before) or not ri or units.volume[ri].sum() == 0 or not units.ids:
        return pd.DataFrame(columns=COLUMNS)
    # each unit's earlier weeks begin with its first paper: a unit that began half-way through them
    # would otherwise be compared with weeks in which it did not exist, and look like it rose
    first = np.argmax(units.papers > 0, axis=0)
    existed = np.array(bi)[None, :] >= first[:, None]  # units x earlier weeks
    v_recent = units.volume[ri].sum(axis=0)
    v_before = existed.astype(float) @ units.volume[bi]  # units x categories
    overall = v_recent.sum() / (v_recent.sum() + v_before.sum(axis=1))
    # each category's share of its papers in the recent weeks, its papers outside the unit only (a
    # subject that is most of its category must not predict itself), leaning towards the field's
    # when the category holds few other papers
    e_recent = units.evidence[ri].sum(axis=0)
    e_before = np.einsum("uj,juc->uc", existed.astype(float), units.evidence[bi])
    rest_recent = np.maximum(v_recent[None, :] - e_recent, 0)
    rest_before = np.maximum(v_before - e_before, 0)
    f = (rest_recent + PRIOR_PAPERS * overall[:, None]) / (rest_recent + rest_before + PRIOR_PAPERS)
    profile = e_recent + e_before
    weight = profile.sum(axis=1)
    p0 = np.where(weight > 0, (profile * f).sum(axis=1) / np.where(weight > 0, weight, 1), overall)
    k = np.floor(e_recent.sum(axis=1) + 0.5).astype(int)
    k0 = np.floor(e_before.sum(axis=1) + 0.5).astype(int)
    papers = units.papers[ri].sum(axis=0)
    papers_before = (existed * units.papers[bi].T).sum(axis=1)
    # too young to compare: it existed in fewer than half of the earlier weeks
    seen = existed.sum(axis=1) * 2 >= len(bi)
    tested = np.flatnonzero(seen & (papers_before > 0) & (k0 > 0))
    if not len(tested):
        return pd.DataFrame(columns=COLUMNS)
    k, k0, p0 = k[tested], k0[tested], p0[tested]
    results = [change_test(int(a), int(b), float(p), min_change) for a, b, p in zip(k, k0, p0)]
    expected = k0 * p0 / (1 - p0)
    last = units.papers[max(0, ri[-1] - ENDED_WEEKS + 1): ri[-1] + 1].sum(axis=0)[tested]
    direction = np.where(k > expected, "up", "down")
    return pd.DataFrame({
        "unit": [units.ids[i] for i in tested], "level": units.level, "family": units.family, "horizon": horizon,
        "papers": papers[tested], "papers_before": papers_before[tested], "k": k, "k0": k0, "p0": p0,
        "expected": expected, "ratio": (k / np.maximum(expected, 1e-12)),
        "p_value": [r[0] for r in results], "p_min": [r[1] for r in results],
        "direction": direction, "ended": (direction == "up") & (last == 0), "_u": tested,
        "_recent": [ri] * len(tested), "_before": [[b for b in bi if b >= first[u]] for u in tested],
    })


def movement(levels: Sequence[Units], monday: pd.Timestamp, cfg: ReportConfig = ReportConfig(), *,
             estimates: bool = True) -> pd.DataFrame:
    """Every test a weekly report makes, one row each, for each level of ``levels`` at every
    horizon: the papers and the evidence of the recent and earlier weeks, the expected evidence,
    the raw and shrunk rate ratio with its interval, p, the smallest attainable p, q (Tarone-BH
    within the level's family), ``carried`` (the author who carries the move, else None), ``ended``
    and ``mover`` (q below ``alpha``, not carried, not a rise that ended). Without ``estimates``
    only the tests are made (no shrinkage)."""
    periods = [(h.name, *weeks_of(monday, h)) for h in horizons(cfg)]
    return _judge(levels, periods, cfg, estimates=estimates)


def compare(levels: Sequence[Units], recent: list[pd.Timestamp], before: list[pd.Timestamp],
            cfg: ReportConfig = ReportConfig(), name: str = "period") -> pd.DataFrame:
    """The same tests and rules for one pair of periods of any length (the survey's last third of
    its weeks against its first), ``carried`` looked up for every row, not only the significant."""
    return _judge(levels, [(name, recent, before)], cfg, estimates=True, every=True)


def _judge(levels: Sequence[Units], periods: list[tuple[str, list, list]], cfg: ReportConfig, *,
           estimates: bool, every: bool = False) -> pd.DataFrame:
    parts = []
    by_level = {}
    for units in levels:
        by_level[units.level] = units
        for name, recent, before in periods:
            rows = _tests(units, recent, before, name, cfg.min_change)
            if rows.empty:
                continue
            if estimates:
                est, low, high, _ = shrunk_ratios(rows["k"], rows["p0"], rows["k0"], 1 - rows["p0"])
            else:
                est = low = high = np.full(len(rows), np.nan)
            parts.append(rows.assign(estimate=est, low=low, high=high))
    if not parts:
        return _empty()
    table = pd.concat(parts, ignore_index=True)
    table["q_value"] = 1.0
    # each watched theme is a question the user asked: a family of its own (its horizons)
    families = table["family"].where(table["family"] != "watched", "watched: " + table["unit"].astype(str))
    for _, idx in table.groupby(families).groups.items():
        table.loc[idx, "q_value"] = tarone_bh(table.loc[idx, "p_value"].to_numpy(dtype=float),
                                              table.loc[idx, "p_min"].to_numpy(dtype=float), cfg.alpha)
    significant = np.array(table["q_value"] < cfg.alpha, dtype=bool)
    carried = [None] * len(table)
    # a level whose papers list no authors (the categories' mix) has no one to carry a move
    voiced: dict[str, bool] = {}
    for i in np.flatnonzero(significant | every):
        row = table.iloc[i]
        if row["level"] not in voiced:
            voiced[row["level"]] = bool(by_level[row["level"]].rows["authors"].notna().any())
        if not voiced[row["level"]]:
            continue
        units = by_level[row["level"]]
        weeks = row["_recent"] if row["direction"] == "up" else row["_before"]
        rows = units.rows[(units.rows["u"] == row["_u"]) & units.rows["w"].isin(weeks)]
        voice = one_voice(rows["authors"])
        carried[i] = voice.author if voice is not None else None
    table["carried"] = carried
    table["mover"] = significant & table["carried"].isna().to_numpy() & ~table["ended"].to_numpy(dtype=bool)
    return table[COLUMNS].reset_index(drop=True)


def _empty() -> pd.DataFrame:
    """No test at all, with the columns (and a boolean ``mover``) every caller reads."""
    table = pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})
    return table.astype({"mover": bool, "ended": bool, "k": int, "k0": int, "papers": int,
                         "papers_before": int, "expected": float, "p_value": float, "p_min": float, "q_value": float,
                         "p0": float})


def movers(table: pd.DataFrame) -> pd.DataFrame:
    """The movers, each unit once at its strongest horizon (lowest q), strongest first."""
    found = table[table["mover"].astype(bool)]
    if found.empty:
        return found
    return (found.sort_values(["q_value", "p_value"]).drop_duplicates(["level", "unit"])
            .reset_index(drop=True))


def since(levels: Sequence[Units], monday: pd.Timestamp, found: pd.DataFrame, cfg: ReportConfig = ReportConfig(),
          most: int = 13) -> dict[tuple[str, object], pd.Timestamp]:
    """For each mover of ``found`` (this week's movers), the first of the consecutive weeks up to this
    one in which it was a mover in the same direction at some horizon (the weeks before judged on
    the same tables, at most ``most`` back): (level, unit) -> Monday. A unit that started moving this
    week maps to ``monday``."""
    out = {(r.level, r.unit): monday for r in found.itertuples()}
    going = {(r.level, r.unit): r.direction for r in found.itertuples()}
    for back in range(1, most + 1):
        if not going:
            break
        week = monday - pd.Timedelta(weeks=back)
        # a unit's test depends on its family's tests only: judge the families still going
        families = {FAMILY.get(level, level) for level, _ in going}
        table = movement([u for u in levels if u.family in families], week, cfg, estimates=False)
        then: dict[tuple[str, object], set[str]] = {}
        for r in table[table["mover"].astype(bool)].itertuples():
            then.setdefault((r.level, r.unit), set()).add(r.direction)
        going = {key: d for key, d in going.items() if d in then.get(key, set())}
        for key in going:
            out[key] = week
    return out


def needed(n: float, n0: float, share: float, tests: int, alpha: float, min_change: float = 1.0) -> int | None:
    """The fewest pieces of evidence, of ``n`` this period, that a unit holding ``share`` of the
    ``n0`` before would need to count as rising when it is the only mover among ``tests`` tests (BH's
    first threshold, ``alpha / tests``); None when no count up to ``n`` would do."""
    if n <= 0 or n0 <= 0 or tests <= 0:
        return None
    k0 = max(1, round(share * n0))
    p0 = n / (n + n0)
    k = int(math.ceil(share * n))
    while k <= n:
        if change_test(k, k0, p0, min_change)[0] <= alpha / tests:
            return k
        k += 1
    return None
