"""The raw record every reader yields, and the errors readers raise.

A reader is a generator ``read(stream, ctx) -> Iterator[dict]`` over an open binary stream. Each
dict it yields is made by :func:`record`, holding the fields of ``schemas.Listings`` except
``source_file``, ``source_format`` and ``position``, which the ingest driver sets. Values stay as
found in the file (cleaning is the clean stage's work); a record the reader could not make sense of
is still yielded, with ``error`` saying why, so that it lands in quarantine rather than vanishing.
A reader raises :class:`SourceError` when the file itself breaks (truncated XML, gzip cut short).
"""

from __future__ import annotations

import codecs
import gzip
import zlib
from dataclasses import dataclass, field

from pipeline.io.inputs import STREAM_ERRORS  # noqa: F401 - the readers' stream errors, named here for them

_LIST_FIELDS = ("authors", "affiliations", "categories", "badges", "warnings")
_SCALAR_FIELDS = (
    "line", "arxiv_id", "title", "abstract", "primary_category", "published", "updated", "announced",
    "comment", "journal_ref", "doi", "url", "headline", "tldr", "error",
)
FIELDS = _SCALAR_FIELDS + _LIST_FIELDS


class SourceError(Exception):
    """A file cannot be read (further): the message says why, ``line``/``byte`` say where."""

    def __init__(self, message: str, *, line: int | None = None, byte: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.byte = byte

    def where(self) -> str:
        if self.line is not None:
            return f"line {self.line}"
        if self.byte is not None:
            return f"byte {self.byte}"
        return ""


@dataclass
class ReadContext:
    """What a reader may know about the file besides its bytes."""

    name: str  # the file's name, e.g. "2025-03-18.jsonl.gz" (daily listings take their date from it)
    columns: dict[str, str] = field(default_factory=dict)  # our field -> their column (CSV, parquet)
    categories: tuple[str, ...] = ()  # the --category filter; a reader may use it to skip early
    warnings: list[str] = field(default_factory=list)  # file-level warnings, logged by the driver
    skipped: int = 0  # records a reader dropped early because the category filter excludes them


def record(**fields) -> dict:
    """A raw record with every Listings field present; unknown field names are a bug."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise TypeError(f"unknown record fields: {sorted(unknown)}")
    out = {name: None for name in _SCALAR_FIELDS}
    out.update({name: [] for name in _LIST_FIELDS})
    for name, value in fields.items():
        if name in _LIST_FIELDS:
            out[name] = [str(v) for v in value] if value else []
        elif value is None or name == "line":
            out[name] = value
        else:
            out[name] = str(value)
    return out


# --- decoding ------------------------------------------------------------------------------------
def _windows_1252_fallback(exc: UnicodeDecodeError) -> tuple[str, int]:
    """Decode one byte that is not valid UTF-8 as Windows-1252 (Latin-1 for its five holes)."""
    byte = exc.object[exc.start : exc.start + 1]
    try:
        return byte.decode("cp1252"), exc.start + 1
    except UnicodeDecodeError:
        return byte.decode("latin-1"), exc.start + 1


codecs.register_error("paper_trends_cp1252", _windows_1252_fallback)


def decode(data: bytes) -> tuple[str, int | None]:
    """Decode UTF-8, falling back byte by byte to Windows-1252.

    Returns the text and the offset of the first byte that was not valid UTF-8 (None if all were),
    so the caller can warn with the exact place. A UTF-8 byte-order mark is dropped.
    """
    skipped = 0
    if data.startswith(codecs.BOM_UTF8):
        skipped = len(codecs.BOM_UTF8)
        data = data[skipped:]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="paper_trends_cp1252"), exc.start + skipped


def fallback_warning(offset: int) -> str:
    return f"not valid UTF-8 from byte {offset}: decoded as Windows-1252/Latin-1"


# --- stream errors -------------------------------------------------------------------------------
def stream_error_message(exc: BaseException) -> str:
    """A reader-independent description of a failed read of the (decompressed) stream."""
    if isinstance(exc, EOFError):
        return "gzip data cut short: the compressed file ends before its end-of-stream marker"
    if isinstance(exc, zlib.error):
        return f"gzip data corrupt: {exc}"
    if isinstance(exc, gzip.BadGzipFile):
        return f"gzip data corrupt: {exc}"
    return f"cannot read: {exc}"
