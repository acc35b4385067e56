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

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pipeline import arxiv
from pipeline.config import Config, FetchConfig
from pipeline.fetch.query import (
    PAGE_FILE,
    ApiPage,
    BrokenResponse,
    FetchError,
    RefusedQuery,
    Window,
    api_params,
    check_category,
    default_since,
    feed_file,
    manifest_file,
    page_file,
    floor_minute,
    last_submitted,
    page_shortfall,
    parse_api_page,
    parse_feed,
    query_name,
    search_query,
    window_for,
)
from pipeline.io import read_json, write_json, write_new_file
from pipeline.stage import StageResult, Timer

if TYPE_CHECKING:
    from pipeline.fetch.client import PoliteClient

__all__ = ["FetchError", "run"]

log = logging.getLogger(__name__)

API_DIR = "arxiv-api"
FEED_DIR = "arxiv-feed"


@dataclass
class FetchStats:
    queries: int = 0  # result sets paged through (or finished) in this run
    pages_fetched: int = 0
    pages_held: int = 0  # pages of the windows asked for that an earlier run had stored
    entries: int = 0  # entries in the pages fetched now (duplicates included, as stored)
    windows_split: int = 0
    resumed: int = 0  # unfinished queries of earlier runs finished now
    feeds_stored: int = 0
    feeds_held: int = 0
    manifests_written: int = 0
    continued: int = 0  # queries whose result set shrank while paged, continued by a new query


@dataclass
class _Job:
    """What every query of one category shares."""

    client: PoliteClient
    cfg: FetchConfig
    folder: Path  # data/raw/arxiv-api/<category>
    category: str
    stats: FetchStats
    done: set[str] = field(default_factory=set)  # windows finished in this run

    def save(self, manifest: dict[str, Any]) -> None:
        write_json(manifest, self.folder / manifest_file(manifest["name"]))
        self.stats.manifests_written += 1


# --- the API ---------------------------------------------------------------------------------------
def _new_manifest(job: _Job, window: Window, parent: str | None) -> dict[str, Any]:
    return {
        "name": query_name(job.category, window),
        "query": search_query(job.category, window),
        "category": job.category,
        "window": window.label,
        "parent": parent,
        "api_url": job.cfg.api_url,
        "page_size": job.cfg.page_size,
        "total_results": None,
        "split_into": None,
        "pages": [],
        "complete": False,
    }


def _check_page(body: bytes, *, start: int, page_size: int, known_total: int | None) -> ApiPage:
    page = parse_api_page(body)
    why = page_shortfall(page, start, page_size, known_total)
    if why:
        raise BrokenResponse(why)
    return page


def _page_record(file: Path, body: bytes, start: int, page: ApiPage) -> dict[str, Any]:
    return {
        "file": file.name,
        "start": start,
        "entries": len(page.ids),
        "total_results": page.total,
        "sha256": hashlib.sha256(body).hexdigest(),
    }


def _adopt_stray_pages(job: _Job, manifest: dict[str, Any], pages: dict[int, dict]) -> None:
    """Pages on disk that the manifest does not list (a stop between storing a page and noting it)."""
    for file in sorted(job.folder.glob(f"{manifest['name']}_page*_start*.xml")):
        match = PAGE_FILE.match(file.name)
        if match is None or match["name"] != manifest["name"] or int(match["start"]) in pages:
            continue
        body = file.read_bytes()
        try:
            page = parse_api_page(body)
        except (BrokenResponse, RefusedQuery) as exc:  # reported, never rewritten
            raise FetchError(
                f"{file}: stored page does not parse ({exc}); move it aside and fetch again"
            ) from exc
        pages[int(match["start"])] = _page_record(file, body, int(match["start"]), page)
        log.debug("%s: page stored by an interrupted run, kept", file.name)


def _held_pages(job: _Job, manifest: dict[str, Any]) -> dict[int, dict]:
    """The pages of a query on disk: those the manifest lists whose file is still there, and any
    the manifest does not list yet. A listed page whose file is gone is fetched again, not trusted."""
    pages = {}
    for record in manifest["pages"]:
        if (job.folder / record["file"]).is_file():
            pages[record["start"]] = record
        else:
            log.warning("%s: listed in the manifest of %s but not on disk; fetched again",
                        record["file"], manifest["name"])
    _adopt_stray_pages(job, manifest, pages)
    return pages


