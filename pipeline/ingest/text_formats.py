"""Listings saved as plain text: paper-digest pages, tag-stripped arXiv API responses, category pages.

Three readers, each a generator ``read_xxx(stream, ctx) -> Iterator[dict]`` yielding raw records
(see :mod:`pipeline.ingest.records`), and :func:`sniff_text_format`, which tells the driver which of
them a file needs:

- ``digest`` (:func:`read_digest`): blocks of title, ``Author A, Author B 2026-06-14``, a summary
  paragraph and a ``PDF`` link text.
- ``api-text`` (:func:`read_api_text`): an arXiv API Atom response with every XML tag stripped, so
  fields run together (``...Balancing2026-06-05T06:53:34ZLarge-scale...``, ``Xinming WeiChao Jin``).
- ``listing-page`` (:func:`read_listing_page`): a category listing page (``cs.DC 2026-05-14 Recognition``
  headers, then headline, title, one-line summary and abstract), page chrome and vote counters dropped.

Values stay as found (LaTeX, mojibake and all: the clean stage repairs them); only surrounding
whitespace is stripped. Where a reader has to guess (where one glued author name ends and the next
begins, which line of an entry is missing), it says so in the record's ``warnings``. The pages are
small, so each reader reads its whole stream; the functions below it work on the decoded text only.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from pipeline import arxiv
from pipeline.ingest.records import ReadContext, decode, fallback_warning, record

NO_ENTRIES = "no entries found"


# --- shared helpers ------------------------------------------------------------------------------
def _read_text(stream: BinaryIO, ctx: ReadContext) -> str:
    """The whole stream decoded; a fallback to Windows-1252 is noted in ``ctx.warnings``."""
    text, bad = decode(stream.read())
    if bad is not None:
        ctx.warnings.append(fallback_warning(bad))
    return text


class _LineIndex:
    """Maps character offsets in a text to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


# Lower-case particles that may stand inside (or open) a person's name.
_PARTICLES = frozenset(
    "van von der den de la le del della di da dos das do du bin binti ibn al el y zu ten ter".split()
)
# Name suffixes.
_SUFFIXES = frozenset({"Jr.", "Sr.", "Jr", "Sr", "II", "III", "IV"})
# Capitalised words that belong to arXiv comments, never (or hardly ever) to people's names.
_COMMENT_WORDS = frozenset(
    """pages figures figure tables table accepted submitted withdrawn preprint proceedings
    conference workshop symposium journal transactions letters version extended appendix
    supplementary invited paper draft revised camera ready review published appear appears code
    available international annual edition chapter thesis report technical abstract poster keynote
    tutorial copyright license arxiv university institute laboratory department""".split()
)
# Prefixes of surnames written with an internal capital (McDonald, MacLeod, FitzGerald).
_CAMEL_PREFIXES = frozenset({"Mc", "Mac", "Fitz"})
_APOSTROPHES = "'\u2019"


def _is_capitalised(part: str) -> bool:
    """``Giménez``, ``Løvenskjold``, ``O'Neil``: an upper-case letter, then lower-case letters.

    After an apostrophe a capital may start again (``O'Neil``, ``D'Angelo``); nowhere else.
    """
    if not part or not part[0].isupper():
        return False
    head, *rest = re.split(f"[{_APOSTROPHES}]", part[1:])
    if head and not (head.isalpha() and head.islower()):
        return False
    return all(p.isalpha() and (p.islower() or (p[0].isupper() and p[1:].islower())) for p in rest)


def _is_initials(word: str) -> bool:
    """``Q.``, ``J.-P.``, ``Q``: one or more upper-case initials, each with a full stop (or a lone one)."""
    if len(word) == 1:
        return word.isupper()
    return re.fullmatch(r"(?:[^\W\d_]\.-?)+", word) is not None and all(
        ch.isupper() for ch in word if ch.isalpha()
    )


def _is_name_word(word: str) -> bool:
    """One word of a person's name: a particle, a suffix, initials, or (hyphenated) capitalised parts."""
    if word in _PARTICLES or word in _SUFFIXES or _is_initials(word):
        return True
    parts = word.split("-")
    return _is_capitalised(parts[0]) and all(
        _is_capitalised(p) or (p.isalpha() and p.islower()) for p in parts[1:]
    )


