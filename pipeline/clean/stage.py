"""The clean stage's wiring: skip when nothing changed, read listings, write the three tables and
the run record."""

from __future__ import annotations

import logging

from pipeline.clean.listings import clean_listings
from pipeline.config import Config, as_dict
from pipeline.io import TableError, read_json, read_table, write_json, write_table
from pipeline.schemas import Duplicates, Listings, Papers, Quarantine
from pipeline.stage import StageResult, Timer, code_version, fingerprint, outputs_current


log = logging.getLogger(__name__)


def run(cfg: Config, *, force: bool = False) -> StageResult:
    paths = cfg.paths
    outputs = [paths.papers, paths.duplicates, paths.quarantine]
    if not paths.listings.exists():
        raise TableError(f"{paths.display(paths.listings)}: not found; run the stage that writes it first (ingest)")
    code = code_version("pipeline.clean", "pipeline.clean.text", "pipeline.dates", "pipeline.arxiv", "pipeline.schemas")
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
