"""Naming, once per run: what a fit, refit or update left to be named, named after every paper has
found its theme (the stage calls ``name_run`` once, after the chosen path, before the tables are
written; with the run's papers it applies the series rule too, ``series.renames``: a label that is one
author's series is chosen again from the theme's other papers).

A fit names its themes while it clusters them (``model.py``: a theme that cannot be named apart from
its neighbours is merged into one), so what it leaves here is the areas above them. An update
leaves, in the order it asked:

- each theme born in it (``ThemeToName``), named against the papers of its 8 nearest themes as they
  stood when it was born, with a label no other theme has;
- each young theme (born within the detection window), named again from all its papers so far, so
  the label it got from its first few papers follows what it became;
- each group still forming (``FormingToName``), a tentative label against its nearest theme's papers;
- the areas (``AreasToName``), where the themes were fitted before areas existed.

An area is named for what its themes share (``Shared``): a phrase (or one acronym: "HPC", "LLM")
that at least ``AREA_FLOOR`` of the papers of two or more of its themes write, themes that hold at
least half its papers, and that lies clearly nearer its own area than any other. An area whose
themes share no such phrase is named by the list of its largest themes ("Consensus · Blockchain ·
CRDTs"): it is a neighbourhood of the map, not a subject, and a phrase of one theme or a word every
area writes would mislead.

Each request holds what things were when it was made, so naming later names the same. Every
request is put to ``label.name_groups`` the same way (``_Ask``) and its answer applied to the state.
The theme labels are then made unique (``lifecycle.distinct``: the one place a label changes once chosen).
"""

from __future__ import annotations

import dataclasses
import re
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.naming.candidates import MIN_WORDS, Candidate
from pipeline.topics.naming.label import Accept, Named, name_groups
from pipeline.topics.naming import lifecycle
from pipeline.topics.state import RunResult, Change, State, described
from pipeline.topics.naming.vocabulary import ctfidf_words, rerank_by_coverage, stop_words
from pipeline.topics.naming.words import LabelCorpus, Embed, WordIndex, content_words, surface_form

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

NEIGHBOURS = 8  # a theme an update names is named against the papers of this many nearest themes
FORMING_CONTEXT = 400  # a forming group is named against at most this many papers of its nearest theme
SHARED = 0.5  # an area's name is written in themes that hold at least this share of its papers
MARGIN = 0.075  # and lies nearer the area's centroid than any other area's by at least this cosine
# an area whose themes share no phrase is named by the list of its largest themes ("Consensus · Blockchain
# · CRDTs"): a list says it holds several subjects, where "A & B" read as one subject made of two
LIST_THEMES, LISTED = 3, " · "
# an area may be named by one acronym its themes share, the field's short terms ("HPC", "LLM",
# "GPU"), where a theme needs two words: a neighbourhood is named more broadly than a street
AREA_MIN_WORDS = 1  # an acronym only (``Shared._own_acronym``)
# a phrase names an area only where at least this share of the papers of two or more of its themes
# write it (a theme's label needs ``min_label_support``): a facet a tenth of the papers mention
# ("Reinforcement learning" over an area of LLM reasoning, agents and prompting) is not the area
AREA_FLOOR = 0.25
OWN_WORD = 0.5  # ... when most of the papers writing that word lie in the area


@dataclass(frozen=True)
class ThemeToName:
    """A theme to be named from the papers ``rows``: born in an update (``born``: its lineage row),
    young, or one author's series whose label is to be a phrase of its other papers
    (``series.renames``). ``topics`` is every paper's theme, and ``ids`` and ``centroids`` the
    themes, when it asked. ``support_on``: the papers the label's support is measured on, where
    they are not ``rows`` (all the series theme's papers)."""

    theme: int
    rows: np.ndarray
    topics: np.ndarray
    ids: np.ndarray
    centroids: np.ndarray
    born: Change | None = None
    support_on: np.ndarray | None = None
    authors: np.ndarray | None = None  # a series rename: the authors of ``support_on``'s papers


@dataclass(frozen=True)
class FormingToName:
    """A group still forming (``Forming.key``), its papers ``rows``, the theme it lies nearest and
    every paper's theme when it asked."""

    key: int
    rows: np.ndarray
    nearest: int
    topics: np.ndarray


@dataclass(frozen=True)
class AreasToName:
    """Areas cut above the themes (``areas.cut``): the papers they were cut on (``rows``: all, or a
    sampled fit's sample), each one's area (-1 none) and theme, in the order of ``rows``, the area
    ids and centroids, the labels kept from the previous fit, and those papers already prepared for
    naming (the theme model's, or None)."""

    rows: np.ndarray
    area_of_paper: np.ndarray
    theme_of_paper: np.ndarray
    ids: list[int]
    centroids: np.ndarray
    kept: dict[int, str]
    corpus: LabelCorpus | None = None


