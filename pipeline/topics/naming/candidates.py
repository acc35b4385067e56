"""Which phrase names a group of papers: the phrases its papers write, and the choice among them.

A candidate is a phrase of 1-3 content words that at least 2 of the group's papers, and 5 %, write
(``candidates_of``). A label is one of 2 or more words, chosen for three things at once:

- **coverage**: the share of the group's papers whose title and abstract contain every content word
  of the phrase (its *support*), with a bonus for papers that say it in their title;
- **distinctiveness**: the share of all papers containing those words that lie in this group, so
  "language models", written everywhere, loses to "KV cache";
- **faithfulness**: the phrase, embedded with the same model as the papers, lies nearer its own
  group's centroid than any other group's. A phrase that fails is skipped; a group with no faithful
  phrase takes its best-scoring one (and ``ThemeModel`` then merges it into a neighbour).

Groups are named in turn, each taking its best phrase that no earlier label took: no two labels share
the same content words, an acronym and its words counting as one (``WordIndex.expand``). With a
``floor``, a phrase that too few of the papers write word for word gives way to one that more write.
The chosen phrase grows by a word that the papers nearly always add ("LiDAR point" -> "LiDAR point
clouds", ``extend``). How it is then written, and the description, are ``label.py``'s.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from pipeline.topics.naming.words import parts_of, singular, support

if TYPE_CHECKING:
    from pipeline.topics.naming.words import LabelCorpus, Embed

TITLE_WEIGHT = 0.5  # a paper that says the label in its title counts this much more
MIN_WORDS, MAX_WORDS = 2, 4
PRIOR = 3  # papers added to every phrase's count outside the group: a phrase only 2 papers write is not distinctive
POOL = 30  # label candidates scored per group (each is embedded to judge its faithfulness)
# stop words that name what a phrase is about ("diffusion language models"): a label may end in one
HEAD_NOUNS = frozenset({"models", "model", "systems", "system", "data", "datasets", "dataset", "benchmarks",
                        "benchmark", "frameworks", "framework", "methods", "tasks"})


@dataclass(frozen=True)
class Candidate:
    """A phrase a group's papers write, with what it is chosen by."""

    phrase: str  # lower case, as found
    words: frozenset[str]  # content words
    support: float  # share of the group's papers containing every content word (title + abstract)
    title_support: float  # the same in titles
    written: float  # share of the group's papers that write the phrase as such
    precision: float  # share of all papers with those words that lie in the group

    @property
    def score(self) -> float:
        """Coverage (title mentions count extra) weighs twice as much as distinctiveness."""
        return (self.support + TITLE_WEIGHT * self.title_support) ** 2 * self.precision


def candidates_of(rows: np.ndarray, corpus: LabelCorpus, limit: int = 200) -> list[Candidate]:
    """The group's phrases (1-3 content words, written by at least 2 of its papers and 5 %), best
    first; the ``limit`` most written are scored."""
    stop, doc_index, title_index = corpus.stop, corpus.doc_index, corpus.title_index
    if not len(rows):
        return []
    written = Counter(p for i in rows for p in corpus.phrases[i])
    floor = max(min(2, len(rows)), int(np.ceil(0.05 * len(rows))))
    found = [(p, n) for p, n in written.items() if n >= floor]
    # pre-rank by how many write it, then score the best few exactly
    found.sort(key=lambda item: (-item[1], item[0]))
    out = []
    inside_rows = set(rows.tolist())
    for phrase, words, having in doc_index.distinct([p for p, _ in found[:limit]], stop):
        n = written[phrase]
        inside = len(having & inside_rows)
        out.append(Candidate(
            phrase=phrase, words=words, support=inside / len(rows),
            title_support=len(title_index.having(words) & inside_rows) / len(rows),
            written=n / len(rows), precision=inside / (len(having) + PRIOR),
        ))
    out.sort(key=lambda c: (-c.score, c.phrase))
    return out


def pooled(candidates: list[Candidate], min_words: int = MIN_WORDS) -> list[Candidate]:
    """The group's label candidates: its ``POOL`` best phrases of ``min_words`` or more words."""
    return [c for c in candidates if len(c.phrase.split()) >= min_words][:POOL]


def nearest_group(corpus: LabelCorpus, embed: Embed, phrase: str, centroids: np.ndarray, ids: Sequence[int]) -> int:
    """The id of the centroid nearest the embedded phrase."""
    return int(np.asarray(ids)[int((corpus.embed(embed, [phrase]) @ np.asarray(centroids).T).argmax())])


