"""Placing papers in themes by their embeddings: centroids, the nearest theme, outliers joining
their nearest theme up to a share left unassigned, and a size bound no joining paper may break."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def nearest_theme_cosines(centroids: np.ndarray) -> np.ndarray:
    """Each theme's cosine to its nearest other theme (unit centroids; NaN where there is no other)."""
    if len(centroids) < 2:
        return np.full(len(centroids), np.nan)
    between = centroids @ centroids.T
    np.fill_diagonal(between, -np.inf)
    return between.max(axis=1)


def centroids_of(embeddings: np.ndarray, topics: np.ndarray, ids: list[int]) -> np.ndarray:
    """Unit-length mean embedding of each topic in ``ids`` (rows in that order)."""
    return unit(np.stack([embeddings[topics == t].mean(axis=0) for t in ids]).astype(np.float32))


# as ``reassign_outliers``'s ``min_similarity``: no paper joins by its similarity (a cosine never
# reaches it); only the cap on unassigned papers places them
CAP_ONLY = float("inf")
BLOCK = 65_536  # papers compared with the centroids at a time, so memory stays flat on millions


def nearest(embeddings: np.ndarray, centroids: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest centroid (as a topic id) and its cosine similarity, per embedding."""
    ids = np.asarray(ids)
    if len(ids) == 0:
        return np.full(len(embeddings), -1), np.zeros(len(embeddings), np.float32)
    best = np.zeros(len(embeddings), dtype=np.int64)
    similarity = np.zeros(len(embeddings), dtype=np.float32)
    for start in range(0, len(embeddings), BLOCK):
        sims = np.asarray(embeddings[start : start + BLOCK], dtype=np.float32) @ centroids.T
        best[start : start + BLOCK] = sims.argmax(axis=1)
        similarity[start : start + BLOCK] = sims[np.arange(len(sims)), best[start : start + BLOCK]]
    return ids[best], similarity


def similarity_to_own(
    embeddings: np.ndarray, topics: np.ndarray, ids: np.ndarray, centroids: np.ndarray, best: np.ndarray
) -> np.ndarray:
    """Cosine of each paper to its theme's centroid; ``best`` (to the nearest theme) where unassigned."""
    if len(ids) == 0:
        return best.astype(np.float32)
    column = np.full(int(max(ids.max(), topics.max(initial=0))) + 2, -1)
    column[np.asarray(ids, dtype=np.int64)] = np.arange(len(ids))
    rows = np.where(topics >= 0, column[np.maximum(topics, 0)], -1)
    own = np.zeros(len(topics), dtype=np.float32)
    for start in range(0, len(topics), BLOCK):
        part = slice(start, start + BLOCK)
        own[part] = np.einsum("ij,ij->i", np.asarray(embeddings[part], dtype=np.float32),
                              centroids[np.maximum(rows[part], 0)])
    return np.where(rows >= 0, own, best).astype(np.float32)


def reassign_outliers(
    topics: np.ndarray, similarity: np.ndarray, nearest_topic: np.ndarray, min_similarity: float, max_share: float,
    candidates: np.ndarray | None = None,
) -> np.ndarray:
    """Unassigned papers (-1; only those in ``candidates`` if given) join their nearest theme if
    similar enough; then the most similar remaining candidates join too, until at most ``max_share``
    of all papers stay unassigned."""
    out = topics.copy()
    candidates = (out == -1) if candidates is None else (candidates & (out == -1))
    if not candidates.any() or (nearest_topic < 0).all():
        return out
    join = candidates & (similarity >= min_similarity)
    out[join] = nearest_topic[join]
    left = np.flatnonzero(candidates & (out == -1))
    allowed = max(0, int(np.floor(max_share * len(out))) - int(((out == -1) & ~candidates).sum()))
    if len(left) > allowed:
        order = left[np.argsort(-similarity[left], kind="stable")]
        extra = order[: len(left) - allowed]
        out[extra] = nearest_topic[extra]
    return out


MIN_THEME_BOUND = 50  # the size bound never splits a theme of 50 papers or fewer (a week's listing)


def size_bound(n: int, share: float) -> int:
    """The most papers a theme of a corpus of ``n`` may hold: ``share`` of them, at least ``MIN_THEME_BOUND``."""
    return max(int(share * n), MIN_THEME_BOUND)


def bound_sizes(topics: np.ndarray, movable: np.ndarray, sims_of: Callable[[np.ndarray], np.ndarray],
                ids: np.ndarray, bound: int) -> np.ndarray:
    """Papers that joined a theme beyond ``bound`` papers join their next most similar theme with
    room instead (least similar first); only ``movable`` papers move (HDBSCAN's outliers in a fit,
    the placed papers of a sampled one), never a theme's core. ``sims_of(rows)``: those papers'
    similarities to every theme (columns in ``ids`` order), asked only for the movable members of
    themes over the bound and ``BLOCK`` papers at a time, so a million placed papers never need a
    papers x themes matrix."""
    out = topics.copy()
    column = {int(t): j for j, t in enumerate(ids)}
    sizes = {int(t): int((out == t).sum()) for t in ids}
    for t in sorted(sizes, key=lambda t: (-sizes[t], t)):
        excess = sizes[t] - bound
        if excess <= 0:
            continue
        joined = np.flatnonzero((out == t) & movable)
        if not len(joined):
            continue
        own = np.concatenate([np.asarray(sims_of(joined[s : s + BLOCK]))[:, column[t]]
                              for s in range(0, len(joined), BLOCK)])
        leaving = joined[np.argsort(own, kind="stable")[:excess]]
        for s in range(0, len(leaving), BLOCK):
            part = leaving[s : s + BLOCK]
            for i, sims in zip(part.tolist(), np.asarray(sims_of(part))):
                for j in np.argsort(-sims, kind="stable"):
                    other = int(ids[j])
                    if other != t and sizes[other] < bound:
                        out[i] = other
                        sizes[other] += 1
                        sizes[t] -= 1
                        break
    return out
