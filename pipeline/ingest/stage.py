"""The ingest stage's wiring: read every input file with its reader, write ``listings.parquet`` in
batches, and the run record."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pipeline.config import Config, IngestConfig, Paths, as_dict
from pipeline.config import printable
from pipeline.ingest.filters import Filter
from pipeline.ingest.formats import FORMATS, IngestError, detect_format
from pipeline.ingest.records import STREAM_ERRORS, ReadContext, SourceError, record, stream_error_message
from pipeline.io import write_batches
from pipeline.io.inputs import InputError, Opened, open_input, read_head
from pipeline.io import inputs as io_inputs
from pipeline.schemas import Listings
from pipeline.progress import progress
from pipeline.stage import StageResult, Step, Timer, code_version, fingerprint

log = logging.getLogger("pipeline.ingest")  # the stage's one logger, whichever module speaks


def list_inputs(inputs: list[Path], warn: Callable[[Path, str], None] | None = None) -> list[Path]:
    """The files to read (``io.inputs.list_inputs``); IngestError when an input named does not exist."""
    try:
        return io_inputs.list_inputs(inputs, warn or (lambda path, why: log.warning("%s: %s", printable(str(path)), why)))
    except InputError as exc:
        raise IngestError(str(exc)) from None


@dataclass
class IngestStats:
    files: int = 0
    records: int = 0
    filtered: int = 0
    unreadable_files: int = 0
    warnings: int = 0
    by_format: dict[str, int] = field(default_factory=dict)


def _as_source_error(exc: Exception, opened: Opened | None, last_line: int | None) -> SourceError:
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
    fmt = cfg.format  # one of FORMATS (IngestConfig checks it)
    position = 0
    opened: Opened | None = None
    last_line: int | None = None
    # a forced format's records wait until one is usable (at most HOLD_MOST of them): a file of
    # another format that it reads nothing usable from is the option's error, not a file of junk
    held: list[dict] | None = [] if cfg.format is not None else None

    def misread(why: str) -> IngestError | None:
        """The option's error, where the file's first bytes show another format than the one forced."""
        fits = other_format(path, cfg.format)
        return None if fits is None else IngestError(f"{shown}: read as --format {cfg.format}: {cut(why)}; {fits}")
    try:
        with ExitStack() as stack:
            opened = open_input(path, stack)
            if fmt is None:
                fmt = detect_format(read_head(opened.stream), path.name)
            for rec in FORMATS[fmt](opened.stream, ctx):
                last_line = rec["line"] if rec["line"] is not None else last_line
                if not keep.keeps(rec):
                    stats.filtered += 1
                    continue
                stats.warnings += len(rec["warnings"])
                out = {**rec, "source_file": shown, "source_format": fmt, "position": position}
                position += 1
                if held is not None and not usable(rec):
                    if len(held) < HOLD_MOST:
                        held.append(out)
                        continue
                    if wrong := misread(f"none of its first {len(held):,} records has both a title and an abstract"):
                        raise wrong
                yield from held or ()  # a usable record, or held enough from a file of the format named
                held = None
                yield out
            if held and (wrong := misread(f"none of its {len(held):,} record(s) has both a title and an abstract")):
                raise wrong
            yield from held or ()  # the file is the format named: its records go to quarantine as they are
            held = None
    except Exception as exc:  # noqa: BLE001 - every failure becomes a named, placed error row
        if isinstance(exc, IngestError):
            raise
        if held is not None and (wrong := misread(exc.message if isinstance(exc, SourceError)
                                                  else f"{type(exc).__name__}: {exc}")):
            raise wrong from None
        unexpected = not isinstance(exc, (SourceError, *STREAM_ERRORS))
        error = _as_source_error(exc, opened, last_line)
        where = error.where()
        detail = error.message + (f" (at {where})" if where else "")
        message = f"{shown}: {detail}"
        if cfg.strict:
            raise IngestError(message) from exc
        kept = f"the {position} record(s) before the break are kept, " if position else ""
        log.warning("%s; %sthe error is recorded for quarantine", cut(message), kept, exc_info=unexpected)
        stats.unreadable_files += 1
        yield from held or ()  # read before the break, none of them usable: kept for quarantine all the same
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


HOLD_MOST = 1_000  # records a forced format holds back while none is usable


def usable(rec: dict) -> bool:
    """Whether a record can become a paper as far as its reader can tell: no error, a title and an abstract."""
    return rec["error"] is None and bool(rec["title"]) and bool(rec["abstract"])


def other_format(path: Path, forced: str) -> str | None:
    """What to do instead of a --format that did not fit the file: the format its first bytes show,
    or None where they show the forced format itself or none (the file is then broken, not misread)."""
    try:
        with ExitStack() as stack:
            found = detect_format(read_head(open_input(path, stack).stream), path.name)
    except (SourceError, InputError, *STREAM_ERRORS):
        return None  # no format fits: a broken file, quarantined as without --format
    if found == forced:
        return None
    return f"the file looks like {found}: use --format {found}, or leave --format out to detect each file's format"


def cut(text: str, limit: int = 400) -> str:
    """One line of at most ``limit`` characters (a reader's message may quote a whole line of a file)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


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
    fp = fingerprint(code_version("pipeline.ingest", "pipeline.io", "pipeline.arxiv", "pipeline.dates", "pipeline.schemas"), config, files)
    step = Step("ingest", fp, [paths.listings], paths.run_record("ingest"))
    if (skipped := step.skipped(force)) is not None:
        return skipped
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
    return step.done(counts, timer.seconds, details={"by_format": stats.by_format}, by_format=stats.by_format,
                     config=config)
