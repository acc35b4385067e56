"""JSON-lines listings: the daily arXiv listing files and the Kaggle arXiv metadata snapshot.

Both stream line by line, so a 4 GB snapshot never sits in memory. A line that is not a JSON object
becomes a record with ``error`` set (it is quarantined, never dropped), and reading goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import orjson

from pipeline.ingest.records import ReadContext, decode, fallback_warning, record

_FILE_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


def _objects(
    stream: BinaryIO, ctx: ReadContext, keep: Callable[[bytes], bool] | None = None
) -> Iterator[tuple[int, dict[str, Any] | None, list[str], str | None]]:
    """Yield ``(line_number, object, warnings, error)`` per non-blank line."""
    for number, raw in enumerate(stream, start=1):
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
                yield number, None, warnings, f"invalid JSON at line {number}: {exc}"
                continue
            warnings.append(fallback_warning(bad) + f" (line {number})")
            try:
                obj = orjson.loads(text)
            except orjson.JSONDecodeError as exc2:
                yield number, None, warnings, f"invalid JSON at line {number}: {exc2}"
                continue
        if not isinstance(obj, dict):
            yield number, None, warnings, f"line {number} is JSON but not an object ({type(obj).__name__})"
            continue
        yield number, obj, warnings, None


def _str(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    return [str(v) for v in value]


def _authors(value: Any) -> list[str]:
    if isinstance(value, str):
        return [a.strip() for a in re.split(r",| and ", value) if a.strip()]
    return _list(value)


def read_daily(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """Daily listing JSONL (``YYYY-MM-DD.jsonl[.gz]``): the file name's date is the announcement day."""
    match = _FILE_DATE.search(ctx.name)
    announced = match.group(1) if match else None
    if announced is None:
        ctx.warnings.append("file name has no YYYY-MM-DD date, so its announcement day is unknown")
    for number, obj, warnings, error in _objects(stream, ctx):
        if obj is None:
            yield record(line=number, announced=announced, warnings=warnings, error=error)
            continue
        categories = _list(obj.get("categories"))
        yield record(
            line=number,
            arxiv_id=_str(obj.get("id")),
            title=_str(obj.get("title")),
            abstract=_str(obj.get("summary", obj.get("abstract"))),
            authors=_authors(obj.get("authors")),
            categories=categories,
            primary_category=categories[0] if categories else None,
            announced=announced,
            comment=_str(obj.get("comment")),
            url=_str(obj.get("abs")),
            warnings=warnings,
        )


def _kaggle_author(parts: list[Any]) -> str:
    last, first, *suffix = [str(p).strip() for p in parts] + [""]
    return " ".join(p for p in (first, last, *suffix) if p)


def read_kaggle(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """The Kaggle arXiv snapshot: submission date from ``versions[0].created``, not ``update_date``."""
    keep = None
    if ctx.categories:
        needles = [c.encode() for c in ctx.categories]
        keep = lambda raw: any(n in raw for n in needles)  # noqa: E731 - cheap pre-filter, exact later
    for number, obj, warnings, error in _objects(stream, ctx, keep):
        if obj is None:
            yield record(line=number, warnings=warnings, error=error)
            continue
        versions = obj.get("versions") or []
        versions = [v for v in versions if isinstance(v, dict)]
        categories = _list(obj.get("categories"))
        parsed = obj.get("authors_parsed")
        if isinstance(parsed, list) and parsed:
            authors = [_kaggle_author(p) for p in parsed if isinstance(p, list)]
        else:
            authors = _authors(obj.get("authors"))
        arxiv_id = _str(obj.get("id"))
        if arxiv_id and versions and versions[-1].get("version"):
            arxiv_id += str(versions[-1]["version"])
        yield record(
            line=number,
            arxiv_id=arxiv_id,
            title=_str(obj.get("title")),
            abstract=_str(obj.get("abstract")),
            authors=authors,
            categories=categories,
            primary_category=categories[0] if categories else None,
            published=_str(versions[0].get("created")) if versions else None,
            updated=_str(versions[-1].get("created")) if versions else None,
            comment=_str(obj.get("comments")),
            journal_ref=_str(obj.get("journal-ref")),
            doi=_str(obj.get("doi")),
            warnings=warnings,
        )
