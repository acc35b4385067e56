"""Turning report content into files: figures as PNG + SVG, a self-contained HTML page, Markdown.

Every string that comes from the data is escaped in HTML (jinja2 autoescape): an abstract or title
containing ``<script>`` renders as text. The HTML embeds its figures (PNG, base64), so
``index.html`` opens from disk, mailed or moved; the same figures are written beside it.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path

from matplotlib import rc_context
from matplotlib.figure import Figure

from pipeline.io import atomic_path


@dataclass
class SavedFigure:
    name: str
    caption: str
    png_base64: str
    files: list[str] = field(default_factory=list)


def save_figure(fig: Figure, folder: Path, name: str, caption: str) -> SavedFigure:
    """Write ``figures/<name>.png`` and ``.svg``; the PNG is drawn once and also embedded in the HTML."""
    folder.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight", dpi=110)
    png = buffer.getvalue()
    with atomic_path(folder / f"{name}.png") as tmp:
        tmp.write_bytes(png)
    # text stays text in the SVG (searchable, small, and several times faster than glyph outlines)
    with atomic_path(folder / f"{name}.svg") as tmp, rc_context({"svg.fonttype": "none"}):
        fig.savefig(tmp, format="svg", bbox_inches="tight")
    return SavedFigure(name, caption, base64.b64encode(png).decode(), [f"figures/{name}.png", f"figures/{name}.svg"])


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


STYLE = """
body { font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #222;
       max-width: 1100px; margin: 2em auto; padding: 0 1.2em; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #e5e5e5; }
.sub { color: #666; margin-top: 0; } .note { color: #666; font-size: 0.85em; }
.explore { background: #eef3fb; border: 1px solid #c9d8ef; border-radius: 6px; padding: 8px 12px; }
.lead { font-size: 1.1em; line-height: 1.5; max-width: 60em; }
.numbers { display: flex; flex-wrap: wrap; gap: 1em; } .numbers div { background: #f6f8fa; border-radius: 8px;
  padding: 0.6em 1em; min-width: 9em; } .numbers b { display: block; font-size: 1.6em; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; margin: 0.6em 0; }
th, td { text-align: left; padding: 0.3em 0.5em; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #fafafa; } tr.area th { background: #eef2f7; font-size: 1.02em; padding-top: 0.6em; }
.desc { color: #666; font-size: 0.86em; margin: 0.1em 0 0.2em 1.3em; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px; margin-right: 0.4em; }
.status-rising { color: #1a7f37; font-weight: 600; } .status-falling { color: #cf222e; font-weight: 600; }
.status-new { color: #0969da; font-weight: 600; } .status-quiet { color: #8c959f; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; } figcaption { color: #555; font-size: 0.88em; }
details { margin: 0.2em 0 0.6em; } summary { cursor: pointer; color: #0969da; }
.empty { background: #fff8c5; border: 1px solid #e3d98b; padding: 0.8em 1em; border-radius: 6px; }
"""


def environment():  # noqa: ANN201
    from jinja2 import BaseLoader, Environment, StrictUndefined

    env = Environment(loader=BaseLoader(), autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["pct"] = lambda v, digits=1: f"{100 * v:.{digits}f} %"
    env.filters["signed"] = lambda v: f"{v:+.1f}"
    return env


def render(template: str, **context) -> str:  # noqa: ANN003
    return environment().from_string(template).render(style=STYLE, **context)


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
