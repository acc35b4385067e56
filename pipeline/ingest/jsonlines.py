"""JSON-lines listings: the daily arXiv listing files and the Kaggle arXiv metadata snapshot.

Both stream line by line, so a 4 GB snapshot never sits in memory. A line that is not a JSON object
becomes a record with ``error`` set (it is quarantined, never dropped), and reading goes on.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import orjson

from pipeline.ingest.records import (
    STREAM_ERRORS,
    ReadContext,
    SourceError,
    decode,
    fallback_warning,
    record,
    stream_error_message,
)
from pipeline.schemas import WRONG_TYPE

_FILE_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


MAX_LINE_BYTES = 32 * 2**20  # a longer line is not a listing's record: it is skipped unread, in chunks
_CHUNK = 2**20


def _lines(stream: BinaryIO, limit: int | None = None) -> Iterator[tuple[int, int, bytes | int]]:
    """``(line_number, byte_offset, raw_line)`` per line; for a line longer than ``limit`` bytes its
    length instead of its bytes (read and dropped a chunk at a time, so memory stays bounded);
    SourceError where the stream breaks."""
    limit = MAX_LINE_BYTES if limit is None else limit
    number, offset = 0, 0
    while True:
        try:
            raw = stream.readline(limit + 1)
            size = len(raw)
            if size > limit and not raw.endswith(b"\n"):
                raw = b""  # too long: the rest of the line is read and dropped, only its length kept
                while True:
                    part = stream.readline(_CHUNK)
                    size += len(part)
                    if not part or part.endswith(b"\n"):
                        break
                raw = size
        except STREAM_ERRORS as exc:
            raise SourceError(
                f"{stream_error_message(exc)}; it breaks after {number} complete line(s)", line=number + 1
            ) from exc
        if raw == b"":
            return
        number += 1
        yield number, offset, raw
        offset += raw if isinstance(raw, int) else len(raw)


def _json_error(number: int, exc: orjson.JSONDecodeError) -> str:
    return f"invalid JSON at line {number}, column {exc.colno}: {exc.msg}"


def _objects(
    stream: BinaryIO, ctx: ReadContext, keep: Callable[[bytes], bool] | None = None
) -> Iterator[tuple[int, dict[str, Any] | None, list[str], str | None, bytes]]:
    """Yield ``(line_number, object, warnings, error, line)`` per non-blank line.

    A line that is not UTF-8 is decoded as Windows-1252; the record says so, and the first such
    line is also a file-level warning (logged once, not once per line).
    """
    for number, offset, raw in _lines(stream):
        if isinstance(raw, int):
            yield number, None, [], (f"line {number} is {raw:,} bytes long, more than the {MAX_LINE_BYTES:,} a record "
                                     "may have; it was skipped unread"), b""
            continue
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8):]
            offset = len(codecs.BOM_UTF8)
        if not raw.strip():
            continue
        if keep is not None and not keep(raw):
            ctx.skipped += 1
            continue
        warnings: list[str] = []
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            text, bad = decode(raw)
            if bad is None:
                yield number, None, warnings, _json_error(number, exc), raw
                continue
            warning = fallback_warning(offset + bad) + f" (line {number})"
            warnings.append(warning)
            if not any(w.startswith("not valid UTF-8") for w in ctx.warnings):
                ctx.warnings.append(warning)
            try:
                obj = orjson.loads(text)
            except orjson.JSONDecodeError as exc2:
                yield number, None, warnings, _json_error(number, exc2), raw
                continue
        if not isinstance(obj, dict):
            yield number, None, warnings, f"line {number} is JSON but not an object ({type(obj).__name__})", raw
            continue
        yield number, obj, warnings, None, raw


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "true or false", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def _str(value: Any, name: str = "", problems: list[str] | None = None) -> str | None:
    """A text field; anything else is named in ``problems`` (when given) and not guessed at."""
    if value is None or isinstance(value, str):
        return value
    if problems is None:
        return str(value)
    problems.append(f"{name!r} is {_kind(value)}, not text")
    return None


def _list(value: Any, name: str = "", problems: list[str] | None = None) -> list[str]:
    """A list field as strings: a list of strings as is, a string split on whitespace; other items
    (objects, numbers, lists) are named in ``problems`` (when given) and left out, not guessed at."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    items = list(value) if isinstance(value, list | tuple) else [value]
    odd = [v for v in items if v is not None and not isinstance(v, str)]
    if odd and problems is not None:
        problems.append(f"{name!r} holds {_kind(odd[0])}, not text" if isinstance(value, list | tuple)
                        else f"{name!r} is {_kind(value)}, not a list of text")
        return [v for v in items if isinstance(v, str)]
    return [v if isinstance(v, str) else orjson.dumps(v).decode() for v in items if v is not None]


def _authors(value: Any, problems: list[str] | None = None) -> list[str]:
    if isinstance(value, str):
        return [a.strip() for a in re.split(r",| and ", value) if a.strip()]
    return _list(value, "authors", problems)


def _as_written(problem: str, line: bytes) -> str:
    """A number named in ``problem`` as the line writes it: an id 2503.10000 read as JSON is the float
    2503.1, another paper's id, so the message quotes the line's own digits."""
    named = re.match(r"'([^']+)' is a number", problem)
    found = named and re.search(rb'"' + re.escape(named.group(1).encode()) + rb'"\s*:\s*(-?[0-9][0-9.eE+-]*)', line)
    return f"{problem} (written {found.group(1).decode()})" if found else problem


