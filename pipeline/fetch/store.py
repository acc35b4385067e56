"""The raw page store: where pages and feeds go (``data/raw/arxiv-api/<category>/``,
``arxiv-feed/<category>/``), the hidden manifest beside each query's pages, pages a killed run
stored but never noted (adopted), and the newest paper held."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.config import Config, FetchConfig
from pipeline.fetch.query import (
    PAGE_FILE,
    ApiPage,
    BrokenResponse,
    FetchError,
    RefusedQuery,
    Window,
    manifest_file,
    parse_api_page,
    query_name,
    search_query,
)
from pipeline.io import list_files, read_bytes, read_json, write_json

if TYPE_CHECKING:
    from pipeline.fetch.client import PoliteClient

log = logging.getLogger("pipeline.fetch")  # the stage's one logger, whichever module speaks


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
class Job:
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


def new_manifest(job: Job, window: Window, parent: str | None) -> dict[str, Any]:
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


def page_record(file: Path, body: bytes, start: int, page: ApiPage) -> dict[str, Any]:
    return {
        "file": file.name,
        "start": start,
        "entries": len(page.ids),
        "total_results": page.total,
        "sha256": hashlib.sha256(body).hexdigest(),
    }


def adopt_stray_pages(job: Job, manifest: dict[str, Any], pages: dict[int, dict]) -> None:
    """Pages on disk that the manifest does not list (a stop between storing a page and noting it)."""
    for file in list_files(job.folder, f"{manifest['name']}_page*_start*.xml"):
        match = PAGE_FILE.match(file.name)
        if match is None or match["name"] != manifest["name"] or int(match["start"]) in pages:
            continue
        body = read_bytes(file)
        try:
            page = parse_api_page(body)
        except (BrokenResponse, RefusedQuery) as exc:  # reported, never rewritten
            raise FetchError(
                f"{file}: stored page does not parse ({exc}); move it aside and fetch again"
            ) from exc
        pages[int(match["start"])] = page_record(file, body, int(match["start"]), page)
        log.debug("%s: page stored by an interrupted run, kept", file.name)


def held_pages(job: Job, manifest: dict[str, Any]) -> dict[int, dict]:
    """The pages of a query on disk: those the manifest lists whose file is still there, and any
    the manifest does not list yet. A listed page whose file is gone is fetched again, not trusted."""
    pages = {}
    for record in manifest["pages"]:
        if (job.folder / record["file"]).is_file():
            pages[record["start"]] = record
        else:
            log.warning("%s: listed in the manifest of %s but not on disk; fetched again",
                        record["file"], manifest["name"])
    adopt_stray_pages(job, manifest, pages)
    return pages


def top_manifests(folder: Path) -> list[dict[str, Any]]:
    """The manifests of the queries asked for (not of the halves they were split into)."""
    found = [read_json(path) for path in list_files(folder, ".*.json")]
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
    for manifest in top_manifests(cfg.paths.raw / API_DIR / category):
        # an empty answer proves little (arXiv sometimes answers a query empty): it moves nothing on
        if manifest.get("complete") and manifest.get("total_results"):
            days.append(Window.parse(manifest["window"]).end.date())
    return max(days) if days else None
