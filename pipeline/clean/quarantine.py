"""Which records cannot become papers, and why: each gets a reason and a detail in
``quarantine.parquet``."""

from __future__ import annotations

import re

import pandas as pd

from pipeline import dates
from pipeline.config import CleanConfig
from pipeline.schemas import WRONG_TYPE
from pipeline.schemas import Listings as L


def quarantine_reasons(df: pd.DataFrame, cfg: CleanConfig) -> tuple[pd.Series, pd.Series]:
    """Per record: the first reason it cannot be a paper (None if it can), and a detail text."""
    reason = pd.Series(None, index=df.index, dtype=object)
    detail = pd.Series(None, index=df.index, dtype=object)

    def mark(mask: pd.Series, why: str, what: pd.Series | str | None = None) -> None:
        mask = mask & reason.isna()
        reason[mask] = why
        if what is not None:
            detail[mask] = what[mask] if isinstance(what, pd.Series) else what

    abstract_len = df[L.abstract].map(lambda s: len(s) if isinstance(s, str) else 0)
    raw_date = df[L.published].astype(object).where(df[L.published].notna(), df[L.announced].astype(object))
    raw_date = raw_date.where(raw_date.notna(), None)
    wrong = df[L.error].astype("string").str.startswith(WRONG_TYPE + ": ").fillna(False).astype(bool)
    mark(wrong, "wrong field type", df[L.error].astype(object).map(lambda e: e[len(WRONG_TYPE) + 2:] if isinstance(e, str) else e))
    mark(df[L.error].notna(), "unreadable", df[L.error].astype(object))
    mark(df[L.arxiv_id].notna() & df["_base_id"].isna(), "invalid arXiv id", df[L.arxiv_id].astype(object))
    mark(df[L.title].isna(), "no title", "the record has no title")
    mark(abstract_len == 0, "no abstract", "the record has no abstract")
    mark(abstract_len.between(1, cfg.min_abstract_chars - 1), "abstract too short",
         abstract_len.map("{:,} characters".format))
    mark(abstract_len > cfg.max_abstract_chars, "abstract too long",
         abstract_len.map(lambda n: f"{n:,} characters (limit {cfg.max_abstract_chars:,})"))
    # an undated record (a daily feed's replacement notice) joins its paper if a dated, sound record
    # of the same arXiv id is held; only then can the paper be placed in a week
    why = dates.implausible(df["_date"])
    dated = set(df.loc[reason.isna() & df["_date"].notna() & (why == "") & df["_base_id"].notna(), "_base_id"])
    undated = raw_date.isna() & ~df["_base_id"].isin(dated)
    mark(undated, "no date", _no_date(df[undated]).reindex(df.index))
    mark(df["_date"].isna() & raw_date.notna(), "unparseable date", raw_date.astype(object).map(lambda v: f"date {v!r}"))
    mark(why != "", "implausible date", pd.Series([f"date {v!r}: {w}" for v, w in zip(raw_date, why)], index=df.index))
    bad = reason.notna()
    detail[bad] = _placed(detail[bad], df[bad])
    return reason, detail


def _no_date(df: pd.DataFrame) -> pd.Series:
    """Why a record has no date: a daily listing's day comes from its file's name."""
    daily = df[L.source_format].astype("string").eq("daily-jsonl").fillna(False).astype(bool)
    dated_name = df[L.source_file].astype(str).str.contains(r"\d{4}-\d{2}-\d{2}[^/]*$", regex=True)
    why = [
        ("no published date, and the file's name holds no announcement day (name daily listings YYYY-MM-DD.jsonl)"
         if not named else "no published date") if d else "no published, updated or announced date"
        for d, named in zip(daily, dated_name)
    ]
    return pd.Series(why, index=df.index)


def _placed(detail: pd.Series, df: pd.DataFrame) -> pd.Series:
    """Each detail followed by where its record stands: the file, and the line (where the detail
    does not name it already) or, for a record without one, its place among the file's records read."""
    out = []
    for d, file, line, position in zip(detail, df[L.source_file], df[L.line], df[L.position]):
        said = isinstance(d, str) and pd.notna(line) and re.search(rf"\bline {int(line)}\b", d) is not None
        where = (file if said else f"{file}, line {int(line)}") if pd.notna(line) else \
            f"{file}, record {int(position) + 1} as read"
        out.append(f"{d} (in {where})" if isinstance(d, str) else f"in {where}")
    return pd.Series(out, index=df.index, dtype=object)
