"""Theme names in the papers' own words: the label as written, and the description line.

``name_groups`` names each group of papers: it picks a phrase for each (``candidates.py``: coverage,
distinctiveness, faithfulness, one label per group, the floor) and writes it as most of the group's
papers write it ("MoE serving", "KV cache", "FPGA accelerators", ``written_case``), an acronym in
place of its words where clearly more of the papers write it ("Graphics processing units" -> "GPUs",
``abbreviated``). Each group also gets a description line of its strongest phrases ("MoE serving ·
expert parallelism · all-to-all", ``description``).

The same functions name areas (groups of themes): the groups are then the areas, and their centroids
the areas' centroids.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from pipeline.progress import progress
from pipeline.topics.naming.candidates import (
    MIN_WORDS,
    Candidate,
    Group,
    Round,
    candidates_of,
    grown,
    nearest_group,
    pick,
    pooled,
    preferred,
    unclaimed,
    verdicts,
)
from pipeline.topics.naming.complement import complement
from pipeline.topics.naming.words import (TOKEN_RE, LabelCorpus, Embed, content_words, definitions, parts_of, singular, support,
                                   word_of, written_case)

DESCRIPTION_PHRASES = 4


@dataclass(frozen=True)
class Named:
    label: str
    description: str
    support: float
    faithful: bool | None  # None when no embedder was given
    chosen: bool = True  # False where no candidate was left: the label joins its strongest phrases (``_unnamed``)
    complement: str = ""  # the phrase shown beside a label part of the group writes (``complement.py``)


Accept = Callable[[int, list[Candidate], LabelCorpus, Embed | None], list[Candidate]]


def name_groups(
    texts: Sequence[str], titles: Sequence[str], groups: np.ndarray, ids: Sequence[int], centroids: np.ndarray,
    stop: frozenset[str], *, embed: Embed | None = None, order: Sequence[int] | None = None,
    taken: set[frozenset[str]] | None = None, corpus: LabelCorpus | None = None, floor: float = 0.0,
    accept: Accept | None = None, min_words: int = MIN_WORDS,
) -> dict[int, Named]:
    """Name each group in ``ids`` (``groups`` holds each paper's group, -1 for none).

    ``centroids`` are the groups' unit centroids (rows in ``ids`` order), against which faithfulness
    is checked when ``embed`` is given. Groups are named in ``order`` (default: largest first); each
    takes its best phrase that no earlier group took (``taken`` holds content-word sets already used
    elsewhere, e.g. by themes when naming areas). ``corpus``: the same texts, titles and stop words,
    prepared once for several calls. ``floor``: a group takes a faithful phrase that at least this
    share of its papers write word for word (``written_share``: an acronym and its words apart, the
    phrase as ``abbreviated`` would write it) before one that fewer write, although this scores
    higher; the first such phrase whose label, as finally written (the acronym form may be refused),
    at least this share write. When none is, the best phrase is taken as without a floor.
    ``accept(group, candidates, corpus, embed)``: the candidates a group may be named by (an area:
    the phrases its themes share, ``names.Shared``); the description is still of all of them.
    ``min_words``: the fewest words a label may have (an area may be named by one acronym: "HPC")."""
    ids = [int(t) for t in ids]
    groups = np.asarray(groups)
    if corpus is not None and (corpus.stop != stop or (texts is not corpus.texts and list(texts) != list(corpus.texts))):
        raise ValueError("name_groups: the corpus was prepared for other texts or stop words")  # its memo would lie
    corpus = corpus if corpus is not None else LabelCorpus(texts, titles, stop)
    members = {t: np.flatnonzero(groups == t) for t in ids}
    keys = {t: hashlib.blake2b(members[t].astype(np.int64).tobytes(), digest_size=16).digest() for t in ids}
    order = list(order) if order is not None else sorted(ids, key=lambda t: (-len(members[t]), t))
    found = {t: corpus.remembered(("candidates", keys[t]), lambda t=t: candidates_of(members[t], corpus)) for t in ids}
    pools = {t: pooled(accept(t, found[t], corpus, embed) if accept else found[t], min_words) for t in ids}
    same = corpus.doc_index.expand
    rnd = Round(corpus, ids, centroids, embed, verdicts(pools, ids, centroids, corpus, embed),
                {same(words) for words in taken or ()}, floor)
    out: dict[int, Named] = {}
    for t in progress(order, desc="naming", unit="theme"):
        group = Group(t, keys[t], members[t], set(members[t].tolist()), [texts[i] for i in members[t][:400]],
                      [corpus.doc_index.sets[i] for i in members[t]])
        written_by = partial(_written_by, group=group, corpus=corpus)
        promoted, ranked = preferred(pools[t], group, rnd, written_by)
        out[t] = _named(group, found[t], promoted, ranked, rnd, written_by) if ranked else _unnamed(group, found[t], rnd)
    return out


@dataclass(frozen=True)
class _Written:
    phrase: str  # the chosen phrase, grown
    words: frozenset[str]  # its content words
    label: str  # as written: in the papers' case, or the acronym form
    short_words: frozenset[str] | None  # the acronym form's words (``Round.same``) where it is written


def _named(group: Group, candidates: list[Candidate], promoted: list[Candidate], ranked: list[Candidate],
           rnd: Round, written_by: Callable[[str], float]) -> Named:
    """The group named by its chosen phrase as written (``pick``), whose words, and those of its
    acronym form where it is written, are then taken."""
    chosen, written = pick(promoted, ranked, partial(_write, group=group, rnd=rnd, written_by=written_by),
                           partial(_written_enough, group=group, rnd=rnd))
    rnd.taken.add(rnd.same(written.words))
    if written.short_words is not None:
        rnd.taken.add(written.short_words)  # "Aerial vehicles" as "UAVs" says what a "UAV" label would
    faithful = None if not rnd.verdict else rnd.verdict.get(chosen.phrase) == group.id
    stop = rnd.corpus.stop
    label_words = rnd.corpus.doc_index.words(written.label, stop)
    said = written.words | label_words  # the label's words as chosen and as written
    line = rnd.corpus.remembered(
        ("description", group.key, chosen.phrase, written.phrase, written.label),
        lambda: spelled(description(candidates, chosen, group.sample, written.label, rnd.same, said, stop),
                        written.label, rnd.corpus, group.sample))
    beside = rnd.corpus.remembered(("complement", group.key, written.label),
                                   lambda: complement(written.label, group.members, candidates, rnd.corpus, group.sample))
    return Named(capitalised(written.label), line, support(label_words, group.docs), faithful, complement=beside)


def _unnamed(group: Group, candidates: list[Candidate], rnd: Round) -> Named:
    """A group with no label candidate left, named by its two strongest phrases that together no
    other label says ("A / B", ``unclaimed``), or "Theme <id>" where it has none."""
    words = unclaimed(candidates, rnd)
    label = " / ".join(written_case(c.phrase, group.sample) for c in words) or f"Theme {group.id}"
    key = frozenset().union(*(c.words for c in words)) if words else frozenset({label})
    rnd.taken.add(rnd.same(key))
    fits = support(key, group.docs) if words else 0.0
    return Named(capitalised(label), description(candidates, None, group.sample, expand=rnd.same, stop=rnd.corpus.stop),
                 fits, None, chosen=False)


def _write(chosen: Candidate, group: Group, rnd: Round, written_by: Callable[[str], float]) -> _Written:
    """The chosen phrase grown (``grown``), its words, and the label as written: its acronym form
    (``abbreviated``) where that names this group nearest ("GPUs" beside "GPU clusters"), or where
    the words do not either, and no other label says it; else as the papers write it. ``taken`` is
    left as it is."""
    corpus, stop = rnd.corpus, rnd.corpus.stop
    phrase, words = grown(chosen, group, rnd, written_by)
    written = corpus.remembered(("written", group.key, phrase), lambda: written_case(phrase, group.sample))
    short = corpus.remembered(("abbreviated", group.key, written), lambda: abbreviated(written, group.rows, corpus))
    short_words = rnd.same(corpus.doc_index.words(short, stop))
    if short != written and rnd.same(words) not in rnd.taken and (
            short_words == rnd.same(words) or short_words not in rnd.taken) and (
            not rnd.verdict or nearest_group(corpus, rnd.embed, capitalised(short), rnd.centroids, rnd.ids) == group.id
            or nearest_group(corpus, rnd.embed, capitalised(written), rnd.centroids, rnd.ids) != group.id):
        return _Written(phrase, words, short, short_words)
    return _Written(phrase, words, written, None)


def _written_enough(written: _Written, group: Group, rnd: Round) -> bool:
    """Whether at least the floor's share of the group's papers write the label as written, word for word."""
    index = rnd.corpus.doc_index
    return index.share(index.words(written.label, rnd.corpus.stop), group.rows, literal=True) >= rnd.floor


def _written_by(phrase: str, group: Group, corpus: LabelCorpus) -> float:
    """The share of the group's papers that write the phrase as it would be written (``written_share``)."""
    return corpus.remembered(("written share", group.key, phrase.lower()),
                             lambda: written_share(phrase.lower(), group.rows, corpus))


# --- the acronym form ------------------------------------------------------------------------------
ABBREVIATE = 1.25  # an acronym replaces its words in a label when this many times as many papers write it


def _short_forms(phrase: str, corpus: LabelCorpus, texts: Sequence[str]) -> list[tuple[str, str, str, bool, bool]]:
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


def abbreviated(phrase: str, rows: set[int], corpus: LabelCorpus) -> str:
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


def written_share(phrase: str, rows: set[int], corpus: LabelCorpus) -> float:
    """Share of the papers ``rows`` that write every content word of the phrase as such (acronym and
    words apart), as ``abbreviated`` would write it."""
    return corpus.doc_index.share(corpus.doc_index.words(abbreviated(phrase, rows, corpus), corpus.stop), rows,
                                  literal=True)


def capitalised(label: str) -> str:
    """First letter up, unless the first word is mixed case as written (vLLM, eBPF)."""
    first = label.split(" ")[0]
    return label if any(c.isupper() for c in first[1:]) else label[:1].upper() + label[1:]



# --- the description -----------------------------------------------------------------------------
def _as_words(form: str) -> tuple[str, ...]:
    """A phrase as written, read as its words (``word_of``), hyphens as spaces: "GPUs" and "GPU",
    "Long-context" and "long context" read the same."""
    return tuple(word_of(t) for part in form.split("-") for t in TOKEN_RE.findall(part))


def of_phrase(word: str, sample: Sequence[str], stop: frozenset[str] = frozenset()) -> str | None:
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


def description(candidates: list[Candidate], label: Candidate | None, sample: Sequence[str], written: str = "",
                expand: Callable[[frozenset[str]], frozenset[str]] = lambda words: words,
                label_words: frozenset[str] = frozenset(), stop: frozenset[str] = frozenset()) -> str:
    """The label (as written) and the strongest further phrases that are not part of it and not
    part of each other, joined by " · " ("MoE serving · expert parallelism · all-to-all"). ``expand``
    gives a phrase's words with its acronyms spelled out both ways (``WordIndex.expand``), so that
    "FL" or "mixture" is not listed beside "Federated learning" or "MoE inference"; ``label_words``:
    the content words of the label as grown ("personalized federated" grown to "personalized
    federated learning" says FL too). A hyphenated word says its parts ("resolution" is not listed
    beside "high-resolution"; "lock-free" does not say "locks", ``parts_of``), and a word the
    papers write in an "X of Y" phrase is listed as that phrase (``of_phrase``: "Internet of
    Things", not "Internet" and "Things")."""
    chosen = [label] if label is not None else []
    # the label's words, hyphenated ones in parts too ("Edge-cloud continuum" says edge and cloud)
    words = [expand(label.words | label_words | parts_of(label.words | label_words))] if label is not None else []
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
        whole = of_phrase(form, sample, stop) if len(c.words) == 1 and " " not in form else None
        if whole is not None:  # "Internet of Things", not "Internet" and later "Things"
            form, mine = whole, mine | expand(frozenset(w for w in _as_words(whole) if w != "of"))
            if any(mine <= o for o in says) or any(o <= mine for o in words):
                continue
        if any(_as_words(form) == _as_words(f) for f in shown):  # "GPUs" beside "GPU", "long context" beside "long-context"
            continue
        chosen.append(c)
        words.append(mine)
        says.append(mine | expand(parts_of(mine)))
        shown.append(form)
    return " · ".join(shown)


KNOWN_SHARE = 0.05  # an acronym written by at least this share of all the papers is the field's own word


def spelled(line: str, label: str, corpus: LabelCorpus, sample: Sequence[str]) -> str:
    """The description ``line`` with the words that an acronym of the ``label`` stands for, as the
    papers write them, second ("MLLM inference · multimodal large language models · ..."), where
    the papers define the acronym and fewer than ``KNOWN_SHARE`` of all of them write it, capitals
    and all ("RAN", not "ran"): a reader of the field knows "LLM" or "GPU", not every acronym a few
    papers use. An acronym in a hyphenated word counts ("MoE-based"). A listed phrase those words
    say is dropped; a line that says them already is left as it is."""
    if not line:
        return line
    index, stop = corpus.doc_index, corpus.stop
    phrases = line.split(" · ")
    for token in {part for t in TOKEN_RE.findall(label) for part in (t, *t.split("-"))}:
        acronym = token[:-1] if token not in index.aliases and token.endswith("s") else token
        if acronym not in index.aliases or len(index.written_as[acronym]) >= KNOWN_SHARE * len(corpus.texts):
            continue
        forms = Counter(p.lower() for text in sample for a, p in definitions(text) if a == acronym)
        if not forms:
            continue
        spelt = _mid_sentence_case(written_case(forms.most_common(1)[0][0], sample), sample)
        whole = content_words(spelt, stop)
        if any(whole <= content_words(p, stop) for p in phrases):
            continue
        says = whole | content_words(spelt.replace("-", " "), stop)  # "mixture-of-experts" says "experts"
        rest = [p for p in phrases[1:] if not content_words(p, stop) <= says]
        phrases = [phrases[0], spelt, *rest][:DESCRIPTION_PHRASES]
    return " · ".join(phrases)


def _mid_sentence_case(phrase: str, sample: Sequence[str]) -> str:
    """The phrase with its first word lowered where the papers capitalise it only at the start of a
    sentence, as a definition often stands ("Unmanned aerial vehicles (UAVs) are ..."): kept where
    they capitalise it mid-sentence too (a name: "Gaussian", "Internet")."""
    first = phrase.split(" ")[0]
    if not (first[:1].isupper() and first[1:].islower()):
        return phrase
    mid = re.findall(r"[a-z0-9,;:] (" + re.escape(first) + r")\b", "\n".join(sample), re.IGNORECASE)
    return phrase if any(m[:1].isupper() for m in mid) else phrase[:1].lower() + phrase[1:]
