"""Emerging themes between refits: what the weekly update does with papers no theme explains.

A new paper is **explained** by its nearest theme (by centroid) when it is as close to that theme
as the theme's own members are, on two counts, each calibrated on the theme's members:

- centroid: its cosine to the theme's centroid is at least the ``quantile`` (default 5 %) of the
  members' cosines to the centroid of the other members;
- neighbourhood: the mean cosine to its ``k`` most similar members is at least the same quantile of
  the members' own such means (each member's neighbours taken among the other members).

The second count catches papers at a theme's edge that none of its papers is written like. And a
paper whose own nearest neighbours are unplaced papers (new this week, or waiting in the pool) more
often than chance allows is not explained either, however close a theme is: it belongs to
something that is arriving now, such as a sub-area growing inside a theme. "More often than
chance": of its ``k_novel`` nearest papers, so many are unplaced that drawing neighbours at random
from the store would give as many with probability at most ``novel_alpha`` (binomial tail, with the
store's share of unplaced papers, i.e. the new and waiting papers; default 0.2: with 1,000 such
papers on a store of 20,000, 2 of 10, and 3 of 10 with 500 on 3,500). A paper so held joins no old
theme: it waits in the pool (unless a young theme explains it, see ``nearer_young``), and is tested
again at the next update.

Papers no theme explains wait, unassigned, in a **pool** of the last ``window`` weeks. Each update
clusters the pool (average linkage on cosine, cut where the papers of two groups are on average
less similar than the existing themes' papers are among themselves, see ``dense_quantile``); a
group becomes a **new theme** when it is

- big enough: at least ``min_size`` papers;
- dense enough: its mean pairwise cosine is at least the ``dense_quantile`` of the existing themes'
  mean pairwise cosines;
- far enough: its centroid is no closer to the nearest theme's centroid than the two closest
  existing themes are to each other (``far_quantile`` of the themes' nearest-neighbour cosines;
  1.0: the closest pair); and when it lies as close to a theme as neighbouring themes lie to each
  other (the median of those cosines), it is tighter than that theme (its mean pairwise cosine
  above the theme's): a looser group beside a theme is that theme's edge, not a sub-area pulling
  away from it;
- recent: its papers' ``k_novel`` nearest papers arrived within the window (waiting in the pool, or
  placed there by a weekly update since the last fit) far more often than chance: for most of its
  papers, that share lies at least ``recent_share`` (default half) of the way from the store's
  share of recent papers to all of them. A group with the fit's papers all around it is a subject
  the themes already held (absorbed into a broader theme); born, it would be a second theme of the
  same papers. Its papers wait and then join their nearest theme like other pool papers; a refit
  can cut the broader theme.

A group that passes the density, distance and recency tests but is still too small is **forming**.
A new theme takes the next free id and joins the area of its nearest theme (``birth``), is named
like any theme against its neighbours once the update is done (``names.py``), and its
``first_week`` is the week it was born. When most of its
papers' nearest theme is one theme, and it lies as close to that theme as neighbouring themes lie
to each other (the median), the lineage records it as a ``split`` of that theme (a sub-area that
grew apart); otherwise as ``new``. At its birth a theme takes the pool papers, and the papers
this update placed in another theme a moment ago, that it explains at least as well as its least
typical paper and whose nearest theme it is (``join_newborn``). Papers placed earlier never move
and old themes keep their ids; pool papers that an existing or newly born theme explains
join it in later updates. A **young**
theme (born within the window, or since the last refit and within ``Rules.young_weeks``: the caller
decides, passing the set ``young``) also takes new or waiting papers that it explains when its members
lie at least as near them as those of the theme they would otherwise join, or when the novelty test
holds them back from every old theme (``nearer_young``), and
those whose nearest theme it is when most of their nearest placed papers are its members
(``joins_young``); pool papers older than the window join their nearest theme.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from pipeline.topics.state import UNASSIGNED, WAITING, State

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rules:
    """The constants of detection. ``window`` and ``min_size`` come from ``TopicsConfig.emerge_*``;
    the others were tuned on the emergence benchmark and are not user settings."""

    window: int = 4  # weeks a paper no theme explains waits in the pool
    min_size: int = 10  # papers a pool group needs to become a theme
    quantile: float = 0.05  # a paper is explained when as close as this share of a theme's members
    k: int = 5  # neighbours for the neighbourhood count
    dense_quantile: float = 0.1
    far_quantile: float = 1.0  # no closer to a theme than the two closest themes are to each other
    max_members: int = 400  # members per theme sampled for calibration
    k_novel: int = 10  # neighbours looked at for novelty
    novel_alpha: float = 0.2  # tail probability at or below which a paper's unplaced neighbours are not chance
    recent_share: float = 0.5  # how far from chance towards all recent a group's papers' neighbours lie (median)
    # weeks after its birth a theme born in a weekly update takes papers as a young theme does (at
    # least the window): its subject keeps arriving, and once it is old the novelty test holds each
    # week's papers of it back from it (they lie near each other), so they would wait in the pool
    young_weeks: int = 13


@dataclass(frozen=True)
class Calibration:
    """Per theme (rows in ``ids`` order): thresholds for the centroid and neighbourhood counts."""

    ids: np.ndarray
    centroid: np.ndarray
    neighbourhood: np.ndarray
    members: dict[int, np.ndarray]  # theme -> row indices of the (sampled) members
    cohesion: np.ndarray  # mean pairwise cosine of each theme's members
    nearest_theme: np.ndarray  # cosine of each theme's centroid to its nearest other theme's


def _sample(rows: np.ndarray, limit: int, seed: int) -> np.ndarray:
    if len(rows) <= limit:
        return rows
    return np.sort(np.random.default_rng(seed).choice(rows, size=limit, replace=False))


def mean_pairwise(vectors: np.ndarray) -> float:
    """Mean cosine between distinct unit vectors (from their sum, in O(n))."""
    n = len(vectors)
    if n < 2:
        return 1.0
    total = vectors.sum(axis=0)
    return float((total @ total - n) / (n * (n - 1)))


def top_k_mean(sims: np.ndarray, k: int) -> np.ndarray:
    """Mean of each row's ``k`` largest values (all of them where a row has fewer)."""
    k = min(k, sims.shape[1])
    if k == 0:
        return np.zeros(len(sims), np.float32)
    return np.sort(np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:], axis=1).mean(axis=1)