def verdicts(pools: dict[int, list[Candidate]], ids: list[int], centroids: np.ndarray, corpus: LabelCorpus,
             embed: Embed | None) -> dict[str, int]:
    """The id of the group each pooled phrase lies nearest (all embedded at once); none without an
    embedder or with one group, where faithfulness is not judged."""
    if embed is None or len(ids) <= 1:
        return {}
    pending = sorted({c.phrase for t in ids for c in pools[t]})
    if not pending:
        return {}
    vectors = corpus.embed(embed, pending)
    nearest = np.asarray(ids)[(vectors @ np.asarray(centroids).T).argmax(axis=1)]
    return dict(zip(pending, nearest.tolist()))


@dataclass(eq=False)
class Round:
    """The groups named together (one ``label.name_groups`` call) and what their naming shares: the
    corpus, the groups' ``ids`` and unit ``centroids`` (rows in ``ids`` order), the ``embed`` that
    faithfulness is judged with, the group each pooled phrase lies nearest (``verdicts``), the words
    of the labels taken so far (``taken``, each ``same``; it grows as the groups are named) and the
    ``floor``."""

    corpus: LabelCorpus
    ids: list[int]
    centroids: np.ndarray
    embed: Embed | None
    verdict: dict[str, int]
    taken: set[frozenset[str]]
    floor: float

    def same(self, words: frozenset[str]) -> frozenset[str]:
        """``words`` with each acronym's words either way (``WordIndex.expand``): "MoE serving" and
        "Mixture-of-experts serving" are one label."""
        return self.corpus.doc_index.expand(words)


@dataclass(frozen=True, eq=False)
class Group:
    """One group being named: its ``id``, its papers (``members``, rows of the corpus in order, and
    ``rows``, the same as a set), the ``key`` that what is worked out for it is remembered under (a
    hash of its papers, on which alone that depends), the first 400 of its texts (``sample``: how it
    writes a phrase) and its papers' word sets (``docs``)."""

    id: int
    key: bytes
    members: np.ndarray
    rows: set[int]
    sample: list[str]
    docs: list[set[str]]


def preferred(pool: list[Candidate], group: Group, rnd: Round,
              written_by: Callable[[str], float]) -> tuple[list[Candidate], list[Candidate]]:
    """The group's label candidates in order of preference, as (promoted, ranked). ``ranked``: those
    that no label took (a hyphenated word and its parts alike) nor are cut from one
    (``cut_from_label``) and that lie nearest this group's centroid, best first, then all those (a
    phrase may come twice). With a floor, ``promoted``:
    those of the nearest that at least the floor's share of the group's papers write as they would
    be written (``written_by``), first in ``ranked`` too."""
    said = {_unhyphenated(words) for words in rnd.taken}  # "retrieval augmented" says "retrieval-augmented"
    usable = [c for c in pool
              if _unhyphenated(rnd.same(c.words)) not in said and not cut_from_label(c, group, rnd, said)]
    nearest_own = [c for c in usable if rnd.verdict.get(c.phrase, group.id) == group.id]
    # a phrase that enough of the papers write, as it would be written, first
    promoted = [c for c in nearest_own if written_by(c.phrase) >= rnd.floor] if rnd.floor > 0 else []
    return promoted, promoted + nearest_own + usable


def cut_from_label(candidate: Candidate, group: Group, rnd: Round, said: set[frozenset[str]]) -> bool:
    """Whether the group's papers nearly always write the phrase as part of a label another group
    took: the phrase grown by ``extend`` (whether or not ``grown`` would take the growth) says what
    that label says, a hyphenated word and its parts alike. "augmented generation", where
    "Retrieval-augmented generation" is taken, is that label cut short, not a phrase of its own.
    ``said``: the taken labels' words, ``_unhyphenated``. Only a phrase whose words are part of a
    taken label's is grown, so most phrases cost nothing here."""
    words = _unhyphenated(rnd.same(candidate.words))
    if not any(words < taken for taken in said):
        return False
    corpus = rnd.corpus
    phrase = corpus.remembered(("extend", group.key, candidate.phrase),
                               lambda: extend(candidate.phrase, group.sample, corpus.stop))
    return phrase != candidate.phrase and _unhyphenated(rnd.same(corpus.doc_index.words(phrase, corpus.stop))) in said


