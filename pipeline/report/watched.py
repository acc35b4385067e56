"""Watched themes: subjects the user names in the configuration, each by a name and a sentence
(``[report.watch]``: ``"KV cache" = "compressing the key-value cache of large language models"``),
matched to every paper without any training, whatever the clustering made of the subject.

A paper is on a watched theme when its cosine to the sentence's embedding (same model as the themes)
is at least ``watch_floor`` (nothing matches when nothing is close), it writes the definition's
qualifier where the definition qualifies the name ("… cache *of large language models*": the paper
must also write "language model" or "LLM"), and

- **by its name**: it writes the name or one of its usual variants as a phrase ("KV cache",
  "KV-caches", "key-value (KV) cache"; "agent memory", "memory for LLM-based agents",
  "memory-augmented agents") in its title, or in its abstract (twice, or once where the title writes
  a word of the name: a passing mention is not the paper's subject) at ``watch_z_name`` or further
  out in the store's tail of cosines to the sentence (``z``: the paper's cosine minus the store's
  mean cosine to that sentence, over their standard deviation); or
- **close**, writing at least ``watch_named`` of the name's words: ``z >= watch_z_far``; or every word
  of the name and ``z >= watch_z``; or ``z >= watch_z_words`` and ``watch_share`` of the sentence's
  content words.

A paper close to two watched themes is listed under the one it lies furthest out in the tail of
(the highest ``z``), and under another only where it is on that one by its name: a paper is on two
themes only when it is on both.

The text half of the decision (the name, the qualifier, the sentence's words) depends only on a
paper's title and abstract and on the watched theme, and the cosine on them and the embedding model:
``TextCache`` keeps both per paper, so a week's report reads the text, and loads the vectors, of its
new papers only. The thresholds were chosen on the tune halves of two
hand-labelled sets (``benchmarks/watched/``) and measured on the other halves
(``docs/decisions/watched-matching.md``).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.schemas import text_hash

STOP = frozenset("a an and as among across at by during for from in into of on or such that the their them "
                 "to up let lets using via with without which while many model models".split())  # words a sentence says about any subject
PREPOSITIONS = ("of", "for", "in", "on")  # "cache *of* large language models": a qualifier follows
BOUNDARY = frozenset("and or but that which while during by with without across from to at as when".split())
JOINERS = ("based", "augmented", "enhanced", "driven", "aware", "equipped")  # "memory-augmented agents"
GAP = 2  # words that may stand between a name's words ("diffusion large language models")
REVERSED_GAP = 3  # words between "memory for" and "agents" ("memory for LLM-based agents")
_WORD = re.compile(r"\w+|[.;:!?()\[\]]")  # words in any script, and the marks that end a clause
_MARK = "|"  # a clause's end, as the token stream writes it
_MARKS = frozenset(".;:!?()[]")  # what ends a clause in the text
log = logging.getLogger("pipeline.report")
VERSION = 5  # of the text rules and keys: cached text matches of another version are read again


def norm(word: str) -> str:
    """A word's form for matching: lower case, a plural's ending, an "-ing" and a final "e" cut, so that
    a word and its other forms meet ("caches", "caching" and "cache" -> "cach"; "memories" -> "memory")."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def _words(text: str) -> list[str]:
    """``text``'s words as written, and the marks that end a clause, without a one-word bracket (an
    acronym introduced after its words: "key-value (KV) cache")."""
    raw = [t for t in _WORD.findall(text) if t != "s"]
    out: list[str] = []
    i = 0
    while i < len(raw):
        if raw[i] == "(" and i + 2 < len(raw) and raw[i + 2] == ")" and raw[i + 1] not in _MARKS:
            i += 3
            continue
        out.append(raw[i])
        i += 1
    return out


def tokens(text: str) -> list[str]:
    """``text`` as matching reads it (``_words``): words in their ``norm`` forms, a clause's end as
    ``|`` (hyphens split words: "KV-cache" is "kv cache")."""
    return [_MARK if w in _MARKS else norm(w) for w in _words(text)]


def stems(text: str) -> list[str]:
    """The content words of ``text`` (a sentence), each cut to a stem that also finds its other forms
    ("offloading" -> "offload", "servers" -> "serv"); short words are kept whole."""
    return [w[:max(3, len(w) - 3)] for w in re.findall(r"\w+", text.lower()) if w not in STOP]


