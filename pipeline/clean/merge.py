"""Identity and merging: every good record gets a paper id (an arXiv id without version, the arXiv
paper of the same title, or ``title:<hash>``), and the records of one paper merge into one row."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipeline import dates
from pipeline.clean import ids
from pipeline.schemas import Duplicates, Papers, paper_text, text_hash
from pipeline.schemas import Listings as L
from pipeline.schemas import Papers as P


def parse_ids(arxiv_ids: pd.Series) -> tuple[pd.Series, pd.Series]:
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
    papers[P.text_hash] = text_hash(map(paper_text, papers[P.title].tolist(), papers[P.abstract].tolist()))
    published_utc = pd.to_datetime(papers[P.published], utc=True)
    week, week_start = dates.iso_week(published_utc)
    papers = papers.assign(**{P.published: published_utc, P.week: week.to_numpy(), P.week_start: week_start})
    papers = papers.sort_values([P.published, P.paper_id], kind="stable").reset_index(drop=True)
    return papers[list(Papers.to_schema().columns)], duplicates
