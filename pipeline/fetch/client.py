"""The one HTTP client that talks to arXiv: one connection, paced, retried.

arXiv's terms ask for at most one request every 3 seconds on a single connection and a descriptive
User-Agent. :class:`PoliteClient` keeps one ``httpx.Client`` (at most one connection, kept alive),
waits ``delay_s`` after each request ends before the next one starts (retries included), and retries
with exponential backoff (tenacity) on timeouts, 429 and 5xx answers (honouring ``Retry-After``),
connections that fail or break off, and bodies its caller's ``check`` finds broken (truncated XML, a
page short of entries). What still fails after ``retries`` further tries becomes one FetchError that
names the URL (or, when no connection could ever be made, the host) and says what to do.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import logging
import re
import time
from collections.abc import Callable
from typing import TypeVar

import httpx
import tenacity

from pipeline import __version__
from pipeline.config import FetchConfig
from pipeline.fetch.query import BrokenResponse, FetchError, RefusedQuery, display_url

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_RETRY_AFTER_S = 600.0  # a server asking for a longer pause than this is told "later" instead
_SECONDS = re.compile(r"[0-9]+")


def _worth_retrying(status: int) -> bool:
    """429 (too many requests) and every 5xx (a gateway or CDN in front of arXiv answers 520-530 too)."""
    return status == 429 or 500 <= status <= 599


class _Retry(Exception):
    """One failed try that is worth repeating."""

    def __init__(self, reason: str, *, retry_after: float | None = None, no_connection: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.no_connection = no_connection


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if _SECONDS.fullmatch(value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # asctime and "-0000" dates: HTTP dates are always GMT
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _api_error(body: bytes) -> str | None:
    """The message of an arXiv API error feed (HTTP 400 answers carry one), if the body is one."""
    from pipeline.fetch.query import parse_api_page

    try:
        parse_api_page(body)
    except RefusedQuery as exc:
        return str(exc)
    except BrokenResponse:
        return None
    return None


class PoliteClient:
    """GET with pacing and retries over one kept-alive connection.

    ``transport`` (an ``httpx`` transport), ``sleep`` and ``clock`` can be swapped in by tests.
    ``requests`` counts every request sent, ``retries`` the repeated ones.
    """

    def __init__(
        self,
        cfg: FetchConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cfg = cfg
        self._sleep = sleep
        self._clock = clock
        self._last_end: float | None = None
        self.requests = 0
        self.retries = 0
        self._http = httpx.Client(
            headers={"User-Agent": cfg.user_agent.replace("{version}", __version__)},
            timeout=httpx.Timeout(cfg.timeout_s),
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            follow_redirects=True,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- one try ---------------------------------------------------------------------------------
    def _pace(self) -> None:
        """Wait until ``delay_s`` has passed since the previous request ended (so, as the server
        sees it, two requests never arrive closer than that, however long the first one took)."""
        if self._last_end is not None:
            wait = self.cfg.delay_s - (self._clock() - self._last_end)
            if wait > 0:
                self._sleep(wait)

    def _try(self, url: str, params: dict | None, check: Callable[[bytes], T]) -> tuple[bytes, T]:
        self._pace()
        self.requests += 1
        try:
            response = self._http.get(url, params=params)
        except httpx.ConnectTimeout as exc:  # no connection could be made: offline, or a black hole
            raise _Retry(f"no connection within {self.cfg.timeout_s:g} s (ConnectTimeout)",
                         no_connection=True) from exc
        except httpx.TimeoutException as exc:
            raise _Retry(f"no answer within {self.cfg.timeout_s:g} s ({type(exc).__name__})") from exc
        except httpx.ConnectError as exc:
            raise _Retry(str(exc) or type(exc).__name__, no_connection=True) from exc
        except (httpx.RemoteProtocolError, httpx.NetworkError, httpx.DecodingError) as exc:
            raise _Retry(f"connection broke off ({exc or type(exc).__name__})") from exc
        except httpx.HTTPError as exc:  # a proxy refusing, an unsupported URL scheme: asking again won't help
            raise FetchError(f"{display_url(url, params)}: {type(exc).__name__}: {exc}") from exc
        finally:
            self._last_end = self._clock()
        status = response.status_code
        if _worth_retrying(status):
            after = retry_after_seconds(response.headers.get("Retry-After"))
            if after is not None and after > MAX_RETRY_AFTER_S:
                raise FetchError(
                    f"{display_url(url, params)}: HTTP {status}, the server asks to wait {after:,.0f} s; "
                    "run the same command again later"
                )
            said = f", Retry-After {after:g} s" if after is not None else ""
            raise _Retry(f"HTTP {status} {response.reason_phrase}{said}", retry_after=after)
        if status >= 400:
            detail = _api_error(response.content)
            raise FetchError(
                f"{display_url(url, params)}: HTTP {status} {response.reason_phrase}"
                + (f": {detail}" if detail else "")
            )
        body = response.content
        try:
            return body, check(body)
        except BrokenResponse as exc:
            raise _Retry(str(exc)) from exc
        except RefusedQuery as exc:
            raise FetchError(f"{display_url(url, params)}: {exc}") from exc

    # --- retries ---------------------------------------------------------------------------------
    def _wait(self, state: tenacity.RetryCallState) -> float:
        backoff = min(self.cfg.backoff_max_s, self.cfg.backoff_s * 2 ** (state.attempt_number - 1))
        failure = state.outcome.exception() if state.outcome else None
        after = getattr(failure, "retry_after", None)
        return max(backoff, after or 0.0)

    def _before_sleep(self, url: str) -> Callable[[tenacity.RetryCallState], None]:
        def note(state: tenacity.RetryCallState) -> None:
            self.retries += 1
            failure = state.outcome.exception() if state.outcome else None
            wait = state.next_action.sleep if state.next_action else 0.0
            log.debug(
                "%s: %s; try %d of %d in %.1f s",
                url, failure, state.attempt_number + 1, self.cfg.retries + 1, wait,
            )

        return note

    def get(
        self, url: str, params: dict | None = None, check: Callable[[bytes], T] = lambda b: b
    ) -> tuple[bytes, T]:
        """The body of ``url`` and what ``check(body)`` made of it.

        ``check`` raises BrokenResponse for a body worth asking for again, RefusedQuery for one that
        says the request is wrong. Raises FetchError once the tries are used up.
        """
        shown = display_url(url, params)
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retry),
            stop=tenacity.stop_after_attempt(self.cfg.retries + 1),
            wait=self._wait,
            sleep=self._sleep,
            before_sleep=self._before_sleep(shown),
            reraise=True,
        )
        try:
            return retrying(self._try, url, params, check)
        except _Retry as exc:
            tries = self.cfg.retries + 1
            if exc.no_connection:
                host = httpx.URL(url).host
                raise FetchError(
                    f"cannot reach {host} after {tries} tries ({exc.reason}): check the network connection "
                    "(or the proxy in HTTPS_PROXY), then run the same command again"
                ) from exc
            raise FetchError(f"{shown}: {exc.reason}; gave up after {tries} tries") from exc
