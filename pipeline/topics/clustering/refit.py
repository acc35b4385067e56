"""A refit that keeps history (``keep_placed``): every theme that still holds papers persists, and a
placed paper moves only into a theme the refit found new, or split off its own, when the papers that go
lie apart from the rest of their theme. Used by ``fitting.fit_all`` when ``refit_keeps_placed``."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.naming import lifecycle
from pipeline.topics.state import Change, State

log = logging.getLogger(__name__)

Receiving = dict[int, "set[int] | None"]  # theme -> the old themes whose placed papers may move in (None: any)


def _distinct_flows(embeddings: np.ndarray, topics: np.ndarray, old_topics: np.ndarray,
                    flows: set[tuple[int, int]], bound: float) -> dict[tuple[int, int], bool]:
    """For each of the ``flows`` (old theme, theme the refit found) of placed papers: whether the
    papers that would leave (their centroid) lie no closer to the rest of the old theme's papers
    (those that do not go there) than ``bound`` (as neighbouring themes lie to each other). A flow
    that takes a whole theme is distinct. Each old theme's papers are summed once."""
    from pipeline.topics.clustering.placement import unit

    out: dict[tuple[int, int], bool] = {}
    for old in sorted({o for o, _ in flows}):
        rows = np.flatnonzero(old_topics == old)
        vectors = np.asarray(embeddings[rows], dtype=np.float32)
        total = vectors.sum(axis=0)
        for new in sorted(n for o, n in flows if o == old):
            leaving = topics[rows] == new
            if leaving.all():
                out[(old, new)] = True
                continue
            part = vectors[leaving].sum(axis=0)
            halves = unit(np.stack([part, total - part]))
            out[(old, new)] = bool(halves[0] @ halves[1] <= bound)
    return out


@dataclass(frozen=True)
class Kept:
    """What a refit that keeps history did (``keep_placed``): the assignment, the lineage rewritten to
    say what happened, the themes whose papers changed, the themes placed papers may move into
    (theme -> the old themes whose papers may; None: any) and the previous themes it revived."""

    topics: np.ndarray
    lineage: list[Change]
    changed: set[int]
    receiving: Receiving
    revived: set[int]


def keep_placed(topics: np.ndarray, old_topics: np.ndarray, state: State, lineage: list[Change], cfg: TopicsConfig,
                previous: State, embeddings: np.ndarray) -> Kept:
    """A refit that keeps history. Every theme that still holds papers persists, with its id, label
    and keywords (a theme the new clustering did not match comes back as it was); a paper placed
    before stays in its theme unless the refit put it in a theme that is new, or split off its own
    theme, and the papers that go there lie as far from the rest of their theme's papers as
    neighbouring themes lie to each other (the median of the refit's themes' cosines to their
    nearest theme, ``_distinct_flows``): a refit that only re-cuts a theme along another line, as
    two clusterings of the same papers do, moves none of its papers (unless the theme holds more
    papers than the size bound of a fit, ``max_theme_share``: then it is cut wherever the refit cuts
    it). A new theme left with fewer
    than ``emerge_min_size`` papers is dropped (its papers are unassigned here and join their
    nearest theme when the centroids are computed again)."""
    present = [int(t) for t in previous.ids.tolist() if (old_topics == t).any()]
    rel = _relations(lineage)
    refused = _refused_flows(topics, old_topics, present, rel, state, cfg, embeddings)
    out = topics.copy()
    for i in np.flatnonzero(np.isin(old_topics, present) & (topics != old_topics)):
        old, new = int(old_topics[i]), int(topics[i])
        if rel.allows(old, new) and (old, new) not in refused:
            continue  # into a theme the refit found new, or split off its own, and apart from the rest of it
        out[i] = old
    for t in rel.split_from:  # a split whose papers stayed is no split
        rel.split_from[t] = {o for o in rel.split_from[t] if (o, t) not in refused}
    revived = [t for t in present if t not in rel.matched]
    _revive(state, previous, revived)
    small = [t for t in rel.fresh if (out == t).sum() < cfg.emerge_min_size]
    out = _drop(state, out, small)
    rows = _lineage_after(lineage, rel, revived, small, present, old_topics, out, previous)
    changed = set(revived) | set(rel.fresh) | set(out[out != topics].tolist()) | set(topics[out != topics].tolist())
    return Kept(out, rows, changed - {-1}, _receiving(rel, small, refused, present), set(revived))


@dataclass
class _Relations:
    """What a refit's alignment says of each new theme: matched to an old one, fresh (unmatched), its
    relation (its first lineage row), and the old themes a split came from."""

    matched: set[int]
    fresh: set[int]
    kind: dict[int, str]
    split_from: dict[int, set[int]]

    def allows(self, old: int, new: int) -> bool:
        """Whether a placed paper of ``old`` may move to ``new``: a theme the refit found new, or split
        off the paper's own theme, and not a merger."""
        return (new in self.fresh and (new not in self.split_from or old in self.split_from[new])
                and self.kind[new] != "merged")


