"""CSV and parquet files whose columns are mapped onto our fields (``--columns title=Title,...``).

Without a mapping, columns named like our fields (or their usual aliases) are used. List fields
(authors, categories) may be real lists (parquet) or delimited strings: authors split on ';' when
the cell has one, else on ','; categories on spaces, commas or semicolons.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from pipeline.ingest.records import FIELDS, ReadContext, SourceError, fallback_warning, record

_ALIASES = {
    "arxiv_id": ("arxiv_id", "id", "paper_id"),
    "title": ("title",),
    "abstract": ("abstract", "summary"),
    "authors": ("authors", "author"),
    "categories": ("categories", "category"),
    "primary_category": ("primary_category",),
    "published": ("published", "date", "submitted"),
    "updated": ("updated",),
    "announced": ("announced",),
    "comment": ("comment", "comments"),
    "journal_ref": ("journal_ref", "journal-ref"),
    "doi": ("doi",),
    "url": ("url", "abs", "link"),
}
MAPPABLE = tuple(_ALIASES)


def _mapping(
    header: Iterable[str], columns: dict[str, str], where: str, line: int | None = None
) -> dict[str, str]:
    """Our field -> their column: the --columns mapping, then aliases for the fields it leaves out."""
    header = list(header)
    unknown = set(columns) - set(MAPPABLE)
    if unknown:
        raise SourceError(f"--columns names unknown field(s) {sorted(unknown)}; fields are {list(MAPPABLE)}")
    missing = {ours: theirs for ours, theirs in columns.items() if theirs not in header}
    if missing:
        named = ", ".join(f"{ours}={theirs!r}" for ours, theirs in sorted(missing.items()))
        raise SourceError(
            f"--columns maps {named}, but the {where} has no such column; its columns are {_shown(header)}", line=line
        )
    mapping = dict(columns)
    lowered = {h.strip().lower(): h for h in header}
    for ours, aliases in _ALIASES.items():
        if ours not in mapping:
            found = next((lowered[a] for a in aliases if a in lowered), None)
            if found is not None:
                mapping[ours] = found
    if "title" not in mapping and "abstract" not in mapping:
        raise SourceError(
            f"{where} has no title or abstract column (columns: {_shown(header)}); "
            "map them with --columns title=COLUMN,abstract=COLUMN",
            line=line,
        )
    return mapping


def _shown(header: list[str], most: int = 8, width: int = 40) -> str:
    """A header for a message: its first columns, each cut short (a JSON line read as CSV is one long header)."""
    names = [repr(h if len(h) <= width else h[: width - 1] + "…") for h in header[:most]]
    more = f", and {len(header) - most} more" if len(header) > most else ""
    return ", ".join(names) + more


def _split(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, str):
        return [str(v) for v in value]
    if field == "authors":
        parts = value.split(";") if ";" in value else value.split(",")
    else:
        parts = re.split(r"[\s,;]+", value)
    return [p.strip() for p in parts if p.strip()]


def _row_record(row: dict[str, Any], mapping: dict[str, str], line: int | None) -> dict:
    fields: dict[str, Any] = {}
    for ours, theirs in mapping.items():
        value = row.get(theirs)
        if isinstance(value, float) and value != value:  # NaN from parquet
            value = None
        if ours in ("authors", "categories"):
            fields[ours] = _split(value, ours)
        elif value is not None and str(value).strip() != "":
            fields[ours] = str(value)
    if fields.get("categories") and "primary_category" not in fields:
        fields["primary_category"] = fields["categories"][0]
    return record(line=line, **{k: v for k, v in fields.items() if k in FIELDS})


def _first_non_utf8(stream: BinaryIO, chunk: int = 1 << 20) -> int | None:
    """Offset of the first byte that is not valid UTF-8, reading in chunks; None if all are."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    while True:
        data = stream.read(chunk)
        try:
            decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            return offset + exc.start
        if not data:
            return None
        offset += len(data)


def _newlines(row: list[str]) -> int:
    return sum(len(_NEWLINE.findall(cell)) for cell in row)


_NEWLINE = re.compile(r"\r\n|\r|\n")


def read_csv(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """CSV with a header row; quoted fields may span lines. Not UTF-8: decoded as Windows-1252.

    Each record's ``line`` is the line its row starts on (quoted cells may hold line breaks).
    """
    csv.field_size_limit(sys.maxsize)
    encoding_errors = "strict"
    if stream.seekable():
        bad = _first_non_utf8(stream)
        stream.seek(0)
        if bad is not None:
            ctx.warnings.append(fallback_warning(bad))
            encoding_errors = "paper_trends_cp1252"
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors=encoding_errors, newline="")
    reader = csv.reader(text)
    try:
        header = next((row for row in reader if row), None)
        if header is None:
            return
        mapping = _mapping(header, ctx.columns, "CSV file", line=reader.line_num - _newlines(header))
        for row in reader:
            if not row:
                continue
            line = reader.line_num - _newlines(row)
            if len(row) > len(header):
                extra = len(row) - len(header)
                yield record(line=line, error=f"line {line}: {extra} more cell(s) than the header has")
            else:
                yield _row_record(dict(zip(header, row, strict=False)), mapping, line)
    except csv.Error as exc:
        raise SourceError(f"CSV broken at line {reader.line_num}: {exc}", line=reader.line_num) from exc
    except UnicodeDecodeError as exc:  # a stream that cannot be scanned ahead (not seekable)
        raise SourceError(
            f"not valid UTF-8 after line {reader.line_num} ({exc.reason}); re-save the file as UTF-8",
            line=reader.line_num + 1,
        ) from exc
    finally:
        text.detach()


def read_parquet(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """A parquet table, read in record batches."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(stream)
    except (pa.ArrowInvalid, OSError) as exc:
        raise SourceError(f"not a readable parquet file: {exc}") from exc
    mapping = _mapping(parquet.schema_arrow.names, ctx.columns, "parquet file")
    wanted = sorted(set(mapping.values()))
    rows = 0
    try:
        for batch in parquet.iter_batches(batch_size=10_000, columns=wanted):
            for row in batch.to_pylist():
                yield _row_record(row, mapping, None)
                rows += 1
    except (pa.ArrowException, OSError) as exc:
        raise SourceError(f"parquet data broken after row {rows}: {exc}") from exc