ToName = ThemeToName | FormingToName | AreasToName


@dataclass(frozen=True)
class _Ask:
    """One request as ``name_groups`` takes it: the papers (rows of the run's texts), each one's
    group, the groups to name and their centroids, and how."""

    rows: np.ndarray
    groups: np.ndarray
    ids: list[int]
    centroids: np.ndarray
    order: list[int] | None = None
    taken: set[frozenset[str]] | None = None
    floor: float = 0.0
    faithful: bool = True  # judge faithfulness with the embedding model
    corpus: LabelCorpus | None = None
    accept: Accept | None = None
    min_words: int = MIN_WORDS


def name_run(result: RunResult, texts: Sequence[str], titles: Sequence[str] | None, cfg: TopicsConfig, *,
             embed: Embed | None = None, papers: pd.DataFrame | None = None) -> None:
    """Name what ``result`` left to be named (``result.to_name``, in order), then make the theme
    labels unique; with the run's ``papers`` (their authors), then the series rule
    (``series.renames``): a theme one author carries whose label is a phrase of that series is named
    again from its other papers, and the labels made unique again. The one naming step of a run.
    ``texts`` and ``titles`` are the run's papers (titles default to the text before the first ". ");
    ``embed``, the papers' model, judges whether a label lies nearest its own group."""
    from pipeline.topics.naming import series

    titles = titles if titles is not None else [t.split(". ", 1)[0] for t in texts]
    _name_asked(result, texts, titles, cfg, embed)
    if papers is not None:
        result.to_name = series.renames(result, papers, texts, cfg)
        _name_asked(result, texts, titles, cfg, embed)


def _name_asked(result: RunResult, texts: Sequence[str], titles: Sequence[str], cfg: TopicsConfig,
                embed: Embed | None) -> None:
    """Name ``result.to_name`` in order, empty it, and make the theme labels unique."""
    state = result.state
    stop = stop_words(cfg.stop_words)
    tentative: dict[int, str] = {}
    for job in result.to_name:
        ask = _ask(job, state, stop, cfg)
        sub_texts = [texts[i] for i in ask.rows]
        named = name_groups(sub_texts, [titles[i] for i in ask.rows], ask.groups, ask.ids, ask.centroids, stop,
                            embed=embed if ask.faithful else None, order=ask.order, taken=ask.taken,
                            corpus=ask.corpus, floor=ask.floor, accept=ask.accept, min_words=ask.min_words)
        if isinstance(job, ThemeToName):
            if job.support_on is not None and not _takes(named[job.theme].label, job, texts, stop, cfg):
                continue
            _theme_named(job, named[job.theme], state, sub_texts, ask.groups, cfg)
            if job.support_on is not None:
                index = WordIndex([texts[i] for i in job.support_on])
                state.support[job.theme] = index.share(index.words(state.labels[job.theme], stop),
                                                       set(range(len(job.support_on))))
        elif isinstance(job, FormingToName):
            tentative[job.key] = named[0].label
        else:
            _areas_named(job, named, state, ask.accept)
    if tentative:
        result.forming = [dataclasses.replace(f, label=tentative.get(f.key, f.label)) for f in result.forming]
        state.forming = [{**kept, "label": f.label} for kept, f in zip(state.forming, result.forming, strict=True)]
    result.to_name = []
    lifecycle.distinct(state)


def _takes(label: str, job: ThemeToName, texts: Sequence[str], stop: frozenset[str], cfg: TopicsConfig) -> bool:
    """Whether a series rename (``series.renames``) takes ``label``: it is written (every content word)
    by at least ``min_label_support`` of the papers it was named from, and is not itself a phrase of
    one author's (another series) among the theme's papers. Otherwise the theme keeps its label."""
    from pipeline.topics.naming.series import phrase_of_one

    index = WordIndex([texts[i] for i in job.rows])
    why = None
    if index.share(index.words(label, stop), set(range(len(job.rows)))) < cfg.min_label_support:
        why = f"fits fewer than {100 * cfg.min_label_support:.0f} % of them"
    elif job.authors is not None and (other := phrase_of_one(label, np.arange(len(job.support_on)), job.authors,
                                                              [texts[i] for i in job.support_on], stop)) is not None:
        why = f"is {other.author}'s phrase"
    if why is not None:
        log.info("topics: theme %d keeps its label: the label of its other papers, %r, %s", job.theme, label, why)
    return why is None