def _relations(lineage: list[Change]) -> _Relations:
    matched = {row.to_topic for row in lineage if row.relation == "same"}
    fresh = {row.to_topic for row in lineage if row.to_topic is not None} - matched
    kind: dict[int, str] = {}
    for row in lineage:
        kind.setdefault(row.to_topic, row.relation)
    split_from: dict[int, set[int]] = {}
    for row in lineage:
        if row.relation == "split" and row.to_topic in fresh:
            split_from.setdefault(row.to_topic, set()).add(row.from_topic)
    return _Relations(matched, fresh, kind, split_from)


def _refused_flows(topics: np.ndarray, old_topics: np.ndarray, present: list[int], rel: _Relations, state: State,
                   cfg: TopicsConfig, embeddings: np.ndarray) -> set[tuple[int, int]]:
    """The flows of placed papers (old theme, new theme) the rules allow but that do not lie apart from
    the rest of their theme (``_distinct_flows``): a re-cut along other lines. A theme past the size
    bound of a fit is cut wherever the refit cuts it (no theme outgrows the bound)."""
    from pipeline.topics.clustering.placement import nearest_theme_cosines, size_bound

    moving = np.isin(old_topics, present) & np.isin(topics, list(rel.fresh))
    flows = {(o, n) for o, n in zip(old_topics[moving].tolist(), topics[moving].tolist()) if rel.allows(o, n)}
    held = np.bincount(old_topics[old_topics >= 0]) if (old_topics >= 0).any() else np.zeros(0, dtype=int)
    largest = size_bound(len(topics), cfg.max_theme_share)
    tested = {(o, n) for o, n in flows if held[o] <= largest}
    nearest_cos = nearest_theme_cosines(state.centroids)
    bound = float(np.nanmedian(nearest_cos)) if np.isfinite(nearest_cos).any() else np.inf
    distinct = _distinct_flows(embeddings, topics, old_topics, tested, bound)
    refused = {flow for flow, ok in distinct.items() if not ok}
    if refused:
        log.info("topics: the refit re-cut %d themes along other lines (%d papers); those papers stay in their themes",
                 len({old for old, _ in refused}), int(sum(((old_topics == o) & (topics == n)).sum() for o, n in refused)))
    return refused


def _revive(state: State, previous: State, revived: list[int]) -> None:
    """The old themes the new clustering did not match come back as they were (id, centroid, words,
    description, support, birth week, label; a new theme holding that label takes another)."""
    for t in revived:
        j = previous.ids.tolist().index(t)
        state.ids = np.append(state.ids, t)
        state.centroids = np.vstack([state.centroids, previous.centroids[j:j + 1]]).astype(np.float32)
        state.words[t] = previous.words.get(t, [])
        state.descriptions[t] = previous.descriptions.get(t, previous.labels[t])
        state.support[t] = previous.support.get(t, 0.0)
        state.complements[t] = previous.complements.get(t, "")
        if t in previous.born:
            state.born[t] = previous.born[t]
        lifecycle.restore(state, t, previous.labels[t])


def _drop(state: State, topics: np.ndarray, small: list[int]) -> np.ndarray:
    """``small`` themes dropped from the state (their papers unassigned), the rest in id order."""
    out = topics.copy()
    if small:
        out[np.isin(out, small)] = -1
        keep = ~np.isin(state.ids, small)
        state.ids, state.centroids = state.ids[keep], state.centroids[keep]
        for table in (state.words, state.labels, state.descriptions, state.support, state.complements):
            for t in small:
                table.pop(t, None)
    order = np.argsort(state.ids, kind="stable")
    state.ids, state.centroids = state.ids[order], state.centroids[order]
    return out


def _lineage_after(lineage: list[Change], rel: _Relations, revived: list[int], small: list[int], present: list[int],
                   old_topics: np.ndarray, out: np.ndarray, previous: State) -> list[Change]:
    """The lineage of what the refit did, now that papers stayed where they were."""
    rows = [row for row in lineage if row.relation == "same"]
    rows += [Change(t, t, "same", None, int(((old_topics == t) & (out == t)).sum())) for t in revived]
    for t in sorted(rel.fresh - set(small)):
        sources = rel.split_from.get(t, set())
        if sources:
            rows += [row for row in lineage if row.to_topic == t and row.relation == "split"
                     and row.from_topic in sources]
        else:
            rows.append(Change(None, t, "new"))
    return rows + [Change(t, None, "retired") for t in previous.ids.tolist() if t not in present]


def _receiving(rel: _Relations, small: list[int], refused: set[tuple[int, int]], present: list[int]) -> Receiving:
    """The themes placed papers may move into later: a split, those of its sources; a new theme, any old
    theme's but those it only re-cut (None: any)."""
    receiving: Receiving = {}
    for t in rel.fresh - set(small):
        refused_from = {o for o, n in refused if n == t}
        if rel.kind[t] == "merged":
            continue
        if t in rel.split_from:  # a split whose every source was refused takes no placed paper
            receiving[t] = rel.split_from[t]
        else:
            receiving[t] = set(present) - refused_from if refused_from else None
    return receiving
