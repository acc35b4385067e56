"""The pure half of fetching: windows, queries, names, and reading API pages and daily feeds."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.fetch.query import (
    ApiPage,
    BrokenResponse,
    FetchError,
    RefusedQuery,
    Window,
    api_params,
    default_since,
    feed_file,
    last_submitted,
    page_file,
    page_shortfall,
    parse_api_page,
    parse_feed,
    query_name,
    search_query,
    window_for,
)

from .fake_arxiv import FEED_DAY, FEED_EMPTY

UTC = dt.UTC


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_window_label_round_trips_and_query_uses_arxivs_date_syntax():
    window = Window(at("2026-06-01 00:00"), at("2026-06-30 23:59"))
    assert window.label == "202606010000-202606302359"
    assert Window.parse(window.label) == window
    assert search_query("cs.DC", window) == "cat:cs.DC AND submittedDate:[202606010000 TO 202606302359]"
    assert api_params("cs.DC", window, 4000, 2000) == {
        "search_query": "cat:cs.DC AND submittedDate:[202606010000 TO 202606302359]",
        "start": 4000, "max_results": 2000, "sortBy": "submittedDate", "sortOrder": "ascending",
    }


def test_halves_share_their_middle_minute_and_stop_at_two_minutes():
    window = Window(at("2026-06-01 00:00"), at("2026-06-03 00:00"))
    first, second = window.halves()
    assert (first.start, first.end, second.start, second.end) == (
        window.start, at("2026-06-02 00:00"), at("2026-06-02 00:00"), window.end,
    )
    assert Window(at("2026-06-01 00:00"), at("2026-06-01 00:02")).halves() is not None
    assert Window(at("2026-06-01 00:00"), at("2026-06-01 00:01")).halves() is None


def test_file_names_say_query_and_page():
    name = query_name("cs.DC", Window(at("2026-06-01 00:00"), at("2026-06-30 23:59")))
    assert name == "cs.DC_202606010000-202606302359"
    assert page_file(name, 0, 2000) == "cs.DC_202606010000-202606302359_page0001_start000000.xml"
    assert page_file(name, 28000, 2000) == "cs.DC_202606010000-202606302359_page0015_start028000.xml"
    assert feed_file("cs.DC", dt.date(2026, 6, 8)) == "cs.DC_announced-2026-06-08.xml"


def test_default_since_is_eight_iso_weeks_on_an_empty_store_else_the_newest_paper_less_overlap():
    wednesday = dt.date(2026, 11, 18)  # ISO week 47; its Monday is 11-16
    assert default_since(None, wednesday, weeks=8, overlap_days=2) == dt.date(2026, 9, 21)  # Monday of W39
    assert dt.date(2026, 9, 21).isocalendar()[1] == 47 - 8
    assert default_since(dt.date(2026, 11, 10), wednesday, weeks=8, overlap_days=2) == dt.date(2026, 11, 8)


def test_window_for_ends_now_or_at_the_end_of_until_whichever_is_first():
    now = at("2026-06-10 13:45:31")
    assert window_for(dt.date(2026, 6, 1), None, now) == Window(at("2026-06-01 00:00"), at("2026-06-10 13:45"))
    assert window_for(dt.date(2026, 6, 1), dt.date(2026, 6, 5), now).end == at("2026-06-05 23:59")
    assert window_for(dt.date(2026, 6, 1), dt.date(2026, 7, 5), now).end == at("2026-06-10 13:45")
    with pytest.raises(FetchError, match="would start on 2026-06-11 but ends 2026-06-10 13:45 UTC"):
        window_for(dt.date(2026, 6, 11), None, now)


# --- API pages -----------------------------------------------------------------------------------
def test_real_api_response_gives_total_start_and_ids(formats_dir):
    page = parse_api_page((formats_dir / "arxiv-api-atom_cs.RO_2entries.xml").read_bytes())
    assert page == ApiPage(total=5619, start_index=0, ids=("2510.14968v1", "2510.14827v1"))
    empty = parse_api_page((formats_dir / "arxiv-api-atom_empty.xml").read_bytes())
    assert empty == ApiPage(total=0, start_index=0, ids=())


def test_truncated_or_foreign_bodies_are_broken_and_error_feeds_are_refusals(formats_dir):
    body = (formats_dir / "arxiv-api-atom_cs.RO_2entries.xml").read_bytes()
    with pytest.raises(BrokenResponse, match="XML broken after 2,000 bytes"):
        parse_api_page(body[:2000])
    with pytest.raises(BrokenResponse, match="empty body"):
        parse_api_page(b"")
    with pytest.raises(BrokenResponse, match="not an Atom feed"):
        parse_api_page(b"<html><body>Service temporarily unavailable</body></html>")
    with pytest.raises(BrokenResponse, match="no opensearch:totalResults"):
        parse_api_page(b'<feed xmlns="http://www.w3.org/2005/Atom"></feed>')
    with pytest.raises(BrokenResponse, match="entry 2 has no arXiv abs id"):
        parse_api_page(body.replace(b"<id>http://arxiv.org/abs/2510.14827v1</id>", b"<id></id>"))
    error = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><opensearch:totalResults xmlns:opensearch='
        b'"http://a9.com/-/spec/opensearch/1.1/">1</opensearch:totalResults><entry>'
        b"<id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>"
        b"<summary>incorrect id format for 1234</summary></entry></feed>"
    )
    with pytest.raises(RefusedQuery, match="incorrect id format for 1234"):
        parse_api_page(error)


def test_shortfall_rejects_empty_or_short_pages_mid_set_but_not_the_last_page():
    full = ApiPage(total=10, start_index=4, ids=("a", "b", "c", "d"))
    assert page_shortfall(full, 4, 4, 10) is None
    last = ApiPage(total=10, start_index=8, ids=("i", "j"))
    assert page_shortfall(last, 8, 4, 10) is None
    quirk = ApiPage(total=0, start_index=4, ids=())  # the API's empty page: total 0 mid-set
    assert "0 of the 4 entries due from result 4 of 10" in page_shortfall(quirk, 4, 4, 10)
    short = ApiPage(total=10, start_index=8, ids=("i",))
    assert "1 of the 2 entries" in page_shortfall(short, 8, 4, 10)
    assert "starts at result 0, asked for 4" in page_shortfall(ApiPage(10, 0, ("a",) * 4), 4, 4, 10)
    assert page_shortfall(ApiPage(total=0, start_index=0, ids=()), 0, 4, None) is None  # an empty window


def test_shortfall_takes_a_smaller_nonzero_total_at_its_word():
    # the set shrank from 15 to 14: the last page holds the 2 left, and asking again won't give 3
    assert page_shortfall(ApiPage(total=14, start_index=12, ids=("m", "n")), 12, 4, 15) is None
    assert page_shortfall(ApiPage(total=10, start_index=12, ids=()), 12, 4, 15) is None
    # but a page short of its own total is still short, and a total of 0 is still the quirk
    assert "1 of the 2 entries due from result 12 of 14" in page_shortfall(ApiPage(14, 12, ("m",)), 12, 4, 15)
    assert "0 of the 3 entries due from result 12 of 15" in page_shortfall(ApiPage(0, 12, ()), 12, 4, 15)


def test_unreadable_encodings_and_negative_counts_are_broken_not_crashes():
    with pytest.raises(BrokenResponse, match="XML unreadable: unknown encoding: x-nonsense"):
        parse_api_page(b'<?xml version="1.0" encoding="x-nonsense"?><feed/>')
    with pytest.raises(BrokenResponse, match="XML unreadable"):
        parse_feed(b'<?xml version="1.0" encoding="x-nonsense"?><feed/>')
    with pytest.raises(BrokenResponse, match="negative"):
        parse_api_page(b"<feed><totalResults>-5</totalResults></feed>")


def test_last_submitted_is_the_last_entrys_published_time(formats_dir):
    body = (formats_dir / "arxiv-api-atom_cs.RO_2entries.xml").read_bytes()
    last = parse_api_page(body).ids[-1]
    assert last == "2510.14827v1"
    assert last_submitted(body) == dt.datetime(2025, 10, 16, 16, 4, 1, tzinfo=UTC)  # the last entry's
    assert last_submitted((formats_dir / "arxiv-api-atom_empty.xml").read_bytes()) is None


# --- daily feeds ---------------------------------------------------------------------------------
def test_feed_gives_its_announcement_day_and_types():
    feed = parse_feed(FEED_DAY.read_bytes())
    assert feed.announced == dt.date(2026, 6, 8)
    assert feed.types == {"new": 2, "cross": 1, "replace": 1} and feed.entries == 4
    weekend = parse_feed(FEED_EMPTY.read_bytes())
    assert weekend.announced is None and weekend.entries == 0


def test_feed_entry_without_oai_id_is_named():
    body = FEED_DAY.read_bytes().replace(b"<id>oai:arXiv.org:2606.06818v1</id>", b"<id>2606.06818</id>", 1)
    with pytest.raises(BrokenResponse, match="entry 2 has no oai:arXiv.org: id"):
        parse_feed(body)