def _acronym_expansions(word: str, sentence: list[str]) -> list[list[str]]:
    """Runs of the sentence's words whose initials spell ``word`` ("kv" -> key value; "moe" ->
    mixture of experts)."""
    out = []
    n = len(word)
    for i in range(len(sentence) - n + 1):
        run = sentence[i:i + n]
        if _MARK not in run and "".join(w[0] for w in run) == word:
            out.append(run)
    return out


@dataclass(frozen=True)
class Theme:
    """One watched theme as matching reads it (``theme`` makes it from the user's name and sentence)."""

    name: str
    sentence: str
    forms: tuple[tuple[str, ...], ...]  # the name's words (and each of ``also``'s), each acronym's expansion in its place
    qualifiers: tuple[tuple[str, ...], ...]  # any one of these written: the definition's qualifier (none: no qualifier)
    words: tuple[str, ...]  # the sentence's content stems
    also: tuple[str, ...] = ()  # other names the user gave it (``[report.watch_also]``), read as the name is
    heads: frozenset[str] = frozenset()  # the content words of its forms, as ``norm`` writes them (a title's word is one)

    @property
    def key(self) -> str:
        """What the cached text matches of this theme are kept under (name, other names, sentence, rules'
        version)."""
        names = "\0".join((self.name, *self.also))
        return hashlib.sha1(f"{VERSION}\0{','.join(FIELDS)}\0{names}\0{self.sentence}".encode()).hexdigest()[:16]


def is_acronym(word: str) -> bool:
    return len(word) >= 2 and sum(c.isupper() for c in word) >= 2  # KV, MoE, LLM, GPUs


def theme(name: str, sentence: str, also: tuple[str, ...] | list[str] = ()) -> Theme:
    """The variants of ``name`` and of each of its other names ``also``, the qualifier of ``sentence``
    and its content words."""
    said = tokens(sentence)
    forms: list[tuple[str, ...]] = []
    main = 0  # the forms of the name itself: what the sentence's qualifier is read against
    for k, each in enumerate((name, *also)):
        raw = re.findall(r"\w+", each)
        words = [norm(w) for w in raw]
        forms.append(tuple(words))
        for i, (w, r) in enumerate(zip(words, raw)):
            if is_acronym(r):
                for run in _acronym_expansions(w, said):
                    forms.append(tuple(words[:i] + run + words[i + 1:]))
        if k == 0:
            main = len(forms)
    own = [f for f in forms[:main] if f]
    forms = [f for f in forms if f]
    return Theme(name, sentence, tuple(dict.fromkeys(forms)), _qualifiers(own, said, _words(sentence)),
                 tuple(stems(sentence)), tuple(also), frozenset(w for form in forms for w in form if w not in STOP))


def _qualifiers(forms: list[tuple[str, ...]], said: list[str], said_raw: list[str]) -> tuple[tuple[str, ...], ...]:
    """What the sentence (``said``: its ``tokens``; ``said_raw``: the same ``_words`` as written) says the name is of: the words after "of/for/in/on" right after one of the
    name's words ("the key-value cache *of large language models* during inference"), up to a
    clause's end or a word like "during"; written as those words, their last two, or their acronym."""
    name_words = {w for form in forms for w in form}
    inside = {form[j:j + 2] for form in forms for j in range(len(form) - 1)}  # "mixture of": the name's own
    out: list[tuple[str, ...]] = []
    for i in range(len(said) - 2):
        if said[i] in name_words and said[i + 1] in PREPOSITIONS and tuple(said[i:i + 2]) not in inside:
            group = []
            for word in said_raw[i + 2:]:
                w = norm(word)
                if w == _MARK or w in BOUNDARY or w in PREPOSITIONS or word.lower().endswith("ing") or len(group) == 3:
                    break  # a qualifier is a short noun group: "large language models", not what follows
                if w not in ("the", "a", "an", "their", "its") and w not in JOINERS:
                    group.append(w)
            group = [w for w in group if w not in name_words]
            if group:
                out += [tuple(group), tuple(group[-2:])]
                if len(group) >= 3:
                    out.append(("".join(w[0] for w in group),))
    return tuple(dict.fromkeys(out))


class Doc:
    """One paper's ``tokens`` with where each word stands, so that a phrase is looked for only where its
    first word is."""

    def __init__(self, text: str) -> None:
        title, _, abstract = text.partition("\n") if "\n" in text else ("", "", text)  # the title on the first line
        head = tokens(title)
        self.title_ends = len(head)
        self.words = head + [_MARK] + tokens(abstract)
        self.at: dict[str, list[int]] = {}
        for i, w in enumerate(self.words):
            self.at.setdefault(w, []).append(i)
        self.prefixes = {w[:k] for w in self.at for k in range(1, len(w) + 1)}

    def has_stem(self, stem: str) -> bool:
        """Whether a word of the paper begins with ``stem``."""
        return stem in self.prefixes


