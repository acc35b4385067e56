"""The paced, retrying client against a local server that misbehaves on purpose."""

from __future__ import annotations

import datetime as dt
import email.utils
import socket
import time

import httpx
import pytest

from pipeline import config
from pipeline.fetch.client import PoliteClient, retry_after_seconds
from pipeline.fetch.query import FetchError, Window, api_params, parse_api_page

from .fake_arxiv import ORIGIN_ERROR, REFUSED, RESET, TIMEOUT, TRUNCATED, UNAVAILABLE, fetch_config

WINDOW = Window(dt.datetime(2025, 5, 1, tzinfo=dt.UTC), dt.datetime(2026, 6, 9, 23, 59, tzinfo=dt.UTC))


def gaps(hits) -> list[float]:
    return [b.at - a.at for a, b in zip(hits, hits[1:])]


def get_first_page(client: PoliteClient, arxiv):
    return client.get(arxiv.api_url, api_params("cs.DC", WINDOW, 0, 4), parse_api_page)


def test_every_fault_is_retried_with_spacing_backoff_and_retry_after(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv, retries=4)
    arxiv.faults[0] = [UNAVAILABLE, TIMEOUT, RESET, TRUNCATED]
    with PoliteClient(cfg.fetch) as client:
        body, page = get_first_page(client, arxiv)
    assert page.total == 15 and len(page.ids) == 4
    hits = arxiv.api_hits()
    assert [h.fault for h in hits] == [UNAVAILABLE, TIMEOUT, RESET, TRUNCATED, None]
    assert (client.requests, client.retries) == (5, 4)
    # never two requests closer than delay_s, and the 503's Retry-After (1 s) was honoured
    assert min(gaps(hits)) >= cfg.fetch.delay_s
    assert gaps(hits)[0] >= arxiv.retry_after
    assert all(h.user_agent.startswith("paper-trends/0.1.0 (") for h in hits)


def test_gives_up_after_the_retries_naming_the_url(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv, retries=2)
    arxiv.retry_after = 0
    arxiv.faults[0] = [UNAVAILABLE] * 5
    with PoliteClient(cfg.fetch) as client, pytest.raises(FetchError) as failure:
        get_first_page(client, arxiv)
    message = str(failure.value)
    assert message.startswith(f"{arxiv.api_url}?search_query=cat%3Acs.DC+AND+submittedDate")
    assert "HTTP 503 SERVICE UNAVAILABLE, Retry-After 0 s; gave up after 3 tries" in message
    assert len(arxiv.api_hits()) == 3


def test_an_api_error_is_not_retried(tmp_path, arxiv):
    arxiv.faults[0] = [REFUSED]
    with PoliteClient(fetch_config(tmp_path, arxiv).fetch) as client, pytest.raises(FetchError) as failure:
        get_first_page(client, arxiv)
    assert "HTTP 400 BAD REQUEST: arXiv API error: start must be an integer" in str(failure.value)
    assert len(arxiv.api_hits()) == 1


def test_a_retry_after_beyond_ten_minutes_stops_at_once(tmp_path, arxiv):
    arxiv.retry_after = 3600
    arxiv.faults[0] = [UNAVAILABLE]
    with PoliteClient(fetch_config(tmp_path, arxiv).fetch) as client, pytest.raises(FetchError, match="asks to wait 3,600 s"):
        get_first_page(client, arxiv)
    assert len(arxiv.api_hits()) == 1


def test_unreachable_host_is_named_with_what_to_do(tmp_path):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cfg = config.load(tmp_path, overrides={"fetch": {
        "api_url": f"http://127.0.0.1:{port}/api/query", "delay_s": 0.0, "retries": 1, "backoff_s": 0.01,
    }})
    with PoliteClient(cfg.fetch) as client, pytest.raises(FetchError) as failure:
        client.get(cfg.fetch.api_url, {"start": 0})
    message = str(failure.value)
    assert message.startswith("cannot reach 127.0.0.1 after 2 tries (")
    assert "): check the network connection" in message and message.endswith("then run the same command again")


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after_seconds("120") == 120.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    later = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds(later, now=1_000_000) == pytest.approx(30.0)


