"""The weekly reports as an Atom feed (RFC 4287), ``reports/weekly/feed.xml``: one entry per weekly
report (its opening paragraph, movers, watched themes and a link to the page), so a reader can
subscribe. Built from the ``summary.json`` each weekly report writes beside its page."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from xml.sax.saxutils import escape

ATOM = "http://www.w3.org/2005/Atom"
SUMMARY = "summary.json"


def summary(week: str, opening: list[str], movers: list[str], watched: list[str], level: str) -> dict:
    """What the feed says of one report (written as ``summary.json`` beside its page)."""
    return {"week": week, "level": level, "opening": " ".join(opening), "movers": movers, "watched": watched,
            "updated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


def feed(folder: Path, base_url: str = "") -> str:
    """The Atom feed of every weekly report under ``folder`` (newest first). Links are relative to
    the feed (``2026-W23/index.html``) unless ``base_url`` is given."""
    entries = []
    for path in sorted(folder.glob(f"*/{SUMMARY}"), reverse=True):
        try:
            entries.append((path.parent.name, json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            continue  # a report being replaced right now: the next report's feed lists it
    updated = max((e["updated"] for _, e in entries), default="1970-01-01T00:00:00Z")
    root = base_url.rstrip("/") + "/" if base_url else ""
    out = ['<?xml version="1.0" encoding="utf-8"?>', f'<feed xmlns="{ATOM}">',
           "  <title>paper-trends: weekly research trends</title>",
           f'  <id>urn:paper-trends:weekly:{escape(str(folder.resolve()))}</id>',
           f"  <updated>{updated}</updated>", "  <author><name>paper-trends</name></author>",
           f'  <link rel="self" href="{escape(root)}feed.xml"/>']
    for name, e in entries:
        href = escape(f"{root}{name}/index.html", {'"': "&quot;"})
        parts = [f"<p>{escape(e['opening'])}</p>"]
        if e.get("movers"):
            parts.append("<p>Moved:</p><ul>" + "".join(f"<li>{escape(m)}</li>" for m in e["movers"]) + "</ul>")
        if e.get("watched"):
            parts.append("<p>Watched:</p><ul>" + "".join(f"<li>{escape(w)}</li>" for w in e["watched"]) + "</ul>")
        title = f"Research trends, {e['week']}" + (": areas" if e.get("level") == "area" else "")
        out += ["  <entry>", f"    <title>{escape(title)}</title>", f'    <link rel="alternate" type="text/html" href="{href}"/>',
                f"    <id>urn:paper-trends:weekly:{escape(name)}</id>", f"    <updated>{e['updated']}</updated>",
                f"    <summary>{escape(e['opening'])}</summary>",
                f'    <content type="html">{escape("".join(parts))}</content>', "  </entry>"]
    return "\n".join(out + ["</feed>"]) + "\n"
