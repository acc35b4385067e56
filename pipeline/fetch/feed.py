"""The daily Atom feed of a category: stored once per announcement day."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pipeline.config import Config
from pipeline.fetch.query import feed_file, parse_feed
from pipeline.fetch.store import FEED_DIR, FetchStats
from pipeline.io import write_new_file

if TYPE_CHECKING:
    from pipeline.fetch.client import PoliteClient

log = logging.getLogger("pipeline.fetch")  # the stage's one logger, whichever module speaks


def fetch_feed(client: PoliteClient, cfg: Config, category: str, stats: FetchStats) -> None:
    """The category's daily Atom feed, stored once per announcement day (an empty feed is not stored)."""
    url = f"{cfg.fetch.feed_url.rstrip('/')}/{category}"
    body, feed = client.get(url, None, parse_feed)
    if feed.announced is None:
        log.info("%s: no announcements (none on weekends and holidays); nothing stored", url)
        return
    file = cfg.paths.raw / FEED_DIR / category / feed_file(category, feed.announced)
    if write_new_file(body, file):
        stats.feeds_stored += 1
        stats.entries += feed.entries
        log.debug("%s: %s", file.name, ", ".join(f"{k} {v}" for k, v in sorted(feed.types.items())))
    else:
        stats.feeds_held += 1
