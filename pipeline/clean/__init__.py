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

from pipeline.clean.accounting import AccountingError, check_accounting
from pipeline.clean.fields import clean_fields
from pipeline.clean.listings import CleanResult, clean_listings
from pipeline.clean.stage import run

__all__ = ["AccountingError", "CleanResult", "check_accounting", "clean_fields", "clean_listings", "run"]
