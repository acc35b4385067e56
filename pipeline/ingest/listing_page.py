"""arXiv category listing pages saved as text (format ``listing-page``): ``cs.DC 2026-05-14
Recognition`` headers, then headline, title, one-line summary and abstract; page chrome and vote
counters dropped."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from pipeline.ingest.records import record
from pipeline.ingest.text_common import text_reader


LISTING_HEADER = re.compile(
    r"""^(?P<category>
        [a-z]+(?:-[a-z]+)*\.[A-Za-z]{2,}                          # cs.DC, math.OC, q-bio.NC
      | hep-(?:th|ph|ex|lat) | gr-qc | quant-ph | nucl-(?:th|ex) | math-ph | astro-ph | cond-mat | nlin
    )
    \ (?P<date>\d{4}-\d{2}-\d{2})
    (?:\ (?P<badges>(?:\d+\ [a-z]+|[A-Z][\w'-]*)(?:\ (?:\d+\ [a-z]+|[A-Za-z][\w'-]*))*))?$""",
    re.VERBOSE,
)
# A badge: "2 theorems", or a capitalised word with the lower-case words after it ("Editor's pick").
_BADGE = re.compile(r"(?:\d+ [a-z]+|[A-Z]\S*)(?: (?![A-Z\d])\S+)*")
_VOTES = re.compile(r"^\d+(?: \d+)*$")
_FIGURE = "Figure from the paper full image"
EXPAND = "abstract click to expand"
_FOOTER = "browse all of "


def _looks_like_tldr(line: str) -> bool:
    """A one-line summary is a sentence (ends in a full stop) or long enough to have been truncated."""
    return line.endswith(".") or len(line) >= 100


def _listing_entry(number: int, header: re.Match[str], body: Sequence[str]) -> dict:
    """One record from a header match and its non-chrome lines."""
    warnings: list[str] = []
    if EXPAND in body:
        marker: int | None = body.index(EXPAND)
    elif _FIGURE in body:
        marker = body.index(_FIGURE)
        warnings.append(f"no {EXPAND!r} line: the abstract is read from after the figure line")
    else:
        marker = None
    if marker is not None:
        before = [line for line in body[:marker] if line != _FIGURE]
        after = [line for line in body[marker + 1 :] if line != _FIGURE]
    elif len(body) >= 4:
        before, after = list(body[:-1]), list(body[-1:])
        warnings.append(f"no {EXPAND!r} line: the last line is taken as the abstract")
    else:
        before, after = list(body), []
        warnings.append(f"no {EXPAND!r} line and too few lines for an abstract")
    headline = title = tldr = None
    if len(before) == 3:
        headline, title, tldr = before
    elif len(before) == 2:
        first, second = before
        if _looks_like_tldr(second) or (":" in first and ":" not in second):
            title, tldr = first, second
            warnings.append("2 lines before the abstract (expected 3): read as title and tldr, no headline")
        else:
            headline, title = first, second
            warnings.append("2 lines before the abstract (expected 3): read as headline and title, no tldr")
    elif len(before) == 1:
        title = before[0]
        warnings.append("1 line before the abstract (expected 3): read as the title")
    elif before:
        headline, title, tldr = before[0], " ".join(before[1:-1]), before[-1]
        warnings.append(
            f"{len(before)} lines before the abstract (expected 3): the middle ones are read as the title"
        )
    else:
        warnings.append("no headline, title or summary lines")
    if len(after) > 1:
        warnings.append(f"{len(after)} lines after {EXPAND!r} (expected 1): joined as the abstract")
    elif not after:
        warnings.append("no abstract")
    category = header.group("category")
    badges = _BADGE.findall(header.group("badges") or "")
    return record(
        line=number,
        primary_category=category,
        categories=[category],
        announced=header.group("date"),
        badges=badges,
        headline=headline,
        title=title,
        tldr=tldr,
        abstract="\n".join(after) or None,
        warnings=warnings,
    )


def parse_listing_page(text: str) -> Iterator[dict]:
    """Records of a category listing page: one per ``<category> <date> [badges]`` header line.

    Page chrome is dropped: everything before the first header, vote counters (lines of digits),
    and the ``browse all of ...`` footer.
    """
    lines = [(number, raw.strip()) for number, raw in enumerate(text.split("\n"), start=1)]
    headers = [(i, m) for i, (_, line) in enumerate(lines) if (m := LISTING_HEADER.match(line))]
    for k, (at, header) in enumerate(headers):
        end = headers[k + 1][0] if k + 1 < len(headers) else len(lines)
        body = [
            line for _, line in lines[at + 1 : end]
            if line and not _VOTES.match(line) and not line.startswith(_FOOTER)
        ]
        yield _listing_entry(lines[at][0], header, body)


read_listing_page = text_reader(parse_listing_page, "arXiv category listing page saved as text (format ``listing-page``): one record per paper.")
