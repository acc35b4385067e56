"""The phrase shown beside a label that only part of its theme writes: the one that covers most of
the papers the label misses ("MRI · computed tomography", "OCR · document").

A theme whose label fewer than ``BELOW`` of its papers write may be a mixture named by one strand.
Of its candidate phrases that share no word (or another form of one) with the label and are not
made of the words of an acronym in it ("PDDL · planning domain" restates the label), the
complement is the one with the most papers that write it and not the label, times its
distinctiveness (the share of the store's papers writing it that lie in the theme). It must be a
phrase of two words or an acronym at a distinctiveness of ``MIN_PRECISION``, or a single word at
``MIN_WORD_PRECISION``, and either at ``LIFT`` times the theme's share of the papers; the best of
those that cover at least ``SEEN`` of the theme beyond the label is the complement where it covers
``MIN_GAIN`` or more. Otherwise there is none, and the reports
show the label as before (``report.data.shown_labels``).

A theme named in a weekly update is judged, as its label is, against its own and its nearest
themes' papers; a fit's and a refit's themes against the whole store.

Measured by readers who judged the shown name, the label with its complement, and the phrase most
papers write, side by side (``benchmarks/names/prefer.py``): where the complement covers 0.18 or
more of the theme, it turned 7 names of 49 better and 1 worse; where it covered less, none better
and 6 worse (``MIN_GAIN`` was chosen on cs.CL and cs.AI, and checked on cs.CV:
``benchmarks/results/2026-11-28-names-reader-pass.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.topics.naming.words import written_case

if TYPE_CHECKING:
    from pipeline.topics.naming.candidates import Candidate
    from pipeline.topics.naming.words import LabelCorpus

BELOW = 0.5  # a label fewer than this share of its theme's papers write may name one strand of it
MIN_GAIN = 0.18  # the complement covers at least this share of the theme beyond the label
SEEN = 0.08  # phrases that cover less beyond the label are not weighed at all
MIN_PRECISION, MIN_WORD_PRECISION = 0.15, 0.25  # a phrase's (a single word's) distinctiveness
# and at least this many times the theme's share of the papers it is judged among: in a store of two
# themes, half of any word's papers lie in each ("Edge computing · time" on the 94 sample papers); in a
# field of 60 themes or more (each under 5 %) MIN_PRECISION is the higher, so the measured fields
# are untouched
LIFT = 2.0


ENDINGS = ("s", "es", "ed", "er", "ers", "ing", "ning", "ting")  # "plan", "planning"; not "data", "dataset", "sign", "signal"


def _kin_word(w: str, x: str) -> bool:
    """Two forms of one word: "emotional" beside "emotion", "plan" beside "planning" ("affective" is not)."""
    short, long = sorted((w, x), key=len)
    return (min(len(w), len(x)) >= 5 and w[:5] == x[:5]) or (
        len(short) >= 4 and long.startswith(short) and long[len(short):] in ENDINGS)


def _kin(words: frozenset[str], said: frozenset[str]) -> bool:
    """A word that is another form of one of the label's."""
    return any(_kin_word(w, x) for w in words for x in said)


def _restates(words: frozenset[str], says: frozenset[str]) -> bool:
    """Every word is one the label says, or a form of one (``says``: with its acronyms' words)."""
    return all(w in says or _kin(frozenset({w}), says) for w in words)


def _acronym(form: str) -> bool:
    return any(len(w) >= 2 and sum(c.isupper() for c in w) >= 2 for w in form.split())


def strongest(label: str, members: np.ndarray, candidates: Sequence[Candidate], corpus: LabelCorpus,
              sample: Sequence[str]) -> tuple[Candidate | None, float]:
    """The phrase that would complement ``label`` over the theme's papers (``members``, rows of
    ``corpus``; ``sample``: some of their texts), of those covering at least ``SEEN`` of the theme
    beyond the label, and the share it covers; (None, 0.0) where there is none."""
    index = corpus.doc_index
    inside = set(np.asarray(members).tolist())
    said = index.words(label.lower(), corpus.stop)
    if not inside or not said or index.share(said, inside) >= BELOW:
        return None, 0.0
    rest = inside - index.having(said)
    says = index.expand(said)  # with an acronym's words: "PDDL" says "planning domain"
    floor = max(MIN_PRECISION, LIFT * len(inside) / max(len(corpus.texts), 1))
    best, gain_of, score = None, 0.0, 0.0
    for c in candidates:  # in the candidates' order: of two that score alike, the first (as measured)
        if c.precision < floor or c.words & said or _restates(c.words, says) or _kin(c.words, said):
            continue
        gain = len(index.having(c.words) & rest) / len(inside)
        if gain < SEEN or gain * c.precision <= score:
            continue
        # a single word counts at MIN_WORD_PRECISION, or as an acronym (its written form is read only then)
        if len(c.words) >= 2 or c.precision >= MIN_WORD_PRECISION or _acronym(written_case(c.phrase, sample)):
            best, gain_of, score = c, gain, gain * c.precision
    return best, gain_of


def complement(label: str, members: np.ndarray, candidates: Sequence[Candidate], corpus: LabelCorpus,
               sample: Sequence[str]) -> str:
    """The complement of ``label`` over the theme's papers (``members``, rows of ``corpus``), as the
    papers write it (``sample``: some of their texts); "" where there is none: the ``strongest``
    phrase, shown only where it covers enough (as measured)."""
    best, gain = strongest(label, members, candidates, corpus, sample)
    return written_case(best.phrase, sample) if best is not None and gain >= MIN_GAIN else ""


def complement_of(label: str, members: np.ndarray, corpus: LabelCorpus) -> str:
    """``complement`` of a label a theme kept (a refit keeps an old theme's label over the new one)."""
    from pipeline.topics.naming.candidates import candidates_of

    members = np.asarray(members)
    index = corpus.doc_index
    if index.share(index.words(label.lower(), corpus.stop), set(members.tolist())) >= BELOW:
        return ""
    return complement(label, members, candidates_of(members, corpus), corpus,
                      [corpus.texts[i] for i in members[:400]])