def _name_shape(text: str) -> bool:
    """Whether ``text`` is shaped like one person's name (1-5 name words, not only particles)."""
    words = text.split()
    if not 1 <= len(words) <= 5 or not all(_is_name_word(w) for w in words):
        return False
    return any(w not in _PARTICLES for w in words)


def _has_comment_word(text: str) -> bool:
    """Whether ``text`` has a word that marks an arXiv comment ("pages", "Accepted", "Proceedings")."""
    return any(w.strip(".,;:()").lower() in _COMMENT_WORDS for w in text.split())


def _loose_name(text: str) -> bool:
    """A name as written in a byline, where internal capitals are fine (``Yann LeCun``, ``DeepMind``)."""
    words = text.split()
    return 1 <= len(words) <= 6 and all(
        w in _PARTICLES or (w[0].isupper() and all(ch.isalpha() or ch in ".-" + _APOSTROPHES for ch in w))
        for w in words
    )


def looks_like_name(text: str) -> bool:
    """Whether ``text`` looks like one person's name: ``Huy Q. Le``, ``Enrique Molina-Giménez``.

    1-5 words, each capitalised (hyphenated parts too), an initial like ``Q.``, a suffix (``Jr.``) or
    a lower-case particle (van, de, al, ...); words typical of arXiv comments ("Accepted", "Pages")
    disqualify it.
    """
    return _name_shape(text) and not _has_comment_word(text)


# --- digest --------------------------------------------------------------------------------------
_DIGEST_BYLINE = re.compile(r"^(?:(?P<authors>.*\S)\s+)?(?P<date>\d{4}-\d{2}-\d{2})$")
_DIGEST_CHROME = frozenset({"PDF"})


def _digest_byline(line: str) -> tuple[list[str], str] | None:
    """``(authors, date)`` for a digest byline ``Author A, Author B 2026-06-14``, else None."""
    match = _DIGEST_BYLINE.match(line)
    if match is None:
        return None
    authors = [a.strip() for a in (match.group("authors") or "").split(",") if a.strip()]
    if authors and not all(_loose_name(a) for a in authors):
        return None
    return authors, match.group("date")


def parse_digest(text: str) -> Iterator[dict]:
    """Records of a paper-digest page: title, byline (authors and date), summary, ``PDF``.

    Each byline anchors a record: the non-empty line before it is the title, the lines after it up
    to ``PDF`` (or up to the next record's title) the summary. Lines before the first title and
    after the last ``PDF`` are page chrome.
    """
    lines = [(number, raw.strip()) for number, raw in enumerate(text.split("\n"), start=1) if raw.strip()]
    anchors = [(i, byline) for i, (_, line) in enumerate(lines) if (byline := _digest_byline(line))]
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


