"""The clean stage's promise: every raw record ends in exactly one of papers (as the record whose
text a paper keeps), duplicates, or quarantine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from pipeline.schemas import Duplicates, Quarantine
from pipeline.schemas import Papers as P

if TYPE_CHECKING:
    from pipeline.clean.listings import CleanResult


class AccountingError(RuntimeError):
    """Raw records do not balance against papers + duplicates + quarantine."""


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
