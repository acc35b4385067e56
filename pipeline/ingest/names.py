"""Does a piece of text look like a person's name? The plain-text readers ask when a byline or a
run of glued author names has to be cut into names."""

from __future__ import annotations

import re

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
CAMEL_PREFIXES = frozenset({"Mc", "Mac", "Fitz"})
_APOSTROPHES = "'\u2019"


def is_capitalised(part: str) -> bool:
    """``Giménez``, ``Løvenskjold``, ``O'Neil``: an upper-case letter, then lower-case letters.

    After an apostrophe a capital may start again (``O'Neil``, ``D'Angelo``); nowhere else.
    """
    if not part or not part[0].isupper():
        return False
    head, *rest = re.split(f"[{_APOSTROPHES}]", part[1:])
    if head and not (head.isalpha() and head.islower()):
        return False
    return all(p.isalpha() and (p.islower() or (p[0].isupper() and p[1:].islower())) for p in rest)


def is_initials(word: str) -> bool:
    """``Q.``, ``J.-P.``, ``Q``: one or more upper-case initials, each with a full stop (or a lone one)."""
    if len(word) == 1:
        return word.isupper()
    return re.fullmatch(r"(?:[^\W\d_]\.-?)+", word) is not None and all(
        ch.isupper() for ch in word if ch.isalpha()
    )


def _is_name_word(word: str) -> bool:
    """One word of a person's name: a particle, a suffix, initials, or (hyphenated) capitalised parts."""
    if word in _PARTICLES or word in _SUFFIXES or is_initials(word):
        return True
    parts = word.split("-")
    return is_capitalised(parts[0]) and all(
        is_capitalised(p) or (p.isalpha() and p.islower()) for p in parts[1:]
    )


def name_shape(text: str) -> bool:
    """Whether ``text`` is shaped like one person's name (1-5 name words, not only particles)."""
    words = text.split()
    if not 1 <= len(words) <= 5 or not all(_is_name_word(w) for w in words):
        return False
    return any(w not in _PARTICLES for w in words)


def _has_comment_word(text: str) -> bool:
    """Whether ``text`` has a word that marks an arXiv comment ("pages", "Accepted", "Proceedings")."""
    return any(w.strip(".,;:()").lower() in _COMMENT_WORDS for w in text.split())


def loose_name(text: str) -> bool:
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
    return name_shape(text) and not _has_comment_word(text)
