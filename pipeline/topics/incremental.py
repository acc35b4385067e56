"""The weekly update: papers already placed keep their theme, a new paper joins the theme that
explains it, and the others wait in a pool of recent weeks where dense groups far from every theme,
whose papers' neighbours are mostly recent papers, are born as new themes (detection in
``emerge.py``; naming and lineage here). Neither UMAP nor HDBSCAN runs."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.dates import week_label, week_monday
from pipeline.topics import emerge
from pipeline.topics.label import described
from pipeline.topics.state import Assignment, Change, Forming, State, unique_label
from pipeline.topics.words import Embed

log = logging.getLogger(__name__)


def update(embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig, state: State,
           previous_topics: dict[str, int], *, weeks: list[str] | None = None, texts: list[str] | None = None,
           titles: list[str] | None = None, embed: Embed | None = None, rules: emerge.Rules | None = None,
           ) -> Assignment:
    """Papers already placed keep their theme; a new paper joins the nearest theme when that theme
    explains it; papers no theme explains wait in a pool of recent weeks, where dense groups far from
    every theme, among recent papers rather than the fit's, are born as new themes (``emerge.py``).
    Without ``weeks`` and ``texts`` (or with ``cfg.emerge`` off) every new paper simply joins its
    nearest theme, as before detection. ``rules``: detection's constants (default: ``emerge.Rules``
    with ``emerge_window`` and ``emerge_min_size``)."""
    from pipeline.topics.placement import nearest, reassign_outliers, similarity_to_own

    known = np.array([p in previous_topics for p in paper_ids], dtype=bool)
    topics = np.array([previous_topics.get(p, -1) for p in paper_ids], dtype=int)
    lineage: list[Change] = []
    forming: list[Forming] = []
    if cfg.emerge and weeks is not None and texts is not None and len(state.ids):
        rules = rules or emerge.Rules(window=cfg.emerge_window, min_size=cfg.emerge_min_size)
        topics, lineage, forming = _emerge(embeddings, topics, known, weeks, texts, titles, cfg, rules, state, embed)
        pooled = topics == -2
        topics[pooled] = -1
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
            topics = reassign_outliers(topics, best, near, 2.0, cfg.max_outlier_share, candidates=group)
        if waiting > (topics == -1).sum():
            log.info("topics: the cap on unassigned papers placed %d pool papers (%d of them forming)",
                     waiting - int((topics == -1).sum()), int((forming_rows & (topics >= 0)).sum()))
    forming = [dataclasses.replace(f, rows=f.rows[topics[f.rows] == -1]) for f in forming]  # the cap may have placed some
    forming = [f for f in forming if len(f.rows)]
    state.forming = [{"papers": [paper_ids[i] for i in f.rows], "nearest": int(f.nearest), "label": f.label,
                      "week": f.week} for f in forming]  # kept for the report
    similarity = similarity_to_own(embeddings, topics, state.ids, state.centroids, best)
    result = Assignment(topics, similarity, state, lineage, "update", forming=forming)
    result.unexplained = unexplained
    return result


def _week_minus(week: str, n: int) -> str:
    return week_label(week_monday(week) - dt.timedelta(weeks=n))


def _emerge(embeddings: np.ndarray, topics: np.ndarray, known: np.ndarray, weeks: list[str], texts: list[str],
            titles: list[str] | None, cfg: TopicsConfig, rules: emerge.Rules, state: State, embed: Embed | None,
            ) -> tuple[np.ndarray, list[Change], list[Forming]]:
    """Detection (``emerge.py``) for one update. Returns the assignment, with -2 for papers that stay
    in the pool, the lineage rows of births, and the forming groups (rows, nearest theme)."""
    topics = topics.copy()
    week_of = np.array([w if isinstance(w, str) else "" for w in weeks])
    newest = max(w for w in week_of.tolist() if w) if week_of.any() else None
    if newest is None:
        return topics, [], []
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
    topics[pool] = -2
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
    lineage, forming = [], []
    born = [g for g in groups if g.born and len(g.rows) >= rules.min_size]
    for g in sorted(born, key=lambda g: (-len(g.rows), int(g.rows.min()))):
        t = _birth(state, g, topics, texts, titles, cfg, embed, newest)
        topics[g.rows] = t
        log.info("topics: new theme %d, %r, from %d pool papers%s", t, state.labels[t], len(g.rows),
                 f" (split of theme {g.parent})" if g.parent is not None else "")
        lineage.append(Change(g.parent, t, "split" if g.parent is not None else "new", g.closeness, 0,
                              week=newest, pool_size=len(pool), pool_start=start))
    if born:
        newborn_ids = [row.to_topic for row in lineage]
        rows = newborn_candidates(topics, placed_now, newborn_ids)
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
            _name_theme(state, t, np.flatnonzero(members), np.where(topics == -2, -1, topics), texts, titles, cfg,
                        embed)
    for g in groups:
        if not g.born or len(g.rows) >= rules.min_size:
            continue
        rows = g.rows[topics[g.rows] == -2]
        if len(rows):
            forming.append(Forming(rows, g.nearest, _tentative_label(rows, g.nearest, topics, texts, titles, cfg),
                                   newest))
    return topics, lineage, forming


def newborn_candidates(topics: np.ndarray, placed_now: np.ndarray, newborn_ids: list[int]) -> np.ndarray:
    """Rows that may join a theme born in this update: the pool's papers (-2) and the papers this
    update placed a moment ago in an old theme (``placed_now``: no table has shown them placed).
    Papers placed by earlier updates never move."""
    in_old = (topics >= 0) & ~np.isin(topics, newborn_ids)
    return np.flatnonzero((topics == -2) | (in_old & placed_now))


def _tentative_label(rows: np.ndarray, nearest: int, topics: np.ndarray, texts: list[str], titles: list[str] | None,
                     cfg: TopicsConfig) -> str:
    """What a forming group's papers say most, against its nearest theme's papers (no embedding)."""
    from pipeline.topics.label import name_groups
    from pipeline.topics.vocabulary import stop_words

    members = np.concatenate([rows, np.flatnonzero(topics == nearest)[:400]])
    groups = np.where(np.isin(members, rows), 0, 1)
    sub_texts = [texts[i] for i in members]
    sub_titles = [titles[i] for i in members] if titles is not None else [x.split(". ", 1)[0] for x in sub_texts]
    named = name_groups(sub_texts, sub_titles, groups, [0, 1], np.zeros((2, 1)), frozenset(stop_words(cfg.stop_words)),
                        order=[0])
    return named[0].label


def _birth(state: State, group, topics: np.ndarray, texts: list[str], titles: list[str] | None,  # noqa: ANN001
           cfg: TopicsConfig, embed: Embed | None, week: str) -> int:
    """Add the pool ``group`` to ``state`` as a new theme (next free id) in the area of the theme it
    lies nearest, and name it; returns its id."""
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
    _name_theme(state, t, group.rows, topics, texts, titles, cfg, embed)
    return t


def _name_theme(state: State, t: int, rows: np.ndarray, topics: np.ndarray, texts: list[str],
                titles: list[str] | None, cfg: TopicsConfig, embed: Embed | None) -> None:
    """Label, description, keywords and support of theme ``t`` (papers ``rows``), named against the
    papers of its 8 nearest themes, with a label no other theme has."""
    from pipeline.topics.label import name_groups
    from pipeline.topics.vocabulary import ctfidf_words, rerank_by_coverage, stop_words
    from pipeline.topics.words import content_words

    column = state.ids.tolist().index(t)
    order = np.argsort(-(state.centroids @ state.centroids[column]), kind="stable")
    neighbours = [int(state.ids[j]) for j in order if int(state.ids[j]) != t][:8]
    groups = np.where(np.isin(topics, neighbours), topics, -1)
    groups[rows] = t
    members = np.flatnonzero(groups != -1)
    sub_texts = [texts[i] for i in members]
    sub_titles = [titles[i] for i in members] if titles is not None else [x.split(". ", 1)[0] for x in sub_texts]
    sub_groups = groups[members]
    ids = [t, *neighbours]
    centroids = state.centroids[[state.ids.tolist().index(u) for u in ids]]
    stop = frozenset(stop_words(cfg.stop_words))
    others = {u: label for u, label in state.labels.items() if u != t}
    taken = {content_words(label, stop) for label in others.values()}
    named = name_groups(sub_texts, sub_titles, sub_groups, ids, centroids, stop, embed=embed, order=[t], taken=taken,
                        floor=cfg.min_label_support)[t]
    words = ctfidf_words(sub_texts, sub_groups, cfg)
    words = rerank_by_coverage({t: words.get(t, [])}, sub_texts, sub_groups, cfg)[t]
    label = unique_label(named.label, words, set(others.values()), t)
    state.labels[t], state.words[t] = label, words
    state.descriptions[t] = described(label, named.description)
    state.support[t] = float(named.support)
    for row in state.tree:
        if row["node"] == f"theme:{t}":
            row["label"] = label
