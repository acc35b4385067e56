"""The weekly update: papers already placed keep their theme, a new paper joins the theme that
explains it, and the others wait in a pool of recent weeks where dense groups far from every theme,
whose papers' neighbours are mostly recent papers, are born as new themes (detection in
``emerge.py``; lineage here). Neither UMAP nor HDBSCAN runs, and nothing is named here: the update
asks for each theme born, each young theme and each forming group to be named
(``RunResult.to_name``), and ``names.name_run`` names them when it is done."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
import logging

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.dates import week_label, week_monday
from pipeline.topics.weekly import emerge
from pipeline.topics.naming.names import FormingToName, ThemeToName, ToName
from pipeline.topics.state import UNASSIGNED, WAITING, RunResult, Change, Forming, State

log = logging.getLogger(__name__)


def update(embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig, state: State,
           previous_topics: dict[str, int], *, weeks: list[str] | None = None, rules: emerge.Rules | None = None,
           ) -> RunResult:
    """Papers already placed keep their theme; a new paper joins the nearest theme when that theme
    explains it; papers no theme explains wait in a pool of recent weeks, where dense groups far from
    every theme, among recent papers rather than the fit's, are born as new themes (``emerge.py``).
    Without ``weeks`` (or with ``cfg.emerge`` off) every new paper simply joins its nearest theme,
    as before detection. ``rules``: detection's constants (default: ``emerge.Rules`` with
    ``emerge_window`` and ``emerge_min_size``). What is to be named is in ``to_name``."""
    from pipeline.topics.clustering.placement import CAP_ONLY, nearest, reassign_outliers, similarity_to_own

    known = np.array([p in previous_topics for p in paper_ids], dtype=bool)
    topics = np.array([previous_topics.get(p, -1) for p in paper_ids], dtype=int)
    lineage: list[Change] = []
    forming: list[Forming] = []
    to_name: list[ToName] = []
    if cfg.emerge and weeks is not None and len(state.ids):
        rules = rules or emerge.Rules(window=cfg.emerge_window, min_size=cfg.emerge_min_size)
        found = detect(embeddings, topics, known, weeks, cfg, rules, state)
        topics, lineage, forming, to_name = found.topics, found.lineage, found.forming, found.to_name
        pooled = topics == WAITING
        topics[pooled] = UNASSIGNED
    else:
        pooled = np.zeros(len(topics), dtype=bool)
    near, best = nearest(embeddings, state.centroids, state.ids)
    # the other new papers are placed. With detection on, unassigned papers outside the pool (older
    # than its window, the fit's outliers among them) are candidates too: they join their nearest
    # theme when similar enough, or when the cap on unassigned papers, which the pool counts
    # against, requires it. Without detection, papers left unassigned by an earlier run stay so.
    candidates = (~known | (topics == -1)) & ~pooled if cfg.emerge and weeks is not None else ~known
    topics = reassign_outliers(topics, best, near, cfg.min_similarity, cfg.max_outlier_share, candidates=candidates)
    unexplained = float(pooled.mean()) if len(pooled) else 0.0
    if pooled.any():  # the pool counts against the cap on unassigned papers
        # papers of a forming group (dense, far and recent enough, not yet big enough) are placed
        # last: the cap takes the scattered pool papers first, so a theme that is forming keeps its papers
        forming_rows = np.zeros(len(topics), dtype=bool)
        for f in forming:
            forming_rows[f.rows] = True
        waiting = int((topics == -1).sum())
        for group in (pooled & ~forming_rows, pooled & forming_rows):
            topics = reassign_outliers(topics, best, near, CAP_ONLY, cfg.max_outlier_share, candidates=group)
        if waiting > (topics == -1).sum():
            log.info("topics: the cap on unassigned papers placed %d pool papers (%d of them forming)",
                     waiting - int((topics == -1).sum()), int((forming_rows & (topics >= 0)).sum()))
    forming = [dataclasses.replace(f, rows=f.rows[topics[f.rows] == -1]) for f in forming]  # the cap may have placed some
    forming = [f for f in forming if len(f.rows)]
    kept = {f.key for f in forming}
    to_name = [job for job in to_name if not isinstance(job, FormingToName) or job.key in kept]
    state.forming = [{"papers": [paper_ids[i] for i in f.rows], "nearest": int(f.nearest), "label": f.label,
                      "week": f.week} for f in forming]  # kept for the report (labelled when named)
    similarity = similarity_to_own(embeddings, topics, state.ids, state.centroids, best)
    result = RunResult(topics, similarity, state, lineage, "update", forming=forming, to_name=to_name)
    result.unexplained = unexplained
    return result


def _week_minus(week: str, n: int) -> str:
    return week_label(week_monday(week) - dt.timedelta(weeks=n))


@dataclass(frozen=True)
class Emerged:
    """What detection did in one update (``detect``)."""

    topics: np.ndarray  # every paper's theme, ``WAITING`` for those that stay in the pool
    lineage: list[Change]  # the births
    forming: list[Forming]  # groups of the pool too small to be born (rows, nearest theme)
    to_name: list[ToName]  # each birth, each young theme, each forming group, in that order


@dataclass(frozen=True)
class _Tested:
    """The recent papers tested against today's themes: those placed, and the pool left."""

    topics: np.ndarray
    test: np.ndarray  # rows tested
    ok: np.ndarray  # of ``test``: explained by a theme, now placed in it
    near: np.ndarray  # of ``test``: the nearest theme
    cal: emerge.Calibration
    young: set[int]  # themes born within the window: re-centred and renamed
    start: str  # the pool's first week
    newest: str