def calibrate(embeddings: np.ndarray, topics: np.ndarray, ids: np.ndarray, centroids: np.ndarray, rules: Rules,
              seed: int = 0, quantile: dict[int, float] | None = None) -> Calibration:
    """Thresholds from each theme's current members (``topics``; embeddings are unit vectors);
    ``quantile`` overrides ``rules.quantile`` for some themes."""
    n_ids = len(ids)
    centroid_q = np.zeros(n_ids, np.float32)
    neighbour_q = np.zeros(n_ids, np.float32)
    cohesion = np.ones(n_ids, np.float32)
    members: dict[int, np.ndarray] = {}
    for j, t in enumerate(ids.tolist()):
        rows = np.flatnonzero(topics == t)
        members[t] = rows
        if len(rows) == 0:
            centroid_q[j] = neighbour_q[j] = np.inf  # an empty theme explains nothing
            continue
        sample = _sample(rows, rules.max_members, seed + j)
        vectors = embeddings[sample]
        q = (quantile or {}).get(t, rules.quantile)
        # each member against the centroid of the others (a small theme's members sit close to a
        # centroid they are part of, which would make the test too strict for newcomers)
        total = embeddings[rows].sum(axis=0)
        dots = vectors @ total
        rest = np.sqrt(np.maximum(total @ total - 2 * dots + 1, 1e-12))
        centroid_q[j] = np.quantile((dots - 1) / rest, q) if len(rows) > 1 else 1.0
        cohesion[j] = mean_pairwise(embeddings[rows])
        if len(sample) > 1:
            sims = vectors @ vectors.T
            np.fill_diagonal(sims, -np.inf)
            neighbour_q[j] = np.quantile(top_k_mean(sims, min(rules.k, len(sample) - 1)), q)
        else:
            neighbour_q[j] = -1.0
    from pipeline.topics.clustering.placement import nearest_theme_cosines

    nearest_theme = nearest_theme_cosines(centroids)  # NaN: no other theme to be near
    return Calibration(ids, centroid_q, neighbour_q, members, cohesion, nearest_theme)


