"""Schemas of every table that crosses a stage boundary (pandera models, strict and coercing).

Code names columns through these models (``Papers.paper_id`` is the string ``"paper_id"``), and
``pipeline.io`` validates each table when it is written and when it is read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Optional

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow
from pandera.typing import Series

StrList = pd.ArrowDtype(pyarrow.list_(pyarrow.string()))
UTC = pd.DatetimeTZDtype(unit="us", tz="UTC")
WEEK_PATTERN = r"^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$"


class Listings(pa.DataFrameModel):
    """``data/interim/listings.parquet``: every raw record as read, one row per record."""

    source_file: Series[str] = pa.Field(description="file the record came from")
    source_format: Series[str] = pa.Field(description="reader that parsed it")
    position: Series[pd.Int64Dtype] = pa.Field(ge=0, description="0-based record index in the file")
    line: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1, description="1-based line it starts on")
    arxiv_id: Series[str] = pa.Field(nullable=True, description="id as given, version included")
    title: Series[str] = pa.Field(nullable=True)
    abstract: Series[str] = pa.Field(nullable=True)
    authors: Series[StrList]
    affiliations: Series[StrList] = pa.Field(description="per author, '' where none; may be empty")
    categories: Series[StrList]
    primary_category: Series[str] = pa.Field(nullable=True)
    published: Series[str] = pa.Field(nullable=True, description="first-version date, as given")
    updated: Series[str] = pa.Field(nullable=True, description="this version's date, as given")
    announced: Series[str] = pa.Field(nullable=True, description="listing/announcement day")
    comment: Series[str] = pa.Field(nullable=True)
    journal_ref: Series[str] = pa.Field(nullable=True)
    doi: Series[str] = pa.Field(nullable=True)
    url: Series[str] = pa.Field(nullable=True)
    headline: Series[str] = pa.Field(nullable=True, description="listing-page headline")
    tldr: Series[str] = pa.Field(nullable=True, description="listing-page one-line summary")
    badges: Series[StrList] = pa.Field(description='listing-page badges, e.g. "2 theorems"')
    warnings: Series[StrList] = pa.Field(description="what the reader was unsure of")
    error: Series[str] = pa.Field(nullable=True, description="why the record could not be read")

    class Config:
        strict = True
        coerce = True
        unique = ["source_file", "position"]


class Papers(pa.DataFrameModel):
    """``data/processed/papers.parquet``: one row per paper, cleaned and deduplicated."""

    paper_id: Series[str] = pa.Field(unique=True, str_matches=r"^(title:[0-9a-f]{16}|\S+)$")
    title: Series[str] = pa.Field(str_length={"min_value": 1})
    abstract: Series[str] = pa.Field(str_length={"min_value": 1})
    authors: Series[StrList]
    categories: Series[StrList]
    primary_category: Series[str] = pa.Field(nullable=True)
    published: Series[UTC] = pa.Field(description="earliest date seen for the paper (UTC)")
    updated: Series[UTC] = pa.Field(description="date of the version whose text is kept (UTC)")
    version: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    week: Series[str] = pa.Field(str_matches=WEEK_PATTERN, description="ISO week of published")
    week_start: Series[UTC] = pa.Field(description="Monday 00:00 UTC of that week")
    url: Series[str] = pa.Field(nullable=True)
    comment: Series[str] = pa.Field(nullable=True)
    journal_ref: Series[str] = pa.Field(nullable=True)
    doi: Series[str] = pa.Field(nullable=True)
    headline: Series[str] = pa.Field(nullable=True, description="listing-page headline, if any")
    tldr: Series[str] = pa.Field(nullable=True, description="listing-page one-line summary, if any")
    sources: Series[StrList] = pa.Field(description="every record merged here, as file#position")
    # optional: tables cleaned before it existed lack it, and readers then hash the text themselves
    text_hash: Optional[Series[np.uint64]] = pa.Field(
        description="text_hash of title and abstract, written by the clean stage only: changes with the text")

    class Config:
        strict = True
        coerce = True


def paper_text(title: str, abstract: str) -> str:
    """A paper's text as read for its words (watched themes): its title, a newline, its abstract
    (the clean stage leaves no newline in a title, so the text tells its title and abstract apart)."""
    return f"{title}\n{abstract}"


def text_hash(texts: Iterable[str]) -> np.ndarray:
    """A 64-bit hash of each text (``paper_text``): the clean stage stores it per paper
    (``Papers.text_hash``), so that a reader can tell a paper's text it has seen before, or a
    changed one, without reading the abstracts."""
    return np.array([int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little") for t in texts],
                    dtype=np.uint64)


class Duplicates(pa.DataFrameModel):
    """``data/processed/duplicates.parquet``: records merged into a paper that kept another's text."""

    source_file: Series[str]
    position: Series[pd.Int64Dtype] = pa.Field(ge=0)
    arxiv_id: Series[str] = pa.Field(nullable=True)
    paper_id: Series[str]
    reason: Series[str] = pa.Field(isin=["same id", "older version", "same title"])

    class Config:
        strict = True
        coerce = True
        unique = ["source_file", "position"]


WRONG_TYPE = "wrong field type"  # a record's error starts so when a field held something other than text

QUARANTINE_REASONS = [
    "unreadable",
    "wrong field type",
    "invalid arXiv id",
    "no title",
    "no abstract",
    "abstract too short",
    "abstract too long",
    "no date",
    "unparseable date",
    "implausible date",
]