def detect(embeddings: np.ndarray, topics: np.ndarray, known: np.ndarray, weeks: list[str], cfg: TopicsConfig,
           rules: emerge.Rules, state: State) -> Emerged:
    """Detection (``emerge.py``) for one update: the new and waiting papers tested against today's
    themes (``_test``); the pool's groups; births (``_births``); young themes re-centred and named
    again; groups still forming."""
    week_of = np.array([w if isinstance(w, str) else "" for w in weeks])
    if not week_of.any():
        return Emerged(topics.copy(), [], [], [])
    tested = _test(embeddings, topics, known, week_of, cfg, rules, state)
    topics = tested.topics
    pool = tested.test[~tested.ok]
    placed_now = np.zeros(len(topics), dtype=bool)  # placed by this update: no table has shown them placed
    placed_now[tested.test[tested.ok]] = True
    # recent for the recency test: placed within the window by a weekly update (after the last fit);
    # the fit's own papers are what the themes already held, whatever their week
    recent = week_of >= tested.start
    arrived = recent & (week_of > state.fitted_week) if state.fitted_week else np.zeros(len(topics), dtype=bool)
    groups = emerge.groups_of(embeddings, pool, tested.cal, state.centroids, rules, tested.near[~tested.ok],
                              placed=np.flatnonzero((topics >= 0) & ~arrived),
                              recent=np.flatnonzero((topics >= 0) & arrived))
    _log_pool(groups, pool, tested)
    topics, lineage, to_name = _births(embeddings, topics, groups, placed_now, len(pool), tested, cfg, rules, state)
    to_name += _young_renamed(embeddings, topics, tested.young, state)
    forming = []
    for g in groups:
        if not g.born or len(g.rows) >= rules.min_size:
            continue
        rows = g.rows[topics[g.rows] == WAITING]
        if len(rows):
            forming.append(Forming(rows, g.nearest, "", tested.newest, key=len(forming)))
            to_name.append(FormingToName(len(forming) - 1, rows, g.nearest, topics.copy()))
    return Emerged(topics, lineage, forming, to_name)


