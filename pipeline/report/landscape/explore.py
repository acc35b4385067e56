"""The interactive map of a survey: ``map.html``, one self-contained page.

Every paper is a point on a canvas, coloured by its theme, each area a dashed region; hovering a
point shows its title, authors, week and theme, clicking opens its arXiv page, a search box marks the
papers whose title or authors hold every word typed, and areas and themes can be switched on and off.
The page's data, script and styles are all inside it and its Content-Security-Policy forbids every
fetch, so it opens from disk with no network at all (no CDN, no web fonts). The drawing code is a
few hundred lines of plain JavaScript in ``templates/map.html.j2``: plotly would add 3.5 MB of script to
every page and has no search or area/theme tree, and DataMapPlot's interactive pages load deck.gl and
fonts from CDNs.

Text from the data reaches the page only as JSON inside a ``<script type="application/json">``
element (``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no title can end the element) and is
put on screen with ``textContent``, never as HTML.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from pipeline.report.landscape.mapplot import region
from pipeline.report.plots import GREY, theme_color
from pipeline.report.render import safe_urls
from pipeline.schemas import Papers

AREA_COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
               "#ccb974", "#64b5cd"]


def _authors(names: object) -> str:
    """Every author, comma-separated: the search covers them all; the tooltip shows the first four."""
    names = list(names) if isinstance(names, (list, tuple, np.ndarray)) else []
    return ", ".join(str(n).replace(",", " ") for n in names)


def _point(x: float, y: float) -> list[float]:
    return [round(float(x), 4), round(float(y), 4)]


def _ends(outline: list[list[float]], middle: np.ndarray) -> dict:
    """Where an area's name may go: above (``top``) or below (``bottom``) its region's outline."""
    if not outline:
        return {"top": _point(*middle), "bottom": _point(*middle)}
    x = np.mean([p[0] for p in outline])
    return {"top": _point(x, max(p[1] for p in outline)), "bottom": _point(x, min(p[1] for p in outline))}


def map_data(papers: pd.DataFrame, xy: np.ndarray, topics: np.ndarray, labels: dict[int, str],
             areas: dict[int, tuple[int, str]], *, title: str, subtitle: str) -> dict:
    """What ``map.html`` draws: per paper its place, theme, week, title, authors, link and id; per
    theme its label, colour, area, size and the middle of its papers (where its name goes); per area
    its label, themes, region and middle. ``areas``: theme -> (area id, area label)."""
    topics = np.asarray(topics, dtype=int)
    sizes = pd.Series(topics[topics >= 0]).value_counts()
    ids = [int(t) for t in sizes.index]  # largest first: names are placed in this order
    index = {t: k for k, t in enumerate(ids)}
    members: dict[int, list[int]] = {}  # area -> its themes' places in ``ids``
    for k, t in enumerate(ids):
        if t in areas:
            members.setdefault(areas[t][0], []).append(k)
    area_ids = sorted(members, key=lambda a: -sum(int(sizes[ids[k]]) for k in members[a]))  # largest first
    area_index = {a: j for j, a in enumerate(area_ids)}
    themes = []
    for t in ids:
        themes.append({"id": t, "label": labels.get(t, str(t)), "color": theme_color(t), "n": int(sizes[t]),
                       "area": area_index[areas[t][0]] if t in areas else -1,
                       **dict(zip("xy", _point(*np.median(xy[topics == t], axis=0))))})
    area_rows = []
    for j, a in enumerate(area_ids):
        inside = np.isin(topics, [ids[k] for k in members[a]])
        middle = np.median(xy[inside], axis=0)
        outline = region(xy[inside])
        area_rows.append({"id": int(a), "label": areas[ids[members[a][0]]][1], "themes": members[a],
                          "n": int(inside.sum()), "color": AREA_COLORS[j % len(AREA_COLORS)],
                          **dict(zip("xy", _point(*middle))), "hull": outline, **_ends(outline, middle)})
    weeks = sorted(papers[Papers.week].unique().tolist())
    week_index = {w: j for j, w in enumerate(weeks)}
    return {
        "title": title, "subtitle": subtitle, "themes": themes, "areas": area_rows, "weeks": weeks,
        "unassigned": int((topics < 0).sum()), "unassigned_color": GREY,
        "point_scale": float(np.clip((6000 / max(len(topics), 1)) ** 0.35, 0.6, 1.6)),
        "x": np.round(xy[:, 0], 4).tolist(), "y": np.round(xy[:, 1], 4).tolist(),
        "t": [index.get(int(t), -1) for t in topics],
        "w": [week_index[w] for w in papers[Papers.week]],
        "id": papers[Papers.paper_id].tolist(),
        "title_of": papers[Papers.title].tolist(),
        "authors": [_authors(a) for a in papers[Papers.authors]],
        # links are checked when the corpus is joined, and again here: only arXiv and DOI pages open
        "url": safe_urls(papers[Papers.url]).tolist(),
    }


def script_json(data: dict) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` as such."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for c, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(c, escape)
    return text


def map_html(data: dict) -> str:
    """The self-contained interactive map page for ``data`` (``map_data``; ``templates/map.html.j2``)."""
    from markupsafe import Markup

    from pipeline.report.render import environment

    return environment().get_template("map.html.j2").render(data=Markup(script_json(data)))


def notebook_frame(page: str, height: int = 640) -> str:
    """HTML that shows a ``map.html`` page inside a notebook: the page in an iframe's ``srcdoc``, so
    it needs no server path and keeps its own script."""
    from html import escape

    # in a <div>: IPython warns about HTML that starts with an iframe, which this one needs to be
    return (f'<div><iframe srcdoc="{escape(page, quote=True)}" style="width:100%;height:{int(height)}px;'
            f'border:1px solid #ddd" sandbox="allow-scripts allow-popups"></iframe></div>')