def _unhyphenated(words: frozenset[str]) -> frozenset[str]:
    """``words`` with each hyphenated word that says its parts written as those parts
    ("retrieval-augmented": retrieval, augmented; ``words.parts_of``)."""
    return frozenset(w for w in words if not parts_of(frozenset({w}))) | parts_of(words)


Label = TypeVar("Label")


def pick(promoted: list[Candidate], ranked: list[Candidate], write: Callable[[Candidate], Label],
         enough: Callable[[Label], bool]) -> tuple[Candidate, Label]:
    """The chosen phrase and its label as ``write`` writes it: the first promoted phrase whose label,
    as written, is written by ``enough`` of the group's papers (the acronym form may be refused);
    when none is promoted, or none is written so, the best ranked phrase, as without a floor."""
    for chosen in promoted:
        written = write(chosen)
        if enough(written):
            return chosen, written
    return ranked[0], write(ranked[0])


def unclaimed(candidates: list[Candidate], rnd: Round) -> list[Candidate]:
    """For a group with no label candidate left: its two strongest phrases whose words together no
    other label has (fewer where there are not two)."""
    chosen: list[Candidate] = []
    for c in candidates:
        if len(chosen) < 2 and rnd.same(frozenset().union(c.words, *(w.words for w in chosen))) not in rnd.taken:
            chosen.append(c)
    return chosen


def grown(chosen: Candidate, group: Group, rnd: Round, written_by: Callable[[str], float]) -> tuple[str, frozenset[str]]:
    """The chosen phrase grown by the words its papers nearly always add (``extend``), with its
    content words; the phrase as chosen where fewer than 85 % as many of the group's papers contain
    the grown one, or, under a floor, it falls below the floor that the chosen phrase meets
    (``written_by``). A phrase whose grown form is another label's is no candidate
    (``cut_from_label``)."""
    corpus, stop = rnd.corpus, rnd.corpus.stop
    phrase = corpus.remembered(("extend", group.key, chosen.phrase), lambda: extend(chosen.phrase, group.sample, stop))
    words = corpus.doc_index.words(phrase, stop)
    if phrase != chosen.phrase and (support(words, group.docs) < 0.85 * chosen.support
                                    or rnd.floor > 0 and written_by(phrase) < rnd.floor <= written_by(chosen.phrase)):
        return chosen.phrase, chosen.words
    return phrase, words


def extend(phrase: str, texts: Sequence[str], stop: frozenset[str], max_words: int = MAX_WORDS) -> str:
    """Grow a phrase by the word that usually follows (or precedes) it in the theme's papers:
    "LiDAR point" becomes "LiDAR point clouds" when most of its occurrences continue that way. A
    stop word is no such word, except a noun after it that names what it is about (``HEAD_NOUNS``,
    singular or plural), taken only where no other word would be and after which it grows no more:
    "Vision-language" becomes "Vision-language models", but "language processing" becomes "natural
    language processing" where its papers write both."""
    joined = "\n".join(texts)
    heads = {singular(word) for word in HEAD_NOUNS}
    for _ in range(max_words - len(phrase.split())):
        body = r"[\s-]+".join(map(re.escape, phrase.split()))
        hits = len(re.findall(r"\b" + body + r"\b", joined, re.IGNORECASE))
        after = re.findall(r"\b" + body + r"[ \t-]+([A-Za-z][\w-]*)", joined, re.IGNORECASE)
        before = re.findall(r"\b([A-Za-z][\w-]*)[ \t-]+" + body + r"\b", joined, re.IGNORECASE)
        words, nouns = [], []  # (occurrences, the word as most often written, side)
        for side, found in (("after", after), ("before", before)):
            counts = Counter(singular(w) for w in found)  # "vehicle" and "vehicles" count together
            for key, n in counts.most_common(1):
                written = Counter(w for w in found if singular(w) == key).most_common(1)[0][0]
                if len(written) > 1 and written.lower() not in stop:
                    words.append((n, written, side))
                elif side == "after" and singular(written.lower()) in heads:
                    nouns.append((n, written, side))
        common = [o for o in words if o[0] >= 0.6 * hits] or [o for o in nouns if o[0] >= 0.6 * hits]
        if hits == 0 or not common:
            break
        n, word, side = max(common)
        phrase = f"{phrase} {word}" if side == "after" else f"{word} {phrase}"
        if (n, word, side) in nouns:
            break
    return phrase
