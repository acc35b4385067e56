"""The fetch stage's wiring: check the settings against arXiv's terms, then for each category page
through the windows not held yet (finishing earlier runs' unfinished queries first) and store the
feed."""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pipeline import arxiv
from pipeline.config import Config, FetchConfig, as_dict
from pipeline.fetch.feed import fetch_feed
from pipeline.fetch.paging import fetch_window
from pipeline.fetch.query import FetchError, Window, check_category, default_since, window_for
from pipeline.fetch.store import API_DIR, FetchStats, Job, newest_held, top_manifests
from pipeline.stage import StageResult, Step, Timer, code_version, fingerprint

if TYPE_CHECKING:
    from pipeline.fetch.client import PoliteClient

log = logging.getLogger("pipeline.fetch")  # the stage's one logger, whichever module speaks


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
                job = Job(client, cfg.fetch, cfg.paths.raw / API_DIR / category, category, stats)
                for unfinished in [m for m in top_manifests(job.folder) if not m.get("complete")]:
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
    # in the stages' skeleton, though it never skips: what is new is on the server, not in its inputs
    asked = {"categories": categories, "since": str(since) if since else None, "until": str(until) if until else None,
             "feed": feed}
    fp = fingerprint(code_version("pipeline.fetch"), {**as_dict(cfg.fetch), **asked}, [])
    return Step("fetch", fp, [], cfg.paths.run_record("fetch")).done(counts, timer.seconds, details={"stats": stats},
                                                                      asked=asked)
