"""The survey's static map: every paper a dot coloured by its theme, each area a shaded region named
above it, theme names beside their points and moved apart until no two overlap; and the outline
of a group of points that the interactive map draws too."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from pipeline.report.plots import new_figure, message, theme_color


HULL_SHARE = 0.9  # an area's region surrounds this share of its papers, those nearest its middle


def hull(points: np.ndarray) -> list[list[float]]:
    """Convex hull (counter-clockwise, Andrew's monotone chain) of 2-D ``points``."""
    pts = sorted(set(map(tuple, np.round(points, 4).tolist())))
    if len(pts) < 3:
        return [list(p) for p in pts]

    def half(seq: list) -> list:
        out: list = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return [list(p) for p in lower[:-1] + upper[:-1]]


def region(xy: np.ndarray) -> list[list[float]]:
    """The outline of a group of points on a map: the hull of the share ``HULL_SHARE`` of ``xy``
    nearest its median, so a few strays do not stretch an area's region across the map."""
    if len(xy) < 3:
        return []
    distance = np.linalg.norm(xy - np.median(xy, axis=0), axis=1)
    keep = distance <= np.quantile(distance, HULL_SHARE)
    return hull(xy[keep]) if keep.sum() >= 3 else []


def theme_map(xy: np.ndarray, topics: np.ndarray, labels: dict[int, str], *, title: str, max_labels: int = 40,
              areas: dict[int, str] | None = None) -> Figure:
    """All papers in 2-D, coloured by theme, each theme named at its centre (labels kept apart);
    with ``areas`` (theme -> area name) each area's region is shaded and named above it."""
    if len(xy) == 0:
        return message("No papers to map.")
    fig = new_figure(10, 8)
    ax = fig.add_subplot()
    area_names = []  # (name, x, y): drawn above the region; theme names keep clear of them
    for name in dict.fromkeys((areas or {}).values()):
        inside = np.isin(topics, [t for t, a in areas.items() if a == name])
        if inside.sum() < 3:
            continue
        outline = np.array(region(xy[inside]))
        if len(outline) >= 3:
            ax.fill(outline[:, 0], outline[:, 1], fc="#8a8a8a", alpha=0.07, ec="#777777", lw=0.8, ls=(0, (4, 3)))
            # an area named by the list of its themes: one theme a line, narrower than the region
            area_names.append(("\n".join(name.upper().split(" · ")), outline[:, 0].mean(), outline[:, 1].max()))
    colors = [theme_color(int(t)) for t in topics]
    ax.scatter(xy[:, 0], xy[:, 1], s=max(2.5, 30000 / max(len(xy), 1) ** 1.1), c=colors, alpha=0.7, linewidths=0,
               rasterized=True)  # tens of thousands of dots: a raster layer even in the SVG
    sizes = pd.Series(topics).value_counts()
    named = [int(t) for t in sizes.index if t != -1][:max_labels]
    centres = np.array([np.median(xy[topics == t], axis=0) for t in named]) if named else np.zeros((0, 2))
    texts = ["\n".join(textwrap.wrap(labels.get(t, str(t)), 18)) for t in named]
    # box sizes as a share of the axes (about 9 x 7.2 inches): 8-point bold, 0.2 padding
    boxes = np.array([[(max(map(len, text.splitlines())) * 5.3 + 6) / 650, (text.count("\n") + 1) * 11.5 / 520 + 0.012]
                      for text in texts]).reshape(-1, 2)
    # frame the themes, not the few stray papers far out: 0.5-99.5 percentiles plus a margin
    low, high = np.percentile(xy, [0.5, 99.5], axis=0)
    margin = 0.06 * np.where(high > low, high - low, 1)
    frame = np.array([low - margin, high + margin])
    # area names sit just above their region, fixed; theme names are pushed clear of them
    span = frame[1] - frame[0]
    area_boxes = np.array([[(max(map(len, name.splitlines())) * 8.2 + 8) / 650, 17 * (name.count("\n") + 1) / 520]
                           for name, _, _ in area_names]).reshape(-1, 2)
    area_xy = np.array([[x, y + area_boxes[k, 1] * span[1] / 2] for k, (_, x, y) in enumerate(area_names)]).reshape(-1, 2)
    if len(area_xy):
        frame[1, 1] = max(frame[1, 1], float((area_xy[:, 1] + area_boxes[:, 1] * span[1]).max()))
    positions = spread_labels(np.vstack([centres, area_xy]), frame, np.vstack([boxes, area_boxes]), fixed=len(area_xy))
    for (name, _, _), (x, y) in zip(area_names, area_xy):
        ax.text(x, y, name, ha="center", va="center", fontsize=11, fontweight="bold", color="#555555")
    for t, text, (cx, cy), (lx, ly) in zip(named, texts, centres, positions):
        ax.annotate(
            text, (cx, cy), (lx, ly), fontsize=8, ha="center",
            va="center", color="#222222", fontweight="bold",
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": theme_color(t), "alpha": 0.85, "lw": 1},
            arrowprops={"arrowstyle": "-", "color": "#777777", "lw": 0.6} if (lx, ly) != (cx, cy) else None,
        )
    ax.set_xlim(frame[0, 0], frame[1, 0])
    ax.set_ylim(frame[0, 1], frame[1, 1])
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(title, loc="left", fontsize=12)
    return fig


def spread_labels(centres: np.ndarray, xy: np.ndarray, boxes: np.ndarray | None = None, iterations: int = 400,
            fixed: int = 0) -> np.ndarray:
    """Move label positions apart so their boxes do not overlap, each staying near its theme.

    ``boxes``: each label's width and height as a share of the plot (default: all alike); the last
    ``fixed`` labels stay where they are and only push the others away. Positions
    are in the plot's unit square during the search; overlapping pairs are pushed apart along the
    axis where they overlap least, and a label drifts back towards its theme only while it is clear."""
    if len(centres) < 2:
        return centres.copy()
    span = np.ptp(xy, axis=0)
    span[span == 0] = 1
    pos = (centres - xy.min(axis=0)) / span
    anchor = pos.copy()
    boxes = np.tile([0.11, 0.045], (len(pos), 1)) if boxes is None else np.asarray(boxes, dtype=float)
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        need = (boxes[:, None, :] + boxes[None, :, :]) / 2 + 0.004
        overlap = need - np.abs(delta)
        hit = (overlap > 0).all(axis=2)
        np.fill_diagonal(hit, False)
        if not hit.any():
            break
        # push each overlapping pair apart along its shallower axis, half the overlap each
        axis = np.argmin(np.where(hit[..., None], overlap, np.inf), axis=2)
        sign = np.sign(delta)
        sign[sign == 0] = 1
        push = np.zeros_like(pos)
        for dim in (0, 1):
            amount = np.where(hit & (axis == dim), overlap[..., dim] * sign[..., dim] / 2, 0.0)
            push[:, dim] = amount.sum(axis=1)
        clear = ~hit.any(axis=1)
        if fixed:
            push[-fixed:] = 0
        pos += 0.6 * push + 0.05 * (anchor - pos) * clear[:, None]
        pos = pos.clip(boxes / 2, 1 - boxes / 2)
        if fixed:
            pos[-fixed:] = anchor[-fixed:]
    return pos * span + xy.min(axis=0)
