"""Clean stage: ``listings.parquet`` -> ``papers.parquet``, ``duplicates.parquet``, ``quarantine.parquet``.

Every raw record ends in exactly one of the three tables: as the record whose text a paper keeps,
as a duplicate merged into a paper, or in quarantine with a reason. ``clean_listings`` checks that
accounting and raises :class:`AccountingError` when it does not balance.

Identity: an arXiv id without its version; a record without an id joins the arXiv paper with the
same normalised title when there is one, else gets ``title:<hash>``. Within a paper the newest
record with an arXiv id (latest version date, then highest version, then latest in input order;
title-only records such as digest summaries come last) gives the text,
other fields fall back to the newest record that has them, categories are united, and
``published`` is the earliest date seen.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline import arxiv, dates, ids
from pipeline.config import CleanConfig, Config, as_dict
from pipeline.io import TableError, read_json, read_table, write_json, write_table
from pipeline.schemas import WRONG_TYPE, Duplicates, Listings, Papers, Quarantine, empty
from pipeline.stage import StageResult, Timer, code_version, fingerprint, outputs_current, progress
from pipeline.textclean import clean_text

log = logging.getLogger(__name__)

L, P = Listings, Papers


class AccountingError(RuntimeError):
    """Raw records do not balance against papers + duplicates + quarantine."""


@dataclass(frozen=True)
class CleanResult:
    papers: pd.DataFrame
    duplicates: pd.DataFrame
    quarantine: pd.DataFrame

    def counts(self, raw: int) -> dict[str, int]:
        return {
            "raw records": raw,
            "papers": len(self.papers),
            "duplicates": len(self.duplicates),
            "quarantined": len(self.quarantine),
        }


# --- text ----------------------------------------------------------------------------------------
def _clean_strings(values: pd.Series) -> pd.Series:
    """clean_text over a column, once per distinct value; empty results become missing."""
    values = values.astype(object).where(values.notna(), None)
    distinct = pd.unique(values.dropna())
    mapping = {v: clean_text(v) or None for v in progress(distinct, desc=f"clean {values.name}", unit="text")}
    return values.map(lambda v: mapping.get(v) if v is not None else None)


def _clean_lists(values: pd.Series) -> pd.Series:
    """clean_text over every item of a list column, dropping items that clean to nothing."""
    lists = values.tolist()
    distinct = {item for items in lists if items is not None for item in items}
    mapping = {v: clean_text(v) for v in distinct}
    return pd.Series(
        [[c for item in items if (c := mapping[item])] if items is not None else [] for items in lists],
        index=values.index,
        dtype=object,
    )


def _arxiv_categories(values: list[str] | None) -> list[str]:
    """The arXiv categories of a listing's category list, in order, without repeats or other codes."""
    out: list[str] = []
    for value in values if values is not None else []:
        for token in re.split(r"[\s,;]+", value):
            if arxiv.CATEGORY.fullmatch(token) and token not in out:
                out.append(token)
    return out


def clean_fields(listings: pd.DataFrame) -> pd.DataFrame:
    """Listings with text fields cleaned (a new frame; the input is left as it was)."""
    return listings.assign(
        **{col: _clean_strings(listings[col]) for col in (L.title, L.abstract, L.comment, L.journal_ref, L.headline, L.tldr)},
        **{L.authors: _clean_lists(listings[L.authors])},
        **{L.categories: listings[L.categories].map(_arxiv_categories).astype(object)},
        **{L.primary_category: listings[L.primary_category].map(
            lambda c: c.strip() if isinstance(c, str) and arxiv.CATEGORY.fullmatch(c.strip()) else None
        ).astype(object)},
    )


# --- quarantine ----------------------------------------------------------------------------------
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
    mark(df[L.title].isna(), "no title")
    mark(abstract_len == 0, "no abstract")
    mark(abstract_len.between(1, cfg.min_abstract_chars - 1), "abstract too short",
         abstract_len.map("{:,} characters".format))
    mark(abstract_len > cfg.max_abstract_chars, "abstract too long",
         abstract_len.map(lambda n: f"{n:,} characters (limit {cfg.max_abstract_chars:,})"))
    # an undated record (a daily feed's replacement notice) joins its paper if a dated, sound record
    # of the same arXiv id is held; only then can the paper be placed in a week
    why = dates.implausible(df["_date"])
    dated = set(df.loc[reason.isna() & df["_date"].notna() & (why == "") & df["_base_id"].notna(), "_base_id"])
    mark(raw_date.isna() & ~df["_base_id"].isin(dated), "no date")
    mark(df["_date"].isna() & raw_date.notna(), "unparseable date", raw_date.astype(object).map(lambda v: f"date {v!r}"))
    mark(why != "", "implausible date", pd.Series([f"date {v!r}: {w}" for v, w in zip(raw_date, why)], index=df.index))
    return reason, detail


# --- identity and merging ------------------------------------------------------------------------
def _parse_ids(arxiv_ids: pd.Series) -> tuple[pd.Series, pd.Series]:
    parsed = {v: ids.parse_arxiv_id(v) for v in pd.unique(arxiv_ids.dropna())}
    base = arxiv_ids.map(lambda v: parsed[v][0] if v is not None and parsed.get(v) else None)
    version = arxiv_ids.map(lambda v: parsed[v][1] if v is not None and parsed.get(v) else None)
    return base.astype(object), pd.array(version, dtype="Int64")