def _follows(seq: tuple[str, ...], words: list[str], start: int, gap: int) -> int | None:
    """Where ``seq[1:]`` ends when written after ``words[start] == seq[0]``, at most ``gap`` words
    between two of its words, none of them a clause's end or after a conjunction ("diffusion models
    and language models" is not "diffusion language models"); None when it is not."""
    at = start
    for want in seq[1:]:
        for step in range(1, gap + 2):
            j = at + step
            if j >= len(words) or words[j] == _MARK or (step > 1 and words[j - 1] in BOUNDARY):
                return None
            if words[j] == want:
                at = j
                break
        else:
            return None
    return at


def _written(form: tuple[str, ...], doc: Doc) -> list[int]:
    """The places ``form`` is written in ``doc``: in order (a few words may stand between its words),
    as one word ("kvcache"), or turned round (``_turned``)."""
    places = [i for i in doc.at.get(form[0], []) if _follows(form, doc.words, i, GAP) is not None]
    if len(form) == 2:
        places += doc.at.get(form[0] + form[1], [])
    return places + _turned(form, doc)


def _turned(form: tuple[str, ...], doc: Doc) -> list[int]:
    """The name turned round: its head, a preposition or a joiner, then its modifier ("memory for
    LLM-based agents", "memory-augmented agents" for "agent memory"); or a head ending in "-ing" with
    its object after it ("serving MoE models", "offloading tasks to edge servers")."""
    if len(form) < 2:
        return []
    links = PREPOSITIONS + ("to",) + JOINERS
    words = doc.words
    out = []
    for cut in range(1, len(form)):
        modifier, head = form[:cut], form[cut:]
        for i in doc.at.get(head[0], []):
            if tuple(words[i:i + len(head)]) != head:
                continue
            after = words[i + len(head):i + len(head) + 4 + REVERSED_GAP + len(modifier)]
            if _MARK in after:
                after = after[:after.index(_MARK)]
            spots = [j for j in (0, 1) if j < len(after) and after[j] in links]
            if spots:
                rest = after[spots[0] + 1:spots[0] + 2 + REVERSED_GAP + len(modifier)]
            elif head[-1].endswith("ing"):
                rest = after[:GAP + len(modifier)]
            else:
                continue
            if any(_follows(modifier, rest, k, REVERSED_GAP) is not None for k, w in enumerate(rest) if w == modifier[0]):
                out.append(i)
    return out


def read_text(doc: Doc, t: Theme) -> tuple[int, bool, float, bool, float, bool]:
    """For one paper: (how often the name or a variant is written, whether in the title, the share of
    the name's words written (in some form), whether the qualifier is written (True when there is
    none), the share of the sentence's content words written, whether the title writes a word of the
    name, in any of its forms ("caching" for "KV cache"; not "Decentralized" for "decoding"))."""
    places = [set(_written(form, doc)) for form in t.forms]
    count = max(len(p) for p in places)
    title = any(i < doc.title_ends for p in places for i in p)
    named = max(float(np.mean([doc.has_stem(w[:max(3, len(w) - 2)]) for w in form if w not in STOP] or [0.0]))
                for form in t.forms)
    titled = not t.heads.isdisjoint(doc.words[:doc.title_ends])
    qualified = not t.qualifiers or any(
        any(_follows(q, doc.words, i, 0) is not None for i in doc.at.get(q[0], [])) if len(q) > 1
        else (q[0] in doc.at or (len(q[0]) >= 3 and any(w.endswith(q[0]) for w in doc.at)))
        for q in t.qualifiers)
    share = float(np.mean([doc.has_stem(s) for s in t.words])) if t.words else 0.0
    return count, title, named, qualified, share, titled


FIELDS = {"count": int, "title": bool, "named": float, "qualified": bool, "share": float, "titled": bool}


@dataclass(frozen=True)
class TextMatches:
    """Per paper (rows) and theme (columns, by name): the text half of matching (``read_text``)."""

    count: pd.DataFrame
    title: pd.DataFrame
    named: pd.DataFrame
    qualified: pd.DataFrame
    share: pd.DataFrame
    titled: pd.DataFrame


