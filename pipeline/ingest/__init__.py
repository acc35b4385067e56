"""Ingest stage: listing files of any supported format -> ``data/interim/listings.parquet``.

Every record read is written with its source file, format and position. A file that cannot be read
(empty, binary, unknown format, broken XML or gzip) is named in a warning with the place it broke,
keeps the records read before the break, and adds one ``error`` row so the clean stage quarantines
it: nothing disappears without a trace. ``strict`` turns such a file into a failure instead.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import gzip
import io
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from pipeline import dates
from pipeline.config import Config, ConfigError, IngestConfig, Paths, as_dict, printable
from pipeline.ingest.atom import read_atom
from pipeline.ingest.jsonlines import read_daily, read_kaggle
from pipeline.ingest.records import (
    STREAM_ERRORS,
    ReadContext,
    SourceError,
    decode,
    record,
    stream_error_message,
)
from pipeline.ingest.tabular import read_csv, read_parquet
from pipeline.ingest.text_formats import read_api_text, read_digest, read_listing_page, sniff_text_format
from pipeline.io import read_json, write_batches, write_json
from pipeline.schemas import Listings
from pipeline.stage import StageResult, Timer, code_version, fingerprint, outputs_current, progress

log = logging.getLogger(__name__)

Reader = Callable[[BinaryIO, ReadContext], Iterator[dict]]

FORMATS: dict[str, Reader] = {
    "atom": read_atom,
    "api-text": read_api_text,
    "digest": read_digest,
    "listing-page": read_listing_page,
    "daily-jsonl": read_daily,
    "kaggle": read_kaggle,
    "csv": read_csv,
    "parquet": read_parquet,
}
_SNIFF_BYTES = 1 << 16
# Keys only the Kaggle snapshot has; "submitter" comes second in its lines, before any long abstract.
_KAGGLE_KEYS = ("authors_parsed", "versions", "submitter", "update_date", "journal-ref", "report-no")


class IngestError(RuntimeError):
    """Ingest cannot go on (strict mode, or no input at all)."""


# --- finding and opening files -------------------------------------------------------------------
def _walk(folder: Path, warn: Callable[[Path, str], None]) -> list[Path]:
    """Regular files under ``folder`` (hidden ones skipped), following links to folders once each;
    a folder that cannot be read, a dangling link, a link loop or anything that is not a regular
    file is named through ``warn`` instead of being skipped without a word."""
    found: list[Path] = []
    visited: set[str] = set()
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            real = os.path.realpath(current, strict=True)
        except OSError as exc:
            warn(current, f"cannot be followed ({exc.strerror or exc}); skipped")
            continue
        if real in visited:
            warn(current, "a link back to a folder already read (a loop); skipped")
            continue
        visited.add(real)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError as exc:
            warn(current, f"folder cannot be read ({exc.strerror or exc}); skipped")
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    stack.append(path)
                elif entry.is_file():
                    found.append(path)
                elif entry.is_symlink():
                    target = os.readlink(entry.path)
                    warn(path, f"a link to {target!r}, which does not exist or loops; skipped")
                else:
                    warn(path, "not a regular file (a device, socket or pipe); skipped")
            except OSError as exc:
                looped = exc.errno == errno.ELOOP
                warn(path, "a link that loops; skipped" if looped else f"cannot be read ({exc.strerror or exc}); skipped")
    return sorted(found)


def list_inputs(inputs: list[Path], warn: Callable[[Path, str], None] | None = None) -> list[Path]:
    """Files named, and files under folders named (recursively, hidden files skipped).

    In the order named, each folder's files sorted; a file reached twice (named and inside a folder
    named, or two overlapping folders) is read once. What a folder holds that cannot be read (see
    ``_walk``) is named through ``warn`` (default: a logged warning).
    """
    warn = warn or (lambda path, why: log.warning("%s: %s", printable(str(path)), why))
    files: list[Path] = []
    seen: set[Path] = set()
    for path in inputs:
        if path.is_dir():
            found = _walk(path, warn)
        elif path.is_file():
            found = [path]
        else:
            raise IngestError(f"{path}: no such file or folder")
        for file in found:
            if (key := file.resolve()) not in seen:
                seen.add(key)
                files.append(file)
    return files


@dataclass
class _Opened:
    stream: BinaryIO  # what readers read: the file, or its decompressed content
    raw: BinaryIO  # the file itself
    compressed: bool


class _Transcoded(io.RawIOBase):
    """A text stream in another encoding (UTF-16 with its byte-order mark, or UTF-8 with one) read
    as UTF-8 bytes without the mark, so every reader sees what it expects. Characters that cannot
    be decoded become U+FFFD; only rewinding to the start is supported."""

    def __init__(self, source: BinaryIO, encoding: str) -> None:
        super().__init__()
        self._source, self._encoding = source, encoding
        self.seek(0)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        if (pos, whence) != (0, 0):
            raise io.UnsupportedOperation("a transcoded stream can only be rewound")
        self._source.seek(0)
        self._decoder = codecs.getincrementaldecoder(self._encoding)(errors="replace")
        self._pending, self._done, self._position = b"", False, 0
        return 0

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer) -> int:  # noqa: ANN001 - a writable buffer
        while not self._pending and not self._done:
            chunk = self._source.read(1 << 16)
            self._done = not chunk
            self._pending = self._decoder.decode(chunk, final=self._done).encode("utf-8")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self._position += n
        return n


BYTE_ORDER_MARKS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _open(path: Path, stack: ExitStack) -> _Opened:
    raw = stack.enter_context(path.open("rb"))
    compressed = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream: BinaryIO = stack.enter_context(gzip.GzipFile(fileobj=raw)) if compressed else raw
    start = stream.read(4)
    stream.seek(0)
    for mark, encoding in BYTE_ORDER_MARKS:
        if start.startswith(mark) and not (mark == codecs.BOM_UTF16_LE and start.startswith(b"\xff\xfe\x00\x00")):
            stream = io.BufferedReader(_Transcoded(stream, encoding), 1 << 16)
            break
    return _Opened(stream, raw, compressed)


def _read_head(stream: BinaryIO) -> bytes:
    """Up to ``_SNIFF_BYTES`` from the start of ``stream``, then rewind it.

    A gzip file cut short may break within those bytes: what was decompressed before the break is
    still returned, so the format is detected and the reader keeps the records before the break.
    """
    parts: list[bytes] = []
    size = 0
    try:
        while size < _SNIFF_BYTES and (part := stream.read1(_SNIFF_BYTES - size)):
            parts.append(part)
            size += len(part)
    except STREAM_ERRORS:
        if not parts:
            raise
    stream.seek(0)
    return b"".join(parts)


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


# --- filters -------------------------------------------------------------------------------------
@dataclass
class Filter:
    """The --category / --since / --until filter; records it cannot judge are kept."""

    categories: frozenset[str] = frozenset()
    since: pd.Timestamp | None = None
    until: pd.Timestamp | None = None  # exclusive: the day after --until

    @classmethod
    def from_config(cls, cfg: IngestConfig) -> Filter:
        if cfg.since and cfg.until and cfg.since > cfg.until:
            raise ConfigError(f"--since {cfg.since} is after --until {cfg.until}: no day lies between them")
        day = pd.Timedelta(days=1)
        return cls(
            categories=frozenset(cfg.categories),
            since=pd.Timestamp(cfg.since, tz="UTC") if cfg.since else None,
            until=pd.Timestamp(cfg.until, tz="UTC") + day if cfg.until else None,
        )

    def keeps(self, rec: dict) -> bool:
        if rec["error"] is not None:
            return True
        if self.categories:
            listed = set(rec["categories"]) | ({rec["primary_category"]} if rec["primary_category"] else set())
            if listed and not listed & self.categories:
                return False
        if self.since is not None or self.until is not None:
            when = dates.parse_datetime(rec["published"]) or dates.parse_datetime(rec["announced"])
            if when is not None:
                if self.since is not None and when < self.since:
                    return False
                if self.until is not None and when >= self.until:
                    return False
        return True


# --- reading -------------------------------------------------------------------------------------
@dataclass
class IngestStats:
    files: int = 0
    records: int = 0
    filtered: int = 0
    unreadable_files: int = 0
    warnings: int = 0
    by_format: dict[str, int] = field(default_factory=dict)


def _as_source_error(exc: Exception, opened: _Opened | None, last_line: int | None) -> SourceError:
    """Any failure while reading a file, as a SourceError saying where it happened."""
    if isinstance(exc, SourceError):
        return exc
    after = f" after the record at line {last_line}" if last_line is not None else ""
    byte = None
    if opened is not None:
        with contextlib.suppress(OSError, ValueError):
            byte = opened.raw.tell()
    if isinstance(exc, STREAM_ERRORS):
        stopped = ""
        if byte is not None:
            compressed = opened is not None and opened.compressed
            stopped = f"; the {'compressed ' if compressed else ''}file breaks at byte {byte}"
        message = stream_error_message(exc) + stopped + after
    else:  # a reader met something it does not handle: still name the file and the place
        message = f"unexpected {type(exc).__name__} while reading{after}: {exc}"
    return SourceError(message, byte=byte)


def read_file(
    path: Path, shown: str, cfg: IngestConfig, keep: Filter, stats: IngestStats
) -> Iterator[dict]:
    """Records of one file, each with source_file/source_format/position set, filtered.

    Where the file cannot be read (at all or from some point on), the records before the break are
    kept and one record with ``error`` set follows them; with ``cfg.strict`` IngestError is raised.
    """
    ctx = ReadContext(name=path.name, columns=dict(cfg.columns), categories=tuple(cfg.categories))
    fmt = cfg.format
    if fmt is not None and fmt not in FORMATS:
        raise IngestError(f"unknown --format {fmt!r}; formats: {', '.join(FORMATS)}")
    position = 0
    opened: _Opened | None = None
    last_line: int | None = None
    try:
        with ExitStack() as stack:
            opened = _open(path, stack)
            if fmt is None:
                fmt = detect_format(_read_head(opened.stream), path.name)
            for rec in FORMATS[fmt](opened.stream, ctx):
                last_line = rec["line"] if rec["line"] is not None else last_line
                if not keep.keeps(rec):
                    stats.filtered += 1
                    continue
                stats.warnings += len(rec["warnings"])
                yield {**rec, "source_file": shown, "source_format": fmt, "position": position}
                position += 1
    except Exception as exc:  # noqa: BLE001 - every failure becomes a named, placed error row
        if isinstance(exc, IngestError):
            raise
        unexpected = not isinstance(exc, (SourceError, *STREAM_ERRORS))
        error = _as_source_error(exc, opened, last_line)
        where = error.where()
        detail = error.message + (f" (at {where})" if where else "")
        message = f"{shown}: {detail}"
        if cfg.strict:
            raise IngestError(message) from exc
        kept = f"the {position} record(s) before the break are kept, " if position else ""
        log.warning("%s; %sthe error is recorded for quarantine", message, kept, exc_info=unexpected)
        stats.unreadable_files += 1
        yield {
            **record(line=error.line, error=detail),
            "source_file": shown,
            "source_format": fmt or "unknown",
            "position": position,
        }
        position += 1
    finally:
        stats.filtered += ctx.skipped
        for warning in ctx.warnings:
            log.warning("%s: %s", shown, warning)
        stats.warnings += len(ctx.warnings)
        stats.records += position
        stats.by_format[fmt or "unknown"] = stats.by_format.get(fmt or "unknown", 0) + position


def ingest(files: list[Path], paths: Paths, cfg: IngestConfig, stats: IngestStats) -> Iterator[pd.DataFrame]:
    """Read ``files`` into Listings-shaped DataFrames of at most ``cfg.batch_rows`` rows."""
    keep = Filter.from_config(cfg)
    batch: list[dict] = []
    for path in progress(files, desc="ingest", unit="file"):
        stats.files += 1
        for rec in read_file(path, paths.display(path), cfg, keep, stats):
            batch.append(rec)
            if len(batch) >= cfg.batch_rows:
                yield pd.DataFrame.from_records(batch)
                batch = []
    if batch:
        yield pd.DataFrame.from_records(batch)


def _inputs(cfg: Config) -> list[Path]:
    named = [Path(p) for p in cfg.ingest.inputs] or [cfg.paths.raw]
    return [p if p.is_absolute() else (Path.cwd() / p) for p in named]


def run(cfg: Config, *, force: bool = False) -> StageResult:
    """Read the inputs and write listings.parquet, unless it is current."""
    paths = cfg.paths
    files = list_inputs(_inputs(cfg), lambda path, why: log.warning("%s: %s", paths.display(path), why))
    if not files:
        raise IngestError(f"no input files in {', '.join(str(p) for p in _inputs(cfg))}")
    config = {**as_dict(cfg.ingest), "inputs": [p.resolve().as_posix() for p in _inputs(cfg)]}
    fp = fingerprint(code_version("pipeline.ingest", "pipeline.dates", "pipeline.schemas"), config, files)
    record_path = paths.interim / "listings.json"
    if not force and outputs_current([paths.listings], fp, record_path):
        previous = read_json(record_path)
        return StageResult("ingest", ran=False, counts=previous.get("counts", {}))
    stats = IngestStats()
    with Timer() as timer:
        rows = write_batches(ingest(files, paths, cfg.ingest, stats), paths.listings, Listings, fingerprint=fp)
    counts = {
        "files": stats.files,
        "records": rows,
        "filtered out": stats.filtered,
        "unreadable files": stats.unreadable_files,
        "warnings": stats.warnings,
    }
    write_json({"fingerprint": fp, "counts": counts, "by_format": stats.by_format,
                "seconds": round(timer.seconds, 3), "config": config}, record_path)
    return StageResult("ingest", ran=True, counts=counts, seconds=timer.seconds, details={"by_format": stats.by_format})