def _continuation(job: _Job, window: Window, manifest: dict[str, Any], pages: dict[int, dict],
                  start: int, known: int, now_total: int) -> Window:
    """The rest of a window whose result set shrank while it was paged through (a paper reclassified
    or removed before ``start``): results after the gap moved back, so the page at ``start`` would
    miss some. Continue with a new query from the minute of the last result held instead; both hold
    that minute, so nothing falls between them."""
    minute = _last_held_minute(job, window, pages, start)
    rest = Window(minute, window.end) if minute else window
    if rest == window:
        raise FetchError(
            f"{manifest['name']}: the result set shrank from {known:,} to {now_total:,} while it was paged "
            "through, and the window cannot be continued from a later minute; move its manifest "
            f"({manifest_file(manifest['name'])}) and pages aside and fetch again"
        )
    return rest


def _ids_of(job: _Job, record: dict) -> tuple[str, ...]:
    """The ids on a stored page."""
    try:
        return parse_api_page((job.folder / record["file"]).read_bytes()).ids
    except (OSError, BrokenResponse, RefusedQuery):
        return ()


def _last_held_minute(job: _Job, window: Window, pages: dict[int, dict], start: int) -> dt.datetime | None:
    """The minute of the last result on the last page held before ``start`` (not before the window
    starts); None when that page holds no result; FetchError when it does not parse."""
    previous = job.folder / pages[max(s for s in pages if s < start)]["file"]
    try:
        last = last_submitted(previous.read_bytes())
    except (BrokenResponse, RefusedQuery) as exc:
        raise FetchError(f"{previous}: stored page does not parse ({exc}); move it aside and fetch again") from exc
    return max(window.start, floor_minute(last)) if last else None


def _served_and_rest(job: _Job, window: Window, pages: dict[int, dict], start: int,
                     ) -> tuple[Window | None, Window]:
    """Split ``window`` at the minute of the last result held before ``start``: the part already
    served and the rest (both hold that minute); (None, window) when it cannot be split there."""
    try:
        minute = _last_held_minute(job, window, pages, start)
    except FetchError:
        minute = None
    if minute is None:
        return None, window
    served, rest = Window(window.start, minute), Window(minute, window.end)
    if served == window or rest == window:
        log.warning("%s: a paper indexed late may be missing; the window cannot be split at %s",
                    query_name(job.category, window), f"{minute:%Y-%m-%d %H:%M}")
        return None, window
    return served, rest


def _get_page(job: _Job, window: Window, start: int, page_size: int, known: int | None) -> tuple[bytes, ApiPage]:
    check = partial(_check_page, start=start, page_size=page_size, known_total=known)
    return job.client.get(job.cfg.api_url, api_params(job.category, window, start, page_size), check)


def _page_through(job: _Job, window: Window, manifest: dict[str, Any]) -> ApiPage | None:
    """Fetch the pages of one window the manifest lacks; returns the first page instead when the
    result set is too large for one query (nothing is stored then: the window must be split). When
    the set shrank since pages were stored, sets ``split_into`` to the window's continuation."""
    name, page_size = manifest["name"], manifest["page_size"]
    manifest_path = job.folder / manifest_file(name)
    pages = _held_pages(job, manifest)
    total = None
    if pages:
        total = max([manifest["total_results"] or 0, *(p["total_results"] for p in pages.values())])
    if sorted(pages) != [p["start"] for p in manifest["pages"]]:
        manifest.update(pages=sorted(pages.values(), key=lambda p: p["start"]), total_results=total)
        job.save(manifest)
    start = 0
    while total is None or start < total:
        if start in pages:
            job.stats.pages_held += 1
            start += page_size
            continue
        body, page = _get_page(job, window, start, page_size, total)
        if total is None and page.total == 0:
            # arXiv sometimes answers a whole query empty: an empty window is believed when said twice
            log.debug("%s: no results; asking once more to be sure", name)
            body, page = _get_page(job, window, start, page_size, total)
        if start == 0 and page.total > job.cfg.max_results_per_query:
            return page
        if total is not None and page.total > total and any(s < start for s in pages) and page.ids \
                and page.ids[0] in _ids_of(job, pages[max(s for s in pages if s < start)]):
            # the set grew and this page repeats the last one held: a paper indexed late landed among
            # the results already served, and asking on would never return it. Ask again for the
            # served part (to the minute of the last result held), then for the rest from that minute.
            served, rest = _served_and_rest(job, window, pages, start)
            if served is not None:
                log.warning("%s: the result set grew from %d to %d and result %d repeats one already held: "
                            "a paper was indexed late among them; asking again for %s",
                            name, total, page.total, start, served.label)
                job.stats.continued += 1
                manifest.update(split_into=[query_name(job.category, served), query_name(job.category, rest)])
                job.save(manifest)
                return None
        if total is not None and 0 < page.total < total and any(s < start for s in pages):
            rest = _continuation(job, window, manifest, pages, start, total, page.total)
            log.warning("%s: the result set shrank from %d to %d since result %d was stored; "
                        "continuing from %s with a new query", name, total, page.total, start,
                        f"{rest.start:%Y-%m-%d %H:%M}")
            job.stats.continued += 1
            manifest.update(split_into=[query_name(job.category, rest)])
            job.save(manifest)
            return None
        if not manifest_path.exists():  # so that a stop right after the page is written is resumed
            job.save(manifest)
        file = job.folder / page_file(name, start, page_size)
        if write_new_file(body, file):
            job.stats.pages_fetched += 1
            job.stats.entries += len(page.ids)
        else:  # never rewritten; the copy on disk was adopted above, so this is a second writer
            raise FetchError(f"{file}: appeared while this run was fetching it; is another fetch running?")
        pages[start] = _page_record(file, body, start, page)
        total = max(total or 0, page.total)
        start += page_size
        manifest.update(
            pages=sorted(pages.values(), key=lambda p: p["start"]), total_results=total,
            complete=start >= total,
        )
        job.save(manifest)
    if not manifest["complete"]:  # every page was already held
        manifest["complete"] = True
        job.save(manifest)
    return None