def test_retry_after_is_strict_about_seconds_and_reads_dates_without_a_zone_as_gmt():
    assert retry_after_seconds("\u00b2") is None  # str.isdigit() says yes; float() would raise
    assert retry_after_seconds("1.5") is None and retry_after_seconds("-3") is None
    asctime = "Sun Sep  6 08:00:30 1970"  # an HTTP date in asctime form has no zone: it is GMT
    at = dt.datetime(1970, 9, 6, 8, 0, 0, tzinfo=dt.UTC).timestamp()
    assert retry_after_seconds(asctime, now=at) == pytest.approx(30.0)
    assert retry_after_seconds("Sun, 06 Sep 1970 08:00:00 GMT", now=at + 10) == 0.0  # past: at once


def test_an_http_date_retry_after_from_the_server_is_honoured(tmp_path, arxiv):
    arxiv.retry_after = email.utils.formatdate(time.time() + 3, usegmt=True)  # to the second: 2 to 3 s
    arxiv.faults[0] = [UNAVAILABLE]
    with PoliteClient(fetch_config(tmp_path, arxiv).fetch) as client:
        get_first_page(client, arxiv)
    hits = arxiv.api_hits()
    assert [h.fault for h in hits] == [UNAVAILABLE, None]
    assert gaps(hits)[0] >= 1.5  # well above delay_s (0.2) and backoff (0.05): the date was waited for


def test_every_5xx_is_retried_not_only_500_to_504(tmp_path, arxiv):
    arxiv.faults[0] = [ORIGIN_ERROR]
    with PoliteClient(fetch_config(tmp_path, arxiv).fetch) as client:
        _, page = get_first_page(client, arxiv)
    assert page.total == 15 and [h.fault for h in arxiv.api_hits()] == [ORIGIN_ERROR, None]


def test_one_connection_at_a_time_and_requests_never_overlap(tmp_path, arxiv):
    # werkzeug's test server closes every connection, so reuse cannot be seen from its log; the pool
    # limit is what keeps it to one connection against arXiv
    with PoliteClient(fetch_config(tmp_path, arxiv).fetch) as client:
        pool = client._http._transport._pool
        assert (pool._max_connections, pool._max_keepalive_connections) == (1, 1)
        for start in (0, 4, 8):
            client.get(arxiv.api_url, api_params("cs.DC", WINDOW, start, 4), parse_api_page)
    assert len(arxiv.api_hits()) == 3 and min(gaps(arxiv.api_hits())) >= 0.2


def test_a_connect_timeout_is_offline_too_and_names_the_host(tmp_path):
    def black_hole(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out", request=request)

    cfg = config.load(tmp_path, overrides={"fetch": {
        "api_url": "https://export.arxiv.org/api/query", "delay_s": 0.0, "retries": 1, "backoff_s": 0.0,
    }})
    with PoliteClient(cfg.fetch, transport=httpx.MockTransport(black_hole), sleep=lambda s: None) as client:
        with pytest.raises(FetchError) as failure:
            client.get(cfg.fetch.api_url, {"start": 0})
    assert str(failure.value).startswith("cannot reach export.arxiv.org after 2 tries (no connection within 60 s")
    assert client.requests == 2


def test_a_corrupt_compressed_body_is_retried(tmp_path):
    answers = iter([
        # a stream, so that httpx decodes it as it would a body from the network (in the client's get)
        httpx.Response(200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(b"not gzip at all")),
        httpx.Response(200, stream=httpx.ByteStream(b"fine")),
    ])
    cfg = config.load(tmp_path, overrides={"fetch": {"delay_s": 0.0, "backoff_s": 0.0}})
    transport = httpx.MockTransport(lambda request: next(answers))
    with PoliteClient(cfg.fetch, transport=transport, sleep=lambda s: None) as client:
        body, _ = client.get("https://example.org/x")
    assert body == b"fine" and (client.requests, client.retries) == (2, 1)
