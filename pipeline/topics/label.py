"""Theme names in the papers' own words.

A label is a 2-4-word phrase that the theme's papers write (or the acronym they write for one, see
``abbreviated``), chosen for three things at once:

- **coverage**: the share of the theme's papers whose title and abstract contain every content word
  of the phrase (its *support*), with a bonus for papers that say it in their title;
- **distinctiveness**: the share of all papers containing those words that lie in this theme, so
  "language models", written everywhere, loses to "KV cache";
- **faithfulness**: the phrase, embedded with the same model as the papers, lies nearer its own
  theme's centroid than any other theme's. A phrase that fails is skipped; a theme with no faithful
  phrase takes its best-scoring one (and ``ThemeModel`` then merges it into a neighbour).

Labels are distinct across themes (no two share the same set of content words), written as most
papers write them ("MoE serving", "KV cache", "FPGA accelerators"), an acronym in place of its words
where clearly more of the theme's papers write it ("Graphics processing units" -> "GPUs",
``abbreviated``), and grown by a word that the papers nearly always add ("LiDAR point" -> "LiDAR
point clouds"). With a ``floor``, a phrase that too few of the papers write word for word gives way
to one that more write. Each theme also gets a description line of its strongest phrases ("MoE
serving · expert parallelism · all-to-all").

The same functions name areas (groups of themes): the groups are then the areas, and their centroids
the areas' centroids.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Embed = Callable[[list[str]], np.ndarray]  # texts -> one unit vector per text

# a word of 2+ characters, or a letter joined by a hyphen ("X-ray", "k-means", "t-SNE": not "ray")
TOKEN = r"(?u)\b[a-zA-Z](?:[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*|(?:-[a-zA-Z0-9]+)+)\b"
TOKEN_RE = re.compile(TOKEN)
# n-grams never span these: "generation (RAG)" gives no "generation rag", ". Next" no cross-sentence pair
SEGMENT = re.compile(r"[.,;:!?()\[\]{}\"“”‘’]+|\s[-–—]+\s")
TITLE_WEIGHT = 0.5  # a paper that says the label in its title counts this much more
MIN_WORDS, MAX_WORDS = 2, 4
DESCRIPTION_PHRASES = 4
PRIOR = 3  # papers added to every phrase's count outside the group: a phrase only 2 papers write is not distinctive


def singular(word: str) -> str:
    """A crude singular, enough to count "vehicle" and "vehicles" (or "systems") as one word."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


# an acronym's plural as written: "GPUs", "VMs", "LLMs" (not "GPS", "DNS", "Ads")
ACRONYM_PLURAL = re.compile(r"[A-Z][A-Za-z0-9]*[A-Z]s")


def word_of(token: str) -> str:
    """The word a token as written counts as: ``singular``, and an acronym's plural is the acronym
    ("GPUs" and "GPU" are one word, "DTs" and "DT"; "GPS" stays "gps")."""
    return token[:-1].lower() if ACRONYM_PLURAL.fullmatch(token) else singular(token)


def content_words(phrase: str, stop: frozenset[str]) -> frozenset[str]:
    """The words of a phrase that a paper must contain for the phrase to describe it (``word_of``
    each: singular, lower case; stop words dropped; a hyphenated word such as "test-time" is one word)."""
    return frozenset(word_of(t) for t in TOKEN_RE.findall(phrase) if t.lower() not in stop)


def support(words: frozenset[str], docs: Sequence[set[str]]) -> float:
    """Share of ``docs`` (word sets) that contain every one of ``words``."""
    if not docs or not words:
        return 0.0
    return sum(words <= d for d in docs) / len(docs)


# an acronym in brackets after what it stands for: "mixture-of-experts (MoE)", "large language models (LLMs)"
DEFINED = re.compile(r"\(([A-Za-z]*[A-Z][a-z]?[A-Z][A-Za-z]*?)s?\)")
BEFORE = re.compile(r"(?:[A-Za-z][\w]*[\s-]+){1,8}$")  # the words right before the bracket
MIN_DEFINITIONS = 2  # texts that must define an acronym the same way before it counts as a word


