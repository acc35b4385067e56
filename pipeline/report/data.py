"""The tables reports are made of, from papers, doc_topics and topic_info (pure functions)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import pandas as pd

from pipeline.dates import week_label, week_monday  # noqa: F401 - week_label: data.week_label, the reports' week names
from pipeline.schemas import DocTopics, Papers, TopicInfo
from pipeline.voice import one_voice


@dataclass(frozen=True)
class Corpus:
    """Papers joined with their theme, and the themes."""

    papers: pd.DataFrame  # Papers columns + topic, probability
    themes: pd.DataFrame  # TopicInfo, indexed by topic
    lineage: pd.DataFrame = field(default_factory=pd.DataFrame)  # TopicLineage (empty when not written)
    forming: list[dict] = field(default_factory=list)  # pool groups not yet themes (papers, nearest, label, week)

    @property
    def labels(self) -> dict[int, str]:
        return {int(t): str(label) for t, label in self.themes[TopicInfo.label].items()}


PART_FIT = 0.25  # a label fewer than this share of its theme's papers write names only a part of it
CHOSEN = "label_chosen"  # the reports' themes: the label as topic_info holds it, beside the label as shown
_GENERIC = frozenset("the and for of in on with to a an via based using models model learning".split())


def _words(phrase: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", phrase.lower()) if w not in _GENERIC and len(w) > 1}


def _share_a_word(a: set[str], b: set[str]) -> bool:
    """Whether two phrases' words meet, a word and its other forms alike ("LLM", "LLMs"; "bias",
    "biases"; "emotion", "emotional": one begins the other, four letters or more; "agriculture",
    "agricultural": all but their last two letters or fewer in common, seven letters or more)."""
    def kin(x: str, y: str) -> bool:
        common = len(os.path.commonprefix([x, y]))
        return common >= 7 and common >= max(len(x), len(y)) - 3

    return any(x.rstrip("s") == y.rstrip("s") or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x)))
               or kin(x, y) for x in a for y in b)


def next_phrase(label: str, description: str) -> str | None:
    """The theme's strongest phrase after its label that says something the label does not (no word
    in common), a phrase of two words or an acronym before a lone word: what a reader needs beside a
    label that names only part of its theme ("Imitation learning · robotic manipulation")."""
    from pipeline.report.watched import is_acronym

    said = _words(label)
    label_words = re.findall(r"\w+", label)
    acronyms = {w.lower().rstrip("s") for w in label_words if is_acronym(w)}
    initials = "".join(w if is_acronym(w) else w[:1] for w in label_words).rstrip("s").lower()
    rest = []
    for phrase in (p.strip() for p in description.split(" · ")[1:]):
        words = _words(phrase)
        if (words and not _share_a_word(words, said)
                and phrase.rstrip("s").lower() != initials  # not the label's own acronym
                and "".join(w[:1] for w in re.findall(r"[a-z0-9]+", phrase.lower())) not in acronyms):  # nor one's words
            rest.append(phrase)
    telling = [p for p in rest if len(p.split()) >= 2 or is_acronym(p)]
    return (telling or rest or [None])[0]


def _alike(a: str, b: str) -> bool:
    """Two labels of two or three words that differ by one ("AI agents", "LLM agents"; "LLM inference",
    "LLM serving"): a reader cannot tell from them what sets the two themes apart."""
    x, y = [w.rstrip("s") for w in a.lower().split()], [w.rstrip("s") for w in b.lower().split()]
    return len(x) == len(y) and 2 <= len(x) <= 3 and sum(p != q for p, q in zip(x, y)) == 1


def shown_labels(themes: pd.DataFrame) -> dict[int, str]:
    """Each theme's label as the reports show it (``themes``: topic_info, indexed by topic): a label
    with a complement (``label_next``: the phrase that covers most of the papers the label misses,
    ``topics/naming/complement.py``) is followed by it; else a label whose support is under ``PART_FIT``, or that differs by one word from another label of its area
    (siblings that read alike: "AI agents", "LLM agents"; "LLM inference", "LLM serving"), is followed by ``next_phrase``; the
    others as they are."""
    labels = {int(t): str(v) for t, v in themes[TopicInfo.label].items()}
    after = themes[TopicInfo.label_next].to_dict() if TopicInfo.label_next in themes else {}
    support = (themes[TopicInfo.label_support] if TopicInfo.label_support in themes else pd.Series(dtype=float)).to_dict()
    area = (themes[TopicInfo.area] if TopicInfo.area in themes else pd.Series(0, index=themes.index)).to_dict()
    description = themes[TopicInfo.description].to_dict()
    by_area: dict = {}
    for t, label in labels.items():
        by_area.setdefault(area.get(t), []).append((t, label))
    out = {}
    for t, label in labels.items():
        if isinstance(after.get(t), str) and after[t]:  # the phrase covering the papers the label misses
            out[t] = f"{label} · {after[t]}"
            continue
        value = support.get(t)
        part = value is not None and not pd.isna(value) and float(value) < PART_FIT
        siblings = any(_alike(label, other) for u, other in by_area[area.get(t)] if u != t)
        extra = next_phrase(label, str(description[t])) if part or siblings else None
        out[t] = f"{label} · {extra}" if extra else label
    return out


def join(papers: pd.DataFrame, doc_topics: pd.DataFrame, info: pd.DataFrame, lineage: pd.DataFrame | None = None,
         forming: list[dict] | None = None) -> Corpus:
    """The papers with their themes, and the themes, each label as the reports show it (``shown_labels``;
    the label as chosen stays in ``CHOSEN``)."""
    info = info.set_index(TopicInfo.topic, drop=False)
    info = info.assign(**{CHOSEN: info[TopicInfo.label], TopicInfo.label: info.index.map(shown_labels(info))})
    info = info.reset_index(drop=True)
    assigned = doc_topics.set_index(DocTopics.paper_id)
    from pipeline.report.render import safe_urls

    out = papers.assign(
        topic=papers[Papers.paper_id].map(assigned[DocTopics.topic]).fillna(-1).astype(int),
        probability=papers[Papers.paper_id].map(assigned[DocTopics.probability]).astype(float),
        # the only column that becomes a link in a report: unsafe targets are dropped here, once
        **{Papers.url: safe_urls(papers[Papers.url])},
    )
    return Corpus(out, info.set_index(TopicInfo.topic), lineage if lineage is not None else pd.DataFrame(),
                  list(forming or []))


LEVELS = ("theme", "area")


def at_level(corpus: Corpus, level: str) -> Corpus:
    """The corpus as it is (``theme``), or with areas in place of themes (``area``): each paper's
    topic becomes its theme's area, and the themes table holds one row per area (label, description,
    size, keywords and representative papers of its largest themes, first week)."""
    if level == "theme":
        return corpus
    if level != "area":
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    themes = corpus.themes
    area_of = themes[TopicInfo.area].astype(int)
    papers = corpus.papers.assign(topic=corpus.papers["topic"].map(area_of).fillna(-1).astype(int))
    rows = []
    for area, group in themes.sort_values(TopicInfo.size, ascending=False).groupby(TopicInfo.area, sort=False):
        largest = group.head(3)
        rows.append({
            TopicInfo.topic: int(area), TopicInfo.label: group[TopicInfo.area_label].iloc[0],
            TopicInfo.description: " · ".join(largest[CHOSEN if CHOSEN in largest else TopicInfo.label])
            + (" …" if len(group) > 3 else ""),
            TopicInfo.label_support: None, TopicInfo.area: int(area), TopicInfo.area_label: group[TopicInfo.area_label].iloc[0],
            TopicInfo.keywords: [k for ks in largest[TopicInfo.keywords] for k in list(ks)[:4]],
            TopicInfo.size: int(group[TopicInfo.size].sum()),
            TopicInfo.representative_ids: [r for rs in largest[TopicInfo.representative_ids] for r in list(rs)[:1]],
            TopicInfo.first_week: group[TopicInfo.first_week].dropna().min() if group[TopicInfo.first_week].notna().any() else None,
        })
    table = pd.DataFrame(rows).set_index(TopicInfo.topic) if rows else themes.iloc[:0]
    return Corpus(papers, table)  # births are theme events: no lineage at area level


def births(corpus: Corpus) -> dict[int, dict]:
    """Themes born in a weekly update (``topic_lineage``): theme -> week, relation, parent theme
    (a split) and the pool it came from."""
    lineage = corpus.lineage
    if lineage.empty or "mode" not in lineage.columns:
        return {}
    rows = lineage[(lineage["mode"] == "update") & lineage["relation"].isin(["new", "split"])]
    return {int(r.to_topic): {"week": r.week, "relation": r.relation,
                              "parent": None if pd.isna(r.from_topic) else int(r.from_topic),
                              "pool_size": None if pd.isna(r.pool_size) else int(r.pool_size),
                              "pool_start": r.pool_start} for r in rows.itertuples()}


def areas_of(corpus: Corpus) -> dict[int, tuple[int, str]]:
    """Theme -> (area id, area label)."""
    themes = corpus.themes
    return {int(t): (int(a), str(lab)) for t, a, lab in zip(themes.index, themes[TopicInfo.area], themes[TopicInfo.area_label])}


def monday_of(label: str) -> pd.Timestamp:
    """``2026-W01`` -> Monday 2025-12-29 00:00 UTC; ValueError for anything else."""
    return pd.Timestamp(week_monday(label)).tz_localize("UTC")


def latest_complete_week(papers: pd.DataFrame, now: pd.Timestamp) -> pd.Timestamp | None:
    """Monday of the latest ISO week that has ended by ``now`` and holds papers."""
    ended = papers[Papers.week_start] + pd.Timedelta(days=7) <= now
    if not ended.any():
        return None
    return papers.loc[ended, Papers.week_start].max()


def weekly_topic_counts(corpus: Corpus, weeks: list[pd.Timestamp]) -> pd.DataFrame:
    """Papers per week (rows, every Monday in ``weeks``) and theme (columns, -1 included)."""
    counts = corpus.papers.groupby([Papers.week_start, "topic"]).size().unstack(fill_value=0)
    columns = sorted(set(counts.columns) | set(corpus.themes.index))
    return counts.reindex(index=weeks, columns=columns, fill_value=0)


def category_counts(papers: pd.DataFrame, *, primary_only: bool) -> pd.Series:
    """Papers per arXiv category: every category a paper is listed in, or its primary only."""
    if primary_only:
        return papers[Papers.primary_category].dropna().value_counts()
    return papers[Papers.categories].explode().dropna().value_counts()


def uncategorised(papers: pd.DataFrame, *, primary_only: bool) -> int:
    """How many of ``papers`` ``category_counts`` cannot count: no primary category, or no category."""
    if primary_only:
        return int(papers[Papers.primary_category].isna().sum())
    if papers.empty:
        return 0
    listed = papers[Papers.categories].reset_index(drop=True).explode()  # a paper with none gives one NaN row
    return int(listed.isna().groupby(level=0).all().sum())


def theme_by_category(papers: pd.DataFrame, *, primary_only: bool) -> pd.DataFrame:
    if primary_only:
        pairs = papers[["topic", Papers.primary_category]].dropna().rename(columns={Papers.primary_category: "category"})
    else:
        pairs = papers[["topic", Papers.categories]].explode(Papers.categories).dropna().rename(
            columns={Papers.categories: "category"})
    pairs = pairs[pairs["topic"] >= 0]
    return pairs.groupby(["topic", "category"]).size().unstack(fill_value=0)


def carried_by(papers: pd.DataFrame) -> dict[int, tuple[str, int, int]]:
    """Themes that one author carries (``voice.one_voice``: the author on at least ``VOICE_SHARE``
    of the theme's papers, and on at least ``VOICE_PAPERS``: a series of essays, a project's
    reports). A reader should know such a theme is one voice, whatever its label says. theme ->
    (author, their papers in it, the theme's papers); {} without authors."""
    if Papers.authors not in papers.columns:
        return {}
    placed = papers[papers["topic"] >= 0]
    found = {int(t): one_voice(group[Papers.authors]) for t, group in placed.groupby("topic")}
    return {t: (v.author, v.papers, v.of) for t, v in found.items() if v is not None}
