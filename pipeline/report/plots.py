"""Figures for the reports. Every function builds and returns a matplotlib Figure; only the report
stage saves them. A theme has the same colour in every figure and every week: the colour is chosen
by its id, not by its rank.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

_PALETTE = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#393b79",
    "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
]
GREY = "#bdbdbd"


def theme_color(topic: int) -> str:
    """The colour of a theme, fixed by its id."""
    if topic < 0:
        return GREY
    return _PALETTE[(topic * 7) % len(_PALETTE)]


def _short(label: str, width: int = 28) -> str:
    short = textwrap.shorten(label, width=width, placeholder="…")
    return short if short != "…" else label[: max(width - 1, 1)] + "…"  # a first word longer than the width


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    fig.set_facecolor("white")
    return fig


def message(text: str, width: float = 7, height: float = 1.6) -> Figure:
    """A figure that says plainly why there is nothing to draw."""
    fig = new_figure(width, height)
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=12, color="#555555", wrap=True)
    return fig


def _style(ax) -> None:  # noqa: ANN001
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="y", color="#eeeeee", linewidth=0.8)
    ax.set_axisbelow(True)


def _week_ticks(ax, weeks: list[str], every: int | None = None) -> None:  # noqa: ANN001
    every = every or max(1, len(weeks) // 10)
    ticks = list(range(0, len(weeks), every))
    ax.set_xticks(ticks, [weeks[i] for i in ticks], rotation=45, ha="right", fontsize=8)


def category_volume(this_week: pd.Series, trailing_mean: pd.Series, *, title: str, note: str) -> Figure:
    """Papers per arXiv category this week next to the trailing weekly mean (top categories)."""
    if this_week.sum() == 0 and trailing_mean.sum() == 0:
        return message("No papers in this week or the weeks before it.")
    cats = (this_week.add(trailing_mean, fill_value=0)).sort_values(ascending=False).index[:12]
    fig = new_figure(7.5, 3.6)
    ax = fig.add_subplot()
    x = np.arange(len(cats))
    ax.bar(x - 0.2, trailing_mean.reindex(cats, fill_value=0), 0.4, color=GREY, label="trailing weekly mean")
    ax.bar(x + 0.2, this_week.reindex(cats, fill_value=0), 0.4, color="#4e79a7", label="this week")
    ax.set_xticks(x, cats, rotation=30, ha="right", fontsize=9)
    ax.set_ylabel("papers")
    ax.set_title(title, loc="left", fontsize=11)
    ax.legend(frameon=False, fontsize=8)
    fig.text(0.01, -0.02, note, fontsize=7.5, color="#666666", ha="left", va="top")
    _style(ax)
    return fig


TOP_SHARE = 10  # themes stacked in the share-by-week chart
TOP_THEMES = 30  # themes in the survey's size bars and sparklines


def share_by_week(shares: pd.DataFrame, labels: dict[int, str], *, title: str, top: int = TOP_SHARE,
                  noun: str = "themes") -> Figure:
    """Stacked bars of the ``top`` themes' shares of each week's papers (largest first, at the bottom).

    The rest (other themes, unassigned papers) is left out rather than drawn as one band: with dozens
    of themes that band would fill most of the chart and squash the themes it is about. A week
    without papers (NaN) is an empty place, never bridged by an area drawn across it."""
    if shares.empty or np.nansum(shares.to_numpy()) == 0:
        return message("No papers in the weeks shown.")
    themes = [t for t in shares.mean().sort_values(ascending=False).index if t != -1][:top]
    weeks = list(shares.index)
    fig = new_figure(9, 4.2)
    ax = fig.add_subplot()
    x = np.arange(len(weeks))
    bottom = np.zeros(len(weeks))
    for t in themes:
        values = np.nan_to_num(shares[t].to_numpy(dtype=float)) * 100
        ax.bar(x, values, 0.8, bottom=bottom, color=theme_color(t), alpha=0.9, label=_short(labels.get(t, str(t))))
        bottom += values
    empty = np.flatnonzero(shares.isna().all(axis=1).to_numpy())
    if len(empty):
        ax.text(0.0, -0.30, f"{len(empty)} of the {len(weeks)} weeks hold no papers (no bar).", transform=ax.transAxes,
                fontsize=7.5, color="#666666", ha="left", va="top")
    ax.set_xlim(-0.6, len(weeks) - 0.4)
    ax.set_ylim(bottom=0)
    named = len([t for t in shares.columns if t != -1])
    ax.set_ylabel(f"share of the week's papers (%),\n{len(themes)} largest of {named} {noun}", fontsize=9)
    _week_ticks(ax, weeks)
    ax.set_title(title, loc="left", fontsize=11)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, fontsize=8, reverse=True)
    _style(ax)
    return fig


def theme_series(shares: pd.DataFrame, themes: list[int], labels: dict[int, str], *, title: str) -> Figure:
    """Small multiples: one panel per theme with its weekly share; the last week highlighted."""
    if not themes:
        return message("No theme rose or fell significantly this week.")
    cols = min(3, len(themes))
    rows = int(np.ceil(len(themes) / cols))
    fig = new_figure(3.2 * cols, 2.3 * rows)
    weeks = list(shares.index)
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True)
    for ax, t in zip(axes.ravel(), themes):
        values = shares[t].to_numpy() * 100 if t in shares else np.zeros(len(weeks))
        ax.plot(range(len(weeks)), values, color=theme_color(t), linewidth=2)
        ax.scatter([len(weeks) - 1], [values[-1]], color=theme_color(t), zorder=3)
        ax.set_title(_short(labels.get(t, str(t)), 34), fontsize=9, loc="left")
        ax.set_ylim(bottom=0)
        _style(ax)
        _week_ticks(ax, weeks, every=max(1, len(weeks) // 4))
    for ax in axes.ravel()[len(themes):]:
        ax.axis("off")
    fig.supylabel("share of the week's papers (%)", fontsize=9)
    fig.suptitle(title, x=0.01, ha="left", fontsize=11)
    return fig


def heatmap(matrix: pd.DataFrame, labels: dict[int, str], *, title: str, note: str) -> Figure:
    """Themes (rows) by arXiv category (columns): papers in each cell."""
    if matrix.empty or matrix.to_numpy().sum() == 0:
        return message("No papers to cross-tabulate.")
    matrix = matrix.loc[:, matrix.sum().sort_values(ascending=False).index[:14]]
    matrix = matrix.loc[matrix.sum(axis=1).sort_values(ascending=False).index[:20]]
    fig = new_figure(1.2 + 0.55 * matrix.shape[1] + 2.4, 1.0 + 0.32 * matrix.shape[0])
    ax = fig.add_subplot()
    image = ax.imshow(matrix.to_numpy(), aspect="auto", cmap="Blues")
    ax.set_xticks(range(matrix.shape[1]), matrix.columns, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(matrix.shape[0]), [_short(labels.get(t, str(t)), 32) for t in matrix.index], fontsize=8)
    for (i, j), v in np.ndenumerate(matrix.to_numpy()):
        if v:
            shade = v > matrix.to_numpy().max() * 0.6
            ax.text(j, i, str(int(v)), ha="center", va="center", fontsize=7, color="white" if shade else "#333333",
                    in_layout=False)
    ax.set_title(title, loc="left", fontsize=11)
    fig.colorbar(image, ax=ax, shrink=0.6, label="papers")
    fig.text(0.01, -0.01, note, fontsize=7.5, color="#666666", ha="left", va="top")
    return fig


def sizes(sizes_: pd.Series, labels: dict[int, str], *, title: str, top: int = TOP_THEMES) -> Figure:
    """Horizontal bars of theme sizes, largest first."""
    if sizes_.empty:
        return message("No themes.")
    sizes_ = sizes_.sort_values(ascending=False).head(top)[::-1]
    fig = new_figure(7.5, 0.6 + 0.25 * len(sizes_))
    ax = fig.add_subplot()
    ax.barh(range(len(sizes_)), sizes_.to_numpy(), color=[theme_color(int(t)) for t in sizes_.index])
    ax.set_yticks(range(len(sizes_)), [_short(labels.get(int(t), str(t)), 36) for t in sizes_.index], fontsize=8)
    ax.set_xlabel("papers")
    ax.set_title(title, loc="left", fontsize=11)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def hierarchy(centroids: np.ndarray, topics: list[int], labels: dict[int, str], *, title: str) -> Figure:
    """Dendrogram of themes by centroid cosine distance: which themes are close."""
    if len(topics) < 2:
        return message("A single theme: nothing to relate.")
    from scipy.cluster.hierarchy import dendrogram, linkage

    link = linkage(centroids, method="average", metric="cosine")
    fig = new_figure(8, 0.6 + 0.24 * len(topics))
    ax = fig.add_subplot()
    dendrogram(link, orientation="left", labels=[_short(labels.get(t, str(t)), 36) for t in topics], ax=ax,
               color_threshold=0, above_threshold_color="#888888", leaf_font_size=8)
    for tick, t in zip(ax.get_yticklabels(), [topics[i] for i in dendrogram(link, no_plot=True)["leaves"]]):
        tick.set_color(theme_color(t))
    ax.set_xlabel("cosine distance between theme centroids")
    ax.set_title(title, loc="left", fontsize=11)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    return fig


def sparklines(counts: pd.DataFrame, labels: dict[int, str], *, title: str, top: int = TOP_THEMES) -> Figure:
    """One tiny weekly line per theme (papers per week), largest themes first."""
    themes = [t for t in counts.sum().sort_values(ascending=False).index if t != -1][:top]
    if not themes:
        return message("No themes.")
    fig = new_figure(7.5, 0.4 + 0.32 * len(themes))
    axes = fig.subplots(len(themes), 1, squeeze=False)[:, 0]
    for ax, t in zip(axes, themes):
        ax.plot(counts[t].to_numpy(), color=theme_color(t), linewidth=1.2)
        ax.fill_between(range(len(counts)), counts[t].to_numpy(), color=theme_color(t), alpha=0.2)
        ax.set_axis_off()
        ax.text(-0.01, 0.5, _short(labels.get(t, str(t)), 34), transform=ax.transAxes, ha="right", va="center", fontsize=7.5)
        ax.text(1.01, 0.5, str(int(counts[t].sum())), transform=ax.transAxes, ha="left", va="center", fontsize=7)
    fig.suptitle(title, x=0.01, ha="left", fontsize=11)
    return fig


def squarify(values: list[float], x: float, y: float, width: float, height: float) -> list[tuple[float, float, float, float]]:
    """Rectangles (x, y, w, h) tiling the box in proportion to ``values`` (sorted largest first), as
    near square as the squarified treemap of Bruls, Huizing and van Wijk (2000) makes them."""
    total = float(sum(values))
    if not values or total <= 0 or width <= 0 or height <= 0:  # nothing to tile, or no room to tile it
        return [(x, y, 0.0, 0.0) for _ in values]
    scaled = [v * width * height / total for v in values]
    rects: list[tuple[float, float, float, float]] = []

    def worst(row: list[float], side: float) -> float:
        s = sum(row)
        return max(max(side * side * r / (s * s), s * s / (side * side * r)) for r in row)

    i = 0
    while i < len(scaled):
        side = min(width, height)
        row = [scaled[i]]
        i += 1
        while i < len(scaled) and worst(row + [scaled[i]], side) <= worst(row, side):
            row.append(scaled[i])
            i += 1
        s = sum(row)
        if width >= height:  # a column on the left
            column = s / height if height else 0.0
            offset = y
            for r in row:
                rects.append((x, offset, column, r / column if column else 0.0))
                offset += r / column if column else 0.0
            x, width = x + column, width - column
        else:  # a row along the bottom
            band = s / width if width else 0.0
            offset = x
            for r in row:
                rects.append((offset, y, r / band if band else 0.0, band))
                offset += r / band if band else 0.0
            y, height = y + band, height - band
    return rects


def fit_name(name: str, width: float, height: float, *, sizes: tuple[float, ...] = (6.5, 6.0, 5.5, 5.0),
             per_unit: float = 1.7, one_line: bool = False) -> tuple[str, float] | None:
    """``name`` wrapped at word boundaries to fit a box ``width`` x ``height`` (the treemap's units:
    62 up the 5.6 in of the figure), at the largest of ``sizes`` (points) where it fits whole, with
    that size; None where it fits at none. ``per_unit``: characters a unit across at ``sizes[0]``."""
    for size in sizes:
        across = int(width * per_unit * sizes[0] / size)
        if across < 3:
            continue
        lines = textwrap.wrap(name, width=across, break_long_words=False, break_on_hyphens=True)
        tall = len(lines) * 1.25 * size / 6.5  # a line of 6.5 pt is about 1.25 units high
        if lines and max(len(line) for line in lines) <= across and tall <= height and (len(lines) == 1 or not one_line):
            return "\n".join(lines), size
    return None


def area_treemap(tree: list[tuple[str, list[tuple[int, str, int]]]], *, title: str) -> Figure:
    """Areas (outlined, named large) holding their themes (coloured, named where they fit, upwards
    in a tall narrow box), each sized by its papers. ``tree``: [(area label, [(theme, label, papers), ...]), ...]."""
    tree = [(area, sorted([t for t in themes if t[2] > 0], key=lambda t: -t[2])) for area, themes in tree]
    tree = sorted([(a, ts) for a, ts in tree if ts], key=lambda a: -sum(t[2] for t in a[1]))
    if not tree:
        return message("No papers in this period.")
    fig = new_figure(9, 5.6)
    ax = fig.add_subplot()
    outer = squarify([sum(t[2] for t in themes) for _, themes in tree], 0, 0, 100, 62)
    for (area, themes), (ax_, ay, aw, ah) in zip(tree, outer):
        inner = squarify([t[2] for t in themes], ax_ + 0.4, ay + 0.4, max(aw - 0.8, 0), max(ah - 3.2, 0))
        for (topic, label, papers), (x, y, w, h) in zip(themes, inner):
            ax.add_patch(Rectangle((x, y), w, h, facecolor=theme_color(topic), alpha=0.55, edgecolor="white",
                                     linewidth=0.8))
            fitted = fit_name(f"{label} {papers}", w - 0.8, h - 0.8)
            if fitted is not None:  # the whole name and the count, wrapped; never cut short
                text, size = fitted
                ax.text(x + 0.4, y + h - 0.4, text, ha="left", va="top", fontsize=size, color="#111111",
                        linespacing=1.0)
            else:
                upright = fit_name(f"{label} {papers}", h - 0.8, w - 0.8)  # tall and narrow: upwards
                if upright is not None:
                    text, size = upright
                    ax.text(x + 0.3, y + 0.4, text, rotation=90, ha="left", va="bottom", fontsize=size,
                            color="#111111", linespacing=1.0)
        ax.add_patch(Rectangle((ax_, ay), aw, ah, facecolor="none", edgecolor="#333333", linewidth=1.4))
        named = (fit_name(area, aw - 1.0, 2.6, sizes=(8.5, 7.5, 6.5), per_unit=1.2, one_line=True)
                 or fit_name(area, aw - 1.0, 2.35, sizes=(6.5, 6.0, 5.5), per_unit=1.2 * 8.5 / 6.5))
        if named is not None:
            ax.text(ax_ + 0.6, ay + ah - 0.5, named[0], ha="left", va="top", fontsize=named[1], fontweight="bold",
                    color="#111111")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 62)
    ax.set_axis_off()
    ax.set_title(title, loc="left", fontsize=11)
    return fig


EVENT_MARKS = {"new": ("^", "born"), "split": ("D", "split off"), "merged": ("o", "merged away"),
               "retired": ("X", "retired")}


def history(events: pd.DataFrame, counts: pd.DataFrame, labels: dict[int, str], *, title: str, top: int = 20) -> Figure:
    """When themes were born, split off, merged away or retired (``events``: topic, relation, week,
    parent), each on its own row over its weekly papers (``counts``: weeks x themes; each row scaled
    to its own busiest week), latest first."""
    if events.empty:
        return message("No theme was born, split, merged or retired in this period: every theme dates from "
                       "the first fit.", width=7.5)
    weeks = list(counts.index) if not counts.empty else sorted(events["week"].unique())
    order = events.sort_values(["week", "topic"], ascending=[False, True]).drop_duplicates("topic").head(top)
    fig = new_figure(7.5, 0.9 + 0.34 * len(order))
    ax = fig.add_subplot()
    for row, (t, _) in enumerate(zip(order["topic"], order["week"])):
        y = len(order) - 1 - row
        if t in counts.columns:  # each row scaled to its own busiest week
            series = counts[t].to_numpy(dtype=float)
            top_ = y + 0.8 * series / max(series.max(), 1.0)
            born = events[(events["topic"] == t) & events["relation"].isin(["new", "split"])]["week"]
            start = weeks.index(born.min()) if len(born) and born.min() in weeks else 0
            x = np.arange(len(weeks))
            # before its birth: the papers that waited in the pool, hatched and faint
            ax.fill_between(x[: start + 1], y, top_[: start + 1], facecolor="none", edgecolor=theme_color(t),
                            hatch="////", alpha=0.5, linewidth=0)
            ax.fill_between(x[start:], y, top_[start:], color=theme_color(t), alpha=0.4, linewidth=0)
        for event in events[events["topic"] == t].itertuples():
            if event.week in weeks:
                marker, _ = EVENT_MARKS[event.relation]
                ax.plot(weeks.index(event.week), y + 0.4, marker=marker, color=theme_color(t), markersize=7,
                        markeredgecolor="#222222", linestyle="none")
        parent = order.loc[order["topic"] == t, "parent"].iloc[0]
        name = _short(labels.get(t, f"theme {t}"), 30) + (f"  (from {_short(labels.get(int(parent), str(parent)), 18)})"
                                                         if pd.notna(parent) else "")
        ax.text(-0.01, y + 0.4, name, transform=ax.get_yaxis_transform(), ha="right", va="center", fontsize=7.5)
    ax.set_ylim(-0.3, len(order))
    ax.set_yticks([])
    _week_ticks(ax, [str(w) for w in weeks])
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    handles = [Line2D([], [], marker=m, linestyle="none", color="#888888", markeredgecolor="#222222", label=word)
               for m, word in EVENT_MARKS.values()]
    handles.append(Patch(facecolor="none", edgecolor="#888888", hatch="////", label="waited in the pool"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7.5, frameon=False)
    ax.set_title(title, loc="left", fontsize=11)
    return fig


def growth(changes: pd.DataFrame, labels: dict[int, str], *, title: str) -> Figure:
    """Bars on a log scale from 1: the themes whose share grew or shrank most between the first and
    last part of a period (``estimate``, with ``low`` and ``high`` as whiskers; faint: not beyond the
    test, ``mover`` false)."""
    if changes.empty:
        return message("Too few weeks, or no theme that may be compared.")
    changes = changes.sort_values("estimate")
    fig = new_figure(7.5, 0.6 + 0.25 * len(changes))
    ax = fig.add_subplot()
    y = np.arange(len(changes))
    logs = np.log2(changes["estimate"].to_numpy(dtype=float))
    colors = [theme_color(int(t)) for t in changes["topic"]]
    alphas = [1.0 if bool(m) else 0.35 for m in changes["mover"].fillna(False)]
    for i, (value, color, alpha) in enumerate(zip(logs, colors, alphas)):
        ax.barh(i, value, color=color, alpha=alpha)
    low, high = np.log2(changes["low"].to_numpy(dtype=float)), np.log2(changes["high"].to_numpy(dtype=float))
    ax.errorbar(logs, y, xerr=[logs - low, high - logs], fmt="none", ecolor="#555555", elinewidth=0.8, capsize=2)
    ax.set_yticks(y, [_short(labels.get(int(t), str(t)), 36) for t in changes["topic"]], fontsize=8)
    ax.axvline(0, color="#555555", linewidth=0.8)
    ticks = np.arange(np.floor(min(low.min(), 0)), np.ceil(max(high.max(), 0)) + 1)
    ax.set_xticks(ticks, [f"{2 ** t:g}×" for t in ticks])
    ax.set_xlabel("change of share, last third of the weeks against the first (rate ratio, log scale)")
    ax.set_title(title, loc="left", fontsize=11)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
