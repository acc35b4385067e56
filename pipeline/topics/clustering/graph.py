"""Themes as communities of the papers' nearest-neighbour graph (Leiden, by consensus).

UMAP + HDBSCAN drew different borders under different seeds: two seeds of the same corpus agreed
at ARI 0.57-0.62, and no setting of UMAP or HDBSCAN moved that past 0.65 (docs/design/themes.md).
A graph partition does not need a random layout first:

1. **The graph.** Each paper is joined to its ``n_neighbors`` most similar papers (exact cosine over
   the unit vectors, computed a block of rows at a time), weighted by that cosine; an edge found
   from either end counts once. With ``layout`` (UMAP models, each seeded apart), the papers'
   nearest neighbours in each layout are added, the layouts' graphs averaged: one layout's
   randomness was most of what two seeds still disagreed on (ARI before naming about 0.82 with one
   layout, 0.87-0.92 with three).
2. **Consensus.** Leiden (Traag, Waltman & van Eck 2019; scikit-network's implementation, modularity
   at ``resolution``) partitions the graph ``runs`` times, each visiting the papers in another
   random order. Each edge is then weighed by the share of runs that put its two papers together,
   and a last Leiden run partitions that consensus graph (Lancichinetti & Fortunato 2012). Borders
   that only some orders draw fade out; on the cs.DC listings and the 2025 sample this raised the
   agreement of two seeds from about 0.7 for one run to 0.85 and more.
3. **Sizes.** A community above ``max_cluster_size`` is partitioned again on its own, at a rising
   resolution, until every piece fits; one under ``min_cluster_size`` is left unassigned (-1), as
   HDBSCAN's outliers are, for the caller to place.

``LeidenThemes`` follows scikit-learn's conventions (``fit`` returns ``self``; ``labels_``,
``graph_``), so BERTopic takes it as its ``hdbscan_model``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import sparse

from pipeline.progress import progress

BLOCK = 2048  # rows of the similarity matrix held at once


def neighbour_graph(embeddings: np.ndarray, n_neighbors: int, metric: str = "cosine") -> sparse.csr_matrix:
    """The symmetric ``n_neighbors``-nearest-neighbour graph of the rows of ``embeddings``. For
    ``"cosine"`` (rows are unit vectors) an edge weighs the cosine (at least a small positive
    weight, so every found edge stays an edge); for ``"euclidean"`` (a layout) ``exp(-d / mean d)``
    over the edges' distances ``d``."""
    x = np.asarray(embeddings, dtype=np.float32)
    n = len(x)
    k = min(n_neighbors, n - 1)
    if k < 1:
        return sparse.csr_matrix((n, n), dtype=np.float32)
    squares = (x * x).sum(axis=1)
    rows, cols, weights = [], [], []
    for start in range(0, n, BLOCK):
        sims = x[start:start + BLOCK] @ x.T
        if metric == "euclidean":  # minus the squared distance ranks as similarity does
            sims = 2 * sims - squares[start:start + BLOCK, None] - squares[None, :]
        own = np.arange(start, min(start + BLOCK, n))
        sims[own - start, own] = -np.inf  # a paper is not its own neighbour
        nearest = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        rows.append(np.repeat(own, k))
        cols.append(nearest.ravel())
        weights.append(np.take_along_axis(sims, nearest, axis=1).ravel())
    w = np.concatenate(weights)
    if metric == "euclidean":
        d = np.sqrt(np.maximum(-w, 0))
        w = np.exp(-d / max(float(d.mean()), 1e-12))
    w = np.maximum(w, 1e-3).astype(np.float32)
    graph = sparse.csr_matrix((w, (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    return graph.maximum(graph.T).tocsr()


@cache
def _c_library():  # noqa: ANN202 - a ctypes library, or None
    import ctypes

    try:
        return ctypes.CDLL(None)
    except (OSError, TypeError):  # no C library by that name (Windows): the refinement draws as it will
        return None


def leiden(graph: sparse.csr_matrix, resolution: float, seed: int) -> np.ndarray:
    """One Leiden partition of ``graph``, visiting the nodes in an order drawn from ``seed``.

    scikit-network's refinement step draws from the C library's ``rand()``, whose state is the
    process's: unseeded, the same call gave another partition after other calls in the process.
    It is seeded here with ``seed`` too, so a partition depends on its arguments alone. That state
    is the whole process's: two threads partitioning at once would draw from it in turn."""
    from sknetwork.clustering import Leiden

    seed = int(seed) % 2**32
    if graph.nnz == 0:  # no edges: every node on its own
        return np.arange(graph.shape[0], dtype=int)
    library = _c_library()
    if library is not None and hasattr(library, "srand"):
        library.srand(seed)
    model = Leiden(resolution=resolution, modularity="newman", shuffle_nodes=True, random_state=seed,
                   sort_clusters=True, return_probs=False, return_aggregate=False)
    return np.asarray(model.fit_predict(graph), dtype=int)


def consensus(graph: sparse.csr_matrix, resolution: float, runs: int, seed: int) -> tuple[np.ndarray, sparse.csr_matrix]:
    """The partition of the consensus graph of ``runs`` Leiden partitions (see the module's
    docstring), and that graph. With ``runs`` under 2, one plain Leiden partition."""
    if runs < 2 or graph.nnz == 0:
        return leiden(graph, resolution, seed), graph
    edges = graph.tocoo()
    together = np.zeros(edges.nnz, dtype=np.float32)
    seeds = np.random.default_rng(seed).integers(0, 2**31 - 1, size=runs).tolist()
    for run_seed in progress(seeds, desc="clustering", unit="run"):
        labels = leiden(graph, resolution, run_seed)
        together += labels[edges.row] == labels[edges.col]
    agreed = sparse.csr_matrix((edges.data * together / runs, (edges.row, edges.col)), shape=graph.shape)
    agreed.eliminate_zeros()
    return leiden(agreed, resolution, seed), agreed


def bound(graph: sparse.csr_matrix, labels: np.ndarray, resolution: float, max_size: int, seed: int) -> np.ndarray:
    """``labels`` with every community above ``max_size`` nodes partitioned again on its own
    subgraph, the resolution raised by half each time, until each piece fits (or the community
    cannot be cut: then it stays whole)."""
    labels = labels.copy()
    if max_size <= 0:
        return labels
    queue = np.flatnonzero(np.bincount(labels) > max_size).tolist()
    next_label = int(labels.max()) + 1
    while queue:
        members = np.flatnonzero(labels == queue.pop(0))
        sub = graph[members][:, members]
        res = resolution
        for _ in range(12):
            res *= 1.5
            pieces = leiden(sub, res, seed)
            if np.bincount(pieces).max() <= max_size:
                break
        if len(np.unique(pieces)) < 2:
            continue
        for piece in np.unique(pieces)[1:].tolist():  # the largest piece keeps the label
            labels[members[pieces == piece]] = next_label
            if (pieces == piece).sum() > max_size:
                queue.append(next_label)
            next_label += 1
        if (pieces == 0).sum() > max_size:
            queue.append(int(labels[members[pieces == 0][0]]))
    return labels


class LeidenThemes:
    """Cluster unit vectors as communities of their nearest-neighbour graph (module docstring).

    Learned: ``labels_`` (community per row, numbered by size, largest 0, ties by their first
    row; -1 for rows in communities under ``min_cluster_size``) and ``graph_`` (the consensus graph;
    the neighbour graph itself when ``runs`` is 1). ``layout``: a model with ``fit_transform``
    (UMAP), a list of them, or None."""

    def __init__(self, n_neighbors: int = 15, resolution: float = 6.0, runs: int = 10, min_cluster_size: int = 5,
                 max_cluster_size: int = 0, layout: object | None = None, random_state: int = 42) -> None:
        self.n_neighbors = n_neighbors
        self.layout = layout
        self.resolution = resolution
        self.runs = runs
        self.min_cluster_size = min_cluster_size
        self.max_cluster_size = max_cluster_size
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: None = None) -> LeidenThemes:  # noqa: N803 - scikit-learn's name
        x = np.asarray(X, dtype=np.float32)
        x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        graph = neighbour_graph(x, self.n_neighbors)
        layouts = self.layout if isinstance(self.layout, (list, tuple)) else [self.layout] if self.layout is not None else []
        for layout in progress(layouts, desc="layouts", unit="layout"):  # and each layout's neighbours, averaged
            graph = graph + neighbour_graph(layout.fit_transform(x), self.n_neighbors, "euclidean") / len(layouts)
        graph = graph.tocsr()
        labels, self.graph_ = consensus(graph, self.resolution, self.runs, self.random_state)
        labels = bound(self.graph_, labels, self.resolution, self.max_cluster_size, self.random_state)
        sizes = np.bincount(labels, minlength=labels.max() + 1)
        first = np.full(len(sizes), len(labels))
        np.minimum.at(first, labels, np.arange(len(labels)))
        kept = np.flatnonzero(sizes >= self.min_cluster_size)
        order = kept[np.lexsort((first[kept], -sizes[kept]))]  # by size, ties by first paper (as BERTopic)
        rank = np.full(len(sizes), -1, dtype=int)
        rank[order] = np.arange(len(order))
        self.labels_ = rank[labels]
        return self

    def fit_predict(self, X: np.ndarray, y: None = None) -> np.ndarray:  # noqa: N803
        return self.fit(X).labels_