def fetch_window(job: _Job, window: Window, parent: str | None = None) -> None:
    """Every result of one submission window, stored page by page; split when over the cap."""
    name = query_name(job.category, window)
    if name in job.done:
        return
    job.done.add(name)
    manifest = read_json(job.folder / manifest_file(name)) or _new_manifest(job, window, parent)
    if manifest["split_into"] is None:
        if manifest["complete"]:
            job.stats.pages_held += len(manifest["pages"])
            return
        job.stats.queries += 1
        first = _page_through(job, window, manifest)
        if first is None and manifest["split_into"] is None:
            log.debug("%s: %s results in %d pages", name, manifest["total_results"], len(manifest["pages"]))
            return
        if first is not None:
            halves = window.halves()
            if halves is None:
                raise FetchError(
                    f"{name}: {first.total:,} results within {window.label}, more than the "
                    f"{job.cfg.max_results_per_query:,} one query may return, and the window cannot be "
                    "split further"
                )
            job.stats.windows_split += 1
            log.debug("%s: %s results, more than one query may return; split at %s",
                     name, f"{first.total:,}", f"{halves[0].end:%Y-%m-%d %H:%M}")
            manifest.update(total_results=first.total,
                            split_into=[query_name(job.category, h) for h in halves])
            job.save(manifest)
    for child in manifest["split_into"]:
        fetch_window(job, Window.parse(child.rsplit("_", 1)[1]), parent=name)
    if not manifest["complete"]:
        manifest["complete"] = True
        job.save(manifest)


def _top_manifests(folder: Path) -> list[dict[str, Any]]:
    """The manifests of the queries asked for (not of the halves they were split into)."""
    found = [read_json(path) for path in sorted(folder.glob(".*.json"))] if folder.is_dir() else []
    return [m for m in found if m.get("window") and m.get("parent") is None]


def newest_held(cfg: Config, category: str) -> dt.date | None:
    """The day of the newest paper of ``category`` in papers.parquet or in a finished query's window."""
    days: list[dt.date] = []
    if cfg.paths.papers.exists():
        from pipeline.io import read_table
        from pipeline.schemas import Papers

        papers = read_table(cfg.paths.papers, Papers, columns=[Papers.categories, Papers.published])
        listed = papers.explode(Papers.categories)
        mine = listed[listed[Papers.categories] == category]
        if not mine.empty:
            days.append(mine[Papers.published].max().date())
    for manifest in _top_manifests(cfg.paths.raw / API_DIR / category):
        # an empty answer proves little (arXiv sometimes answers a query empty): it moves nothing on
        if manifest.get("complete") and manifest.get("total_results"):
            days.append(Window.parse(manifest["window"]).end.date())
    return max(days) if days else None


# --- the daily feed --------------------------------------------------------------------------------
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


