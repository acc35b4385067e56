"""Paper identity: arXiv ids with and without versions, and ids made from titles."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from pipeline import arxiv

# an id alone, after "arXiv:", or in an abs or pdf link; then a version, then ".pdf"
_ARXIV_ID = re.compile(
    rf"(?:arxiv:|(?:https?://)?{arxiv.HOST}/(?:abs|pdf)/)?{arxiv.ID_PARTS}(?:v(?P<version>[1-9]\d*))?(?:\.pdf)?",
    re.IGNORECASE,
)


def _valid_month(yymm: str) -> bool:
    return 1 <= int(yymm[2:]) <= 12


def parse_arxiv_id(text: str | None) -> tuple[str, int | None] | None:
    """Return ``(id_without_version, version)`` for an arXiv id or abs/pdf URL, else None.

    Ids that arXiv cannot have issued are None: month 13, version 0, a five-digit number in 2010.

    >>> parse_arxiv_id("http://arxiv.org/abs/2606.04101v2")
    ('2606.04101', 2)
    >>> parse_arxiv_id("hep-th/9901001")
    ('hep-th/9901001', None)
    """
    if not text:
        return None
    match = _ARXIV_ID.fullmatch(text.strip())
    if match is None:
        return None
    version = match.group("version")
    arxiv_id = match.group("id")
    yymm = match.group("yymm") or match.group("old_yymm")
    if not _valid_month(yymm):
        return None
    if match.group("yymm") and (
        yymm < "0704" or (len(match.group("number")) == 5) != (yymm >= arxiv.FIVE_DIGITS_FROM)
    ):
        return None  # new-style ids began in April 2007
    if "/" in arxiv_id:  # old style: archive name is lower case, subject class upper case
        archive, number = arxiv_id.split("/")
        name, _, subject = archive.partition(".")
        arxiv_id = f"{name.lower()}{'.' + subject.upper() if subject else ''}/{number}"
    return arxiv_id, int(version) if version else None


def normalise_title(title: str) -> str:
    """Lower-case, accent-free, punctuation-free title used to match papers without ids."""
    text = unicodedata.normalize("NFKD", title)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(re.findall(r"\w+", text.casefold()))


def title_id(title: str) -> str:
    """Stable id for a paper known only by its title: ``title:`` and 16 hex digits."""
    digest = hashlib.sha1(normalise_title(title).encode("utf-8")).hexdigest()
    return f"title:{digest[:16]}"


def abs_url(paper_id: str) -> str | None:
    """The arXiv abstract page of an arXiv id; None for ids made from titles."""
    if paper_id.startswith("title:"):
        return None
    return arxiv.abs_url(paper_id)
