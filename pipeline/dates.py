"""Dates as listings write them, parsed to UTC.

Accepted: ISO 8601 (``2026-06-05T06:53:34Z``, ``2025-10-16T17:59:37-04:00``, ``2026-06-14``) and
RFC 2822 (``Mon, 2 Apr 2007 19:18:42 GMT``, the Kaggle snapshot's ``versions[].created``).
A date without a zone is taken as UTC. Words that pandas reads as the clock's time ("now", "today")
are not dates: a date has digits.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re

import pandas as pd

_HAS_DIGIT = re.compile(r"\d")


def parse_datetime(raw: str | None) -> pd.Timestamp | None:
    """One date string to a UTC timestamp, or None when it is missing or unparseable."""
    if raw is None or not str(raw).strip():
        return None
    text = str(raw).strip()
    if not _HAS_DIGIT.search(text):  # pandas reads "now" and "today" as the current time
        return None
    try:
        stamp = pd.Timestamp(text)
    except (ValueError, OverflowError):
        try:
            parsed = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        stamp = pd.Timestamp(parsed)
    if stamp is pd.NaT:
        return None
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def week_monday(label: str) -> dt.date:
    """``2026-W01`` -> the Monday starting that ISO week, 2025-12-29; ValueError for anything else."""
    try:
        year, week = label.split("-W")
        return dt.date.fromisocalendar(int(year), int(week), 1)
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"not an ISO week: {label!r} (expected e.g. 2026-W23)") from exc


def week_label(day: dt.date) -> str:
    """The ISO week a day (or timestamp) lies in: ``2026-W01``."""
    iso = day.isocalendar()
    return f"{iso.year}-W{iso.week:02d}"


ARXIV_BEGAN = pd.Timestamp("1991-08-01", tz="UTC")  # the first arXiv listings


def implausible(stamps: pd.Series, now: pd.Timestamp | None = None) -> pd.Series:
    """Why each parsed date cannot be a listing's date ("" when it can, or is missing): before arXiv
    began, or after tomorrow."""
    now = now if now is not None else pd.Timestamp.now(tz="UTC")
    early = stamps.notna() & (stamps < ARXIV_BEGAN)
    late = stamps.notna() & (stamps > now.normalize() + pd.Timedelta(days=2))
    return pd.Series("", index=stamps.index, dtype=object).mask(early, "before arXiv began (1991-08)").mask(
        late, "after tomorrow")


def parse_series(raw: pd.Series) -> pd.Series:
    """Vectorised ``parse_datetime``: ISO strings in bulk, the rest one by one. NaT where unparseable."""
    text = raw.astype("string").str.strip()
    text = text.where(text.str.contains(_HAS_DIGIT, na=False))  # no digit, no date ("now")
    parsed = pd.to_datetime(text, utc=True, format="ISO8601", errors="coerce")
    retry = parsed.isna() & text.notna() & (text != "")
    parsed = pd.Series(pd.to_datetime(parsed, utc=True), index=raw.index).astype("datetime64[us, UTC]")
    if retry.any():
        again = [parse_datetime(v) for v in text[retry]]
        parsed[retry] = pd.Series([pd.NaT if v is None else v for v in again], index=text.index[retry],
                                  dtype="datetime64[us, UTC]")
    return parsed


def iso_week(stamps: pd.Series) -> tuple[pd.Series, pd.Series]:
    """ISO week label (``2026-W01``) and the Monday 00:00 UTC starting it, for timestamps.

    Aware timestamps are converted to UTC first and naive ones taken as UTC, so the week is the UTC
    week. NaT gives a missing label and a missing start.
    """
    stamps = stamps.dt.tz_localize("UTC") if stamps.dt.tz is None else stamps.dt.tz_convert("UTC")
    calendar = stamps.dt.isocalendar()  # year and week of the ISO calendar, <NA> for NaT
    label = calendar["year"].astype("string") + "-W" + calendar["week"].astype("string").str.zfill(2)
    start = stamps.dt.normalize() - pd.to_timedelta(stamps.dt.day_of_week, unit="D")
    return label.astype(str), start
