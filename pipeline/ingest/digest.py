"""Paper-digest pages saved as text (format ``digest``): blocks of title, ``Author A, Author B
2026-06-14``, a summary paragraph and a ``PDF`` link text; no arXiv ids."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.ingest.names import loose_name
from pipeline.ingest.records import record
from pipeline.ingest.text_common import text_reader


_DIGEST_BYLINE = re.compile(r"^(?:(?P<authors>.*\S)\s+)?(?P<date>\d{4}-\d{2}-\d{2})$")
_DIGEST_CHROME = frozenset({"PDF"})


def digest_byline(line: str) -> tuple[list[str], str] | None:
    """``(authors, date)`` for a digest byline ``Author A, Author B 2026-06-14``, else None."""
    match = _DIGEST_BYLINE.match(line)
    if match is None:
        return None
    authors = [a.strip() for a in (match.group("authors") or "").split(",") if a.strip()]
    if authors and not all(loose_name(a) for a in authors):
        return None
    return authors, match.group("date")


def parse_digest(text: str) -> Iterator[dict]:
    """Records of a paper-digest page: title, byline (authors and date), summary, ``PDF``.

    Each byline anchors a record: the non-empty line before it is the title, the lines after it up
    to ``PDF`` (or up to the next record's title) the summary. Lines before the first title and
    after the last ``PDF`` are page chrome.
    """
    lines = [(number, raw.strip()) for number, raw in enumerate(text.split("\n"), start=1) if raw.strip()]
    anchors = [(i, byline) for i, (_, line) in enumerate(lines) if (byline := digest_byline(line))]
    for k, (at, (authors, date)) in enumerate(anchors):
        warnings: list[str] = []
        previous_end = anchors[k - 1][0] + 1 if k else 0
        has_title = at > previous_end and lines[at - 1][1] not in _DIGEST_CHROME
        title_at = at - 1 if has_title else at
        body_end = anchors[k + 1][0] - 1 if k + 1 < len(anchors) else len(lines)  # before the next title
        body: list[str] = []
        for _, line in lines[at + 1 : body_end]:
            if line in _DIGEST_CHROME:
                break
            body.append(line)
        if not has_title:
            warnings.append(f"no title line before the byline at line {lines[at][0]}")
        if not authors:
            warnings.append("byline has a date but no authors")
        if not body:
            warnings.append("no summary paragraph")
        yield record(
            line=lines[title_at][0],
            title=lines[at - 1][1] if has_title else None,
            authors=authors,
            published=date,
            abstract="\n".join(body) or None,
            warnings=warnings,
        )


read_digest = text_reader(parse_digest, "Paper-digest page (format ``digest``): one record per paper, no arXiv ids.")
