"""The arXiv API and the daily feeds as pure functions: date windows, query parameters, file names,
and what a response holds. No network and no disk here (``client`` asks, ``__init__`` stores).

The API (``export.arxiv.org/api/query``) takes ``search_query=cat:cs.DC AND submittedDate:[
YYYYMMDDHHMM TO YYYYMMDDHHMM]`` (GMT), pages with ``start``/``max_results`` (at most 2,000 a page,
30,000 a query) and answers with an Atom feed whose ``opensearch:totalResults`` is the size of the
whole result set. Results are asked for in ascending submission order, so a result set only grows
at its end while it is being paged through, and an interrupted fetch can resume at the next page.

The daily feed (``rss.arxiv.org/atom/<category>``) is an Atom feed of the day's announcements: entry
ids ``oai:arXiv.org:2501.01234v1``, ``<published>`` the announcement day, ``<arxiv:announce_type>``
one of new, cross, replace, replace-cross.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from urllib.parse import urlencode
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from pipeline import arxiv

MINUTE = dt.timedelta(minutes=1)
_STAMP = "%Y%m%d%H%M"
PAGE_FILE = re.compile(r"^(?P<name>.+)_page(?P<page>\d{4,})_start(?P<start>\d{6,})\.xml$")


class FetchError(RuntimeError):
    """Fetching cannot go on; the message says what failed, where, and what to do."""


class BrokenResponse(Exception):
    """A response that cannot be used as it is (broken XML, missing entries): worth asking again."""


class RefusedQuery(Exception):
    """The API answered with an error entry: the query itself is wrong, asking again will not help."""


# --- date windows --------------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Window:
    """Submission dates from ``start`` to ``end``, both whole UTC minutes, both included.

    arXiv does not say whether ``TO 202606030000`` includes the seconds of that minute, so the two
    halves of a split window share their middle minute: a paper submitted in it may come in both
    halves (clean keeps it once) but cannot fall between them.
    """

    start: dt.datetime
    end: dt.datetime

    @classmethod
    def parse(cls, label: str) -> Window:
        first, _, last = label.partition("-")
        return cls(*(dt.datetime.strptime(v, _STAMP).replace(tzinfo=dt.UTC) for v in (first, last)))

    @property
    def label(self) -> str:
        return f"{self.start:{_STAMP}}-{self.end:{_STAMP}}"

    def halves(self) -> tuple[Window, Window] | None:
        """The window split at its middle minute, or None if it is too short to split."""
        minutes = (self.end - self.start) // MINUTE
        if minutes < 2:
            return None
        middle = self.start + (minutes // 2) * MINUTE
        return Window(self.start, middle), Window(middle, self.end)


def floor_minute(moment: dt.datetime) -> dt.datetime:
    return moment.astimezone(dt.UTC).replace(second=0, microsecond=0)


def default_since(newest: dt.date | None, today: dt.date, *, weeks: int, overlap_days: int) -> dt.date:
    """The first day to ask for: ``overlap_days`` before the newest paper held, or, on an empty
    store, the Monday ``weeks`` ISO weeks before this week's (so the last ``weeks`` whole weeks)."""
    if newest is None:
        return today - dt.timedelta(days=today.weekday(), weeks=weeks)
    return newest - dt.timedelta(days=overlap_days)


def window_for(since: dt.date, until: dt.date | None, now: dt.datetime) -> Window:
    """From the start of ``since`` to the end of ``until`` (UTC), never past ``now``."""
    start = dt.datetime.combine(since, dt.time(0, 0), dt.UTC)
    end = floor_minute(now)
    if until is not None:
        end = min(end, dt.datetime.combine(until, dt.time(23, 59), dt.UTC))
    if end < start:
        raise FetchError(
            f"nothing to fetch: the window would start on {since} but ends {end:%Y-%m-%d %H:%M} UTC "
            "(see --since and --until)"
        )
    return Window(start, end)


# --- queries and names ---------------------------------------------------------------------------
def check_category(category: str) -> str:
    if not arxiv.CATEGORY.fullmatch(category):
        raise FetchError(f"not an arXiv category: {category!r} (expected e.g. cs.DC, hep-th, math.QA)")
    return category


def search_query(category: str, window: Window) -> str:
    return f"cat:{category} AND submittedDate:[{window.start:{_STAMP}} TO {window.end:{_STAMP}}]"


def api_params(category: str, window: Window, start: int, page_size: int) -> dict[str, str | int]:
    return {
        "search_query": search_query(category, window),
        "start": start,
        "max_results": page_size,
        "sortBy": "submittedDate",
        "sortOrder": "ascending",
    }


def display_url(url: str, params: dict | None) -> str:
    return f"{url}?{urlencode(params)}" if params else url


def query_name(category: str, window: Window) -> str:
    """The name of one query: its category and submission window, e.g. ``cs.DC_202606010000-202606072359``."""
    return f"{category}_{window.label}"


def page_file(name: str, start: int, page_size: int) -> str:
    """``<query>_page0001_start000000.xml``: the query, the page number and its first result."""
    return f"{name}_page{start // page_size + 1:04d}_start{start:06d}.xml"


def manifest_file(name: str) -> str:
    """Hidden (ingest skips hidden files), beside the query's pages."""
    return f".{name}.json"


def feed_file(category: str, day: dt.date) -> str:
    return f"{category}_announced-{day.isoformat()}.xml"


