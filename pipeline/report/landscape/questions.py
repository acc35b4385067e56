"""Answers to a researcher's questions over the report tables (pure functions; notebook 04 uses
them): papers like this one, one theme week by week, two themes side by side, a phrase across
themes and weeks, a theme's history, any table as CSV."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.report.data import CHOSEN, Corpus
from pipeline.schemas import Papers, TopicInfo

SHOWN = [Papers.paper_id, Papers.title, "theme", Papers.week, Papers.primary_category]


def _with_theme(corpus: Corpus, papers: pd.DataFrame) -> pd.DataFrame:
    return papers.assign(theme=papers["topic"].map(corpus.labels).fillna("unassigned"))


def theme_id(corpus: Corpus, theme: int | str) -> int:
    """A theme by id or by its label (case-insensitive); ValueError naming the closest labels."""
    if isinstance(theme, (int, np.integer)):
        if int(theme) not in corpus.themes.index:
            raise ValueError(f"no theme {theme}; themes are {sorted(corpus.themes.index.tolist())}")
        return int(theme)
    wanted = str(theme).strip().lower()
    chosen = corpus.themes.get(CHOSEN, pd.Series(dtype=str))
    for t, label in corpus.labels.items():
        if wanted in (label.lower(), str(chosen.get(t, label)).lower()):  # as shown, or as topic_info holds it
            return t
    near = [label for label in corpus.labels.values() if wanted in label.lower()]
    raise ValueError(f"no theme labelled {theme!r}" + (f"; did you mean {', '.join(map(repr, near[:5]))}?" if near else ""))


def similar_papers(corpus: Corpus, embeddings: np.ndarray, paper_id: str, k: int = 10) -> pd.DataFrame:
    """The ``k`` papers nearest ``paper_id`` by cosine of their embeddings (rows of ``embeddings``
    are the papers of ``corpus``, in order), most similar first, with their theme and week."""
    papers = corpus.papers
    rows = np.flatnonzero(papers[Papers.paper_id].to_numpy() == paper_id)
    if not len(rows):
        raise ValueError(f"no paper {paper_id!r} in the corpus")
    if len(embeddings) != len(papers):
        raise ValueError(f"{len(embeddings)} embeddings for {len(papers)} papers")
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True).clip(1e-12)
    cosine = unit @ unit[rows[0]]
    order = [i for i in np.argsort(-cosine, kind="stable") if i != rows[0]][:k]
    return _with_theme(corpus, papers.iloc[order])[SHOWN].assign(similarity=cosine[order].round(3)).reset_index(drop=True)


def theme_weeks(corpus: Corpus, theme: int | str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One theme week by week: (papers and share of the week's papers, every Monday from its first
    paper to the corpus's last week; its papers, newest first)."""
    t = theme_id(corpus, theme)
    papers = corpus.papers
    mine = papers[papers["topic"] == t]
    if mine.empty:
        return pd.DataFrame(columns=["week", "papers", "share"]), mine[SHOWN[:2] + [Papers.week]]
    mondays = pd.date_range(mine[Papers.week_start].min(), papers[Papers.week_start].max(), freq="7D")
    count = mine.groupby(Papers.week_start).size().reindex(mondays, fill_value=0)
    total = papers.groupby(Papers.week_start).size().reindex(mondays, fill_value=0)
    series = pd.DataFrame({"week": [f"{m.isocalendar().year}-W{m.isocalendar().week:02d}" for m in mondays],
                           "papers": count.to_numpy(), "share": (count / total.where(total > 0)).fillna(0).round(4).to_numpy()})
    listed = mine.sort_values([Papers.published, Papers.paper_id], ascending=[False, True])
    return series, listed[[Papers.paper_id, Papers.title, Papers.week, Papers.primary_category]].reset_index(drop=True)