# --- the stage -------------------------------------------------------------------------------------
def _what_was_kept(stats: FetchStats) -> str:
    stored = stats.pages_fetched + stats.feeds_stored
    if stored == 0 and stats.manifests_written == 0:
        return "nothing was written"
    return f"the {stored} file(s) stored before the failure are kept; run the same command again to resume"


def check_settings(cfg: FetchConfig) -> None:
    """The [fetch] settings arXiv's terms and the paging depend on; FetchError names the one that is off."""
    def bad(name: str, rule: str) -> FetchError:
        return FetchError(f"[fetch] {name} = {getattr(cfg, name)!r}: {rule}")

    if not 1 <= cfg.page_size <= arxiv.MAX_PAGE_SIZE:
        raise bad("page_size", f"must be 1 to {arxiv.MAX_PAGE_SIZE:,} (the most results arXiv gives a page)")
    if not cfg.page_size <= cfg.max_results_per_query <= arxiv.MAX_QUERY_RESULTS:
        raise bad("max_results_per_query",
                  f"must be page_size to {arxiv.MAX_QUERY_RESULTS:,} (the most results arXiv gives a query)")
    if cfg.retries < 0 or cfg.backoff_s < 0 or cfg.backoff_max_s < 0:
        raise bad("retries" if cfg.retries < 0 else "backoff_s" if cfg.backoff_s < 0 else "backoff_max_s",
                  "must not be negative")
    if not cfg.timeout_s > 0:
        raise bad("timeout_s", "must be more than 0")
    hosts = {(urlsplit(url).hostname or "").lower() for url in (cfg.api_url, cfg.feed_url)}
    if cfg.delay_s < arxiv.MIN_DELAY_S and any(h == "arxiv.org" or h.endswith(".arxiv.org") for h in hosts):
        raise bad("delay_s", f"arXiv asks for at most one request every {arxiv.MIN_DELAY_S:g} s")
    if cfg.delay_s < 0:
        raise bad("delay_s", "must not be negative")


def run(
    cfg: Config,
    *,
    categories: list[str] | tuple[str, ...],
    since: dt.date | None = None,
    until: dt.date | None = None,
    feed: bool = False,
    client: PoliteClient | None = None,
    now: dt.datetime | None = None,
) -> StageResult:
    """Fetch every category's papers submitted from ``since`` to ``until`` (and, with ``feed``, its
    daily feed); a query an earlier run left unfinished is finished first."""
    categories = list(dict.fromkeys(check_category(c) for c in categories))
    if not categories:
        raise FetchError("no category to fetch; name one, e.g. --category cs.DC")
    check_settings(cfg.fetch)
    now = now or dt.datetime.now(dt.UTC)
    if since is not None and until is not None and since > until:
        raise FetchError(f"--since {since} is after --until {until}")
    stats = FetchStats()
    own_client = client is None
    if client is None:
        from pipeline.fetch.client import PoliteClient

        client = PoliteClient(cfg.fetch)
    try:
        with Timer() as timer:
            for category in categories:
                job = _Job(client, cfg.fetch, cfg.paths.raw / API_DIR / category, category, stats)
                for unfinished in [m for m in _top_manifests(job.folder) if not m.get("complete")]:
                    log.debug("%s: resuming the fetch an earlier run left unfinished", unfinished["name"])
                    stats.resumed += 1
                    fetch_window(job, Window.parse(unfinished["window"]))
                first_day = since or default_since(
                    newest_held(cfg, category), now.date(),
                    weeks=cfg.fetch.default_weeks, overlap_days=cfg.fetch.overlap_days,
                )
                fetch_window(job, window_for(first_day, until, now))
                if feed:
                    fetch_feed(client, cfg, category, stats)
    except FetchError as exc:
        raise FetchError(f"{exc}; {_what_was_kept(stats)}") from exc
    finally:
        if own_client:
            client.close()
    counts = {
        "categories": len(categories),
        "queries": stats.queries,
        "pages fetched": stats.pages_fetched,
        "pages already held": stats.pages_held,
        "entries": stats.entries,
    }
    if stats.resumed:
        counts["unfinished queries resumed"] = stats.resumed
    if stats.windows_split:
        counts["windows split"] = stats.windows_split
    if stats.continued:
        counts["queries continued"] = stats.continued
    if feed:
        counts["feeds stored"] = stats.feeds_stored
        counts["feeds already held"] = stats.feeds_held
    counts["requests"] = client.requests
    counts["retries"] = client.retries
    return StageResult("fetch", ran=True, counts=counts, seconds=timer.seconds, details={"stats": stats})