def read_texts(texts: pd.Series, themes: list[Theme]) -> TextMatches:
    """``read_text`` of every paper of ``texts`` on every theme (each paper's text read once)."""
    rows = []
    for text in texts.fillna("").tolist():
        doc = Doc(text)
        rows.append([read_text(doc, t) for t in themes])
    names = [t.name for t in themes]
    frames = []
    for i, dtype in enumerate(FIELDS.values()):
        values = np.array([[r[j][i] for j in range(len(themes))] for r in rows], dtype=dtype)
        frames.append(pd.DataFrame(values.reshape(len(rows), len(themes)), index=texts.index, columns=names))
    return TextMatches(*frames)


@dataclass(frozen=True)
class Readings:
    """What ``TextCache.readings`` found of the papers asked about."""

    text: TextMatches
    cosine: np.ndarray | None  # papers x themes: each paper's cosine to each sentence (None: not asked for)
    read: int  # papers whose text was read now (not kept for some theme, or changed)
    embedded: int  # papers whose cosines were computed now


@dataclass(frozen=True)
class PaperTexts:
    """The papers to match, in rows: each one's ``text_hash`` (``Papers.text_hash``), and ``of``,
    which gives the texts (title, newline, abstract) of the rows asked for; a ``TextCache`` asks only
    for the papers it has not kept, so a report of a store whose papers are all kept reads no abstract."""

    index: pd.Index
    keys: np.ndarray  # uint64, one per row
    of: Callable[[np.ndarray], pd.Series]  # rows -> their texts

    @classmethod
    def known(cls, texts: pd.Series) -> PaperTexts:
        """Papers whose texts are at hand (hashed here)."""
        texts = texts.fillna("")
        return cls(texts.index, text_hash(texts.tolist()), lambda rows: texts.iloc[rows])

    def __len__(self) -> int:
        return len(self.keys)


