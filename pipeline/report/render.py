"""Turning report content into files: figures as PNG + SVG, a self-contained HTML page, Markdown.

Every string that comes from the data is escaped in HTML (jinja2 autoescape): an abstract or title
containing ``<script>`` renders as text. The HTML embeds its figures (PNG, base64), so
``index.html`` opens from disk, mailed or moved; the same figures are written beside it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from pipeline.io import FigureDrawing, write_figures


@dataclass
class SavedFigure:
    name: str
    caption: str
    png_base64: str
    files: list[str] = field(default_factory=list)


def save_figures(figures: dict[str, tuple[Figure, str]], folder: Path,
                 drawing: FigureDrawing | None = None) -> dict[str, SavedFigure]:
    """Write ``<folder>/<name>.png`` and ``.svg`` of each (figure, caption); each PNG is drawn once and
    also embedded in the HTML. ``drawing``: where the figures were already handed over as they were
    made (``FigureDrawing.start``), so that they are drawn while the report was being computed."""
    if drawing is None:
        pngs = write_figures({name: fig for name, (fig, _) in figures.items()}, folder)
    else:
        pngs = drawing.write(folder)
    return {name: SavedFigure(name, caption, base64.b64encode(pngs[name]).decode(),
                              [f"figures/{name}.png", f"figures/{name}.svg"])
            for name, (_, caption) in figures.items()}


def environment():  # noqa: ANN201
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(loader=PackageLoader("pipeline.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda v, digits=1: f"{100 * v:.{digits}f} %"
    env.filters["signed"] = lambda v: f"{v:+.1f}"
    return env


def render(template: str, **context) -> str:  # noqa: ANN003
    """``templates/<template>`` rendered with ``context`` and the pages' style sheet (``report.css``)."""
    env = environment()
    return env.get_template(template).render(style=env.loader.get_source(env, "report.css")[0], **context)


LINK_HOSTS = ("arxiv.org", "doi.org")  # and their subdomains (export.arxiv.org, dx.doi.org)


def safe_url(url: object) -> str | None:
    """A link target taken from the data, or None when it must not be a link: only http(s) URLs to
    arXiv or a DOI resolver, without quotes, angle brackets, backticks or whitespace, qualify
    (``javascript:``, ``data:`` and look-alike hosts do not). Parentheses are percent-encoded so
    the URL cannot end a Markdown link early."""
    from urllib.parse import urlsplit

    if not isinstance(url, str):
        return None
    url = url.strip()
    if not url or any(c in url for c in "\"'<>`\\ \t\r\n"):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() not in ("http", "https") or not any(host == h or host.endswith("." + h) for h in LINK_HOSTS):
        return None
    return url.replace("(", "%28").replace(")", "%29")


# A plain arXiv or DOI link that safe_url returns unchanged: scheme, dotted host ending in a link host, and
# a path without the characters it refuses or rewrites. Anything else takes the full check.
_PLAIN_LINK = r"^https?://(?:[A-Za-z0-9-]+\.)*(?:arxiv|doi)\.org(?:/[^\s\"'<>`\\()]*)?\Z"


def safe_urls(urls: pd.Series) -> pd.Series:
    """``safe_url`` of every value of a column, fast on a corpus's worth of plain arXiv links: those
    pass as they are, only the rest are checked one by one."""
    import numpy as np

    plain = urls.astype("string").str.match(_PLAIN_LINK, case=False).fillna(False).to_numpy(dtype=bool)
    out = np.empty(len(urls), dtype=object)
    out[plain] = urls[plain].to_numpy(dtype=object)
    out[~plain] = [safe_url(u) for u in urls[~plain]]
    return pd.Series(out, index=urls.index, dtype=object)


def md_escape(text: str) -> str:
    """Text from the data made safe inside Markdown tables and links."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("[", "\\[").replace("]", "\\]").replace(
        "<", "&lt;").replace(">", "&gt;").replace("\n", " ")


def md_paper_links(rows: pd.DataFrame, most: int) -> list[str]:
    """The first ``most`` papers of ``rows`` as an indented Markdown list, linked where they have a URL."""
    from pipeline.schemas import Papers

    out = []
    for p in rows.head(most).itertuples():
        title, url = md_escape(getattr(p, Papers.title)), getattr(p, Papers.url)
        out.append(f"  - [{title}]({url})" if isinstance(url, str) and url else f"  - {title}")
    return out
