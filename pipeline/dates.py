"""Dates as listings write them, parsed to UTC.

Accepted: ISO 8601 (``2026-06-05T06:53:34Z``, ``2025-10-16T17:59:37-04:00``, ``2026-06-14``) and
RFC 2822 (``Mon, 2 Apr 2007 19:18:42 GMT``, the Kaggle snapshot's ``versions[].created``).
A date without a zone is taken as UTC.
"""

from __future__ import annotations

import email.utils

import pandas as pd


def parse_datetime(raw: str | None) -> pd.Timestamp | None:
    """One date string to a UTC timestamp, or None when it is missing or unparseable."""
    if raw is None or not str(raw).strip():
        return None
    text = str(raw).strip()
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


def parse_series(raw: pd.Series) -> pd.Series:
    """Vectorised ``parse_datetime``: ISO strings in bulk, the rest one by one. NaT where unparseable."""
    text = raw.astype("string").str.strip()
    parsed = pd.to_datetime(text, utc=True, format="ISO8601", errors="coerce")
    retry = parsed.isna() & text.notna() & (text != "")
    if retry.any():
        parsed = parsed.copy()
        parsed[retry] = [parse_datetime(v) or pd.NaT for v in text[retry]]
    return pd.to_datetime(parsed, utc=True).astype("datetime64[us, UTC]")


def iso_week(stamps: pd.Series) -> tuple[pd.Series, pd.Series]:
    """ISO week label (``2026-W01``) and the Monday 00:00 UTC starting it, for UTC timestamps."""
    calendar = stamps.dt.isocalendar()
    label = calendar["year"].astype(str) + "-W" + calendar["week"].astype(int).map("{:02d}".format)
    start = stamps.dt.normalize() - pd.to_timedelta(stamps.dt.weekday, unit="D")
    return label.astype(str), start