class TextCache:
    """What matching reads of each paper, kept per paper, one table per watched theme
    (``<folder>/<Theme.key>[-<model>].parquet``: the paper's ``text_hash``, ``read_text``'s
    readings and, given the embedding model's ``identity``, the paper's cosine to the theme's
    sentence), so that a report reads and compares again only the papers it has not seen, or whose
    text changed. A paper is known by its text alone: the readings depend on nothing else, and the
    cosine on its embedding, which is of the same title and abstract. A table no report has read
    for ``KEEP_DAYS`` days is removed."""

    KEEP_DAYS = 30  # a table no report has read for this long is removed (``_prune``)

    def __init__(self, folder: Path, identity: str = "") -> None:
        self.folder = folder
        self.identity = identity

    def path(self, t: Theme) -> Path:
        model = f"-{hashlib.sha1(self.identity.encode()).hexdigest()[:8]}" if self.identity else ""
        return self.folder / f"{t.key}{model}.parquet"

    def read(self, papers: PaperTexts | pd.Series, themes: list[Theme]) -> tuple[TextMatches, int]:
        """The text matches of ``papers`` (or of the texts of a Series) on ``themes``, and how many
        papers had to be read (not in the cache for some theme)."""
        found = self.readings(papers, themes)
        return found.text, found.read

    def readings(self, papers: PaperTexts | pd.Series, themes: list[Theme],
                 cosine_of: Callable[[np.ndarray], np.ndarray] | None = None) -> Readings:
        """``read``, and with ``cosine_of`` (rows of the papers -> their cosines to every theme's
        sentence, rows x themes) each paper's cosines, computed only for the papers not kept. A
        paper is known by its text's hash: the same text is read once, a changed one again."""
        papers = papers if isinstance(papers, PaperTexts) else PaperTexts.known(papers)
        keys = papers.keys
        n = len(papers)
        kept = [self._kept(self.path(t)) for t in themes]
        at = [pd.Index(old["key"].to_numpy()).get_indexer(keys) if len(old) else np.full(n, -1) for old in kept]
        missing = np.zeros(n, dtype=bool)
        for where in at:
            missing |= where < 0
        fresh = read_texts(papers.of(np.flatnonzero(missing)).fillna(""), themes) if missing.any() else None
        cosine = np.full((n, len(themes)), np.nan)
        columns: dict[str, dict[str, np.ndarray]] = {f: {} for f in FIELDS}
        for j, (t, old, where) in enumerate(zip(themes, kept, at)):
            have = ~missing
            for field, dtype in FIELDS.items():
                values = np.zeros(n, dtype=dtype)
                values[have] = old[field].to_numpy()[where[have]]
                if fresh is not None:
                    values[missing] = getattr(fresh, field)[t.name].to_numpy()
                columns[field][t.name] = values
            known = where >= 0
            cosine[known, j] = old["cosine"].to_numpy()[where[known]]
        need = np.flatnonzero(np.isnan(cosine).any(axis=1)) if cosine_of is not None else np.zeros(0, dtype=int)
        if len(need):
            cosine[need] = np.asarray(cosine_of(need), dtype=float).reshape(len(need), len(themes))
        if missing.any() or len(need):  # something read or compared now: kept for the next report
            for j, (t, old) in enumerate(zip(themes, kept)):
                self._store(t, old, keys, missing, need, {f: columns[f][t.name] for f in FIELDS}, cosine[:, j])
        self._prune([self.path(t) for t in themes])
        names = [t.name for t in themes]
        frames = [pd.DataFrame(columns[f], index=papers.index, columns=names) for f in FIELDS]
        return Readings(TextMatches(*frames), cosine if cosine_of is not None else None, int(missing.sum()), len(need))

    def _store(self, t: Theme, old: pd.DataFrame, keys: np.ndarray, missing: np.ndarray, need: np.ndarray,
               fields: dict[str, np.ndarray], cosine: np.ndarray) -> None:
        """Theme ``t``'s table (``old``) with the papers read now (``missing``) added, and the cosines
        computed now (the rows ``need``) set; ``fields`` and ``cosine``: every paper's, in order."""
        from pipeline.io import write_frame

        new = pd.DataFrame({"key": keys[missing], **{f: v[missing] for f, v in fields.items()}, "cosine": cosine[missing]})
        table = pd.concat([old, new], ignore_index=True) if len(old) else new
        table = table.drop_duplicates("key", keep="last").reset_index(drop=True)
        if len(need):
            rows = pd.Index(table["key"].to_numpy()).get_indexer(keys[need])
            table.loc[rows, "cosine"] = cosine[need]
        write_frame(table, self.path(t))

    def _prune(self, used: list[Path]) -> None:
        """Mark the tables of ``used`` as read now, and remove the folder's tables no report has read
        for ``KEEP_DAYS`` days (a theme no longer watched, another sentence, model or rules' version),
        so that the folder does not grow with every change."""
        from pipeline.io import remove_files, touch_files, unused_files

        touch_files(used)
        keep = set(used)
        old = [p for p in unused_files(self.folder, "*.parquet", self.KEEP_DAYS) if p not in keep]
        if old:
            remove_files(old)
            log.info("watched themes: removed %d kept table(s) no report has read for %d days", len(old), self.KEEP_DAYS)

    @staticmethod
    def _kept(path: Path) -> pd.DataFrame:
        """A theme's kept readings; none when there are none, or when the file cannot be read or holds
        other columns (it is then read afresh and written again)."""
        from pipeline.io import TableError, read_frame

        empty = pd.DataFrame({"key": pd.Series(dtype=np.uint64), **{f: pd.Series(dtype=d) for f, d in FIELDS.items()},
                              "cosine": pd.Series(dtype=float)})
        if not path.exists():
            return empty
        try:
            table = read_frame(path)
        except TableError:
            return empty
        if not set(empty.columns) <= set(table.columns):
            return empty
        return table.drop_duplicates("key", keep="last").reset_index(drop=True)


@dataclass(frozen=True)
class Thresholds:
    """When a paper is on a watched theme (the ``report.watch_*`` settings; module docstring)."""

    floor: float = 0.2  # cosine to the sentence below which nothing matches
    z_name: float = 0.0  # the name in the abstract (twice, or once with a title word of it), this far out (in the title: the floor is enough)
    z_alone: float = 3.0  # this far out, with every word of the name written
    z_words: float = 2.0  # this far out, with ``share`` of the sentence's content words written
    z_far: float = 3.5  # this far out, whatever the words
    share: float = 0.8
    named: float = 0.67  # no paper is close without at least this share of the name's words

    @classmethod
    def of(cls, cfg) -> Thresholds:  # noqa: ANN001 - config.ReportConfig
        return cls(cfg.watch_floor, cfg.watch_z_name, cfg.watch_z, cfg.watch_z_words, cfg.watch_z_far,
                   cfg.watch_share, cfg.watch_named)


