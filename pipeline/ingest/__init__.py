"""Ingest stage: listing files of any supported format -> ``data/interim/listings.parquet``.

Every record read is written with its source file, format and position. A file that cannot be read
(empty, binary, unknown format, broken XML or gzip) is named in a warning with the place it broke,
keeps the records read before the break, and adds one ``error`` row so the clean stage quarantines
it: nothing disappears without a trace. ``strict`` turns such a file into a failure instead.
"""

from __future__ import annotations

from pipeline.ingest.filters import Filter
from pipeline.ingest.formats import FORMATS, IngestError, Reader, detect_format
from pipeline.ingest.stage import IngestStats, ingest, list_inputs, read_file, run

__all__ = ["FORMATS", "Filter", "IngestError", "IngestStats", "Reader", "detect_format", "ingest", "list_inputs",
           "read_file", "run"]