# --- responses -----------------------------------------------------------------------------------
def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(element: Element, name: str) -> str | None:
    for child in element:
        if _local(child.tag) == name:
            return "".join(child.itertext()).strip()
    return None


def _parse(body: bytes) -> Element:
    if not body.strip():
        raise BrokenResponse("empty body")
    try:
        root = fromstring(body, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except ParseError as exc:
        raise BrokenResponse(f"XML broken after {len(body):,} bytes: {exc}") from exc
    except (LookupError, ValueError) as exc:  # an XML declaration naming an unknown encoding, ...
        raise BrokenResponse(f"XML unreadable: {exc}") from exc
    except DefusedXmlException as exc:
        raise RefusedQuery(
            f"XML refused ({type(exc).__name__}): entity declarations are not accepted"
        ) from exc
    if _local(root.tag) != "feed":
        raise BrokenResponse(f"not an Atom feed (root element <{_local(root.tag)}>)")
    return root


def _entries(root: Element) -> list[Element]:
    return [child for child in root if _local(child.tag) == "entry"]


@dataclass(frozen=True)
class ApiPage:
    """What one API response holds: the size of the whole result set, where the page starts, its ids."""

    total: int
    start_index: int | None
    ids: tuple[str, ...]


def parse_api_page(body: bytes) -> ApiPage:
    """Read an API response; BrokenResponse if it is not a whole page, RefusedQuery for an API error."""
    root = _parse(body)
    entries = _entries(root)
    ids: list[str] = []
    for number, entry in enumerate(entries, 1):
        entry_id = _child_text(entry, "id") or ""
        if "/api/errors" in entry_id:
            raise RefusedQuery(f"arXiv API error: {_child_text(entry, 'summary') or entry_id}")
        if "/abs/" not in entry_id:
            raise BrokenResponse(f"entry {number} has no arXiv abs id (id {entry_id!r})")
        ids.append(entry_id.rstrip("/").rsplit("/abs/", 1)[-1])
    values = {name: _child_text(root, name) for name in ("totalResults", "startIndex")}
    try:
        total = int(values["totalResults"]) if values["totalResults"] is not None else None
        start_index = int(values["startIndex"]) if values["startIndex"] is not None else None
    except ValueError as exc:
        raise BrokenResponse(f"opensearch counts are not numbers: {values}") from exc
    if total is None:
        raise BrokenResponse("no opensearch:totalResults")
    if total < 0 or (start_index is not None and start_index < 0):
        raise BrokenResponse(f"opensearch counts are negative: {values}")
    return ApiPage(total=total, start_index=start_index, ids=tuple(ids))


def last_submitted(body: bytes) -> dt.datetime | None:
    """When the last entry of an API page was submitted (its ``<published>``, UTC), None if it has none."""
    entries = _entries(_parse(body))
    published = _child_text(entries[-1], "published") if entries else None
    if not published:
        return None
    try:
        moment = dt.datetime.fromisoformat(published.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def page_shortfall(page: ApiPage, start: int, page_size: int, known_total: int | None) -> str | None:
    """Why ``page`` (asked for at ``start``) is not the page it must be, or None if it is.

    A page must hold every result from ``start`` up to a full page or the end of the set. The set's
    size is what this page says, unless it says 0: arXiv sometimes answers a page in the middle of
    a set with no entries and a total of 0, which must not end the set, so then the size earlier
    pages said counts. A page whose own (non-zero) total is smaller than before is whole if it
    holds what that total leaves for it: the set shrank (a paper reclassified or removed), which
    the caller must deal with, and asking again would not make the page any longer.
    """
    if page.start_index is not None and page.start_index != start:
        return f"page starts at result {page.start_index}, asked for {start}"
    total = page.total or (known_total or 0)
    expected = max(0, min(page_size, total - start))
    if len(page.ids) < expected:
        return (
            f"{len(page.ids)} of the {expected} entries due from result {start} of {total} "
            "(arXiv sometimes answers a page in the middle of a result set short or empty)"
        )
    return None


@dataclass(frozen=True)
class FeedPage:
    """What one daily feed holds: the announcement day and how many entries of each announce type."""

    announced: dt.date | None
    types: dict[str, int]

    @property
    def entries(self) -> int:
        return sum(self.types.values())


def parse_feed(body: bytes) -> FeedPage:
    """Read a daily Atom feed of rss.arxiv.org; BrokenResponse names the entry that is not as expected."""
    root = _parse(body)
    days: list[dt.date] = []
    types: dict[str, int] = {}
    for number, entry in enumerate(_entries(root), 1):
        entry_id = _child_text(entry, "id") or ""
        if not entry_id.startswith(arxiv.FEED_ID_PREFIX):
            raise BrokenResponse(f"entry {number} has no {arxiv.FEED_ID_PREFIX} id (id {entry_id!r})")
        published = _child_text(entry, "published") or ""
        try:
            days.append(dt.date.fromisoformat(published[:10]))
        except ValueError as exc:
            raise BrokenResponse(
                f"entry {number} ({entry_id}): no announcement day (published {published!r})"
            ) from exc
        kind = (_child_text(entry, "announce_type") or "unknown").lower()
        types[kind] = types.get(kind, 0) + 1
    return FeedPage(announced=max(days) if days else None, types=types)
