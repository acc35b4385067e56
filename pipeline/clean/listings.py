"""The clean of a listings table, in memory: clean the fields, quarantine what cannot be a paper,
identify and merge the rest, and check that every record is accounted for."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline import dates
from pipeline.clean.accounting import check_accounting
from pipeline.clean.fields import clean_fields
from pipeline.clean.merge import parse_ids, assign_paper_ids, merge_papers
from pipeline.clean.quarantine import quarantine_reasons
from pipeline.config import CleanConfig
from pipeline.schemas import Duplicates, Papers, Quarantine, empty
from pipeline.schemas import Listings as L


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


def clean_listings(listings: pd.DataFrame, cfg: CleanConfig) -> CleanResult:
    """Clean, identify, quarantine and merge raw records; checks that nothing was lost."""
    df = clean_fields(listings).reset_index(drop=True)
    base, version = parse_ids(df[L.arxiv_id].astype(object).where(df[L.arxiv_id].notna(), None))
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