def _ask(job: ToName, state: State, stop: frozenset[str], cfg: TopicsConfig) -> _Ask:
    if isinstance(job, ThemeToName):
        return _theme_ask(job, state, stop, cfg)
    if isinstance(job, FormingToName):
        # what the group's papers say most, against its nearest theme's papers (no embedding)
        rows = np.concatenate([job.rows, np.flatnonzero(job.topics == job.nearest)[:FORMING_CONTEXT]])
        return _Ask(rows, np.where(np.isin(rows, job.rows), 0, 1), [0, 1], np.zeros((2, 1)), order=[0],
                    faithful=False)
    return _Ask(job.rows, job.area_of_paper, job.ids, job.centroids, corpus=job.corpus,
                accept=Shared(job, max(cfg.min_label_support, AREA_FLOOR)), min_words=AREA_MIN_WORDS)


@dataclass
class Shared:
    """The phrases an area may be named by (``name_groups``'s ``accept``): those that at least
    ``floor`` of the papers of two or more of its themes write (every content word, as label support
    counts them), themes that together hold at least ``SHARED`` of the area's papers, and, with an
    embedder and two or more areas, whose vector lies nearer the area's centroid than any other
    area's by ``MARGIN``: a phrase that themes everywhere write ("neural networks") lies about as
    near another area; one word must be an acronym written mostly inside the area (``_own_acronym``).
    A label kept from the previous fit (``job.kept``) is put to the same test,
    and ``keeps`` says whether it passed."""

    job: AreasToName
    floor: float
    keeps: dict[int, bool] = dataclasses.field(default_factory=dict)

    def __call__(self, area: int, candidates: list[Candidate], corpus: LabelCorpus, embed: Embed | None) -> list[Candidate]:
        phrases = {c.phrase: c.words for c in candidates if len(c.phrase.split()) >= AREA_MIN_WORDS}
        kept = self.job.kept.get(area)
        if kept is not None:
            phrases[kept] = corpus.doc_index.words(kept, corpus.stop)
        members = self.job.area_of_paper == area
        themes = [set(np.flatnonzero(members & (self.job.theme_of_paper == t)).tolist())
                  for t in np.unique(self.job.theme_of_paper[members])]
        inside = set(np.flatnonzero(members).tolist())
        shared = []
        for phrase, words in phrases.items():
            having = corpus.doc_index.having(words)
            if len(phrase.split()) < MIN_WORDS and not self._own_acronym(phrase, having, inside, corpus):
                continue
            written = writing(having, themes, self.floor)
            if len(written) >= 2 and sum(map(len, written)) >= SHARED * members.sum():
                shared.append(phrase)
        if embed is not None and len(self.job.ids) >= 2 and shared:
            near = corpus.embed(embed, shared) @ np.asarray(self.job.centroids).T
            own = self.job.ids.index(area)
            others = np.delete(near, own, axis=1).max(axis=1)
            shared = [p for p, mine, other in zip(shared, near[:, own], others, strict=True) if mine - other >= MARGIN]
        if kept is not None:
            self.keeps[area] = kept in shared
        return [c for c in candidates if c.phrase in set(shared)]

    @staticmethod
    def _own_acronym(word: str, having: set[int], inside: set[int], corpus: LabelCorpus) -> bool:
        """Whether one word may name the area: an acronym as its papers write it ("HPC", "LLM"), most
        of whose papers lie in the area (``OWN_WORD``): a word the whole field writes, or a common
        word ("protocol", "clinical", "video": a reader's pass found them naming only part of an
        area), does not."""
        if len(having & inside) < OWN_WORD * len(having):
            return False
        form = surface_form(word, [corpus.texts[i] for i in sorted(having & inside)[:200]])
        return re.fullmatch(r"[A-Z][A-Z0-9]+s?", form) is not None  # HPC, LLMs; not PyTorch, GitHub


def _theme_ask(job: ThemeToName, state: State, stop: frozenset[str], cfg: TopicsConfig) -> _Ask:
    """Theme ``job.theme`` against the papers of its nearest themes, with a label no other theme has."""
    ids = job.ids.tolist()
    t = job.theme
    order = np.argsort(-(job.centroids @ job.centroids[ids.index(t)]), kind="stable")
    neighbours = [int(job.ids[j]) for j in order if int(job.ids[j]) != t][:NEIGHBOURS]
    groups = np.where(np.isin(job.topics, neighbours), job.topics, -1)
    groups[job.rows] = t
    rows = np.flatnonzero(groups != -1)
    taken = {content_words(label, stop) for u, label in state.labels.items() if u != t}
    return _Ask(rows, groups[rows], [t, *neighbours], job.centroids[[ids.index(u) for u in [t, *neighbours]]],
                order=[t], taken=taken, floor=cfg.min_label_support)


