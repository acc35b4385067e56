"""The formats ingest reads, each with its reader, and how a file's first bytes tell which it is."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

from pipeline.config import FORMATS as READER_OF
from pipeline.ingest.records import ReadContext, SourceError, decode
from pipeline.ingest.text_formats import sniff_text_format

Reader = Callable[[BinaryIO, ReadContext], Iterator[dict]]


def _reader(where: str) -> Reader:
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


FORMATS: dict[str, Reader] = {name: _reader(where) for name, where in READER_OF.items()}  # config.FORMATS, imported

# Keys only the Kaggle snapshot has; "submitter" comes second in its lines, before any long abstract.
_KAGGLE_KEYS = ("authors_parsed", "versions", "submitter", "update_date", "journal-ref", "report-no")


class IngestError(RuntimeError):
    """Ingest cannot go on (strict mode, or no input at all)."""


def _is_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    control = sum(1 for b in head[:4096] if b < 32 and b not in (9, 10, 12, 13))
    return control > len(head[:4096]) * 0.05


def detect_format(head: bytes, name: str) -> str:
    """The format of a file from its first bytes (decompressed) and its name; SourceError if none."""
    if not head.strip():
        raise SourceError("empty file (no records)")
    if head.startswith(b"PAR1"):
        return "parquet"
    if _is_binary(head):
        nul = head.find(b"\x00")
        raise SourceError(f"binary data, not a listing (starts {head[:16]!r})", byte=max(nul, 0))
    text, _ = decode(head)
    stripped = text.lstrip()
    lower = name.lower()
    if stripped.startswith("<"):
        if "<feed" in stripped or "<entry" in stripped:
            return "atom"
        raise SourceError("XML or HTML, but not an Atom feed of arXiv entries", line=1)
    if stripped.startswith("{"):
        if any(f'"{key}"' in stripped for key in _KAGGLE_KEYS):
            return "kaggle"
        if '"summary"' in stripped or '"abstract"' in stripped or '"title"' in stripped:
            return "daily-jsonl"
        raise SourceError("JSON lines, but without title/summary fields of a listing", line=1)
    if lower.endswith((".csv", ".csv.gz")):
        return "csv"
    found = sniff_text_format(text)
    if found is not None:
        return found
    raise SourceError(
        f"unknown format: not one of {', '.join(FORMATS)}; if it is one, name it with --format",
        line=1,
    )
