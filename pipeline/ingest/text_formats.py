"""Listings saved as plain text: paper-digest pages, tag-stripped arXiv API responses, category pages.

Three readers, each a generator ``read_xxx(stream, ctx) -> Iterator[dict]`` yielding raw records
(see :mod:`pipeline.ingest.records`), and :func:`sniff_text_format`, which tells the driver which of
them a file needs:

- ``digest`` (:func:`read_digest`): blocks of title, ``Author A, Author B 2026-06-14``, a summary
  paragraph and a ``PDF`` link text.
- ``api-text`` (:func:`read_api_text`): an arXiv API Atom response with every XML tag stripped, so
  fields run together (``...Balancing2026-06-05T06:53:34ZLarge-scale...``, ``Xinming WeiChao Jin``).
- ``listing-page`` (:func:`read_listing_page`): a category listing page (``cs.DC 2026-05-14 Recognition``
  headers, then headline, title, one-line summary and abstract), page chrome and vote counters dropped.

Values stay as found (LaTeX, mojibake and all: the clean stage repairs them); only surrounding
whitespace is stripped. Where a reader has to guess (where one glued author name ends and the next
begins, which line of an entry is missing), it says so in the record's ``warnings``. The pages are
small, so each reader reads its whole stream; the parsers work on the decoded text only. Each
format has its module (``digest.py``, ``api_text.py``, ``listing_page.py``); this one says which a
file needs.
"""

from __future__ import annotations

from pipeline import arxiv
from pipeline.ingest.api_text import ID_URL, ISO_GLUED, read_api_text, split_authors
from pipeline.ingest.digest import digest_byline, read_digest
from pipeline.ingest.listing_page import EXPAND, LISTING_HEADER, read_listing_page
from pipeline.ingest.names import looks_like_name
from pipeline.ingest.text_common import NO_ENTRIES

__all__ = ["NO_ENTRIES", "looks_like_name", "read_api_text", "read_digest", "read_listing_page", "sniff_text_format",
           "split_authors"]


def sniff_text_format(head: str) -> str | None:
    """``"api-text"``, ``"listing-page"``, ``"digest"`` or None, from a file's first ~64 KB of text.

    Conservative: each format needs its own structural marks, and anything that opens like JSON or
    XML is never a text format.

    - api-text: an id URL glued to the text after it and a timestamp glued between two fields,
      with the feed URL or an id URL in the first 1000 characters;
    - listing-page: a ``cs.DC 2026-05-14 [badges]`` header line and an ``abstract click to expand``
      line, or three header lines;
    - digest: a byline naming someone in two or more words and a ``PDF`` line, or three such bylines.
    """
    stripped = head.lstrip()
    if not stripped or stripped[0] in "{[<":
        return None
    opening = stripped[:1000]
    glued_id = any(m.end() < len(head) and head[m.end()].isalnum() for m in ID_URL.finditer(head))
    if glued_id and ISO_GLUED.search(head) and (arxiv.API_URL.search(opening) or ID_URL.search(opening)):
        return "api-text"
    lines = [line.strip() for line in head.split("\n")]
    headers = sum(1 for line in lines if LISTING_HEADER.match(line))
    if headers >= 3 or (headers and EXPAND in lines):
        return "listing-page"
    bylines = sum(
        1 for line in lines
        if (byline := digest_byline(line)) is not None and any(len(a.split()) >= 2 for a in byline[0])
    )
    if bylines >= 3 or (bylines and "PDF" in lines):
        return "digest"
    return None
