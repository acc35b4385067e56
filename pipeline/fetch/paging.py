"""Paging through one query's result set: each page checked before it is stored, pages held from an
earlier run reused, a result set that shrank or grew while paged continued by a new query, and a
window too large for one query split in two."""

from __future__ import annotations

import datetime as dt
import logging
from functools import partial
from typing import Any

from pipeline.fetch.query import (
    ApiPage,
    BrokenResponse,
    FetchError,
    RefusedQuery,
    Window,
    api_params,
    manifest_file,
    page_file,
    floor_minute,
    last_submitted,
    page_shortfall,
    parse_api_page,
    query_name,
)
from pipeline.fetch.store import Job, held_pages, new_manifest, page_record
from pipeline.io import read_bytes, read_json, write_new_file

log = logging.getLogger("pipeline.fetch")  # the stage's one logger, whichever module speaks


def _check_page(body: bytes, *, start: int, page_size: int, known_total: int | None) -> ApiPage:
    page = parse_api_page(body)
    why = page_shortfall(page, start, page_size, known_total)
    if why:
        raise BrokenResponse(why)
    return page


def _continuation(job: Job, window: Window, manifest: dict[str, Any], pages: dict[int, dict],
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


def _ids_of(job: Job, record: dict) -> tuple[str, ...]:
    """The ids on a stored page."""
    try:
        return parse_api_page(read_bytes(job.folder / record["file"])).ids
    except (OSError, BrokenResponse, RefusedQuery):
        return ()


def _last_held_minute(job: Job, window: Window, pages: dict[int, dict], start: int) -> dt.datetime | None:
    """The minute of the last result on the last page held before ``start`` (not before the window
    starts); None when that page holds no result; FetchError when it does not parse."""
    previous = job.folder / pages[max(s for s in pages if s < start)]["file"]
    try:
        last = last_submitted(read_bytes(previous))
    except (BrokenResponse, RefusedQuery) as exc:
        raise FetchError(f"{previous}: stored page does not parse ({exc}); move it aside and fetch again") from exc
    return max(window.start, floor_minute(last)) if last else None


def _served_and_rest(job: Job, window: Window, pages: dict[int, dict], start: int,
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


def _get_page(job: Job, window: Window, start: int, page_size: int, known: int | None) -> tuple[bytes, ApiPage]:
    check = partial(_check_page, start=start, page_size=page_size, known_total=known)
    return job.client.get(job.cfg.api_url, api_params(job.category, window, start, page_size), check)


def _page_through(job: Job, window: Window, manifest: dict[str, Any]) -> ApiPage | None:
    """Fetch the pages of one window the manifest lacks; returns the first page instead when the
    result set is too large for one query (nothing is stored then: the window must be split). When
    the set shrank since pages were stored, sets ``split_into`` to the window's continuation."""
    name, page_size = manifest["name"], manifest["page_size"]
    manifest_path = job.folder / manifest_file(name)
    pages = held_pages(job, manifest)
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
        pages[start] = page_record(file, body, start, page)
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


def fetch_window(job: Job, window: Window, parent: str | None = None) -> None:
    """Every result of one submission window, stored page by page; split when over the cap."""
    name = query_name(job.category, window)
    if name in job.done:
        return
    job.done.add(name)
    manifest = read_json(job.folder / manifest_file(name)) or new_manifest(job, window, parent)
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
