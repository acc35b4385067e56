"""The clean stage's wiring: skip when nothing changed, read listings, write the three tables and
the run record."""

from __future__ import annotations

import logging

from pipeline.clean.listings import clean_listings
from pipeline.config import Config, as_dict
from pipeline.io import TableError, read_table, write_table
from pipeline.schemas import Duplicates, Listings, Papers, Quarantine
from pipeline.stage import StageResult, Step, Timer, code_version, fingerprint


log = logging.getLogger(__name__)


def run(cfg: Config, *, force: bool = False) -> StageResult:
    paths = cfg.paths
    outputs = [paths.papers, paths.duplicates, paths.quarantine]
    if not paths.listings.exists():
        raise TableError(f"{paths.display(paths.listings)}: not found; run the stage that writes it first (ingest)")
    code = code_version("pipeline.clean", "pipeline.clean.text", "pipeline.dates", "pipeline.arxiv", "pipeline.schemas")
    fp = fingerprint(code, as_dict(cfg.clean), [paths.listings])
    step = Step("clean", fp, outputs, paths.run_record("clean"))
    if (skipped := step.skipped(force)) is not None:
        return skipped
    with Timer() as timer:
        listings = read_table(paths.listings, Listings)
        result = clean_listings(listings, cfg.clean)
        write_table(result.papers, paths.papers, Papers, fingerprint=fp)
        write_table(result.duplicates, paths.duplicates, Duplicates, fingerprint=fp)
        write_table(result.quarantine, paths.quarantine, Quarantine, fingerprint=fp)
    counts = result.counts(len(listings))
    reasons = result.quarantine[Quarantine.reason].value_counts().to_dict()
    for why, n in reasons.items():
        log.warning("clean: %d record(s) quarantined: %s (see %s)", n, why, paths.display(paths.quarantine))
    return step.done(counts, timer.seconds, details={"quarantine_reasons": reasons}, quarantine_reasons=reasons)
