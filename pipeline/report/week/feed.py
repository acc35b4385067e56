"""The weekly reports as an Atom feed (RFC 4287), ``reports/weekly/feed.xml``: one entry per weekly
report (its opening paragraph, movers, watched themes and a link to the page), so a reader can
subscribe; and the archive page beside it, ``reports/weekly/index.html`` (``archive``): every weekly
report, newest first, with its opening paragraph. Both are built from the ``summary.json`` each weekly
report writes beside its page.

Ids are permanent and unique to the project: the first feed written draws a random UUID and keeps it
in ``reports/weekly/.feed-id``; each entry's id is derived from it and the report's folder name.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path
from xml.sax.saxutils import escape

from pipeline.io import read_text, write_text

ATOM = "http://www.w3.org/2005/Atom"
SUMMARY = "summary.json"
FEED_ID = ".feed-id"
EPOCH = "1970-01-01T00:00:00Z"


def summary(week: str, opening: list[str], movers: list[str], watched: list[str], level: str) -> dict:
    """What the feed says of one report (written as ``summary.json`` beside its page)."""
    return {"week": week, "level": level, "opening": " ".join(opening), "movers": movers, "watched": watched,
            "updated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


def feed_id(folder: Path) -> uuid.UUID:
    """The project's feed id: drawn once, kept in ``<folder>/.feed-id``."""
    path = folder / FEED_ID
    try:
        return uuid.UUID(read_text(path).strip())
    except (OSError, ValueError):
        made = uuid.uuid4()
        write_text(path, str(made) + "\n")
        return made


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def summaries(folder: Path) -> list[tuple[str, dict]]:
    """(folder name, summary) of every weekly report under ``folder``, newest first."""
    entries = []
    for path in sorted(folder.glob(f"*/{SUMMARY}"), reverse=True):
        try:
            entry = json.loads(read_text(path))
        except (OSError, ValueError):
            continue  # a report folder being replaced right now: the next report's feed lists it
        if isinstance(entry, dict):
            entries.append((path.parent.name, entry))
    return entries


def feed(folder: Path, base_url: str = "") -> str:
    """The Atom feed of every weekly report under ``folder`` (newest first). Links are relative to
    the feed (``2026-W23/index.html``) unless ``base_url`` says where ``folder`` is published; the
    feed links to the archive page, ``index.html`` beside it."""
    ident = feed_id(folder)
    entries = summaries(folder)
    updated = max((str(e.get("updated", EPOCH)) for _, e in entries), default=EPOCH)
    root = base_url.rstrip("/") + "/" if base_url else ""
    out = ['<?xml version="1.0" encoding="utf-8"?>', f'<feed xmlns="{ATOM}">',
           "  <title>paper-trends: weekly research trends</title>", f"  <id>urn:uuid:{ident}</id>",
           f"  <updated>{updated}</updated>", "  <author><name>paper-trends</name></author>",
           f'  <link rel="self" href="{_attr(root)}feed.xml"/>',
           f'  <link rel="alternate" type="text/html" href="{_attr(root)}index.html"/>']
    for name, e in entries:
        opening = str(e.get("opening", ""))
        parts = [f"<p>{escape(opening)}</p>"]
        for key, title in (("movers", "Moved"), ("watched", "Watched")):
            if e.get(key):
                parts.append(f"<p>{title}:</p><ul>" + "".join(f"<li>{escape(str(m))}</li>" for m in e[key]) + "</ul>")
        title = f"Research trends, {e.get('week', name)}" + (": areas" if e.get("level") == "area" else "")
        out += ["  <entry>", f"    <title>{escape(title)}</title>",
                f'    <link rel="alternate" type="text/html" href="{_attr(root + name + "/index.html")}"/>',
                f"    <id>urn:uuid:{uuid.uuid5(ident, name)}</id>", f"    <updated>{e.get('updated', EPOCH)}</updated>",
                f"    <summary>{escape(opening)}</summary>",
                f'    <content type="html">{escape("".join(parts))}</content>', "  </entry>"]
    return "\n".join(out + ["</feed>"]) + "\n"


def archive(folder: Path) -> str:
    """The archive page of every weekly report under ``folder``, newest first: week, opening
    paragraph, a link to the report, and a link to the feed."""
    from pipeline.report.render import render

    reports = [{"name": name, "week": e.get("week", name), "level": e.get("level", "theme"),
                "opening": str(e.get("opening", ""))} for name, e in summaries(folder)]
    return render("archive.html.j2", reports=reports)
