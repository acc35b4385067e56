"""arXiv's vocabulary, in one place: category names, the id grammar, the prefixes of its feeds and
links, and the limits its API terms set. Every stage that reads or writes arXiv's words uses these."""

from __future__ import annotations

import re

# cs.DC, hep-th, math.GT, q-bio.NC, physics.comp-ph: an archive, optionally a subject class; not ACM
# classes such as "I.2.6; J.5"
CATEGORY = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[a-z]+)?)?")

# Ids: new style 0704.0001 .. 2606.04101 (four digits after the dot until 2014, five from 2015), old
# style hep-th/9901001, math.GT/0309136. ID_PARTS names the parts (``ids.parse_arxiv_id`` checks
# them); ID is the same grammar without names, to be embedded in other patterns.
ID_PARTS = r"(?P<id>(?P<yymm>\d{4})\.(?P<number>\d{4,5})|[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]{2})?/(?P<old_yymm>\d{4})\d{3})"
ID = re.sub(r"\(\?P<\w+>", "(?:", ID_PARTS)
FIVE_DIGITS_FROM = "1501"  # yymm of the first month with five-digit numbers
HOST = r"(?:www\.|export\.)?arxiv\.org"  # the hosts ids and links are written with

ABS_URL = "https://arxiv.org/abs/"  # + id: a paper's page
FEED_ID_PREFIX = "oai:arXiv.org:"  # the daily feed's entry ids: oai:arXiv.org:2501.01234v1
FEED_SUMMARY = re.compile(r"^\s*arXiv:\S+\s+Announce Type:\s*[\w-]+\s*(?:Abstract:\s*)?", re.IGNORECASE)
API_URL = re.compile(r"https?://(?:export\.)?arxiv\.org/api/")  # an API response names its query so

# The API's terms of use
MAX_PAGE_SIZE = 2000  # results per page
MAX_QUERY_RESULTS = 30_000  # results per query
MIN_DELAY_S = 3.0  # seconds between requests, on one connection


def abs_url(paper_id: str) -> str:
    """The page of an arXiv paper."""
    return ABS_URL + paper_id
