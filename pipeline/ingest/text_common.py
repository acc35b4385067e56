"""What the plain-text readers share: the whole stream decoded, line numbers of offsets, and the
reader a parser becomes (one record per entry found, a warning when none is)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO

from pipeline.ingest.records import ReadContext, decode, fallback_warning

NO_ENTRIES = "no entries found"


def read_text(stream: BinaryIO, ctx: ReadContext) -> str:
    """The whole stream decoded; a fallback to Windows-1252 is noted in ``ctx.warnings``."""
    text, bad = decode(stream.read())
    if bad is not None:
        ctx.warnings.append(fallback_warning(bad))
    return text


class LineIndex:
    """Maps character offsets in a text to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def text_reader(parse: Callable[[str], Iterator[dict]], doc: str) -> Callable[[BinaryIO, ReadContext], Iterator[dict]]:
    """A reader ``(stream, ctx) -> records`` from a parser of decoded text; a file in which the
    parser finds nothing gets the warning ``NO_ENTRIES``."""

    def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
        found = False
        for rec in parse(read_text(stream, ctx)):
            found = True
            yield rec
        if not found:
            ctx.warnings.append(NO_ENTRIES)

    read.__doc__ = doc
    read.__name__ = read.__qualname__ = "read_" + parse.__name__.removeprefix("parse_")
    return read
