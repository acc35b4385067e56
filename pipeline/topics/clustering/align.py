"""Keeping theme identities across refits.

A refit clusters everything again. Each new theme is matched to at most one old theme by the
Hungarian algorithm on a similarity that mixes centroid cosine and keyword cosine (c-TF-IDF weights
over the union of both themes' terms); a match above ``threshold`` keeps the old id and label. The
lineage records, with similarity and shared papers, what happened to every theme:

- ``same``: matched one to one;
- ``split``: an unmatched new theme took at least ``share`` of its papers from one old theme;
- ``merged``: an unmatched new theme took at least ``share`` of its papers from two or more old
  themes, or an unmatched old theme sent at least ``share`` of its papers into one new theme;
- ``new``: an unmatched new theme with no such origin;
- ``retired``: an unmatched old theme whose papers scattered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.topics.state import Change


@dataclass(frozen=True)
class Themes:
    """What alignment needs to know of a set of themes."""

    ids: np.ndarray  # theme ids, one per row below
    centroids: np.ndarray  # unit vectors
    words: dict[int, list[tuple[str, float]]]  # theme -> [(term, weight)]


def keyword_similarity(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> float:
    weights_a, weights_b = dict(a), dict(b)
    terms = sorted(set(weights_a) | set(weights_b))
    va = np.array([weights_a.get(t, 0.0) for t in terms])
    vb = np.array([weights_b.get(t, 0.0) for t in terms])
    norm = np.linalg.norm(va) * np.linalg.norm(vb)
    return float(va @ vb / norm) if norm else 0.0


def similarity(new: Themes, old: Themes) -> np.ndarray:
    """new x old matrix: mean of centroid cosine and keyword cosine."""
    centroid = new.centroids @ old.centroids.T
    keywords = np.array([[keyword_similarity(new.words[int(n)], old.words[int(o)]) for o in old.ids] for n in new.ids])
    return 0.5 * centroid + 0.5 * keywords.reshape(centroid.shape)


@dataclass(frozen=True)
class Alignment:
    ids: dict[int, int]  # fitted theme -> stable id
    matched: dict[int, int]  # fitted theme -> old id it continues
    lineage: list[Change]


def align(
    new: Themes, old: Themes, new_assign: dict[str, int], old_assign: dict[str, int], *, threshold: float,
    next_id: int, share: float = 0.3,
) -> Alignment:
    """Stable ids for the ``new`` themes; ``*_assign`` map paper id -> theme for overlap counts."""
    from scipy.optimize import linear_sum_assignment

    sim = similarity(new, old) if len(new.ids) and len(old.ids) else np.zeros((len(new.ids), len(old.ids)))
    rows, cols = linear_sum_assignment(-sim) if sim.size else (np.array([], int), np.array([], int))
    matched = {int(new.ids[r]): int(old.ids[c]) for r, c in zip(rows, cols) if sim[r, c] >= threshold}
    sim_of = {(int(new.ids[r]), int(old.ids[c])): float(sim[r, c]) for r in range(len(new.ids)) for c in range(len(old.ids))}

    shared: dict[tuple[int, int], int] = {}
    for paper, n in new_assign.items():
        o = old_assign.get(paper)
        if o is not None and n != -1 and o != -1:
            shared[(n, o)] = shared.get((n, o), 0) + 1
    new_size = {int(t): sum(1 for v in new_assign.values() if v == t) for t in new.ids}
    old_size = {int(t): sum(1 for v in old_assign.values() if v == t) for t in old.ids}

    ids: dict[int, int] = {}
    lineage: list[Change] = []
    for n in map(int, new.ids):
        if n in matched:
            o = matched[n]
            ids[n] = o
            lineage.append(_row(o, o, "same", sim_of[(n, o)], shared.get((n, o), 0)))
            continue
        ids[n] = next_id
        next_id += 1
        sources = [o for o in map(int, old.ids) if new_size[n] and shared.get((n, o), 0) >= share * new_size[n]]
        if len(sources) >= 2:
            lineage.extend(_row(o, ids[n], "merged", sim_of[(n, o)], shared[(n, o)]) for o in sources)
        elif len(sources) == 1:
            o = sources[0]
            lineage.append(_row(o, ids[n], "split", sim_of[(n, o)], shared[(n, o)]))
        else:
            lineage.append(_row(None, ids[n], "new", None, 0))
    matched_old = set(matched.values())
    for o in map(int, old.ids):
        if o in matched_old:
            continue
        targets = [n for n in map(int, new.ids) if old_size[o] and shared.get((n, o), 0) >= share * old_size[o]]
        if len(targets) == 1:
            n = targets[0]
            lineage.append(_row(o, ids[n], "merged", sim_of[(n, o)], shared[(n, o)]))
        else:
            lineage.append(_row(o, None, "retired", None, 0))
    return Alignment(ids=ids, matched=matched, lineage=lineage)


def _row(old: int | None, new: int | None, relation: str, sim: float | None, shared: int) -> Change:
    return Change(old, new, relation, sim, shared)