def _test(embeddings: np.ndarray, topics: np.ndarray, known: np.ndarray, week_of: np.ndarray, cfg: TopicsConfig,
          rules: emerge.Rules, state: State) -> _Tested:
    """New papers, and recent papers still waiting in the pool, tested against today's themes: the
    explained join their theme (young themes take papers as young ones do), the rest wait."""
    topics = topics.copy()
    newest = max(w for w in week_of.tolist() if w)
    start = _week_minus(newest, rules.window - 1)
    cal = emerge.calibrate(embeddings, topics, state.ids, state.centroids, rules, seed=cfg.seed)
    test = np.flatnonzero((~known | (topics == UNASSIGNED)) & (week_of >= start))
    near, score, ok = emerge.explained(embeddings, test, cal, state.centroids, rules)
    ok &= ~emerge.novel(embeddings, test, np.flatnonzero(topics >= 0), rules)
    young = {t for t, week in state.born.items() if week >= start}
    # themes that take papers as young ones do: born within the window, or since the last fit or
    # refit and within rules.young_weeks (a refit calibrates a theme on all its papers)
    since = _week_minus(newest, max(rules.young_weeks, rules.window) - 1)
    joining = young | {t for t, week in state.born.items() if week >= since and week > state.fitted_week}
    if joining:
        near, ok = emerge.nearer_young(embeddings, test, near, score, ok, cal, state.centroids, joining, rules)
        unexplained = ~ok
        ok[unexplained] = emerge.joins_young(embeddings, test[unexplained], near[unexplained], topics, joining, rules)
    topics[test[ok]] = near[ok]
    topics[test[~ok]] = WAITING
    return _Tested(topics, test, ok, near, cal, young, start, newest)


def _log_pool(groups: list, pool: np.ndarray, tested: _Tested) -> None:
    if len(tested.test):  # an update with no new or waiting paper has nothing to say about the pool
        sizes = ", ".join(str(len(g.rows)) for g in groups)
        log.info("topics: no theme explains %d of the %d new or waiting papers; %s", len(pool), len(tested.test),
                 f"the pool (since {tested.start}) holds groups of {sizes}" if sizes else "no group forms among them")
    for g in groups:
        log.debug("topics: pool group of %d: cohesion %.3f, closeness %.3f to theme %d, dense %s, far %s, "
                  "recent %s (%.2f)", len(g.rows), g.cohesion, g.closeness, g.nearest, g.dense, g.far, g.recent,
                  g.recency)


def _births(embeddings: np.ndarray, topics: np.ndarray, groups: list, placed_now: np.ndarray, pool_size: int,
            tested: _Tested, cfg: TopicsConfig, rules: emerge.Rules,
            state: State) -> tuple[np.ndarray, list[Change], list[ToName]]:
    """The groups born as themes, largest first (each added to ``state``), and the papers this update
    placed in an old theme that lie nearer a newborn one moved to it."""
    lineage: list[Change] = []
    to_name: list[ToName] = []
    born = [g for g in groups if g.born and len(g.rows) >= rules.min_size]
    for g in sorted(born, key=lambda g: (-len(g.rows), int(g.rows.min()))):
        t = emerge.birth(state, g, tested.newest)
        lineage.append(Change(g.parent, t, "split" if g.parent is not None else "new", g.closeness, 0,
                              week=tested.newest, pool_size=pool_size, pool_start=tested.start))
        to_name.append(ThemeToName(t, g.rows, topics.copy(), state.ids.copy(), state.centroids.copy(), lineage[-1]))
        topics[g.rows] = t
    if born:
        newborn_ids = [row.to_topic for row in lineage]
        rows = emerge.newborn_candidates(topics, placed_now, newborn_ids)
        before = topics.copy()
        topics = emerge.join_newborn(embeddings, topics, rows, newborn_ids, state.ids, state.centroids, rules,
                                     seed=cfg.seed)
        moved = int(((before >= 0) & (topics != before)).sum())
        if moved:
            log.info("topics: %d papers an old theme took in this update joined a theme born in it", moved)
    return topics, lineage, to_name


def _young_renamed(embeddings: np.ndarray, topics: np.ndarray, young: set[int], state: State) -> list[ToName]:
    """A young theme (born before this update, within the window) centred and named again from all its
    papers so far, so the label it got from its first few papers follows what it became."""
    out: list[ToName] = []
    for t in [t for t in state.born if t in young]:
        if (topics == t).any():
            members = topics == t
            mean = embeddings[members].mean(axis=0)
            state.centroids[state.ids.tolist().index(t)] = mean / (np.linalg.norm(mean) or 1)
            out.append(ThemeToName(t, np.flatnonzero(members), np.where(topics == WAITING, UNASSIGNED, topics),
                                   state.ids.copy(), state.centroids.copy()))
    return out
