"""Words and which papers write them: how a token is read, which acronyms the papers define, and
the index that answers "which texts contain every one of these words".

A word is counted as the papers mean it rather than as spelled: singular ("vehicles" is "vehicle"),
an acronym's plural as the acronym ("GPUs" is "GPU"), a hyphenated word as itself and its parts
("KV-cache" writes "KV cache"; "lock-free" does not write "lock"), and an acronym the papers define
as the words it stands for ("MoE" is "mixture-of-experts"). Naming (``candidates.py``, ``label.py``),
the keyword vocabulary (``vocabulary.py``) and the label measures (``metrics.py``) all count words
here, so that a label and its support agree on what a word is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

# a word of 2+ characters, or a letter joined by a hyphen ("X-ray", "k-means", "t-SNE": not "ray")
TOKEN = r"(?u)\b[a-zA-Z](?:[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*|(?:-[a-zA-Z0-9]+)+)\b"
TOKEN_RE = re.compile(TOKEN)
# n-grams never span these: "generation (RAG)" gives no "generation rag", ". Next" no cross-sentence pair
SEGMENT = re.compile(r"[.,;:!?()\[\]{}\"“”‘’]+|\s[-–—]+\s")


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


def definitions(text: str) -> list[tuple[str, str]]:
    """The acronyms a text defines, each with the words it stands for as written, hyphens kept
    ("Mixture-of-Experts (MoE)": ("MoE", "Mixture-of-Experts")): an acronym of two or more capitals
    in brackets right after words whose initials, hyphenated parts included, spell it; every word
    must be a word of the index ("k nearest neighbours (KNN)": "k" is not)."""
    out = []
    for m in DEFINED.finditer(text):
        words = BEFORE.search(text, max(0, m.start() - 160), m.start())
        if words is None:
            continue
        acronym, before = m.group(1), re.sub(r"[\s-]+$", "", words.group(0))  # "... line - - (X)"
        parts = re.split(r"[\s-]+", before)
        key = acronym.lower()
        for k in range(min(len(key), len(parts)), 0, -1):  # the run of words ending at the bracket that spells it
            if "".join(p[0] for p in parts[-k:]).lower() == key:
                phrase = "".join(re.split(r"([\s-]+)", before)[-(2 * k - 1):])
                if len(TOKEN_RE.findall(phrase.lower())) == len(phrase.split()):
                    out.append((acronym, phrase))
                break
    return out


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
        for acronym, phrase in {(a, p.lower()) for a, p in definitions(text)}:  # a text counts once for each
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


def parts_of(words: frozenset[str]) -> frozenset[str]:
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
        self.written_as: dict[str, set[int]] = {}  # acronym -> the texts that write it, capitals and all
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
            self.written_as[acronym] = as_written.get(acronym, set()) | as_written.get(acronym + "s", set())
            found.append((key, forms, self.written_as[acronym].union(*(self.having(form) for form in forms))))
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

    def distinct(self, phrases: Iterable[str], stop: frozenset[str]) -> Iterator[tuple[str, frozenset[str], set[int]]]:
        """Each of ``phrases`` whose content words no earlier one had (and that has some), with those
        words and the texts containing them all."""
        seen: set[frozenset[str]] = set()
        for phrase in phrases:
            words = self.words(phrase, stop)
            if words and words not in seen:
                seen.add(words)
                yield phrase, words, self.having(words)

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


Embed = Callable[[list[str]], np.ndarray]  # texts -> one unit vector per text


class LabelCorpus:
    """What naming needs of the papers, computed once and reused while themes are merged: the word
    indexes of texts and titles, each text's phrases, the embeddings of phrases already judged, and
    what was worked out for a group of papers named before (``memo``: its candidates, how its label
    grows and is written, its acronym form, how many of its papers write a phrase, its description),
    which depends only on the group's papers: a merging round changes a few themes, and the others
    are not named again from scratch."""

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


# --- how papers write a phrase ---------------------------------------------------------------------
def _pattern(phrase: str) -> str:
    return r"\b" + r"[\s-]+".join(map(re.escape, phrase.split())) + r"\b"


def surface_form(phrase: str, texts: Sequence[str]) -> str:
    """The phrase as most papers write it ("MoE serving", not "moe serving")."""
    pattern = re.compile(_pattern(phrase), re.IGNORECASE)
    forms = Counter(" ".join(m.group(0).split()) for text in texts for m in pattern.finditer(text))
    return forms.most_common(1)[0][0] if forms else phrase


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