def _theme_named(job: ThemeToName, named: Named, state: State, texts: list[str], groups: np.ndarray,
                 cfg: TopicsConfig) -> None:
    """Label, description, keywords and support of the theme, and its row of the tree."""
    t = job.theme
    words = ctfidf_words(texts, groups, cfg)
    words = rerank_by_coverage({t: words.get(t, [])}, texts, groups, cfg)[t]
    state.words[t] = words
    before = lifecycle.relabel(state, t, named.label)
    label = state.labels[t]
    if before is not None and before != label:
        _areas_follow(state, before, label)
    state.descriptions[t] = described(label, named.description)
    state.support[t] = float(named.support)
    state.complements[t] = named.complement
    for row in state.tree:
        if row["node"] == f"theme:{t}":
            row["label"] = label
    if job.born is not None:
        log.info("topics: new theme %d, %r, from %d pool papers%s", t, label, len(job.rows),
                 f" (split of theme {job.born.from_topic})" if job.born.from_topic is not None else "")


def _areas_named(job: AreasToName, named: dict[int, Named], state: State, shared: Shared) -> None:
    """The areas' labels (one kept from the previous fit first, where it still names what the area's
    themes share, ``Shared.keeps``; one whose themes share no phrase named by its largest themes,
    ``_by_themes``; a label two areas would share gains the area's id), descriptions, and the labels
    in the tree."""
    kept = {a: label for a, label in job.kept.items() if shared.keeps.get(a)}
    labels, used = {}, set(kept.values())
    for a in job.ids:
        label = kept.get(a) or (named[a].label if named[a].chosen else _by_themes(job, a, state, named[a].label))
        if label in labels.values() or (a not in kept and label in used):
            label = f"{label} ({a})"
        labels[a] = label
    state.area_labels = labels
    state.area_descriptions = {a: named[a].description for a in job.ids}
    names = {f"theme:{t}": state.labels[t] for t in state.ids.tolist()} | {f"area:{a}": labels[a] for a in job.ids}
    state.tree = [{**row, "label": names.get(row["node"])} for row in state.tree]


def by_themes(label: str, area: int, area_of: dict[int, int], labels: dict[int, str]) -> bool:
    """Whether the label of ``area`` is its themes' (``_by_themes``): two to ``LIST_THEMES`` labels of its
    own themes (``area_of``: theme -> area; ``labels``: theme -> label), joined by ``LISTED`` (no theme
    label holds it: labels are words, "/" and "(n)"), or its one theme's label. Such a label follows its themes
    (``_areas_follow``) and is not kept from one fit to the next (``areas.cut``). An area of two or
    more themes named by a phrase that is also one theme's label is not."""
    own = [labels[t] for t, a in area_of.items() if a == area and t in labels]
    parts = _listed(label)
    return set(parts) <= set(own) and (2 <= len(parts) <= LIST_THEMES or len(own) == 1)


def _listed(label: str) -> list[str]:
    """The theme labels an area label lists (" · "; " & " in labels written before 2026-11-28)."""
    return label.split(LISTED) if LISTED in label else label.split(" & ")


def writing(having: set[int], themes: list[set[int]], floor: float) -> list[set[int]]:
    """The themes (each its papers' rows) of which at least ``floor`` write a phrase (``having``: the
    rows that do): what ``Shared`` names an area by, and what ``metrics.area_measures`` reports."""
    return [rows for rows in themes if rows and len(having & rows) >= floor * len(rows)]


def _areas_follow(state: State, before: str, label: str) -> None:
    """A theme named again from ``before`` to ``label``: an area named by its themes says the new label."""
    named = {t: before if name == label else name for t, name in state.labels.items()}  # as they were named
    for a, area_label in state.area_labels.items():
        if before in _listed(area_label) and by_themes(area_label, a, state.area_of, named):
            state.area_labels[a] = LISTED.join(label if part == before else part for part in _listed(area_label))
    state.tree = [{**row, "label": state.area_labels.get(row["area"], row["label"])} if row["level"] == "area" else row
                  for row in state.tree]


def _by_themes(job: AreasToName, area: int, state: State, fallback: str) -> str:
    """The labels of the area's ``LIST_THEMES`` largest themes (most papers, then lowest id), "A · B ·
    C"; of its themes by id where none of its papers was named (``fallback`` where it has none)."""
    themes, sizes = np.unique(job.theme_of_paper[job.area_of_paper == area], return_counts=True)
    if not len(themes):
        themes = np.array(sorted(t for t, a in state.area_of.items() if a == area), dtype=int)
        sizes = np.zeros(len(themes), dtype=int)
    largest = sorted(zip(-sizes, themes.tolist()))[:LIST_THEMES]
    return LISTED.join(state.labels[int(t)] for _, t in largest) or fallback
