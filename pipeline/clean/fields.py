"""Each listing's fields made clean: text repaired (``text``), lists tidied, arXiv categories kept
in order without repeats or other codes."""

from __future__ import annotations

import re

import pandas as pd

from pipeline import arxiv
from pipeline.clean.text import clean_text
from pipeline.schemas import Listings as L
from pipeline.progress import progress


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
