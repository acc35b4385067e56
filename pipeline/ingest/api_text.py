"""arXiv API Atom responses with every XML tag stripped (format ``api-text``): fields run together
(``...Balancing2026-06-05T06:53:34ZLarge-scale...``, ``Xinming WeiChao Jin``) and are cut apart here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from pipeline import arxiv
from pipeline.ingest.names import CAMEL_PREFIXES, is_capitalised, is_initials, looks_like_name, name_shape
from pipeline.ingest.records import record
from pipeline.ingest.text_common import LineIndex, text_reader


ID_URL = re.compile(rf"https?://{arxiv.HOST}/abs/(?P<id>{arxiv.ID})(?:v(?P<version>\d)(?P<more>\d*))?")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
ISO_GLUED = re.compile(r"""(?<=[^\s,;"'])\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z(?=[^\s,;"'])""")


def _glued_cuts(text: str) -> list[int]:
    """Offsets where one glued field may end and the next begin.

    A cut falls before an upper-case letter that directly follows a lower-case letter, a digit, a
    full stop or a closing parenthesis ("...date|Xinming Wei|Chao Jin", "(OSDI'26)|Dingyan").
    """
    return [
        i for i in range(1, len(text))
        if text[i].isupper() and (text[i - 1].islower() or text[i - 1].isdigit() or text[i - 1] in ".)")
    ]


@dataclass
class AuthorSplit:
    """The tail of an api-text entry split into its comment and its author names."""

    comment: str | None
    authors: list[str]
    warnings: list[str] = field(default_factory=list)


def _glued_name_at_end(segment: str) -> str | None:
    """A name glued without a cut to the end of a comment (``ICMLJohn Smith`` -> ``John Smith``)."""
    words = segment.split()
    for k in range(min(5, len(words)), 1, -1):
        first = words[-k]
        for j in range(len(first) - 1, 0, -1):
            if first[j].isupper() and not first[j - 1].isspace():
                guess = " ".join([first[j:], *words[len(words) - k + 1 :]])
                if is_capitalised(first[j:]) and looks_like_name(guess):
                    return guess
                break
    return None


def split_authors(tail: str) -> AuthorSplit:
    """Split ``comment + journal_ref + Author OneAuthor Two...`` into the comment and the authors.

    The tail is cut where a lower-case letter, digit, ``.`` or ``)`` runs into an upper-case letter;
    pieces are taken as authors from the end for as long as they look like names, and whatever is
    left before them is the comment. The comment and journal_ref cannot be told apart once their
    tags are gone ("32 pages, 19 figuresProceedings of ... (ICLR), 2026"), so both stay in
    ``comment``. Where the cut is doubtful the result carries a warning instead of a silent guess.
    """
    tail = tail.strip()
    bounds = [0, *_glued_cuts(tail), len(tail)]
    pieces = [(bounds[i], tail[bounds[i] : bounds[i + 1]].strip()) for i in range(len(bounds) - 1)]
    pieces = [(start, piece) for start, piece in pieces if piece]
    first_author = len(pieces)
    while first_author > 0 and looks_like_name(pieces[first_author - 1][1]):
        first_author -= 1
    names = [piece for _, piece in pieces[first_author:]]
    comment = tail[: pieces[first_author][0]].strip() if first_author < len(pieces) else tail
    warnings: list[str] = []
    for i, name in enumerate(names):
        words = name.split()
        if len(words) == 1 and is_initials(name):
            warnings.append(f"author {name!r} is only initials: it may belong to the name after it")
        elif len(words) == 1:
            before = f" after {names[i - 1]!r}" if i else ""
            warnings.append(
                f"author {name!r} is a single word: it may be the end of a name with an internal capital "
                f"(like LeCun or DeepMind) cut off{before}"
            )
        elif words[-1] in CAMEL_PREFIXES:
            warnings.append(f"author {name!r} ends in {words[-1]!r}: it may be half of a name like McDonald")
    if first_author > 0:
        last_comment = pieces[first_author - 1][1]
        if name_shape(last_comment):
            warnings.append(
                f"{last_comment!r} is shaped like a name but read as the comment (it has comment words)"
            )
        elif (glued := _glued_name_at_end(last_comment)) is not None:
            warnings.append(f"comment {comment!r} may end in an author name glued to it ({glued!r})")
    if not names:
        warnings.append("no author names found after the summary")
    return AuthorSplit(comment=comment or None, authors=names, warnings=warnings)


def _api_entry(entry_url: str, body: str, line: int, warnings: list[str]) -> dict:
    """One record from the text of an api-text entry (everything after its id URL)."""
    arxiv_id = entry_url.rsplit("/abs/", 1)[-1]
    stamps = list(_TIMESTAMP.finditer(body))
    title = body[: stamps[0].start()].strip() if stamps else None
    if len(stamps) < 2 or not title:
        return record(
            line=line, arxiv_id=arxiv_id, url=entry_url, title=title or None,
            updated=stamps[0].group() if stamps else None, warnings=warnings,
            error=(
                f"entry has {len(stamps)} timestamp(s) and {'a' if title else 'no'} title before the first: "
                "expected title, updated, summary, published, authors"
            ),
        )
    if len(stamps) > 2:
        warnings.append(
            f"{len(stamps)} timestamps in the entry (expected 2): the summary runs from the first to the last"
        )
    updated, published = stamps[0], stamps[-1]
    split = split_authors(body[published.end() :])
    return record(
        line=line,
        arxiv_id=arxiv_id,
        url=entry_url,
        title=title,
        updated=updated.group(),
        abstract=body[updated.end() : published.start()].strip() or None,
        published=published.group(),
        comment=split.comment,
        authors=split.authors,
        warnings=[*warnings, *split.warnings],
    )


def _set_off(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` stands apart in running text, spaced on both sides.

    An entry's id URL is glued to the text after it (its title) or before it (the previous entry's
    authors); a URL quoted in a summary ("code at http://arxiv.org/abs/... .") is spaced on both.
    """
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return (before.isspace() or before in "([<") and (after.isspace() or after in ".,;:)]>")


def parse_api_text(text: str) -> Iterator[dict]:
    """Records of an arXiv API response with its tags stripped, split at each entry's id URL.

    Within an entry: title up to the first ``YYYY-MM-DDTHH:MM:SSZ`` (updated), summary up to the last
    one (published), then comment, journal_ref and the glued author names (see :func:`split_authors`).
    Categories were attributes of stripped tags, so they are lost and left empty. An abs URL spaced
    off on both sides is taken as a link quoted in the text, not as the start of an entry.
    """
    index = LineIndex(text)
    matches = [m for m in ID_URL.finditer(text) if not _set_off(text, m.start(), m.end())]
    for k, match in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        warnings: list[str] = []
        url = match.group()
        if match.group("more"):
            # "...v12D Gaussian..." may be version 1 and a title "2D ..." or version 12 and "D ...".
            url = url[: len(url) - len(match.group("more"))]
            warnings.append(
                f"digits after {url!r}: read the version as v{match.group('version')} and "
                f"{match.group('more')!r} as the start of the title"
            )
        elif match.group("version") is None:
            warnings.append(f"id URL {url!r} has no version")
        body_start = match.start() + len(url)
        yield _api_entry(url, text[body_start:end], index.line(match.start()), warnings)


read_api_text = text_reader(parse_api_text, "Tag-stripped arXiv API Atom response (format ``api-text``): one record per entry.")