def _flagged(number: int, problems: list[str], warnings: list[str], ctx: ReadContext, line: bytes) -> str | None:
    """The record's error when a field had the wrong type (clean quarantines it as such); the first
    such line is also a file-level warning."""
    if not problems:
        return None
    message = f"line {number}: {'; '.join(_as_written(p, line) for p in problems)}"
    warnings.append(message)
    if not any(w.startswith(WRONG_TYPE) for w in ctx.warnings):
        ctx.warnings.append(f"{WRONG_TYPE} ({message}); such records are quarantined, not guessed at")
    return f"{WRONG_TYPE}: {message}"


def read_daily(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """Daily listing JSONL (``YYYY-MM-DD.jsonl[.gz]``): the file name's date is the announcement day."""
    match = _FILE_DATE.search(ctx.name)
    announced = match.group(1) if match else None
    if announced is None:
        ctx.warnings.append("file name has no YYYY-MM-DD date, so its announcement day is unknown")
    for number, obj, warnings, error, line in _objects(stream, ctx):
        if obj is None:
            yield record(line=number, announced=announced, warnings=warnings, error=error)
            continue
        problems: list[str] = []
        categories = _list(obj.get("categories"), "categories", problems)
        summary = "summary" if obj.get("summary") is not None else "abstract"
        fields = dict(
            arxiv_id=_str(obj.get("id"), "id", problems),
            title=_str(obj.get("title"), "title", problems),
            abstract=_str(obj.get(summary), summary, problems),
            authors=_authors(obj.get("authors"), problems),
            comment=_str(obj.get("comment"), "comment", problems),
            url=_str(obj.get("abs"), "abs", problems),
        )
        yield record(line=number, categories=categories, primary_category=categories[0] if categories else None,
                     announced=announced, warnings=warnings, error=_flagged(number, problems, warnings, ctx, line), **fields)


def _kaggle_author(parts: list[Any]) -> tuple[str, str]:
    """One ``authors_parsed`` entry ``[last, first, suffix, affiliation...]`` -> ``(name, affiliation)``.

    ``["Bal\u00e1zs", "C.", ""]`` -> ``("C. Bal\u00e1zs", "")``; ``["Evans", "Neal J.", "II"]`` ->
    ``("Neal J. Evans II", "")``; ``["Jaffe", "Arthur", "", "Harvard University"]`` -> ``("Arthur Jaffe",
    "Harvard University")``. The snapshot's parser puts what stood in parentheses after a name in the
    fourth place: an affiliation, or only its reference (``"1 and 2"``); it is kept as found.
    """
    last, first, suffix, *rest = [("" if p is None else str(p)).strip() for p in parts] + ["", "", ""]
    return " ".join(p for p in (first, last, suffix) if p), "; ".join(p for p in rest if p)


# A non-empty "categories" string: a snapshot line that has one can be judged by the category filter.
_HAS_CATEGORIES = re.compile(rb'"categories"\s*:\s*"\s*[^"\s]')


def _category_prefilter(categories: tuple[str, ...]) -> Callable[[bytes], bool]:
    """Cheap test on a raw snapshot line: False only where the category filter surely drops it.

    A line is dropped unread only if it is a whole JSON object (``{...}``) with a non-empty
    ``categories`` string and none of the wanted categories anywhere in it. Lines the filter keeps
    unjudged (no categories) or that may be broken are parsed, so they are kept or quarantined.
    The exact filter runs later on the parsed record.
    """
    needles = [c.encode() for c in categories]

    def keep(raw: bytes) -> bool:
        if any(n in raw for n in needles):
            return True
        line = raw.strip()
        return not (line.startswith(b"{") and line.endswith(b"}") and _HAS_CATEGORIES.search(line))

    return keep


def read_kaggle(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """The Kaggle arXiv snapshot: submission date from ``versions[0].created``, not ``update_date``."""
    keep = _category_prefilter(ctx.categories) if ctx.categories else None
    for number, obj, warnings, error, line in _objects(stream, ctx, keep):
        if obj is None:
            yield record(line=number, warnings=warnings, error=error)
            continue
        versions = obj.get("versions")
        versions = [v for v in versions if isinstance(v, dict)] if isinstance(versions, list) else []
        categories = _list(obj.get("categories"))
        parsed = obj.get("authors_parsed")
        named = [_kaggle_author(p) for p in parsed if isinstance(p, list)] if isinstance(parsed, list) else []
        named = [(name, affiliation) for name, affiliation in named if name]
        if named:
            authors = [name for name, _ in named]
            affiliations = [affiliation for _, affiliation in named] if any(a for _, a in named) else []
        else:
            authors, affiliations = _authors(obj.get("authors")), []
        problems: list[str] = []
        arxiv_id = _str(obj.get("id"), "id", problems)
        if arxiv_id and versions and versions[-1].get("version"):
            arxiv_id += str(versions[-1]["version"])
        title, abstract = _str(obj.get("title"), "title", problems), _str(obj.get("abstract"), "abstract", problems)
        yield record(
            line=number,
            error=_flagged(number, problems, warnings, ctx, line),
            arxiv_id=arxiv_id,
            title=title,
            abstract=abstract,
            authors=authors,
            affiliations=affiliations,
            categories=categories,
            primary_category=categories[0] if categories else None,
            published=_str(versions[0].get("created")) if versions else None,
            updated=_str(versions[-1].get("created")) if versions else None,
            comment=_str(obj.get("comments")),
            journal_ref=_str(obj.get("journal-ref")),
            doi=_str(obj.get("doi")),
            warnings=warnings,
        )
