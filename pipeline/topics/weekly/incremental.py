"""The weekly update: papers already placed keep their theme, a new paper joins the theme that
explains it, and the others wait in a pool of recent weeks where dense groups far from every theme,
whose papers' neighbours are mostly recent papers, are born as new themes (detection in
``emerge.py``; lineage here). Neither UMAP nor HDBSCAN runs, and nothing is named here: the update
asks for each theme born, each young theme and each forming group to be named
(``Assignment.to_name``), and ``names.name_run`` names them when it is done."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.dates import week_label, week_monday
from pipeline.topics.weekly import emerge
from pipeline.topics.naming.names import FormingToName, ThemeToName, ToName
from pipeline.topics.state import UNASSIGNED, WAITING, Assignment, Change, Forming, State

log = logging.getLogger(__name__)


def update(embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig, state: State,
           previous_topics: dict[str, int], *, weeks: list[str] | None = None, rules: emerge.Rules | None = None,
           ) -> Assignment:
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
        topics, lineage, forming, to_name = _emerge(embeddings, topics, known, weeks, cfg, rules, state)
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
    result = Assignment(topics, similarity, state, lineage, "update", forming=forming, to_name=to_name)
    result.unexplained = unexplained
    return result


def _week_minus(week: str, n: int) -> str:
    return week_label(week_monday(week) - dt.timedelta(weeks=n))


def _emerge(embeddings: np.ndarray, topics: np.ndarray, known: np.ndarray, weeks: list[str], cfg: TopicsConfig,
            rules: emerge.Rules, state: State) -> tuple[np.ndarray, list[Change], list[Forming], list[ToName]]:
    """Detection (``emerge.py``) for one update. Returns the assignment, with ``WAITING`` for papers that stay
    in the pool, the lineage rows of births, the forming groups (rows, nearest theme) and what is to
    be named (each birth, each young theme, each forming group, in that order)."""
    topics = topics.copy()
    week_of = np.array([w if isinstance(w, str) else "" for w in weeks])
    newest = max(w for w in week_of.tolist() if w) if week_of.any() else None
    if newest is None:
        return topics, [], [], []
    start = _week_minus(newest, rules.window - 1)
    recent = week_of >= start
    cal = emerge.calibrate(embeddings, topics, state.ids, state.centroids, rules, seed=cfg.seed)
    # new papers, and recent papers still waiting in the pool, are tested against today's themes
    test = np.flatnonzero((~known | (topics == -1)) & recent)
    near, score, ok = emerge.explained(embeddings, test, cal, state.centroids, rules)
    ok &= ~emerge.novel(embeddings, test, np.flatnonzero(topics >= 0), rules)
    young = {t for t, week in state.born.items() if week >= start}  # re-centred and renamed below
    # themes that take papers as young ones do: born within the window, or since the last fit or
    # refit and within rules.young_weeks (a refit calibrates a theme on all its papers)
    since = _week_minus(newest, max(rules.young_weeks, rules.window) - 1)
    joining = young | {t for t, week in state.born.items() if week >= since and week > state.fitted_week}
    if joining:
        near, ok = emerge.nearer_young(embeddings, test, near, score, ok, cal, state.centroids, joining, rules)
        unexplained = ~ok
        ok[unexplained] = emerge.joins_young(embeddings, test[unexplained], near[unexplained], topics, joining, rules)
    topics[test[ok]] = near[ok]
    placed_now = np.zeros(len(topics), dtype=bool)  # placed by this update: no table has shown them placed
    placed_now[test[ok]] = True
    pool = test[~ok]
    topics[pool] = WAITING
    # recent for the recency test: placed within the window by a weekly update (after the last fit);
    # the fit's own papers are what the themes already held, whatever their week
    arrived = recent & (week_of > state.fitted_week) if state.fitted_week else np.zeros(len(topics), dtype=bool)
    groups = emerge.groups_of(embeddings, pool, cal, state.centroids, rules, near[~ok],
                              placed=np.flatnonzero((topics >= 0) & ~arrived),
                              recent=np.flatnonzero((topics >= 0) & arrived))
    if len(test):  # an update with no new or waiting paper has nothing to say about the pool
        sizes = ", ".join(str(len(g.rows)) for g in groups)
        log.info("topics: no theme explains %d of the %d new or waiting papers; %s", len(pool), len(test),
                 f"the pool (since {start}) holds groups of {sizes}" if sizes else "no group forms among them")
    for g in groups:
        log.debug("topics: pool group of %d: cohesion %.3f, closeness %.3f to theme %d, dense %s, far %s, "
                  "recent %s (%.2f)", len(g.rows), g.cohesion, g.closeness, g.nearest, g.dense, g.far, g.recent,
                  g.recency)
    lineage, forming, to_name = [], [], []
    born = [g for g in groups if g.born and len(g.rows) >= rules.min_size]
    for g in sorted(born, key=lambda g: (-len(g.rows), int(g.rows.min()))):
        t = emerge.birth(state, g, newest)
        lineage.append(Change(g.parent, t, "split" if g.parent is not None else "new", g.closeness, 0,
                              week=newest, pool_size=len(pool), pool_start=start))
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
    # a young theme (born within the window) is centred and named again from all its papers so far,
    # so the label it got from its first few papers follows what it became
    for t in [t for t in state.born if t in young]:  # born before this update, within the window
        if (topics == t).any():
            members = topics == t
            mean = embeddings[members].mean(axis=0)
            state.centroids[state.ids.tolist().index(t)] = mean / (np.linalg.norm(mean) or 1)
            to_name.append(ThemeToName(t, np.flatnonzero(members), np.where(topics == WAITING, UNASSIGNED, topics),
                                       state.ids.copy(), state.centroids.copy()))
    for g in groups:
        if not g.born or len(g.rows) >= rules.min_size:
            continue
        rows = g.rows[topics[g.rows] == WAITING]
        if len(rows):
            forming.append(Forming(rows, g.nearest, "", newest, key=len(forming)))
            to_name.append(FormingToName(len(forming) - 1, rows, g.nearest, topics.copy()))
    return topics, lineage, forming, to_name