@dataclass(frozen=True)
class Matches:
    """Each paper (rows, in the order given) against each watched theme (columns, by name)."""

    on: pd.DataFrame  # bool: the paper is on the theme
    z: pd.DataFrame  # its calibrated cosine to the theme's sentence (how far out in the store's tail)
    by_name: pd.DataFrame | None = None  # bool: on it by its name (the strongest evidence)

    @property
    def names(self) -> list[str]:
        return list(self.on.columns)

    def evidence(self, name: str) -> pd.Series:
        """An order of the papers on ``name``, strongest evidence first: by its name written, then
        by closeness."""
        z = self.z[name]
        if self.by_name is None:
            return z
        return z + np.where(self.by_name[name].to_numpy(), 1e3, 0.0)


def decide(text: TextMatches, cosine: np.ndarray, limits: Thresholds = Thresholds()) -> Matches:
    """The matches from the text half and the papers' cosines to each sentence (papers x themes)."""
    names = list(text.count.columns)
    index = text.count.index
    if len(cosine) > 1:
        spread = cosine.std(axis=0)
        z = np.where(spread > 0, (cosine - cosine.mean(axis=0)) / np.where(spread > 0, spread, 1), 0.0)
    else:
        z = np.zeros_like(cosine)
    near = cosine >= limits.floor
    count, title, named, qualified, share, titled = (
        text.count.to_numpy(), text.title.to_numpy(), text.named.to_numpy(), text.qualified.to_numpy(),
        text.share.to_numpy(), text.titled.to_numpy())
    # written once in the abstract, the name is the paper's subject only where its title says a word of it
    in_abstract = (count >= 2) | ((count >= 1) & titled)
    by_name = near & qualified & (title | (in_abstract & (z >= limits.z_name)))
    close = near & qualified & (named >= limits.named) & (
        (z >= limits.z_far) | ((named >= 1) & (z >= limits.z_alone)) | ((z >= limits.z_words) & (share >= limits.share)))
    if len(names) > 1 and len(cosine):
        # close to several themes: the nearest one, unless on the other by its name as well
        best = np.zeros_like(close)
        score = np.where(close, z, -np.inf)
        best[np.arange(len(z)), score.argmax(axis=1)] = True
        close &= best | by_name
    return Matches(pd.DataFrame(by_name | close, index=index, columns=names), pd.DataFrame(z, index=index, columns=names),
                   pd.DataFrame(by_name, index=index, columns=names))


Vectors = np.ndarray | Callable[[np.ndarray], np.ndarray]


def match(texts: pd.Series | PaperTexts, vectors: Vectors, watch: dict[str, str],
          sentence_vectors: np.ndarray | Callable[[], np.ndarray], *, limits: Thresholds = Thresholds(),
          cache: TextCache | None = None, also: dict[str, tuple[str, ...]] | None = None) -> Matches:
    """For each paper (rows of ``texts``, each its title, a newline and its abstract, and of
    ``vectors``) and watched theme (by name): whether it is on the theme, by its name or by
    closeness, and its calibrated cosine ``z`` to the theme's sentence. With a ``cache`` a paper seen
    before is neither read nor compared again: ``texts`` may then be ``PaperTexts`` (the texts read
    only for the papers not kept), ``vectors`` a function giving the vectors of the rows asked for,
    and ``sentence_vectors`` one giving the sentences' (with a cache, called only when some paper has
    no kept cosine). ``also``: other names of a theme (by its name), read as the name is."""
    themes = [theme(n, s, (also or {}).get(n, ())) for n, s in watch.items()]
    sentences = sentence_vectors if callable(sentence_vectors) else (lambda: sentence_vectors)
    n = len(texts)

    def cosine_of(rows: np.ndarray) -> np.ndarray:
        return (vectors(rows) if callable(vectors) else vectors[rows]) @ np.asarray(sentences()).T

    if cache is not None:
        found = cache.readings(texts, themes, cosine_of)
        text, cosine = found.text, found.cosine
    else:
        papers = texts if isinstance(texts, pd.Series) else texts.of(np.arange(n))
        text = read_texts(papers, themes)
        cosine = cosine_of(np.arange(n)) if n else np.zeros((0, len(themes)))
    return decide(text, cosine.reshape(n, len(themes)), limits)


def weekly_counts(on: pd.DataFrame, weeks: pd.Series, names: list[str], mondays: list) -> pd.DataFrame:  # noqa: ANN001
    """Matched papers per week (rows: ``mondays``) and watched theme (columns: ``names``); ``on``:
    ``Matches.on`` of papers whose weeks (Mondays) are ``weeks``."""
    frame = on[names].astype(int).assign(_week=weeks.to_numpy())
    return frame.groupby("_week")[names].sum().reindex(mondays, fill_value=0)