def acronyms(texts: Sequence[str]) -> dict[str, list[frozenset[str]]]:
    """The acronyms the texts define, as written, each with the word sets (``WordIndex``'s
    vocabulary) of the ways it is spelled out: {"MoE": [{"mixture-of-expert"}, {"mixture", "of",
    "expert"}], "FL": [{"federated", "learning"}], ...}.

    A definition is an acronym of two or more capitals in brackets ("(MoE)", "(LLMs)", "(KV)") right
    after words whose initials, hyphenated parts included, spell it ("mixture-of-experts",
    "Key-Value", "Quality of Service"). An acronym counts when ``MIN_DEFINITIONS`` texts define it
    and at least three in four of its definitions mean the same words (hyphens aside): "TTS" for
    both text-to-speech and test-time scaling counts as neither."""
    found: dict[str, Counter] = {}
    for text in texts:
        defined = set()  # a text counts once for each way it spells an acronym out
        for m in DEFINED.finditer(text):
            words = BEFORE.search(text, max(0, m.start() - 160), m.start())
            if words is None:
                continue
            acronym, before = m.group(1), re.sub(r"[\s-]+$", "", words.group(0))  # "... line - - (X)"
            parts = re.split(r"[\s-]+", before)
            key = acronym.lower()
            for k in range(min(len(key), len(parts)), 0, -1):  # the run of words ending at the bracket that spells it
                if "".join(p[0] for p in parts[-k:]).lower() == key:
                    # those words as written, hyphens kept ("mixture-of-experts" is one word)
                    phrase = "".join(re.split(r"([\s-]+)", before)[-(2 * k - 1):]).lower()
                    # every word must be a word of the index ("k nearest neighbours": "k" is not)
                    if len(TOKEN_RE.findall(phrase)) == len(phrase.split()):
                        defined.add((acronym, phrase))
                    break
        for acronym, phrase in defined:
            found.setdefault(acronym, Counter())[phrase] += 1
    def meaning_of(phrase: str) -> str:  # the words, hyphens aside: "mixture-of-experts" = "mixture of experts"
        return " ".join(singular(t) for t in re.split(r"[\s-]+", phrase))

    out = {}
    for acronym, written in found.items():
        meanings = Counter()
        for phrase, n in written.items():
            meanings[meaning_of(phrase)] += n
        meaning, n = meanings.most_common(1)[0]
        if n < MIN_DEFINITIONS or n < 0.75 * sum(meanings.values()):
            continue
        forms = {frozenset(singular(t) for t in TOKEN_RE.findall(phrase)) for phrase in written
                 if meaning_of(phrase) == meaning}
        out[acronym] = sorted(forms, key=sorted)
    return out


# a word after these is not what the hyphenated word says: "non-convex" is not "convex"
PREFIXES = frozenset({"non", "semi", "self", "un", "anti", "pre", "post", "co", "sub", "de", "re", "pseudo", "quasi"})


def _parts(token: str) -> list[str]:
    """The two parts of a word of two joined by a hyphen ("KV-cache": "KV", "cache"; "GPU-based",
    "multi-GPU"), none for others ("X-ray", "non-convex", "state-of-the-art")."""
    parts = token.split("-")
    if len(parts) != 2 or min(len(p) for p in parts) < 2 or parts[0].lower() in PREFIXES:
        return []
    return parts


# a word before these is what the hyphenated word goes without: "lock-free" does not say "locks"
NEGATING = frozenset({"free", "less"})


def _said_parts(token: str) -> list[str]:
    """The parts of a hyphenated word that it says (``_parts``; none when the second part negates
    the first: a text that writes "lock-free" or "training-free" does not contain "lock" or
    "training", and a description listing "lock-free" may still list "locks")."""
    parts = _parts(token)
    return [] if parts and parts[1].lower() in NEGATING else parts


def _parts_of(words: frozenset[str]) -> frozenset[str]:
    """The parts that the hyphenated ones of ``words`` say (``_said_parts``): "edge-cloud" says edge and cloud."""
    return frozenset(singular(w) for word in words for w in _said_parts(word))


def _words_of(token: str) -> frozenset[str]:
    """What a text that writes ``token`` contains: its word (``word_of``) and its plain singular
    ("GPUs": "gpu" and "gpus"), and those of the parts it says (``_said_parts``)."""
    return frozenset(f(t) for t in [token, *_said_parts(token)] for f in (word_of, singular))