class Quarantine(pa.DataFrameModel):
    """``data/processed/quarantine.parquet``: records kept out of the papers table, with the reason."""

    source_file: Series[str]
    position: Series[pd.Int64Dtype] = pa.Field(ge=0)
    line: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    arxiv_id: Series[str] = pa.Field(nullable=True)
    title: Series[str] = pa.Field(nullable=True)
    reason: Series[str] = pa.Field(isin=QUARANTINE_REASONS)
    detail: Series[str] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True
        unique = ["source_file", "position"]


def empty(model: type[pa.DataFrameModel]) -> pd.DataFrame:
    """An empty, correctly typed table of ``model``."""
    columns = model.to_schema().columns
    return model.validate(pd.DataFrame({name: pd.Series(dtype=col.dtype.type) for name, col in columns.items()}))


class DocTopics(pa.DataFrameModel):
    """``data/processed/doc_topics.parquet``: the theme of every paper (-1: unassigned)."""

    paper_id: Series[str] = pa.Field(unique=True)
    topic: Series[pd.Int64Dtype] = pa.Field(ge=-1)
    probability: Series[float] = pa.Field(ge=0, le=1, description="cosine similarity to the theme's centroid")

    class Config:
        strict = True
        coerce = True


class TopicInfo(pa.DataFrameModel):
    """``data/processed/topic_info.parquet``: one row per theme."""

    topic: Series[pd.Int64Dtype] = pa.Field(ge=0, unique=True)
    label: Series[str] = pa.Field(unique=True, str_length={"min_value": 1})
    description: Series[str] = pa.Field(description='strongest phrases, " · "-separated')
    label_support: Series[float] = pa.Field(
        nullable=True, ge=0, le=1, description="share of the theme's papers containing every content word of the label")
    # optional: tables written before it existed lack it
    label_next: Optional[Series[str]] = pa.Field(
        nullable=True, description="the phrase shown beside a label part of the theme writes (naming/complement.py)")
    area: Series[pd.Int64Dtype] = pa.Field(ge=0, description="the area (group of themes) it belongs to")
    area_label: Series[str] = pa.Field(str_length={"min_value": 1})
    keywords: Series[StrList]
    size: Series[pd.Int64Dtype] = pa.Field(ge=0)
    representative_ids: Series[StrList]
    first_week: Series[str] = pa.Field(nullable=True, str_matches=WEEK_PATTERN)

    class Config:
        strict = True
        coerce = True


TREE_LEVELS = ["theme", "area", "join"]


class TopicTree(pa.DataFrameModel):
    """``data/processed/topic_tree.parquet``: themes joined into areas and above (one row per node).

    Themes are leaves; ``area`` nodes are the cut that defines areas; ``join`` nodes join two subtrees
    at ``distance`` (Ward's method on theme centroids), inside an area (``area`` set) or above areas.
    The node without a parent is the root."""

    node: Series[str] = pa.Field(unique=True, str_matches=r"^(theme|area|join):\d+$")
    parent: Series[str] = pa.Field(nullable=True)
    level: Series[str] = pa.Field(isin=TREE_LEVELS)
    topic: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0, description="theme id of a theme node")
    area: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0, description="area the node lies in, if one")
    label: Series[str] = pa.Field(nullable=True, description="theme or area label")
    size: Series[pd.Int64Dtype] = pa.Field(ge=0, description="papers under the node")
    distance: Series[float] = pa.Field(ge=0, description="height at which the node's children join")

    class Config:
        strict = True
        coerce = True


LINEAGE_RELATIONS = ["same", "split", "merged", "new", "retired"]


class TopicLineage(pa.DataFrameModel):
    """``data/processed/topic_lineage.parquet``: what each fit, refit or weekly update did to each
    theme. A theme born in a weekly update (``new``, or ``split`` from the theme it grew out of) names
    the week it was born and the pool of unexplained papers it came from."""

    run: Series[str] = pa.Field(description="UTC time of the fit, ISO 8601")
    from_topic: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    to_topic: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    relation: Series[str] = pa.Field(isin=LINEAGE_RELATIONS)
    similarity: Series[float] = pa.Field(nullable=True)
    shared_papers: Series[pd.Int64Dtype] = pa.Field(ge=0)
    mode: Series[str] = pa.Field(isin=["fit", "refit", "update"], description="the run that did it")
    week: Series[str] = pa.Field(nullable=True, str_matches=WEEK_PATTERN, description="newest week of that run")
    pool_size: Series[pd.Int64Dtype] = pa.Field(
        nullable=True, ge=0, description="a birth: papers no theme explained, pooled over the window")
    pool_start: Series[str] = pa.Field(nullable=True, str_matches=WEEK_PATTERN, description="a birth: the pool's first week")

    class Config:
        strict = True
        coerce = True


def _build_pandas_only(*models: type[pa.DataFrameModel]) -> None:
    """Build each model's pandera schema now, with pandera's model builder told that only pandas
    types annotate them (true of every model here). Left alone, the builder asks every dataframe
    library it finds installed for its types, and with Dask installed (the ``cluster`` extra) that
    imports ``dask.dataframe``: about a second added to every command that reads a table. pandera
    keeps each built schema (per thread); the builder is restored at once, so other models in the
    process are built as pandera builds them."""
    from pandera.api.pandas import model as builder
    from pandera.typing import Index

    saved = builder.get_index_types, builder.get_series_types
    builder.get_index_types, builder.get_series_types = (lambda: {Index}), (lambda: {Series})
    try:
        for model in models:
            model.to_schema()
    finally:
        builder.get_index_types, builder.get_series_types = saved


_build_pandas_only(Listings, Papers, Duplicates, Quarantine, DocTopics, TopicInfo, TopicTree, TopicLineage)