def assign_paper_ids(good: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Paper id per record, and whether it was matched by title to an arXiv paper."""
    paper_id = good["_base_id"].copy()
    by_title = pd.Series(False, index=good.index)
    missing = paper_id.isna()
    if missing.any():
        norm = good[L.title].map(ids.normalise_title)
        known = (
            pd.DataFrame({"norm": norm[~missing], "id": paper_id[~missing]})
            .drop_duplicates("norm")
            .set_index("norm")["id"]
        )
        matched = norm[missing].map(known)
        by_title[missing] = True
        paper_id[missing] = matched.where(matched.notna(), good.loc[missing, L.title].map(ids.title_id))
    return paper_id, by_title


def _first_present(sorted_df: pd.DataFrame, group: str, column: str) -> pd.Series:
    present = sorted_df[[group, column]][sorted_df[column].notna()]
    return present.drop_duplicates(group).set_index(group)[column]


def _first_nonempty_list(sorted_df: pd.DataFrame, group: str, column: str) -> pd.Series:
    nonempty = sorted_df[[group, column]][sorted_df[column].map(len) > 0]
    return nonempty.drop_duplicates(group).set_index(group)[column]


def _lists_by_group(groups: pd.Series, items: list[list], *, unique: bool = False) -> pd.Series:
    """Concatenate per-row lists within each group (rows already sorted by group), keeping order."""
    out: dict = {}
    for key, row_items in zip(groups, items):
        bucket = out.setdefault(key, [])
        bucket.extend(i for i in row_items if not (unique and i in bucket))
    return pd.Series(out, dtype=object)


def merge_papers(good: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per paper from the records that passed quarantine, and the duplicates table."""
    # arXiv records give the text before title-only ones (a digest's summary is not the abstract)
    order = good.assign(_has_id=good["_base_id"].notna()).sort_values(
        ["_paper_id", "_has_id", "_order_date", "_version", "_seq"],
        ascending=[True, False, False, False, False],
        na_position="last",
        kind="stable",
    )
    winners = order.drop_duplicates("_paper_id").set_index("_paper_id")
    losers = order[order.duplicated("_paper_id")]

    winner_version = winners["_version"].reindex(losers["_paper_id"]).to_numpy()
    older = losers["_version"].notna().to_numpy() & pd.notna(winner_version)
    older &= np.where(older, losers["_version"].fillna(0).to_numpy() < pd.array(winner_version).fillna(0), False)
    by_title = losers["_by_title"].to_numpy() | winners["_by_title"].reindex(losers["_paper_id"]).to_numpy()
    reason = np.where(by_title, "same title", np.where(older, "older version", "same id"))
    duplicates = pd.DataFrame({
        Duplicates.source_file: losers[L.source_file].to_numpy(),
        Duplicates.position: losers[L.position].to_numpy(),
        Duplicates.arxiv_id: losers[L.arxiv_id].to_numpy(),
        Duplicates.paper_id: losers["_paper_id"].to_numpy(),
        Duplicates.reason: reason,
    })

    group = "_paper_id"
    categories = _lists_by_group(
        order[group],
        [([p] if isinstance(p, str) else []) + list(c) for p, c in zip(order[L.primary_category], order[L.categories])],
        unique=True,
    )
    primary = _first_present(order, group, L.primary_category)
    published = good.groupby("_paper_id")["_date"].min()
    in_input_order = good.sort_values(["_paper_id", "_seq"])
    sources = _lists_by_group(in_input_order["_paper_id"], [[k] for k in in_input_order["_key"]])
    index = winners.index

    def fallback(column: str) -> pd.Series:
        return _first_present(order, group, column).reindex(index)

    papers = pd.DataFrame({
        P.paper_id: index.to_numpy(),
        P.title: winners[L.title].to_numpy(),
        P.abstract: winners[L.abstract].to_numpy(),
        P.authors: _first_nonempty_list(order, group, L.authors).reindex(index).map(
            lambda a: a if isinstance(a, list) else []).to_numpy(),
        P.categories: categories.reindex(index).map(lambda c: c if isinstance(c, list) else []).to_numpy(),
        P.primary_category: primary.reindex(index).to_numpy(),
        P.published: published.reindex(index).to_numpy(),
        P.updated: winners["_order_date"].to_numpy(),
        P.version: winners["_version"].to_numpy(),
        P.url: [ids.abs_url(pid) or url for pid, url in zip(index, fallback(L.url))],
        P.comment: fallback(L.comment).to_numpy(),
        P.journal_ref: fallback(L.journal_ref).to_numpy(),
        P.doi: fallback(L.doi).to_numpy(),
        P.headline: fallback(L.headline).to_numpy(),
        P.tldr: fallback(L.tldr).to_numpy(),
        P.sources: sources.reindex(index).to_numpy(),
    })
    published_utc = pd.to_datetime(papers[P.published], utc=True)
    week, week_start = dates.iso_week(published_utc)
    papers = papers.assign(**{P.published: published_utc, P.week: week.to_numpy(), P.week_start: week_start})
    papers = papers.sort_values([P.published, P.paper_id], kind="stable").reset_index(drop=True)
    return papers[list(Papers.to_schema().columns)], duplicates


def clean_listings(listings: pd.DataFrame, cfg: CleanConfig) -> CleanResult:
    """Clean, identify, quarantine and merge raw records; checks that nothing was lost."""
    df = clean_fields(listings).reset_index(drop=True)
    base, version = _parse_ids(df[L.arxiv_id].astype(object).where(df[L.arxiv_id].notna(), None))
    published = dates.parse_series(df[L.published])
    announced = dates.parse_series(df[L.announced])
    updated = dates.parse_series(df[L.updated])
    df = df.assign(
        _key=df[L.source_file].astype(str) + "#" + df[L.position].astype(str),
        _seq=np.arange(len(df)),
        _base_id=base,
        _version=version,
        _date=published.fillna(announced),
        # an implausible update date does not order versions (the record itself is judged by its date)
        _order_date=updated.where(dates.implausible(updated) == "").fillna(published).fillna(announced),
    )
    reason, detail = quarantine_reasons(df, cfg)
    bad = reason.notna()
    quarantine = pd.DataFrame({
        Quarantine.source_file: df.loc[bad, L.source_file].to_numpy(),
        Quarantine.position: df.loc[bad, L.position].to_numpy(),
        Quarantine.line: df.loc[bad, L.line].to_numpy(),
        Quarantine.arxiv_id: df.loc[bad, L.arxiv_id].to_numpy(),
        Quarantine.title: df.loc[bad, L.title].to_numpy(),
        Quarantine.reason: reason[bad].to_numpy(),
        Quarantine.detail: detail[bad].to_numpy(),
    })
    good = df[~bad]
    paper_id, by_title = assign_paper_ids(good)
    good = good.assign(_paper_id=paper_id, _by_title=by_title)
    if good.empty:
        papers, duplicates = empty(Papers), empty(Duplicates)
    else:
        papers, duplicates = merge_papers(good)
    result = CleanResult(papers, duplicates, quarantine)
    check_accounting(df, result)
    return result


def check_accounting(df: pd.DataFrame, result: CleanResult) -> None:
    """Every raw record is in exactly one place: a paper's kept record, a duplicate, or quarantine."""
    raw = set(df["_key"])
    kept = {key for sources in result.papers[P.sources] for key in sources}
    dup = set(result.duplicates[Duplicates.source_file].astype(str) + "#" + result.duplicates[Duplicates.position].astype(str))
    quar = set(result.quarantine[Quarantine.source_file].astype(str) + "#" + result.quarantine[Quarantine.position].astype(str))
    counts = result.counts(len(df))
    problems = []
    if len(result.papers) + len(result.duplicates) + len(result.quarantine) != len(df):
        problems.append("papers + duplicates + quarantined != raw records")
    if kept & quar or dup - kept:
        problems.append("a record is both kept and quarantined, or a duplicate of no paper")
    if (kept | quar) != raw:
        lost = raw - kept - quar
        problems.append(f"{len(lost)} record(s) unaccounted for, e.g. {sorted(lost)[:3]}")
    if problems:
        raise AccountingError(f"clean does not balance ({counts}): {'; '.join(problems)}")


# --- stage ---------------------------------------------------------------------------------------
def run(cfg: Config, *, force: bool = False) -> StageResult:
    paths = cfg.paths
    outputs = [paths.papers, paths.duplicates, paths.quarantine]
    if not paths.listings.exists():
        raise TableError(f"{paths.display(paths.listings)}: not found; run the stage that writes it first (ingest)")
    code = code_version("pipeline.clean", "pipeline.textclean", "pipeline.ids", "pipeline.dates", "pipeline.schemas")
    fp = fingerprint(code, as_dict(cfg.clean), [paths.listings])
    if not force and outputs_current(outputs, fp, paths.processed / "clean.json"):
        return StageResult("clean", ran=False, counts=read_json(paths.processed / "clean.json").get("counts", {}))
    with Timer() as timer:
        listings = read_table(paths.listings, Listings)
        result = clean_listings(listings, cfg.clean)
        write_table(result.papers, paths.papers, Papers, fingerprint=fp)
        write_table(result.duplicates, paths.duplicates, Duplicates, fingerprint=fp)
        write_table(result.quarantine, paths.quarantine, Quarantine, fingerprint=fp)
    counts = result.counts(len(listings))
    reasons = result.quarantine[Quarantine.reason].value_counts().to_dict()
    write_json({"fingerprint": fp, "counts": counts, "quarantine_reasons": reasons,
                "seconds": round(timer.seconds, 3)}, paths.processed / "clean.json")
    for why, n in reasons.items():
        log.warning("clean: %d record(s) quarantined: %s (see %s)", n, why, paths.display(paths.quarantine))
    return StageResult("clean", ran=True, counts=counts, seconds=timer.seconds,
                       details={"quarantine_reasons": reasons})
