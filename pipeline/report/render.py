"""Turning report content into files: figures as PNG + SVG, a self-contained HTML page, Markdown.

Every string that comes from the data is escaped in HTML (jinja2 autoescape): an abstract or title
containing ``<script>`` renders as text. The HTML embeds its figures (PNG, base64), so
``index.html`` opens from disk, mailed or moved; the same figures are written beside it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path

from matplotlib.figure import Figure

from pipeline.io import write_figure


@dataclass
class SavedFigure:
    name: str
    caption: str
    png_base64: str
    files: list[str] = field(default_factory=list)


def save_figure(fig: Figure, folder: Path, name: str, caption: str) -> SavedFigure:
    """Write ``figures/<name>.png`` and ``.svg``; the PNG is drawn once and also embedded in the HTML."""
    png = write_figure(fig, folder, name)
    return SavedFigure(name, caption, base64.b64encode(png).decode(), [f"figures/{name}.png", f"figures/{name}.svg"])


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


def md_escape(text: str) -> str:
    """Text from the data made safe inside Markdown tables and links."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("[", "\\[").replace("]", "\\]").replace(
        "<", "&lt;").replace(">", "&gt;").replace("\n", " ")
