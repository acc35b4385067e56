"""Areas: the level above themes, from the tree of theme centroids.

Themes are joined bottom-up by Ward's method on their unit centroids (the agglomeration BERTopic's
``hierarchical_topics`` performs, here over our own centroids), and the tree is cut into about
sqrt(themes) areas (2 to 12; one for up to 2 themes): a field of 50 themes reads as 7 areas; an area
holding more than ``MAX_AREA_SHARE`` of the papers is then split along the tree. Each node of the tree becomes a
row of ``topic_tree.parquet``: themes (leaves), areas (the cut), and the joins within and above the
areas with the distance at which they join.

Area ids are stable like theme ids: a refit matches its areas to the previous ones by the papers
they share (Hungarian matching on Jaccard overlap, at least ``min_overlap``); an unmatched area gets
the next free id, and ids are never reused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.topics.naming.names import AreasToName, by_themes
from pipeline.topics.state import State


# no area holds more than this share of the field's papers while it can be split, nor more than
# UNEVEN times its even share (1/k of k areas) where that is more: with about sqrt(n) areas an even cut
# gives each 1/sqrt(n) (10-14 % of a field of 50-100 themes); an area of a quarter of a field cut in 7
# (14 themes: "LLM inference" over all of ML systems) is too coarse to name, two areas of half a small
# field are not
MAX_AREA_SHARE, UNEVEN = 0.2, 1.5


def n_areas(n_themes: int) -> int:
    return int(np.clip(round(np.sqrt(n_themes)), 2, 12)) if n_themes > 2 else 1


@dataclass(frozen=True)
class Tree:
    """``area_of``: theme id -> local area number (0..k-1); ``rows``: the tree as table rows, with
    local area numbers in ``area`` (renumbered by ``relabel``)."""

    area_of: dict[int, int]
    rows: list[dict]


def _one_area(ids: list[int], sizes: dict[int, int]) -> Tree:
    """Every theme in one area (too few themes to join)."""
    rows = [_row("area:0", None, "area", None, 0, sum(sizes.get(t, 0) for t in ids), 0.0)]
    rows += [_row(f"theme:{t}", "area:0", "theme", t, 0, sizes.get(t, 0), 0.0) for t in ids]
    return Tree({t: 0 for t in ids}, rows)


def build_tree(centroids: np.ndarray, ids: list[int], sizes: dict[int, int], k: int | None = None) -> Tree:
    """Join the themes ``ids`` (rows of ``centroids``) into a tree and cut it into ``k`` areas."""
    ids = [int(t) for t in ids]
    m = len(ids)
    k = n_areas(m) if k is None else k
    if m == 0:
        return Tree({}, [])
    if m < 3 or k <= 1:
        return _one_area(ids, sizes)
    from scipy.cluster.hierarchy import fcluster, linkage

    link = linkage(np.asarray(centroids, dtype=np.float64), method="ward")
    cut = fcluster(link, t=k, criterion="maxclust")
    leaves: dict[int, list[int]] = {i: [ids[i]] for i in range(m)}
    for j, (a, b, _, _) in enumerate(link):
        leaves[m + j] = leaves[int(a)] + leaves[int(b)]
    groups: dict[int, list[int]] = {}
    for t, c in zip(ids, cut.tolist()):
        groups.setdefault(c, []).append(t)
    # areas numbered by size, then by smallest theme id (deterministic)
    ordered = sorted(_finer(list(groups.values()), link, leaves, sizes, k),
                     key=lambda g: (-sum(sizes.get(t, 0) for t in g), min(g)))
    area_of = {t: a for a, group in enumerate(ordered) for t in group}
    area_size = {a: sum(sizes.get(t, 0) for t in g) for a, g in enumerate(ordered)}
    full = {a: set(g) for a, g in enumerate(ordered)}

    def name(node: int) -> str:
        if node < m:
            return f"theme:{ids[node]}"
        inside = {area_of[t] for t in leaves[node]}
        if len(inside) == 1 and set(leaves[node]) == full[next(iter(inside))]:
            return f"area:{next(iter(inside))}"
        return f"join:{node - m}"

    parent: dict[str, str] = {}
    rows = []
    for j, (a, b, height, _) in enumerate(link):
        node = m + j
        for child in (int(a), int(b)):
            parent[name(child)] = name(node)
    for node in range(2 * m - 1):
        label = name(node)
        inside = {area_of[t] for t in leaves[node]}
        area = next(iter(inside)) if len(inside) == 1 else None
        if node < m:
            t = ids[node]
            rows.append(_row(label, parent.get(label), "theme", t, area, sizes.get(t, 0), 0.0))
        else:
            level = "area" if label.startswith("area:") else "join"
            rows.append(_row(label, parent.get(label), level, None, area,
                             sum(sizes.get(t, 0) for t in leaves[node]), float(link[node - m, 2])))
    for a, group in enumerate(ordered):  # an area of one theme: a node of its own above the theme
        if len(group) == 1:
            theme = f"theme:{group[0]}"
            row = next(r for r in rows if r["node"] == theme)
            rows.append(_row(f"area:{a}", row["parent"], "area", None, a, area_size[a], 0.0))
            row["parent"] = f"area:{a}"
    return Tree(area_of, rows)


def _finer(groups: list[list[int]], link: np.ndarray, leaves: dict[int, list[int]], sizes: dict[int, int],
           k: int) -> list[list[int]]:
    """The cut's ``k`` areas, the largest split along the tree (into the two subtrees it joins) while it
    holds more than ``MAX_AREA_SHARE`` of the papers (``UNEVEN / k`` where that is more) and has two
    themes or more, up to ``2 k`` areas."""
    def size(group: list[int]) -> int:
        return sum(sizes.get(t, 0) for t in group)

    m = len(link) + 1
    node_of = {frozenset(v): node for node, v in leaves.items()}
    groups = [list(g) for g in groups]
    limit = max(MAX_AREA_SHARE, UNEVEN / k) * (sum(map(size, groups)) or 1)
    while len(groups) < 2 * k:
        over = [g for g in groups if len(g) >= 2 and size(g) > limit]
        if not over:  # a one-theme area cannot be split: the others over the limit still are
            break
        big = max(over, key=lambda g: (size(g), -min(g)))
        a, b = (int(x) for x in link[node_of[frozenset(big)] - m][:2])
        groups.remove(big)
        groups += [list(leaves[a]), list(leaves[b])]
    return groups


def _row(node: str, parent: str | None, level: str, topic: int | None, area: int | None, size: int,
         distance: float) -> dict:
    return {"node": node, "parent": parent, "level": level, "topic": topic, "area": area, "size": size,
            "distance": distance}


def match(new_members: dict[int, set[str]], old_members: dict[int, set[str]], next_id: int,
          min_overlap: float = 0.5) -> tuple[dict[int, int], int]:
    """Stable ids for new areas (local number -> id): each keeps the id of the old area it shares most
    papers with (Jaccard >= ``min_overlap``, one to one); the others take fresh ids."""
    from scipy.optimize import linear_sum_assignment

    new_keys, old_keys = sorted(new_members), sorted(old_members)
    ids: dict[int, int] = {}
    if new_keys and old_keys:
        overlap = np.array([[len(new_members[a] & old_members[b]) / max(len(new_members[a] | old_members[b]), 1)
                             for b in old_keys] for a in new_keys])
        rows, cols = linear_sum_assignment(-overlap)
        ids = {new_keys[r]: old_keys[c] for r, c in zip(rows, cols) if overlap[r, c] >= min_overlap}
    for a in new_keys:
        if a not in ids:
            ids[a] = next_id
            next_id += 1
    return ids, next_id


def relabel(tree: Tree, ids: dict[int, int]) -> Tree:
    """The tree with local area numbers replaced by stable area ids (in ``area`` and node names)."""
    def rename(node: str | None) -> str | None:
        if node is not None and node.startswith("area:"):
            return f"area:{ids[int(node[5:])]}"
        return node

    rows = [{**r, "node": rename(r["node"]), "parent": rename(r["parent"]),
             "area": ids[r["area"]] if r["area"] is not None else None} for r in tree.rows]
    return Tree({t: ids[a] for t, a in tree.area_of.items()}, rows)


def outline(tree) -> str:  # noqa: ANN001 - a TopicTree table
    """The tree as indented text: each area, then its themes (joins are walked through, not shown)."""
    rows = tree.set_index("node")
    children: dict[str, list[str]] = {}
    for node, parent in zip(tree["node"], tree["parent"]):
        if isinstance(parent, str):
            children.setdefault(parent, []).append(node)
    lines: list[str] = []

    def walk(node: str, depth: int) -> None:
        row = rows.loc[node]
        shown = row["level"] != "join"
        if shown:
            lines.append("  " * depth + f"{row['level']}: {row['label']} ({row['size']} papers)")
        for child in sorted(children.get(node, []), key=lambda c: -int(rows.loc[c, "size"])):
            walk(child, depth + shown)

    for root in tree.loc[tree["parent"].isna(), "node"]:
        walk(root, 0)
    return "\n".join(lines)


def cut(state: State, topics: np.ndarray, embeddings: np.ndarray, paper_ids: list[str], *,
        previous: State | None = None, previous_topics: dict[str, int] | None = None) -> AreasToName:
    """Group the state's themes into areas (``build_tree``), with stable ids: on a refit an area keeps
    the id, and the label (unless it was two of its themes', ``names.by_themes``), of the previous
    area it shares most papers with. Sets the state's areas and tree; the areas are named with the
    rest of the run (``names.name_run``)."""
    from pipeline.topics.clustering.placement import centroids_of

    ids = state.ids.tolist()
    sizes = {t: int((topics == t).sum()) for t in ids}
    tree = build_tree(state.centroids, ids, sizes)
    paper_area = np.array([tree.area_of.get(int(t), -1) for t in topics])
    new_members = {a: set(np.asarray(paper_ids)[paper_area == a].tolist()) for a in set(tree.area_of.values())}
    old_members: dict[int, set[str]] = {}
    if previous is not None and previous.area_of and previous_topics:
        present = set(paper_ids)  # a sampled fit's areas are compared on the sample's papers
        for paper, t in previous_topics.items():
            if t in previous.area_of and paper in present:
                old_members.setdefault(previous.area_of[t], set()).add(paper)
    start = previous.next_area if previous is not None else 0
    stable, state.next_area = match(new_members, old_members, start)
    tree = relabel(tree, stable)
    area_ids = sorted(set(tree.area_of.values()))
    paper_area = np.array([tree.area_of.get(int(t), -1) for t in topics])
    centroids = (centroids_of(embeddings, paper_area, area_ids) if area_ids
                 else np.zeros((0, embeddings.shape[1]), np.float32))
    kept = {a: previous.area_labels[a] for a in area_ids
            if previous is not None and a in previous.area_labels and a in old_members
            and not by_themes(previous.area_labels[a], a, previous.area_of, previous.labels)}
    state.area_of, state.tree = dict(tree.area_of), [dict(row) for row in tree.rows]
    return AreasToName(np.arange(len(topics)), paper_area, np.asarray(topics), area_ids, centroids, kept)
