"""Fetch stage: new arXiv listings -> ``data/raw/arxiv-api/<category>/`` (and ``arxiv-feed/<category>/``).

For each category, ``run`` asks the arXiv API for every paper submitted in a date window (default:
from shortly before the newest paper already held, or the last 8 ISO weeks on an empty store, up
to now) and stores every response page unchanged, one file per page, named after the query and the
page. The ingest stage then reads them like any Atom file. A window whose result set is larger than
one query may return (30,000) is split in two, recursively.

Raw stays immutable: a page file is written atomically and never rewritten. Beside a query's pages,
a hidden manifest (``.<query>.json``, which ingest skips) records the result-set size and the pages
stored, rewritten atomically after each page; a fetch that stopped half-way (network gone, Ctrl-C)
is resumed at its next page by the next run, before anything new is asked for. With ``feed``, the
category's daily Atom feed (the latest day's announcements, before the API has indexed them) is
stored too, once per announcement day.
"""

from __future__ import annotations

from pipeline.fetch.query import FetchError
from pipeline.fetch.stage import check_settings, run
from pipeline.fetch.store import newest_held

__all__ = ["FetchError", "check_settings", "newest_held", "run"]