class WordIndex:
    """Which texts contain each word (singular, lower case, as ``words`` gives them; a text that
    writes "GPUs" contains "gpu" and "gpus"): ``having(words)`` is the set of texts containing all of them.

    With ``aliases`` (the default) an acronym the texts define and what it stands for are one word
    (``acronyms``): a text that writes "MoE" (as defined, capitals and all: "ran" is not "RAN")
    contains "mixture-of-experts" and "mixture of experts" too, and one that writes any of those
    contains "MoE", so "MoE serving" describes a paper on serving mixture-of-experts models."""

    def __init__(self, texts: Sequence[str], aliases: bool | dict[str, list[frozenset[str]]] = True) -> None:
        written = [TOKEN_RE.findall(text) for text in texts]
        # a hyphenated word contains its parts too: "KV-cache" writes "KV cache", "GPU-based" writes GPU
        seen: dict[str, frozenset[str]] = {}  # a corpus repeats its words: each token's are worked out once
        self.sets = [set().union(*(seen[t] if t in seen else seen.setdefault(t, _words_of(t)) for t in tokens))
                     for tokens in written]
        # lower-case words the texts mostly write as an acronym's plural: "gpus" (GPUs), "dts" (DTs),
        # not "gps" where more write GPS; phrases are gathered in lower case, and "gpus" is then "gpu"
        as_plural, otherwise = Counter(), Counter()
        for tokens in written:
            for t in {t for t in tokens if t[-1] == "s"}:
                (as_plural if ACRONYM_PLURAL.fullmatch(t) else otherwise)[t.lower()] += 1
        self.plural_of = {w: w[:-1] for w, n in as_plural.items() if n > otherwise[w] and singular(w) != w[:-1]}
        # the acronyms these texts define, or those given (titles take their abstracts')
        self.aliases = aliases if isinstance(aliases, dict) else acronyms(texts) if aliases else {}
        self._classes: list[tuple[list[frozenset[str]], frozenset[str]]] = []  # (ways of writing it, all its words)
        self._forms: list[list[frozenset[str]]] = []  # each class's spelled-out forms
        self._class_of: dict[str, list[int]] = {}  # word -> the classes a way of writing uses it in
        self.postings: dict[str, set[int]] = {}
        self._literal: dict[str, set[int]] = {}
        for i, words in enumerate(self.sets):
            for w in words:
                self.postings.setdefault(w, set()).add(i)
        if not self.aliases:
            return
        as_written: dict[str, set[int]] = {}
        for i, tokens in enumerate(written):
            for t in tokens:
                as_written.setdefault(t, set()).add(i)
                for part in {t.split("-", 1)[0], *_parts(t)} if "-" in t else ():  # "MoE-based", "multi-GPU"
                    as_written.setdefault(part, set()).add(i)
        # which texts write each acronym, either way, from the texts' own words (before any is added,
        # so that the result does not depend on the order of the acronyms)
        found = []
        for acronym, forms in self.aliases.items():
            key = word_of(acronym)
            rows = as_written.get(acronym, set()) | as_written.get(acronym + "s", set())
            found.append((key, forms, rows.union(*(self.having(form) for form in forms))))
        # which texts write each word of an acronym's class as such (``having(..., literal=True)``)
        self._literal = {w: set(self.postings.get(w, ())) for key, forms, _ in found for w in {key}.union(*forms)}
        for key, forms, rows in found:
            words = frozenset({key}).union(*forms)
            self._classes.append(([frozenset({key}), *forms], words))
            self._forms.append(list(forms))
            for form in (frozenset({key}), *forms):
                for w in form:
                    self._class_of.setdefault(w, []).append(len(self._classes) - 1)
            for i in rows:
                self.sets[i] |= words
            for w in words:
                self.postings.setdefault(w, set()).update(rows)

    def word(self, token: str) -> str:
        """``word_of`` a token, a lower-case acronym plural read as the texts mostly write it ("gpus": "gpu")."""
        w = word_of(token)
        return self.plural_of.get(w, w)

    def words(self, phrase: str, stop: frozenset[str]) -> frozenset[str]:
        """``content_words`` of a phrase, each read by ``word`` ("sharing gpus" says what "Sharing
        GPUs" and "sharing GPU" say)."""
        return frozenset(self.word(t) for t in TOKEN_RE.findall(phrase) if t.lower() not in stop)

    def expand(self, words: frozenset[str]) -> frozenset[str]:
        """``words`` with every word of each acronym written in them, either way ({"fl"} and
        {"federated", "learning"} both give {"fl", "federated", "learning"}): phrases that say the
        same thing expand to the same set."""
        out = set(words)
        for c in {c for w in words for c in self._class_of.get(w, ())}:
            ways, every = self._classes[c]
            if any(way <= words for way in ways):
                out |= every
        return frozenset(out)

    def spelled_out(self, words: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
        """The acronyms (as written) that a spelled-out form of shares a word with ``words``, each
        with that form: {"graphic", "processing", "unit", "memory"} gives [("GPU", {"graphic",
        "processing", "unit"})]."""
        written = list(self.aliases)
        found = {c for w in words for c in self._class_of.get(w, ())}
        return [(written[c], form) for c in sorted(found) for form in self._forms[c] if form & words]

    def having(self, words: frozenset[str], literal: bool = False) -> set[int]:
        """The texts containing every one of ``words``. ``literal``: with an acronym and its words
        apart (a text that writes "MoE" does not contain "mixture-of-experts" then), as
        ``WordIndex(texts, aliases=False)`` would answer, without reading the texts again."""
        lists = sorted((self._literal[w] if literal and w in self._literal else self.postings.get(w, set())
                        for w in words), key=len)
        return set.intersection(*lists) if lists else set()

    def share(self, words: frozenset[str], rows: set[int], literal: bool = False) -> float:
        """Share of the texts ``rows`` that contain every one of ``words`` (0 for no rows or words);
        ``literal`` as for ``having``."""
        return len(self.having(words, literal) & rows) / len(rows) if rows and words else 0.0


def phrases(text: str, stop: frozenset[str], n_max: int = 3) -> set[str]:
    """Lower-case phrases of 1..n_max consecutive content words within a clause (see ``SEGMENT``)."""
    out: set[str] = set()
    for segment in SEGMENT.split(text.lower()):
        tokens = TOKEN_RE.findall(segment)
        keep = [t not in stop for t in tokens]
        for n in range(1, n_max + 1):
            for i in range(len(tokens) - n + 1):
                if all(keep[i : i + n]) and len(set(tokens[i : i + n])) == n:
                    out.add(" ".join(tokens[i : i + n]))
    return out


# --- how papers write a phrase ---------------------------------------------------------------------
def _pattern(phrase: str) -> str:
    return r"\b" + r"[\s-]+".join(map(re.escape, phrase.split())) + r"\b"


def surface_form(phrase: str, texts: Sequence[str]) -> str:
    """The phrase as most papers write it ("MoE serving", not "moe serving")."""
    pattern = re.compile(_pattern(phrase), re.IGNORECASE)
    forms = Counter(" ".join(m.group(0).split()) for text in texts for m in pattern.finditer(text))
    return forms.most_common(1)[0][0] if forms else phrase


def extend(phrase: str, texts: Sequence[str], stop: frozenset[str], max_words: int = MAX_WORDS) -> str:
    """Grow a phrase by the word that usually follows (or precedes) it in the theme's papers:
    "LiDAR point" becomes "LiDAR point clouds" when most of its occurrences continue that way."""
    joined = "\n".join(texts)
    for _ in range(max_words - len(phrase.split())):
        body = r"[\s-]+".join(map(re.escape, phrase.split()))
        hits = len(re.findall(r"\b" + body + r"\b", joined, re.IGNORECASE))
        after = re.findall(r"\b" + body + r"[ \t-]+([A-Za-z][\w-]*)", joined, re.IGNORECASE)
        before = re.findall(r"\b([A-Za-z][\w-]*)[ \t-]+" + body + r"\b", joined, re.IGNORECASE)
        options = []
        for side, found in (("after", after), ("before", before)):
            counts = Counter(singular(w) for w in found)  # "vehicle" and "vehicles" count together
            for key, n in counts.most_common(1):
                written = Counter(w for w in found if singular(w) == key).most_common(1)[0][0]
                if written.lower() not in stop and len(written) > 1:
                    options.append((n, written, side))
        if not options or hits == 0:
            break
        n, word, side = max(options)
        if n < 0.6 * hits:
            break
        phrase = f"{phrase} {word}" if side == "after" else f"{word} {phrase}"
    return phrase


def written_case(phrase: str, texts: Sequence[str]) -> str:
    """A phrase as most papers write it, a Capitalised word lowered unless the papers mostly
    capitalise it ("federated learning", "Gaussian splatting"); acronyms and mixed case stay as
    written (MoE, KV, LiDAR, vLLM). Titles in Title Case do not make a word a name."""
    form = surface_form(phrase, texts)
    joined = " ".join(texts)

    def word_case(word: str) -> str:
        if not (word[:1].isupper() and word[1:].islower()):
            return word
        lower = len(re.findall(r"\b" + re.escape(word.lower()) + r"\b", joined))
        upper = len(re.findall(r"\b" + re.escape(word) + r"\b", joined))
        return word if lower < 0.25 * upper else word.lower()  # a name: Gaussian, Byzantine, Kubernetes

    return " ".join("-".join(word_case(part) for part in token.split("-")) for token in form.split(" "))


ABBREVIATE = 1.25  # an acronym replaces its words in a label when this many times as many papers write it


def _short_forms(phrase: str, corpus: Corpus, texts: Sequence[str]) -> list[tuple[str, str, str, bool, bool]]:
    """The phrase with one acronym written in place of the words it stands for, each way the texts
    define one: all of them ("graphics processing units" -> "GPU"), or all but the first of three or
    more, when they begin the phrase and the ``texts`` mostly write the word left out right before
    them ("aerial vehicles" -> "UAV" where most say
    "unmanned aerial vehicles"; not "unmanned vehicles", "natural language" or "deep learning" ->
    "DRL"). An acronym that is a stop word ("CAN", "IT") is left out. Each as (the words before,
    the acronym, the words after, whether the words replaced end in a plural -- "units", not
    "mixture-of-experts" -- and whether they were all of them)."""
    tokens = phrase.split(" ")
    keys = [corpus.doc_index.word(t) for t in tokens]
    out = []
    for acronym, form in corpus.doc_index.spelled_out(frozenset(keys)):
        if acronym.lower() in corpus.stop or word_of(acronym) in keys:  # a stop word; or written already
            continue
        for n in {len(form), len(form) - 1} if len(form) > 2 else {len(form)}:
            for i in range(len(tokens) - n + 1) if n == len(form) else (0,):
                run, rest = set(keys[i : i + n]), keys[:i] + keys[i + n :]
                if len(run) != n or not run <= form or form & set(rest):  # a word of it left over
                    continue
                if n < len(form) and not _mostly_after(next(iter(form - run)), tokens[:n], texts):
                    continue
                last = tokens[i + n - 1]
                plural = "-" not in last and singular(last) != last.lower()
                out.append((" ".join(tokens[:i]), acronym, " ".join(tokens[i + n :]), plural, n == len(form)))
    return out


def _mostly_after(word: str, run: list[str], texts: Sequence[str]) -> bool:
    """Whether the texts write ``word`` right before the words ``run`` in at least 60 % of the places
    they write those ("unmanned" before "aerial vehicles"). The acronym's words come in the order of
    its letters, so such a word is its first."""
    body = r"[\s-]+".join(map(re.escape, run))
    joined = "\n".join(texts)
    hits = len(re.findall(rf"\b{body}\b", joined, re.IGNORECASE))
    before = len(re.findall(rf"\b{re.escape(word)}\w*[\s-]+{body}\b", joined, re.IGNORECASE))
    return hits > 0 and before >= 0.6 * hits


def _joined(before: str, acronym: str, after: str) -> str:
    return " ".join(p for p in (before, acronym, after) if p)


def abbreviated(phrase: str, rows: set[int], corpus: Corpus) -> str:
    """The phrase as the group's papers (``rows``) write it: "Graphics processing units" becomes "GPUs"
    and "Magnetic resonance imaging" "MRI" when at least ``ABBREVIATE`` times as many of the papers
    write the acronym form, word for word (``WordIndex.share`` with ``literal``), as write the
    phrase; "Question answering" stays when "QA" is only a little more common. A phrase that is
    all but the first of an acronym's words ("aerial vehicles", of "unmanned aerial vehicles")
    takes the acronym where more of the papers write it than write the phrase. A plural stays
    plural ("GPUs") where the papers write the acronym's plural, at least as often as its singular."""
    index, stop = corpus.doc_index, corpus.stop
    texts = [corpus.texts[i] for i in sorted(rows)]
    best, best_share = phrase, index.share(index.words(phrase, stop), rows, literal=True)
    phrase_share = best_share
    joined = ""  # the papers' texts in one, joined when a plural first needs counting
    for before, acronym, after, plural, whole in _short_forms(phrase, corpus, texts[:400]):
        form = _joined(before, acronym, after)
        share = index.share(index.words(form, stop), rows, literal=True)
        if share >= (ABBREVIATE * phrase_share if whole else phrase_share) and share > best_share:
            best, best_share = form, share
            if plural:
                joined = joined or "\n".join(texts)
                plurals = len(re.findall(rf"\b{re.escape(acronym)}s\b", joined))
                if plurals and plurals >= len(re.findall(rf"\b{re.escape(acronym)}\b", joined)):
                    best = _joined(before, acronym + "s", after)
    return best


def written_share(phrase: str, rows: set[int], corpus: Corpus) -> float:
    """Share of the papers ``rows`` that write every content word of the phrase as such (acronym and
    words apart), as ``abbreviated`` would write it."""
    return corpus.doc_index.share(corpus.doc_index.words(abbreviated(phrase, rows, corpus), corpus.stop), rows,
                                  literal=True)


def capitalised(label: str) -> str:
    """First letter up, unless the first word is mixed case as written (vLLM, eBPF)."""
    first = label.split(" ")[0]
    return label if any(c.isupper() for c in first[1:]) else label[:1].upper() + label[1:]


# --- choosing ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
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


@dataclass(frozen=True)
class Named:
    label: str
    description: str
    support: float
    faithful: bool | None  # None when no embedder was given


class Corpus:
    """What naming needs of the papers, computed once and reused while themes are merged: the word
    indexes of texts and titles, each text's phrases, the embeddings of phrases already judged, and
    what was worked out for a group of papers named before (``memo``: its candidates, how its label
    grows and is written, its acronym form, how many of its papers write a phrase, its description),
    which depends only on the group's papers: a merging
    round changes a few themes, and the others are not named again from scratch."""

    def __init__(self, texts: Sequence[str], titles: Sequence[str], stop: frozenset[str]) -> None:
        self.texts, self.titles, self.stop = texts, titles, stop
        self.doc_index = WordIndex(texts)
        self.title_index = WordIndex(titles, aliases=self.doc_index.aliases)
        self.phrases = [phrases(text, stop) for text in texts]
        self.vectors: dict[str, np.ndarray] = {}
        self.memo: dict[tuple, object] = {}

    def remembered(self, key: tuple, compute: Callable[[], object]):  # noqa: ANN201 - whatever compute returns
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def embed(self, embed: Embed, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.vectors]
        if missing:
            vectors = np.asarray(embed(missing), dtype=np.float32)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self.vectors.update(zip(missing, vectors))
        return np.stack([self.vectors[t] for t in texts])


def name_groups(
    texts: Sequence[str], titles: Sequence[str], groups: np.ndarray, ids: Sequence[int], centroids: np.ndarray,
    stop: frozenset[str], *, embed: Embed | None = None, order: Sequence[int] | None = None,
    taken: set[frozenset[str]] | None = None, pool: int = 30, corpus: Corpus | None = None, floor: float = 0.0,
) -> dict[int, Named]:
    """Name each group in ``ids`` (``groups`` holds each paper's group, -1 for none).

    ``centroids`` are the groups' unit centroids (rows in ``ids`` order), against which faithfulness
    is checked when ``embed`` is given. Groups are named in ``order`` (default: largest first); each
    takes its best phrase that no earlier group took (``taken`` holds content-word sets already used
    elsewhere, e.g. by themes when naming areas). ``pool``: label candidates scored per group.
    ``corpus``: the same texts, titles and stop words, prepared once for several calls. ``floor``:
    a group takes a faithful phrase that at least this share of its papers write word for word
    (``written_share``: an acronym and its words apart, the phrase as ``abbreviated`` would write it)
    before one that fewer write, although this scores higher ("KV cache", written by 9.7 % of a
    long-context theme's papers, gives way to a phrase more of them write); the first such phrase
    whose label, as finally written (the acronym form may be refused), at least this share write.
    When none is, the best phrase is taken as without a floor."""
    ids = [int(t) for t in ids]
    groups = np.asarray(groups)
    if corpus is not None and (corpus.stop != stop or (texts is not corpus.texts and list(texts) != list(corpus.texts))):
        raise ValueError("name_groups: the corpus was prepared for other texts or stop words")  # its memo would lie
    corpus = corpus if corpus is not None else Corpus(texts, titles, stop)
    doc_index = corpus.doc_index
    members = {t: np.flatnonzero(groups == t) for t in ids}
    group = {t: hashlib.blake2b(members[t].astype(np.int64).tobytes(), digest_size=16).digest() for t in ids}
    order = list(order) if order is not None else sorted(ids, key=lambda t: (-len(members[t]), t))
    candidates = {t: corpus.remembered(("candidates", group[t]), lambda t=t: _candidates(members[t], corpus))
                  for t in ids}
    multiword = {t: [c for c in candidates[t] if len(c.phrase.split()) >= MIN_WORDS][:pool] for t in ids}
    verdict: dict[str, int] = {}
    if embed is not None and len(ids) > 1:
        pending = sorted({c.phrase for t in ids for c in multiword[t]})
        if pending:
            vectors = corpus.embed(embed, pending)
            nearest = np.asarray(ids)[(vectors @ np.asarray(centroids).T).argmax(axis=1)]
            verdict = dict(zip(pending, nearest.tolist()))
    same = doc_index.expand  # "MoE serving" and "Mixture-of-experts serving" are one label
    taken = {same(words) for words in taken or ()}
    out: dict[int, Named] = {}
    for t in order:
        sample = [texts[i] for i in members[t][:400]]
        usable = [c for c in multiword[t] if same(c.words) not in taken]
        rows = set(members[t].tolist())
        def written_by(phrase: str) -> float:  # noqa: E306 - the share of this group's papers writing it
            return corpus.remembered(("written share", group[t], phrase.lower()),
                                     lambda: written_share(phrase.lower(), rows, corpus))

        nearest_own = [c for c in usable if verdict.get(c.phrase, t) == t]
        # a phrase that enough of the papers write, as it would be written, first
        promoted = [c for c in nearest_own if written_by(c.phrase) >= floor] if floor > 0 else []
        ranked = promoted + nearest_own + usable
        if not ranked:
            words = []  # the two strongest single phrases whose words together no other label has
            for c in candidates[t]:
                if len(words) < 2 and same(frozenset().union(c.words, *(w.words for w in words))) not in taken:
                    words.append(c)
            label = " / ".join(written_case(c.phrase, sample) for c in words) or f"Theme {t}"
            key = frozenset().union(*(c.words for c in words)) if words else frozenset({label})
            taken.add(same(key))
            fits = support(key, [doc_index.sets[i] for i in members[t]]) if words else 0.0
            out[t] = Named(capitalised(label), _description(candidates[t], None, sample, expand=same, stop=stop), fits, None)
            continue
        group_docs = [doc_index.sets[i] for i in members[t]]

        def write(chosen: Candidate) -> tuple[str, frozenset[str], str, frozenset[str] | None]:  # noqa: E306
            """The chosen phrase grown, its words, the label as written, and the acronym form's words
            when it is written in the acronym's place (else None); ``taken`` is left as it is."""
            grown = corpus.remembered(("extend", group[t], chosen.phrase), lambda: extend(chosen.phrase, sample, stop))
            grown_words = doc_index.words(grown, stop)
            if grown != chosen.phrase and (same(grown_words) in taken
                                           or support(grown_words, group_docs) < 0.85 * chosen.support
                                           or floor > 0 and written_by(grown) < floor <= written_by(chosen.phrase)):
                grown, grown_words = chosen.phrase, chosen.words
            written = corpus.remembered(("written", group[t], grown), lambda: written_case(grown, sample))
            short = corpus.remembered(("abbreviated", group[t], written), lambda: abbreviated(written, rows, corpus))
            # the acronym form where it names this theme nearest ("GPUs" beside "GPU clusters"), or where
            # the words do not either, and no other label says it
            short_words = same(doc_index.words(short, stop))
            if short != written and same(grown_words) not in taken and (
                    short_words == same(grown_words) or short_words not in taken) and (
                    not verdict or _nearest(corpus, embed, capitalised(short), centroids, ids) == t
                    or _nearest(corpus, embed, capitalised(written), centroids, ids) != t):
                return grown, grown_words, short, short_words
            return grown, grown_words, written, None

        for chosen in promoted or ranked[:1]:  # the first whose label, as written, enough papers write
            grown, grown_words, written, short_words = write(chosen)
            if not promoted or doc_index.share(doc_index.words(written, stop), rows, literal=True) >= floor:
                break
        else:  # none is written so: the best phrase, as before the floor
            chosen = ranked[0]
            grown, grown_words, written, short_words = write(chosen)
        taken.add(same(grown_words))
        if short_words is not None:
            taken.add(short_words)  # "Aerial vehicles" as "UAVs" says what a "UAV" label would
        faithful = None if not verdict else verdict.get(chosen.phrase) == t
        written_words = doc_index.words(written, stop)
        said = grown_words | written_words  # the label's words as chosen and as written
        description = corpus.remembered(("description", group[t], chosen.phrase, grown, written),
                                        lambda: _description(candidates[t], chosen, sample, written, same, said, stop))
        out[t] = Named(capitalised(written), description, support(written_words, group_docs), faithful)
    return out


def _nearest(corpus: Corpus, embed: Embed, phrase: str, centroids: np.ndarray, ids: Sequence[int]) -> int:
    """The id of the centroid nearest the embedded phrase."""
    return int(np.asarray(ids)[int((corpus.embed(embed, [phrase]) @ np.asarray(centroids).T).argmax())])


def _candidates(rows: np.ndarray, corpus: Corpus, limit: int = 200) -> list[Candidate]:
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
    seen: set[frozenset[str]] = set()
    out = []
    inside_rows = set(rows.tolist())
    for phrase, n in found[:limit]:
        words = doc_index.words(phrase, stop)
        if not words or words in seen:
            continue
        seen.add(words)
        having = doc_index.having(words)
        inside = len(having & inside_rows)
        out.append(Candidate(
            phrase=phrase, words=words, support=inside / len(rows),
            title_support=len(title_index.having(words) & inside_rows) / len(rows),
            written=n / len(rows), precision=inside / (len(having) + PRIOR),
        ))
    out.sort(key=lambda c: (-c.score, c.phrase))
    return out


def _as_words(form: str) -> tuple[str, ...]:
    """A phrase as written, read as its words (``word_of``), hyphens as spaces: "GPUs" and "GPU",
    "Long-context" and "long context" read the same."""
    return tuple(word_of(t) for part in form.split("-") for t in TOKEN_RE.findall(part))


def _of_phrase(word: str, sample: Sequence[str], stop: frozenset[str] = frozenset()) -> str | None:
    """The "X of Y" phrase that the ``sample`` writes a word in, as written ("Things": "Internet of
    Things", "quality": "quality of service"), or None: the same word stands on the other side of
    "of" in at least 60 % of the word's places, and that other word is written in the phrase in at
    least 60 % of its own places too (so "thousands of GPUs" and "terms of latency" are not
    phrases of GPUs or latency: "thousands" and "terms" go with anything); it is not a ``stop``
    word ("most of", "use of"). A stop word breaks phrases, so such a phrase reaches a description
    as two words that say nothing alone."""
    joined = "\n".join(sample)

    def places(token: str) -> int:
        return len(re.findall(r"\b" + re.escape(token) + r"\b", joined, re.IGNORECASE))

    hits = places(word)
    if not hits:
        return None
    body = re.escape(word)
    options = []
    for pattern, order in ((r"\b([A-Za-z][\w-]*) of " + body + r"\b", -1), (r"\b" + body + r" of ([A-Za-z][\w-]*)", 1)):
        found = Counter(w.lower() for w in re.findall(pattern, joined, re.IGNORECASE))
        by_word = Counter()
        for other, n in found.items():
            by_word[singular(other)] += n
        for other, n in by_word.most_common(1):
            spellings = [w for w in found if singular(w) == other]
            spelled = max(spellings, key=lambda w: found[w])  # "things" or "thing", as most write it
            if other in stop or spelled in stop or other == "the" or n < 0.6 * hits:
                continue
            if n >= 0.6 * sum(places(w) for w in spellings):
                options.append((n, other, order, spelled))
    if not options:
        return None
    _, _, order, spelled = max(options)
    phrase = f"{spelled} of {word}" if order < 0 else f"{word} of {spelled}"
    return written_case(phrase.lower(), sample)  # as most of the sample writes it


def _description(candidates: list[Candidate], label: Candidate | None, sample: Sequence[str], written: str = "",
                 expand: Callable[[frozenset[str]], frozenset[str]] = lambda words: words,
                 label_words: frozenset[str] = frozenset(), stop: frozenset[str] = frozenset()) -> str:
    """The label (as written) and the strongest further phrases that are not part of it and not
    part of each other, joined by " · " ("MoE serving · expert parallelism · all-to-all"). ``expand``
    gives a phrase's words with its acronyms spelled out both ways (``WordIndex.expand``), so that
    "FL" or "mixture" is not listed beside "Federated learning" or "MoE inference"; ``label_words``:
    the content words of the label as grown ("personalized federated" grown to "personalized
    federated learning" says FL too). A hyphenated word says its parts ("resolution" is not listed
    beside "high-resolution"; "lock-free" does not say "locks", ``_said_parts``), and a word the
    papers write in an "X of Y" phrase is listed as that phrase (``_of_phrase``: "Internet of
    Things", not "Internet" and "Things")."""
    chosen = [label] if label is not None else []
    # the label's words, hyphenated ones in parts too ("Edge-cloud continuum" says edge and cloud)
    words = [expand(label.words | label_words | _parts_of(label.words | label_words))] if label is not None else []
    says = list(words)  # what each listed phrase says, hyphenated words in parts too
    shown = [written or written_case(label.phrase, sample)] if label is not None else []
    for c in sorted(candidates, key=lambda c: (-c.support * c.precision, c.phrase)):
        if len(chosen) >= DESCRIPTION_PHRASES:
            break
        mine = expand(c.words)
        # a phrase a listed one says, its hyphenated words' parts included ("resolution" beside
        # "high-resolution"), or one that says all a listed one does, is not listed
        if any(mine <= o for o in says) or any(o <= mine for o in words) or (label is not None and label.words <= c.words):
            continue
        form = written_case(c.phrase, sample)
        whole = _of_phrase(form, sample, stop) if len(c.words) == 1 and " " not in form else None
        if whole is not None:  # "Internet of Things", not "Internet" and later "Things"
            form, mine = whole, mine | expand(frozenset(w for w in _as_words(whole) if w != "of"))
            if any(mine <= o for o in says) or any(o <= mine for o in words):
                continue
        if any(_as_words(form) == _as_words(f) for f in shown):  # "GPUs" beside "GPU", "long context" beside "long-context"
            continue
        chosen.append(c)
        words.append(mine)
        says.append(mine | expand(_parts_of(mine)))
        shown.append(form)
    return " · ".join(shown)
