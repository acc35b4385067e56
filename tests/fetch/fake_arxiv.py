"""A stand-in for the arXiv API and the daily feeds on 127.0.0.1 (pytest-httpserver), with faults to inject.

The API side answers ``search_query=cat:<cat> AND submittedDate:[<from> TO <to>]`` from a list of
Atom entries (by default the 15 entries of seed 001, tests/fetch/fixtures/), in ascending submission
order, as pages shaped like a real response (opensearch totals, startIndex, itemsPerPage). Both
bounds are whole minutes and both are included. Faults are queued per ``start``: each request for
that page takes the next one. Every request is logged with its arrival time.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import socket
import struct
import threading
import time
from collections import defaultdict
from pathlib import Path
from xml.sax.saxutils import escape

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from pipeline import config

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SEED_ENTRIES = FIXTURES / "api_cs.DC_seed001_entries.xml"
FEED_DAY = FIXTURES / "feed_cs.DC_2026-06-08.xml"
FEED_EMPTY = FIXTURES / "feed_cs.DC_weekend.xml"
_QUERY = re.compile(r"^cat:(?P<cat>\S+) AND submittedDate:\[(?P<first>\d{12}) TO (?P<last>\d{12})\]$")
_ENTRY = re.compile(r"  <entry>.*?</entry>\n", re.DOTALL)
_OPEN = "http://a9.com/-/spec/opensearch/1.1/"

# Faults: what the server does instead of answering normally.
UNAVAILABLE = "503"  # 503 with Retry-After (FakeArxiv.retry_after: seconds, or an HTTP date as a str)
ORIGIN_ERROR = "520"  # a 5xx outside the usual 500-504, as a CDN in front of a server answers
TIMEOUT = "timeout"  # answers only after FakeArxiv.stall_s (longer than the client waits)
RESET = "reset"  # resets the connection without answering
TRUNCATED = "truncated"  # 200 with the first half of the page
EMPTY = "empty"  # 200, a well-formed page with no entries and totalResults 0 (arXiv's quirk)
SHORT = "short"  # 200, the page less its last entry
DUPLICATE = "duplicate"  # 200, the page with the previous page's last entry repeated in front
REFUSED = "refused"  # 400 with the API's error feed (as for a malformed query)


@dataclasses.dataclass(frozen=True)
class Entry:
    arxiv_id: str  # with version, as in <id>
    submitted: dt.datetime
    category: str
    xml: str


def seed_entries() -> list[Entry]:
    text = SEED_ENTRIES.read_text(encoding="utf-8")
    entries = []
    for block in _ENTRY.findall(text):
        arxiv_id = re.search(r"<id>http://arxiv.org/abs/([^<]+)</id>", block)[1]
        published = re.search(r"<published>([^<]+)</published>", block)[1]
        entries.append(Entry(arxiv_id, dt.datetime.fromisoformat(published), "cs.DC", block))
    return entries


def synthetic_entries(count: int, first: dt.datetime, step: dt.timedelta, category: str = "cs.DC") -> list[Entry]:
    """``count`` small but complete entries, one every ``step`` from ``first``."""
    out = []
    for n in range(count):
        submitted = first + n * step
        arxiv_id = f"{submitted:%y%m}.{n:05d}v1"
        stamp = f"{submitted:%Y-%m-%dT%H:%M:%SZ}"
        xml = (
            f"  <entry>\n    <id>http://arxiv.org/abs/{arxiv_id}</id>\n    <updated>{stamp}</updated>\n"
            f"    <published>{stamp}</published>\n    <title>Synthetic paper {n}</title>\n"
            f"    <summary>An abstract long enough to pass the clean stage, number {n}.</summary>\n"
            f"    <author>\n      <name>A. Author</name>\n    </author>\n"
            f'    <category term="{category}" scheme="http://arxiv.org/schemas/atom"/>\n  </entry>\n'
        )
        out.append(Entry(arxiv_id, submitted, category, xml))
    return out


@dataclasses.dataclass
class Hit:
    at: float  # time.monotonic() on arrival
    path: str
    args: dict[str, str]
    user_agent: str
    fault: str | None
    port: int  # the client's port: one per connection


class FakeArxiv:
    """The API at ``/api/query`` and the feeds at ``/atom/<category>`` of one local server."""

    def __init__(self, server: HTTPServer, entries: list[Entry]):
        self.server = server
        self.entries = sorted(entries, key=lambda e: (e.submitted, e.arxiv_id))
        self.faults: dict[int, list[str]] = defaultdict(list)
        self.feeds: dict[str, bytes] = {}
        self.recorded = False  # True: ignore the date window (serve every entry of the category)
        self.retry_after: int | str = 1
        self.stall_s = 1.0
        self.hits: list[Hit] = []
        self.after: dict[int, list] = defaultdict(list)  # start -> callables run once, after that page is served
        self._lock = threading.Lock()
        server.expect_request("/api/query").respond_with_handler(self._api)
        server.expect_request(re.compile(r"^/atom/.+")).respond_with_handler(self._feed)

    @property
    def api_url(self) -> str:
        return self.server.url_for("/api/query")

    @property
    def feed_url(self) -> str:
        return self.server.url_for("/atom")

    def api_hits(self) -> list[Hit]:
        return [h for h in self.hits if h.path == "/api/query"]

    def starts(self) -> list[int]:
        return [int(h.args["start"]) for h in self.api_hits()]

    # --- answers -----------------------------------------------------------------------------------
    def matching(self, query: str) -> list[Entry]:
        match = _QUERY.match(query)
        assert match, f"not the query shape the client must send: {query!r}"
        if self.recorded:
            return [e for e in self.entries if e.category == match["cat"]]
        first, last = (dt.datetime.strptime(match[k], "%Y%m%d%H%M").replace(tzinfo=dt.UTC) for k in ("first", "last"))
        last += dt.timedelta(minutes=1)  # the last minute is included, seconds and all
        return [e for e in self.entries if e.category == match["cat"] and first <= e.submitted < last]

    def page(self, query: str, start: int, size: int, entries: list[Entry], total: int) -> bytes:
        title = escape(f"search_query={query}&id_list=&start={start}&max_results={size}")
        head = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
            f'  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>\n'
            f'  <title type="html">ArXiv Query: {title}</title>\n'
            "  <id>http://arxiv.org/api/fake</id>\n  <updated>2026-06-09T00:00:00-04:00</updated>\n"
            f'  <opensearch:totalResults xmlns:opensearch="{_OPEN}">{total}</opensearch:totalResults>\n'
            f'  <opensearch:startIndex xmlns:opensearch="{_OPEN}">{start}</opensearch:startIndex>\n'
            f'  <opensearch:itemsPerPage xmlns:opensearch="{_OPEN}">{size}</opensearch:itemsPerPage>\n'
        )
        return (head + "".join(e.xml for e in entries) + "</feed>\n").encode()

    def _log(self, request: Request, fault: str | None) -> None:
        with self._lock:
            self.hits.append(Hit(time.monotonic(), request.path, dict(request.args),
                                 request.headers.get("User-Agent", ""), fault,
                                 int(request.environ.get("REMOTE_PORT", 0))))

    def _fault_for(self, start: int) -> str | None:
        with self._lock:
            queue = self.faults.get(start)
            return queue.pop(0) if queue else None

    def _api(self, request: Request) -> Response:
        start = int(request.args["start"])
        size = int(request.args["max_results"])
        assert request.args["sortBy"] == "submittedDate" and request.args["sortOrder"] == "ascending"
        fault = self._fault_for(start)
        self._log(request, fault)
        query = request.args["search_query"]
        found = self.matching(query)
        chosen = found[start:start + size]
        if fault == REFUSED:
            error = (
                '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
                f'  <opensearch:totalResults xmlns:opensearch="{_OPEN}">1</opensearch:totalResults>\n'
                "  <entry>\n    <id>http://arxiv.org/api/errors#start_must_be_an_integer</id>\n"
                "    <title>Error</title>\n    <summary>start must be an integer</summary>\n  </entry>\n</feed>\n"
            )
            return Response(error, status=400, content_type="application/atom+xml")
        if fault == UNAVAILABLE:
            return Response("Service Unavailable", status=503, headers={"Retry-After": str(self.retry_after)})
        if fault == ORIGIN_ERROR:
            return Response("origin error", status=520)
        if fault == TIMEOUT:
            time.sleep(self.stall_s)
        if fault == RESET:
            sock = request.environ["werkzeug.socket"]
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            os.close(sock.detach())  # closing with linger 0 sends RST
            return Response("")
        if fault == EMPTY:
            return Response(self.page(query, start, size, [], 0), content_type="application/atom+xml")
        if fault == SHORT:
            chosen = chosen[:-1]
        if fault == DUPLICATE:
            chosen = found[start - 1:start] + chosen
        body = self.page(query, start, size, chosen, len(found))
        if fault == TRUNCATED:
            body = body[: len(body) // 2]
        with self._lock:
            hooks, self.after[start] = self.after[start], []
        for hook in hooks:
            hook()
        return Response(body, content_type="application/atom+xml; charset=utf-8")

    def _feed(self, request: Request) -> Response:
        self._log(request, None)
        category = request.path.rsplit("/", 1)[1]
        if category not in self.feeds:
            return Response("no such feed", status=404)
        return Response(self.feeds[category], content_type="application/atom+xml")


FAST = {"delay_s": 0.2, "page_size": 4, "timeout_s": 0.5, "retries": 3, "backoff_s": 0.05, "backoff_max_s": 0.2}


def fetch_config(root: Path, arxiv: FakeArxiv, **fetch: object) -> config.Config:
    """A config rooted at ``root`` whose fetch section points at ``arxiv``, fast and with small pages."""
    section = {"api_url": arxiv.api_url, "feed_url": arxiv.feed_url, **FAST, **fetch}
    return config.load(root, overrides={"fetch": section})


def config_file(path: Path, arxiv: FakeArxiv, **fetch: object) -> Path:
    """The same settings as a --config TOML file."""
    section = {"api_url": arxiv.api_url, "feed_url": arxiv.feed_url, **FAST, **fetch}
    lines = ["[fetch]"] + [f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"' for k, v in section.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def stored_ids(folder: Path) -> list[str]:
    """Every entry id in the page files under ``folder``, in file order (duplicates kept)."""
    ids = []
    for file in sorted(folder.rglob("*.xml")):
        ids += re.findall(r"<id>http://arxiv.org/abs/([^<]+)</id>", file.read_text(encoding="utf-8"))
    return ids


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` (hidden ones too) with its size and inode: to see what changed. The
    root's lock file (which says who last wrote to the root, not data) is left out."""
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_ino) for p in root.rglob("*")
            if p.is_file() and p.name != ".paper-trends.lock"}
