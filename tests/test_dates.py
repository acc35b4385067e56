"""Dates as the listings write them, parsed to UTC, and the ISO weeks they fall in."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from pipeline.dates import iso_week, parse_datetime, parse_series

UTC = "datetime64[us, UTC]"


def _utc(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-06-05T06:53:34Z", "2026-06-05 06:53:34"),
        ("2025-10-16T17:59:37-04:00", "2025-10-16 21:59:37"),
        ("2025-10-16T22:30:00-04:00", "2025-10-17 02:30:00"),  # the offset moves it to the next day
        ("2026-06-14", "2026-06-14 00:00:00"),
        ("2026-06-14 10:00:00", "2026-06-14 10:00:00"),  # naive is UTC
        ("  2026-06-05T06:53:34Z\n", "2026-06-05 06:53:34"),
        ("Mon, 2 Apr 2007 19:18:42 GMT", "2007-04-02 19:18:42"),
        ("Mon, 2 Apr 2007 19:18:42 +0200", "2007-04-02 17:18:42"),
        ("Tue, 24 Apr 2007 23:40:01 -0500", "2007-04-25 04:40:01"),
    ],
)
def test_parse_datetime(raw: str, expected: str) -> None:
    stamp = parse_datetime(raw)
    assert stamp == _utc(expected)
    assert str(stamp.tz) == "UTC"


@pytest.mark.parametrize(
    "raw",
    [None, "", "   ", "not a date", "2026-13-45", "2026-06-14T25:00:00Z", "Mon, 32 Apr 2007 19:18:42 GMT",
     "NaT", "now", "today", "Today"],
)
def test_parse_datetime_gives_none_when_unparseable(raw: str | None) -> None:
    # "now" and "today" used to parse as the clock's time: a date that changes on every run
    assert parse_datetime(raw) is None


def test_parse_series_mixes_iso_and_rfc_2822() -> None:
    raw = pd.Series(
        ["2026-06-05T06:53:34Z", "2025-10-16T17:59:37-04:00", "Mon, 2 Apr 2007 19:18:42 GMT", "2026-06-14",
         None, "", "garbage", "now"],
        index=[10, 11, 12, 13, 14, 15, 16, 17],
    )
    parsed = parse_series(raw)
    assert parsed.dtype == UTC
    assert list(parsed.index) == list(raw.index)
    assert parsed.iloc[:4].tolist() == [
        _utc("2026-06-05 06:53:34"),
        _utc("2025-10-16 21:59:37"),
        _utc("2007-04-02 19:18:42"),
        _utc("2026-06-14"),
    ]
    assert parsed.iloc[4:].isna().all()


@pytest.mark.parametrize(
    "raw", [pd.Series([], dtype=object), pd.Series([None, None]), pd.Series([pd.NA], dtype="string")]
)
def test_parse_series_of_nothing(raw: pd.Series) -> None:
    parsed = parse_series(raw)
    assert parsed.dtype == UTC
    assert len(parsed) == len(raw) and parsed.isna().all()


def test_parse_series_reads_the_snapshot_version_dates(formats_dir: Path) -> None:
    snapshot = formats_dir / "arxiv-metadata-oai-snapshot_head200.jsonl"
    lines = snapshot.read_text(encoding="utf-8").splitlines()
    created = pd.Series([json.loads(line)["versions"][0]["created"] for line in lines])
    assert created.iloc[0] == "Mon, 2 Apr 2007 19:18:42 GMT"
    parsed = parse_series(created)
    assert parsed.notna().all()
    assert parsed.iloc[0] == _utc("2007-04-02 19:18:42")
    assert parsed.tolist() == [parse_datetime(text) for text in created]


@pytest.mark.parametrize(
    ("raw", "week", "start"),
    [
        ("2025-12-29T00:00:00Z", "2026-W01", "2025-12-29"),  # Monday of the first week of ISO 2026
        ("2025-12-28T23:59:59Z", "2025-W52", "2025-12-22"),  # the Sunday before is still 2025
        ("2026-01-01T12:00:00Z", "2026-W01", "2025-12-29"),
        ("2026-01-04T23:59:59Z", "2026-W01", "2025-12-29"),
        ("2026-01-05T00:00:00Z", "2026-W02", "2026-01-05"),
        ("2027-01-01T12:00:00Z", "2026-W53", "2026-12-28"),  # ISO 2026 has 53 weeks
        ("2027-01-04T00:00:00Z", "2027-W01", "2027-01-04"),
        # -04:00: Sunday evening in New York is Monday in UTC, so next day and next week
        ("2026-01-04T22:30:00-04:00", "2026-W02", "2026-01-05"),
        ("2025-12-28T22:30:00-04:00", "2026-W01", "2025-12-29"),
        ("Mon, 2 Apr 2007 19:18:42 GMT", "2007-W14", "2007-04-02"),
    ],
)
def test_iso_week(raw: str, week: str, start: str) -> None:
    labels, starts = iso_week(parse_series(pd.Series([raw])))
    assert labels.tolist() == [week]
    assert starts.tolist() == [_utc(start)]
    assert starts.dtype == UTC


def test_iso_week_of_a_series_keeps_index_and_missing_values() -> None:
    stamps = parse_series(pd.Series(["2026-06-05T06:53:34Z", None, "2027-01-01"], index=[3, 4, 5]))
    labels, starts = iso_week(stamps)
    assert list(labels.index) == [3, 4, 5] and list(starts.index) == [3, 4, 5]
    assert labels.iloc[0] == "2026-W23" and labels.iloc[2] == "2026-W53"
    assert pd.isna(labels.iloc[1]) and pd.isna(starts.iloc[1])  # NaT used to raise "cannot convert NA"


def test_iso_week_takes_naive_stamps_as_utc_and_converts_other_zones() -> None:
    naive = pd.Series(pd.to_datetime(["2026-01-04 23:00:00"]))
    assert iso_week(naive)[0].tolist() == ["2026-W01"]
    new_york = naive.dt.tz_localize("America/New_York")  # 04:00 UTC on Monday
    labels, starts = iso_week(new_york)
    assert labels.tolist() == ["2026-W02"]
    assert starts.tolist() == [_utc("2026-01-05")]