def explained(embeddings: np.ndarray, rows: np.ndarray, cal: Calibration, centroids: np.ndarray,
              rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For papers ``rows``: nearest theme id (by centroid), their neighbourhood score for it (the
    mean cosine to its ``k`` most similar members; -inf where the centroid count already fails or
    it has no members), and whether that theme explains them."""
    if len(rows) == 0 or len(cal.ids) == 0:
        return np.full(len(rows), -1), np.full(len(rows), -np.inf, np.float32), np.zeros(len(rows), bool)
    vectors = embeddings[rows]
    sims = vectors @ centroids.T
    column = sims.argmax(axis=1)
    ok = sims[np.arange(len(rows)), column] >= cal.centroid[column]
    score = np.full(len(rows), -np.inf, np.float32)
    for j in np.unique(column[ok]):
        t = int(cal.ids[j])
        mine = np.flatnonzero(ok & (column == j))
        member_rows = cal.members[t]
        if len(member_rows) == 0:
            ok[mine] = False
            continue
        score[mine] = top_k_mean(vectors[mine] @ embeddings[member_rows].T, rules.k)
        ok[mine] = score[mine] >= cal.neighbourhood[j]
    return cal.ids[column], score, ok


def nearest_among(embeddings: np.ndarray, rows: np.ndarray, reference: np.ndarray, k: int, *,
                  themselves: bool = False, chunk: int = 512) -> np.ndarray:
    """Positions in ``reference`` of the ``k`` papers most similar to each of ``rows`` (unit vectors,
    by cosine; in no particular order), a block of rows at a time. With ``themselves``,
    ``reference`` starts with ``rows`` and a paper is not its own neighbour."""
    out = np.empty((len(rows), k), dtype=np.int64)
    others = embeddings[reference].T
    for start in range(0, len(rows), chunk):
        block = rows[start:start + chunk]
        sims = embeddings[block] @ others
        if themselves:
            sims[np.arange(len(block)), start + np.arange(len(block))] = -np.inf
        out[start:start + len(block)] = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    return out


def novel(embeddings: np.ndarray, rows: np.ndarray, placed: np.ndarray, rules: Rules) -> np.ndarray:
    """For papers ``rows`` (unplaced): whether most of their nearest neighbours among ``placed`` and
    ``rows`` papers are unplaced too (see the module docstring)."""
    if len(rows) < 2:
        return np.zeros(len(rows), bool)
    from scipy.stats import binom

    reference = np.concatenate([rows, placed])
    k = min(rules.k_novel, len(reference) - 1)
    share = (len(rows) - 1) / (len(reference) - 1)
    tail = binom.sf(np.arange(k + 1) - 1, k, share)  # P(at least c unplaced neighbours), c = 0..k
    bound = int(np.argmax(tail <= rules.novel_alpha)) if (tail <= rules.novel_alpha).any() else k + 1
    top = nearest_among(embeddings, rows, reference, k, themselves=True)
    return (top < len(rows)).sum(axis=1) >= bound


def joins_young(embeddings: np.ndarray, rows: np.ndarray, nearest_theme: np.ndarray, topics: np.ndarray,
                young: set[int], rules: Rules) -> np.ndarray:
    """For papers ``rows`` (those no theme explains): whether they join their nearest theme anyway,
    because it is **young** (born in a weekly update: in ``young``, see the module docstring) and at least half of their
    ``k_novel`` most similar placed papers (``topics`` >= 0) are its members.

    A young theme was calibrated on its first few papers, so its thresholds are too tight for the
    papers that keep arriving on its subject; and those papers are near other unplaced papers, as
    the papers of a forming theme are, so the novelty test holds them back too."""
    out = np.zeros(len(rows), bool)
    candidates = np.flatnonzero(np.isin(nearest_theme, list(young)))
    placed = np.flatnonzero(topics >= 0)
    if not len(candidates) or not len(placed):
        return out
    k = min(rules.k_novel, len(placed))
    top = nearest_among(embeddings, rows[candidates], placed, k)
    votes = (topics[placed[top]] == nearest_theme[candidates, None]).sum(axis=1)
    out[candidates] = 2 * votes >= k
    return out


def nearer_young(embeddings: np.ndarray, rows: np.ndarray, near: np.ndarray, score: np.ndarray, ok: np.ndarray,
                 cal: Calibration, centroids: np.ndarray, young: set[int], rules: Rules,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """For papers ``rows`` with their nearest theme ``near`` (by centroid), their neighbourhood
    score for it and whether they join it (``explained``'s answers; ``ok``: it explains them and
    they are not ``novel``): the theme each joins and whether it joins
    one, when **young** themes (``young``, see the module docstring) are weighed too. A young theme that explains
    a paper (``explained``'s two counts, against that theme alone) takes it when its members lie at
    least as near the paper as those of the theme it would otherwise join (the mean cosine to the
    ``k`` most similar members, the neighbourhood count), or when it would join none: a paper the
    novelty test holds back belongs to something arriving now, and a young theme that explains it
    is that. A young theme's centroid is the mean of its first papers, so a paper on its subject
    written somewhat like an older theme's papers can lie nearer the older theme's centroid while its
    nearest papers are the young theme's. Between young themes, the one whose members lie nearest
    wins."""
    near, ok = near.copy(), ok.copy()
    if not len(rows) or not young:
        return near, ok
    vectors = embeddings[rows]
    best = np.where(ok, score, -np.inf)  # neighbourhood score of the theme each paper joins so far
    index = {t: j for j, t in enumerate(cal.ids.tolist())}
    for t in sorted(young):
        j = index.get(t)
        if j is None or not len(cal.members[t]):
            continue
        close = np.flatnonzero((vectors @ centroids[j]) >= cal.centroid[j])
        if not len(close):
            continue
        around = top_k_mean(vectors[close] @ embeddings[cal.members[t]].T, rules.k)
        wins = (around >= cal.neighbourhood[j]) & (around >= best[close])
        near[close[wins]], ok[close[wins]], best[close[wins]] = t, True, around[wins]
    return near, ok


def join_newborn(embeddings: np.ndarray, topics: np.ndarray, rows: np.ndarray, newborn_ids: list[int],
                 ids: np.ndarray, centroids: np.ndarray, rules: Rules, seed: int = 0) -> np.ndarray:
    """``topics`` with papers ``rows`` (waiting in the pool, ``WAITING``, or placed) moved to a theme born in
    this update when it is their nearest theme (by centroid, ``ids``/``centroids`` including the
    newborn) and explains them at least as well as it explains its least typical member; the other
    themes are calibrated as usual, on their members (pool papers are members of none)."""
    topics = topics.copy()
    if not len(rows):
        return topics
    cal = calibrate(embeddings, np.where(topics == WAITING, UNASSIGNED, topics), ids, centroids, rules, seed=seed,
                    quantile=dict.fromkeys(newborn_ids, 0.0))
    near, _, ok = explained(embeddings, rows, cal, centroids, rules)
    joins = ok & np.isin(near, newborn_ids)
    topics[rows[joins]] = near[joins]
    return topics


@dataclass
class PoolGroup:
    """A dense group of pool papers: rows, and whether it may become a theme."""

    rows: np.ndarray
    cohesion: float
    nearest: int  # nearest existing theme
    closeness: float  # cosine of the group's centroid to that theme's centroid
    dense: bool
    far: bool
    parent: int | None = None  # a theme it grew out of (see the module docstring)
    centroid: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    recent: bool = True  # its papers' nearest papers arrived within the window far more than chance gives
    recency: float = 1.0  # median over its papers: their recent neighbours' share, from chance (0) to all (1)

    @property
    def born(self) -> bool:
        return self.dense and self.far and self.recent


def groups_of(embeddings: np.ndarray, pool: np.ndarray, cal: Calibration, centroids: np.ndarray, rules: Rules,
              nearest_of_pool: np.ndarray, placed: np.ndarray | None = None,
              recent: np.ndarray | None = None) -> list[PoolGroup]:
    """Dense groups among the ``pool`` papers (rows), with the tests of the module docstring; groups
    down to half of ``min_size`` are returned so that forming ones can be shown. For the recency
    test, ``recent``: the rows of papers placed within the window by weekly updates, which count
    with the pool, and ``placed``: the other placed papers (the fit's, whatever their week); with
    no ``placed`` given, or ``rules.recent_share`` 0, every group passes the test."""
    smallest = max(3, rules.min_size // 2)
    if len(pool) < smallest:
        return []
    from scipy.cluster.hierarchy import fcluster, linkage

    vectors = embeddings[pool].astype(np.float64)
    dense_bound = float(np.quantile(cal.cohesion, rules.dense_quantile)) if len(cal.ids) else 0.5
    # average linkage joins two groups while their papers' mean cosine is at least the bound, so each
    # group is about as dense as the existing themes at their loosest
    labels = fcluster(linkage(vectors, method="average", metric="cosine"), t=1 - dense_bound, criterion="distance")
    sizes = np.bincount(labels)
    labels = np.where(sizes[labels] >= smallest, labels, -1)
    nearest_known = cal.nearest_theme[np.isfinite(cal.nearest_theme)]
    far_bound = float(np.quantile(nearest_known, rules.far_quantile)) if len(nearest_known) else 1.0
    split_bound = float(np.median(nearest_known)) if len(nearest_known) else 1.0
    log.debug("emerge: bounds dense %.3f, far %.3f, split %.3f", dense_bound, far_bound, split_bound)
    recency = np.ones(len(pool))
    if placed is not None and len(placed) and rules.recent_share > 0:
        young = np.concatenate([pool, recent if recent is not None else np.zeros(0, dtype=np.int64)])
        k = min(rules.k_novel, len(young) + len(placed) - 1)
        top = nearest_among(embeddings, pool, np.concatenate([young, placed]), k, themselves=True)
        chance = (len(young) - 1) / (len(young) + len(placed) - 1)  # the share of recent papers in the store
        # how far each paper's neighbours are from chance (0) towards all recent (1)
        recency = np.clip(((top < len(young)).mean(axis=1) - chance) / max(1 - chance, 1e-9), 0.0, 1.0)
    out = []
    for g in sorted(set(labels.tolist()) - {-1}):
        rows = pool[labels == g]
        mean = embeddings[rows].mean(axis=0)
        centroid = (mean / (np.linalg.norm(mean) or 1)).astype(np.float32)
        cohesion = mean_pairwise(embeddings[rows])
        if len(cal.ids):
            sims = centroids @ centroid
            j = int(sims.argmax())
            nearest, closeness = int(cal.ids[j]), float(sims[j])
            # (a theme of one paper has no cohesion to compare with: cohesion 1.0 would make it all edge)
            edge = closeness >= split_bound and len(cal.members[nearest]) > 1 and cohesion <= cal.cohesion[j]
        else:
            nearest, closeness, edge = -1, -1.0, False
        group = PoolGroup(rows, cohesion, nearest, closeness, dense=cohesion >= dense_bound,
                      far=closeness <= far_bound and not edge, centroid=centroid,
                      recency=float(np.median(recency[labels == g])))
        group.recent = group.recency >= rules.recent_share
        votes = nearest_of_pool[labels == g]
        if nearest >= 0 and closeness >= split_bound and (votes == nearest).mean() > 0.5:
            group.parent = nearest
        out.append(group)
    return out


def newborn_candidates(topics: np.ndarray, placed_now: np.ndarray, newborn_ids: list[int]) -> np.ndarray:
    """Rows that may join a theme born in this update: the pool's papers (``WAITING``) and the papers this
    update placed a moment ago in an old theme (``placed_now``: no table has shown them placed).
    Papers placed by earlier updates never move."""
    in_old = (topics >= 0) & ~np.isin(topics, newborn_ids)
    return np.flatnonzero((topics == WAITING) | (in_old & placed_now))


def birth(state: State, group: PoolGroup, week: str) -> int:
    """Add the pool ``group`` to ``state`` as a new theme (next free id) in the area of the theme it
    lies nearest; returns its id (it is named with the rest of the run)."""
    t = state.next_id
    state.next_id += 1
    state.ids = np.append(state.ids, t)
    state.centroids = np.vstack([state.centroids, group.centroid[None, :]]).astype(np.float32)
    state.born[t] = week
    anchor = group.parent if group.parent is not None else group.nearest
    if anchor in state.area_of:
        area = state.area_of[anchor]
        state.area_of[t] = area
        state.tree.append({"node": f"theme:{t}", "parent": f"area:{area}", "level": "theme", "topic": t,
                           "area": area, "size": len(group.rows), "distance": 0.0, "label": None})
    return t
