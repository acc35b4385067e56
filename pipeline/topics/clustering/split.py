"""Themes no larger than a share of the corpus, split along HDBSCAN's own cluster tree.

HDBSCAN's excess-of-mass selection keeps a large cluster whole when its parts are not much more
stable than it: on a field's listings that is how "federated learning" or "consensus protocols"
end up holding a tenth of all papers, and MoE training sits with MoE serving. A theme larger than
the bound is replaced by the clusters it splits into further down the condensed tree (the
denser sub-groups HDBSCAN itself found), recursively, until every part fits or has no sub-clusters
left. Papers that fall out of the tree between the theme and its parts become unassigned, and later
join their nearest theme like any other outlier. A part with no sub-clusters that is still too large
stays whole: the tree is followed, never cut at random.
"""

from __future__ import annotations

import numpy as np


class CondensedTree:
    """Parent and children of each cluster node of an HDBSCAN condensed tree, and the points under it.

    ``raw``: ``hdbscan.HDBSCAN().condensed_tree_.to_numpy()`` (fields parent, child, lambda_val,
    child_size); point ids are below ``n_points``, cluster node ids from ``n_points`` up."""

    def __init__(self, raw: np.ndarray, n_points: int) -> None:
        self.n_points = n_points
        self.point_parent = np.full(n_points, -1, dtype=np.int64)
        self.children: dict[int, list[int]] = {}
        self.parent: dict[int, int] = {}
        direct: dict[int, list[int]] = {}
        for parent, child, size in zip(raw["parent"].tolist(), raw["child"].tolist(), raw["child_size"].tolist()):
            if child < n_points and size == 1:
                self.point_parent[child] = parent
                direct.setdefault(parent, []).append(child)
            else:
                self.children.setdefault(parent, []).append(child)
                self.parent[child] = parent
        self._under: dict[int, np.ndarray] = {}
        nodes = sorted(set(direct) | set(self.children) | set(self.parent), reverse=True)  # children first
        for node in nodes:
            parts = [np.asarray(direct.get(node, []), dtype=np.int64)]
            parts += [self._under[c] for c in self.children.get(node, [])]
            self._under[node] = np.concatenate(parts)

    def under(self, node: int) -> np.ndarray:
        return self._under.get(node, np.zeros(0, dtype=np.int64))

    def node_of(self, members: np.ndarray) -> int | None:
        """The smallest cluster node whose points include all of ``members``."""
        if not len(members) or self.point_parent[members[0]] < 0:
            return None
        node = int(self.point_parent[members[0]])
        wanted = set(members.tolist())
        while not wanted <= set(self.under(node).tolist()):
            if node not in self.parent:
                return None
            node = self.parent[node]
        return node


def split_large(labels: np.ndarray, tree: CondensedTree, max_size: int) -> np.ndarray:
    """Replace every cluster of ``labels`` (-1: noise) holding more than ``max_size`` points by its
    parts in the condensed tree (see the module docstring). New clusters get the next free labels,
    the largest part keeps the old one; points in none of the parts become -1."""
    out = labels.copy()
    next_label = int(labels.max()) + 1 if len(labels) else 0
    for label in sorted(set(labels.tolist()) - {-1}):
        members = np.flatnonzero(labels == label)
        if len(members) <= max_size:
            continue
        node = tree.node_of(members)
        if node is None:
            continue
        stack, parts = [node], []
        while stack:
            current = stack.pop()
            below = tree.children.get(current, [])
            if len(tree.under(current)) > max_size and len(below) >= 2:
                stack.extend(below)
            else:
                parts.append(current)
        if len(parts) < 2:
            continue
        parts.sort(key=lambda p: (-len(tree.under(p)), p))
        out[members] = -1
        keep = np.zeros(len(labels), dtype=bool)
        keep[members] = True
        for i, part in enumerate(parts):
            points = tree.under(part)
            points = points[keep[points]]
            out[points] = label if i == 0 else next_label
            next_label += i > 0
    return out