def read_digest(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """Paper-digest page (format ``digest``): one record per paper, no arXiv ids."""
    found = False
    for rec in parse_digest(_read_text(stream, ctx)):
        found = True
        yield rec
    if not found:
        ctx.warnings.append(NO_ENTRIES)


# --- api-text ------------------------------------------------------------------------------------
_ID_URL = re.compile(rf"https?://{arxiv.HOST}/abs/(?P<id>{arxiv.ID})(?:v(?P<version>\d)(?P<more>\d*))?")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_ISO_GLUED = re.compile(r"""(?<=[^\s,;"'])\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z(?=[^\s,;"'])""")


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
                if _is_capitalised(first[j:]) and looks_like_name(guess):
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
        if len(words) == 1 and _is_initials(name):
            warnings.append(f"author {name!r} is only initials: it may belong to the name after it")
        elif len(words) == 1:
            before = f" after {names[i - 1]!r}" if i else ""
            warnings.append(
                f"author {name!r} is a single word: it may be the end of a name with an internal capital "
                f"(like LeCun or DeepMind) cut off{before}"
            )
        elif words[-1] in _CAMEL_PREFIXES:
            warnings.append(f"author {name!r} ends in {words[-1]!r}: it may be half of a name like McDonald")
    if first_author > 0:
        last_comment = pieces[first_author - 1][1]
        if _name_shape(last_comment):
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
    index = _LineIndex(text)
    matches = [m for m in _ID_URL.finditer(text) if not _set_off(text, m.start(), m.end())]
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


def read_api_text(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """Tag-stripped arXiv API Atom response (format ``api-text``): one record per entry."""
    found = False
    for rec in parse_api_text(_read_text(stream, ctx)):
        found = True
        yield rec
    if not found:
        ctx.warnings.append(NO_ENTRIES)


# --- listing-page --------------------------------------------------------------------------------
_LISTING_HEADER = re.compile(
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
_EXPAND = "abstract click to expand"
_FOOTER = "browse all of "


def _looks_like_tldr(line: str) -> bool:
    """A one-line summary is a sentence (ends in a full stop) or long enough to have been truncated."""
    return line.endswith(".") or len(line) >= 100


def _listing_entry(number: int, header: re.Match[str], body: Sequence[str]) -> dict:
    """One record from a header match and its non-chrome lines."""
    warnings: list[str] = []
    if _EXPAND in body:
        marker: int | None = body.index(_EXPAND)
    elif _FIGURE in body:
        marker = body.index(_FIGURE)
        warnings.append(f"no {_EXPAND!r} line: the abstract is read from after the figure line")
    else:
        marker = None
    if marker is not None:
        before = [line for line in body[:marker] if line != _FIGURE]
        after = [line for line in body[marker + 1 :] if line != _FIGURE]
    elif len(body) >= 4:
        before, after = list(body[:-1]), list(body[-1:])
        warnings.append(f"no {_EXPAND!r} line: the last line is taken as the abstract")
    else:
        before, after = list(body), []
        warnings.append(f"no {_EXPAND!r} line and too few lines for an abstract")
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
        warnings.append(f"{len(after)} lines after {_EXPAND!r} (expected 1): joined as the abstract")
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
    headers = [(i, m) for i, (_, line) in enumerate(lines) if (m := _LISTING_HEADER.match(line))]
    for k, (at, header) in enumerate(headers):
        end = headers[k + 1][0] if k + 1 < len(headers) else len(lines)
        body = [
            line for _, line in lines[at + 1 : end]
            if line and not _VOTES.match(line) and not line.startswith(_FOOTER)
        ]
        yield _listing_entry(lines[at][0], header, body)


def read_listing_page(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """arXiv category listing page saved as text (format ``listing-page``): one record per paper."""
    found = False
    for rec in parse_listing_page(_read_text(stream, ctx)):
        found = True
        yield rec
    if not found:
        ctx.warnings.append(NO_ENTRIES)


# --- sniffing ------------------------------------------------------------------------------------
def sniff_text_format(head: str) -> str | None:
    """``"api-text"``, ``"listing-page"``, ``"digest"`` or None, from a file's first ~64 KB of text.

    Conservative: each format needs its own structural marks, and anything that opens like JSON or
    XML is never a text format.

    - api-text: an id URL glued to the text after it and a timestamp glued between two fields,
      with the feed URL or an id URL in the first 1000 characters;
    - listing-page: a ``cs.DC 2026-05-14 [badges]`` header line and an ``abstract click to expand``
      line, or three header lines;
    - digest: a byline naming someone in two or more words and a ``PDF`` line, or three such bylines.
    """
    stripped = head.lstrip()
    if not stripped or stripped[0] in "{[<":
        return None
    opening = stripped[:1000]
    glued_id = any(m.end() < len(head) and head[m.end()].isalnum() for m in _ID_URL.finditer(head))
    if glued_id and _ISO_GLUED.search(head) and (arxiv.API_URL.search(opening) or _ID_URL.search(opening)):
        return "api-text"
    lines = [line.strip() for line in head.split("\n")]
    headers = sum(1 for line in lines if _LISTING_HEADER.match(line))
    if headers >= 3 or (headers and _EXPAND in lines):
        return "listing-page"
    bylines = sum(
        1 for line in lines
        if (byline := _digest_byline(line)) is not None and any(len(a.split()) >= 2 for a in byline[0])
    )
    if bylines >= 3 or (bylines and "PDF" in lines):
        return "digest"
    return None