def compare_themes(corpus: Corpus, a: int | str, b: int | str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two themes side by side: (weekly papers of each; a table of size, first week, label support,
    top categories and keywords of each)."""
    ta, tb = theme_id(corpus, a), theme_id(corpus, b)
    labels = corpus.labels
    papers = corpus.papers
    both = papers[papers["topic"].isin([ta, tb])]
    weekly = both.groupby([Papers.week, "topic"]).size().unstack(fill_value=0).reindex(columns=[ta, tb], fill_value=0)
    weekly = weekly.reindex(sorted(papers[Papers.week].unique()), fill_value=0)
    weekly.columns = [labels[ta], labels[tb]]
    rows = {}
    for t in (ta, tb):
        info = corpus.themes.loc[t]
        mine = papers[papers["topic"] == t]
        rows[labels[t]] = {
            "papers": len(mine), "first week": info[TopicInfo.first_week], "area": info[TopicInfo.area_label],
            "label support": info[TopicInfo.label_support],
            "top categories": ", ".join(mine[Papers.primary_category].dropna().value_counts().head(3).index),
            "keywords": ", ".join(list(info[TopicInfo.keywords])[:6]), "description": info[TopicInfo.description],
        }
    return weekly.rename_axis("week"), pd.DataFrame(rows)


def phrase_matches(corpus: Corpus, phrase: str) -> pd.Series:
    """Which papers use ``phrase`` (case-insensitive, whole words) in their title or abstract."""
    words = phrase.split()
    if not words:
        raise ValueError("an empty phrase matches nothing")
    pattern = re.compile(r"(?<!\w)" + r"[\s-]+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE)
    text = corpus.papers[Papers.title] + "\n" + corpus.papers[Papers.abstract]
    return text.map(lambda s: bool(pattern.search(s)))


def phrase_by_theme_and_week(corpus: Corpus, phrase: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Where and when a phrase is used: (papers using it per theme and week, themes by total, largest
    first, with an ``all`` column; the papers using it, newest first)."""
    papers = _with_theme(corpus, corpus.papers)
    hit = papers[phrase_matches(corpus, phrase).to_numpy()]
    if hit.empty:
        return pd.DataFrame(), hit[SHOWN]
    table = hit.groupby(["theme", Papers.week]).size().unstack(fill_value=0)
    table = table.assign(all=table.sum(axis=1)).sort_values("all", ascending=False, kind="stable")
    listed = hit.sort_values([Papers.published, Papers.paper_id], ascending=[False, True])[SHOWN]
    return table, listed.reset_index(drop=True)


def theme_history(corpus: Corpus, theme: int | str) -> pd.DataFrame:
    """Every lineage row that involves the theme (born, matched, split, merged, retired), oldest first,
    with the other theme's label where there is one."""
    t = theme_id(corpus, theme)
    lineage = corpus.lineage
    if lineage.empty:
        return pd.DataFrame(columns=["run", "mode", "week", "relation", "from", "to", "shared_papers"])
    rows = lineage[(lineage["from_topic"] == t) | (lineage["to_topic"] == t)].sort_values("run", kind="stable")
    name = corpus.labels
    return pd.DataFrame({
        "run": rows["run"], "mode": rows.get("mode"), "week": rows.get("week"), "relation": rows["relation"],
        "from": rows["from_topic"].map(lambda v: None if pd.isna(v) else name.get(int(v), f"theme {int(v)}")),
        "to": rows["to_topic"].map(lambda v: None if pd.isna(v) else name.get(int(v), f"theme {int(v)}")),
        "shared_papers": rows["shared_papers"],
    }).reset_index(drop=True)


def as_csv(table: pd.DataFrame) -> str:
    """A table as CSV text: lists become ``; ``-joined strings, times ISO 8601, the index a column
    when it is named."""
    out = table.reset_index() if any(n is not None for n in table.index.names) else table
    out = out.apply(lambda column: column.map(lambda v: "; ".join(map(str, v))
                                              if isinstance(v, (list, tuple, np.ndarray)) else v))
    return out.to_csv(index=False, date_format="%Y-%m-%dT%H:%M:%SZ")


def export_csv(table: pd.DataFrame, path: Path) -> Path:
    """Write ``table`` (``as_csv``) to ``path``, whole or not at all; returns the path."""
    from pipeline.io import write_text

    write_text(Path(path), as_csv(table))
    return Path(path)
