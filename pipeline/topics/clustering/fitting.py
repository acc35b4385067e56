"""Fit and refit: cluster every paper (``model.ThemeModel``), cut the areas above the themes (named
with the rest of the run, ``names.py``), and on a refit match the new themes to the old ones
(``align.py``) so persisting themes keep their ids and labels; with ``refit_keeps_placed`` placed
papers move only into new or split themes that lie apart from the rest of their theme."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.naming import lifecycle
from pipeline.topics.state import RunResult, Change, State, described, utc_now
from pipeline.topics.clustering.refit import keep_placed
from pipeline.topics.naming.words import Embed

log = logging.getLogger(__name__)

Nearest = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]  # papers, centroids, ids


def fit(texts: list[str], embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig,
        embedder: str, previous: State | None, previous_topics: dict[str, int], *,
        titles: list[str] | None = None, embed: Embed | None = None, nearest_themes: Nearest | None = None,
        week: str | None = "") -> RunResult:
    """Cluster everything and name the themes; with a previous state, align to it (refit). The areas
    are cut but not named: ``result.to_name`` asks for it (``names.name_run``). ``week``: the newest
    week of the papers, from which the themes' age counts (``State.fitted_week``). ``embed`` (the
    papers' model) checks the labels' faithfulness; ``titles`` weigh more in them. A corpus larger than
    ``fit_sample_size`` is fitted on a sample of that many papers (``fit_sample``) and the rest are
    placed (``place_rest``, through ``nearest_themes``: ``placement.nearest`` or its cluster twin)."""
    if not (cfg.fit_sample_size and len(texts) > cfg.fit_sample_size):
        return fit_all(texts, embeddings, paper_ids, cfg, embedder, previous, previous_topics, titles=titles,
                       embed=embed, week=week)
    sample = fit_sample(paper_ids, cfg, previous, previous_topics)
    log.info("topics: fitting on a sample of %d of %d papers, then placing the rest", len(sample), len(texts))
    fitted = fit_all([texts[i] for i in sample], embeddings[sample], [paper_ids[i] for i in sample], cfg, embedder,
                     previous, previous_topics, titles=[titles[i] for i in sample] if titles is not None else None,
                     embed=embed, week=week)
    return place_rest(fitted, sample, embeddings, paper_ids, cfg, previous_topics if previous else {},
                      nearest_themes=nearest_themes)


def fit_sample(paper_ids: list[str], cfg: TopicsConfig, previous: State | None,
               previous_topics: dict[str, int]) -> np.ndarray:
    """The rows a sampled fit clusters (sorted): ``sample_rows``, and on a refit that keeps history one
    paper of each theme that holds papers and that the sample missed, so the refit keeps it."""
    sample = sample_rows(paper_ids, cfg.fit_sample_size, cfg.seed)
    if previous is not None and previous_topics and cfg.refit_keeps_placed:
        rng = np.random.default_rng(cfg.seed)
        held = np.array([previous_topics.get(p, -1) for p in paper_ids])
        missing = np.setdiff1d(np.intersect1d(held[held >= 0], previous.ids), held[sample])
        extra = [rng.choice(np.flatnonzero(held == t)) for t in missing.tolist()]
        sample = np.concatenate([sample, np.asarray(extra, dtype=np.int64)])
    return np.sort(sample).astype(np.int64)


@dataclass(frozen=True)
class Identities:
    """What a fit's themes are called: the model's theme -> its id, the lineage, each id's label, the next free id."""

    ids: dict[int, int]
    lineage: list[Change]
    labels: dict[int, str]
    next_id: int


def fit_all(texts: list[str], embeddings: np.ndarray, paper_ids: list[str], cfg: TopicsConfig,
            embedder: str, previous: State | None, previous_topics: dict[str, int], *,
            titles: list[str] | None = None, embed: Embed | None = None, week: str | None = "") -> RunResult:
    """``fit`` of every paper given, no sample: cluster, identify (``identities``), keep what was
    placed (``keep_placed``), measure kept labels anew, and cut the areas."""
    from pipeline.topics.clustering.areas import cut
    from pipeline.topics.clustering.model import ThemeModel

    model = ThemeModel.from_config(cfg).fit(texts, embeddings, titles=titles, embed=embed)
    old_topics = np.array([previous_topics.get(p, -1) for p in paper_ids]) if previous is not None else None
    named = identities(model, embeddings, paper_ids, old_topics, previous, embedder, cfg.align_threshold)
    state = _state_of(model, named, embedder, week, previous, embeddings.shape[1])
    topics = np.array([named.ids.get(int(t), -1) if t != -1 else -1 for t in model.topics_], dtype=int)
    similarity, lineage = model.similarity_, named.lineage
    receiving: dict[int, set[int] | None] = {}
    revived: set[int] = set()
    if previous is not None and cfg.refit_keeps_placed:
        before = topics
        kept = keep_placed(topics, old_topics, state, lineage, cfg, previous, embeddings)
        topics, lineage, receiving, revived = kept.topics, kept.lineage, kept.receiving, kept.revived
        if kept.changed:
            similarity = _recentre(state, topics, embeddings, cfg, candidates=(topics == -1) & (before != -1),
                                   changed=kept.changed)
    names = model.label_corpus_
    if previous is not None:  # a kept label's support is measured anew
        from pipeline.topics.naming.words import content_words

        from pipeline.topics.naming.complement import complement_of

        for t in state.ids.tolist():
            members = np.flatnonzero(topics == t)
            state.support[t] = names.doc_index.share(content_words(state.labels[t], names.stop), set(members.tolist()))
            state.complements[t] = complement_of(state.labels[t], members, names)
    areas = dataclasses.replace(cut(state, topics, embeddings, paper_ids, previous=previous,
                                    previous_topics=previous_topics), corpus=names)
    return RunResult(topics, similarity, state, lineage, "refit" if previous else "fit", model.bertopic_,
                      receiving=receiving, revived=revived, to_name=[areas])


def identities(model, embeddings: np.ndarray, paper_ids: list[str], old_topics: np.ndarray | None,  # noqa: ANN001
               previous: State | None, embedder: str, threshold: float) -> Identities:
    """A fit's themes as ids and labels: on a first fit the model's own; on a refit matched to the old
    themes (``align``), whose centroids are recomputed from today's embeddings of their papers where
    possible, a matched theme keeping its id and label."""
    from pipeline.topics.clustering.align import Themes, align
    from pipeline.topics.clustering.placement import centroids_of

    if previous is None:
        ids = {int(t): int(t) for t in model.topic_ids_}
        return Identities(ids, [Change(None, t, "new") for t in ids.values()], {ids[t]: model.labels_[t] for t in ids},
                          max(ids.values(), default=-1) + 1)
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
        threshold=threshold, next_id=previous.next_id,
    )
    ids = result.ids
    labels = lifecycle.carried(model.labels_, {t: previous.labels[old] for t, old in result.matched.items()},
                               model.words_, ids)
    return Identities(ids, result.lineage, labels, max([previous.next_id, *[i + 1 for i in ids.values()]]))


def _state_of(model, named: Identities, embedder: str, week: str | None, previous: State | None,  # noqa: ANN001
              dim: int) -> State:
    """The state a fit leaves: its themes in id order, with their centroids, words, labels, descriptions
    and label support; a theme born in a weekly update keeps its birth week."""
    ids, labels = named.ids, named.labels
    order = sorted(ids, key=lambda t: ids[t])
    state = State(
        ids=np.array([ids[t] for t in order], dtype=int),
        centroids=model.centroids_[[model.topic_ids_.tolist().index(t) for t in order]] if order
        else np.zeros((0, dim), np.float32),
        words={ids[t]: model.words_[t] for t in order}, labels=labels, embedder=embedder,
        next_id=named.next_id, fitted_at=utc_now(), descriptions={ids[t]: described(labels[ids[t]], model.descriptions_[t])
                                                                 for t in order},
        support={ids[t]: float(model.label_support_[t]) for t in order}, fitted_week=week,
        complements={ids[t]: model.label_complements_.get(t, "") for t in order},
    )
    if previous is not None:
        state.born = {t: w for t, w in previous.born.items() if t in set(state.ids.tolist())}
    return state


def sample_rows(paper_ids: list[str], size: int, seed: int) -> np.ndarray:
    """The rows of the ``size`` papers a sampled fit clusters (sorted): those whose ids hash lowest
    under ``seed``. A paper is in the sample or not by its own id, wherever it sits in the corpus, so
    a corpus that grew by a week is sampled almost as before (the new papers take the places of
    about as many old ones, in proportion) and a refit clusters nearly the same papers again."""
    import pandas as pd

    if size >= len(paper_ids):
        return np.arange(len(paper_ids), dtype=np.int64)
    keys = pd.util.hash_array(np.array([f"{seed}:{p}" for p in paper_ids], dtype=object))
    return np.sort(np.argpartition(keys, size - 1)[:size]).astype(np.int64)


def place_rest(fitted: RunResult, sample: np.ndarray, embeddings: np.ndarray, paper_ids: list[str],
               cfg: TopicsConfig, previous_topics: dict[str, int], *,
               nearest_themes: Nearest | None = None) -> RunResult:
    """Extend a fit of the papers at rows ``sample`` to every paper: each other paper joins its
    nearest theme (cosine to the centroid) if at least ``min_similarity`` similar, then the most
    similar join until at most ``max_outlier_share`` of all papers stay unassigned, as HDBSCAN's
    outliers do. On a refit that keeps history, a paper placed before stays in its theme if the
    theme persists, unless its nearest theme is one the refit found new, or split off the paper's
    own theme, and the refit did not refuse that move for the sample's papers of its theme (a
    re-cut, see ``keep_placed``; ``fitted.receiving``): there it goes, as the sample's papers do. A previous theme the
    refit revived is centred on all its papers. The size bound (``max_theme_share`` of all papers)
    holds as in a fit: the least similar papers placed here beyond it join their next most similar
    theme with room; the sample's papers and those kept from before never move. The areas and
    label support are those of the sample."""
    from pipeline.topics.clustering.placement import bound_sizes, nearest, similarity_to_own, size_bound
    from pipeline.topics.clustering.placement import unit as _unit

    state = fitted.state
    topics = np.full(len(embeddings), -1, dtype=int)
    topics[sample] = fitted.topics
    rest = np.ones(len(embeddings), dtype=bool)
    rest[sample] = False
    kept = keep = None
    if previous_topics and cfg.refit_keeps_placed:
        kept = np.array([previous_topics.get(p, -1) for p in paper_ids])
        keep = rest & np.isin(kept, state.ids)
        topics[keep] = kept[keep]
        rest &= ~keep
        if fitted.revived:  # a revived theme is centred on all its papers, not on the few sampled
            state.centroids = state.centroids.copy()
            for j, t in enumerate(state.ids.tolist()):
                if t in fitted.revived and (topics == t).any():
                    state.centroids[j] = _unit(embeddings[topics == t].mean(axis=0, keepdims=True))[0]
    # each paper's nearest theme, once
    near, best = (nearest_themes or nearest)(embeddings, state.centroids, state.ids)
    if keep is not None and fitted.receiving:
        rows, allowed = np.flatnonzero(keep), fitted.receiving
        move = np.array([t in allowed and (allowed[t] is None or old in allowed[t])
                         for old, t in zip(kept[rows].tolist(), near[rows].tolist())], dtype=bool)
        topics[rows[move]] = near[rows[move]]
    topics, similarity = _join_nearest(state, topics, embeddings, cfg, rest | (topics == -1),
                                       lambda *_: (near, best))
    # the size bound of a fit, over the whole corpus: placed papers beyond it go to their next theme
    bounded = bound_sizes(topics, rest, lambda rows: np.asarray(embeddings[rows], dtype=np.float32) @ state.centroids.T,
                          state.ids, size_bound(len(embeddings), cfg.max_theme_share))
    if (bounded != topics).any():
        topics, similarity = bounded, similarity_to_own(embeddings, bounded, state.ids, state.centroids, best)
    # the areas were cut, and are named, on the sample's papers
    to_name = [dataclasses.replace(job, rows=sample[job.rows]) for job in fitted.to_name]
    return RunResult(topics, similarity, state, fitted.lineage, fitted.mode, fitted.bertopic, to_name=to_name)


def _join_nearest(state: State, topics: np.ndarray, embeddings: np.ndarray, cfg: TopicsConfig,
                  candidates: np.ndarray, nearest_themes: Nearest) -> tuple[np.ndarray, np.ndarray]:
    """``candidates`` that are unassigned join their nearest theme of ``state`` under the outlier
    rules (``placement.reassign_outliers``); returns the assignment and each paper's similarity to
    its theme (to the nearest one where it stays unassigned)."""
    from pipeline.topics.clustering.placement import reassign_outliers, similarity_to_own

    near, best = nearest_themes(embeddings, state.centroids, state.ids)
    topics = reassign_outliers(topics, best, near, cfg.min_similarity, cfg.max_outlier_share, candidates=candidates)
    return topics, similarity_to_own(embeddings, topics, state.ids, state.centroids, best)


def _recentre(state: State, topics: np.ndarray, embeddings: np.ndarray, cfg: TopicsConfig,
              candidates: np.ndarray, changed: set[int]) -> np.ndarray:
    """Centroids of the ``changed`` themes from ``topics`` (changed in place: ``candidates``, papers
    of dropped themes, join their nearest theme as outliers do); returns each paper's similarity."""
    from pipeline.topics.clustering.placement import nearest
    from pipeline.topics.clustering.placement import unit as _unit

    state.centroids = state.centroids.copy()
    for j, t in enumerate(state.ids.tolist()):
        members = topics == t
        if members.any() and t in changed:  # a theme the refit's clustering gave other papers
            state.centroids[j] = _unit(embeddings[members].mean(axis=0, keepdims=True))[0]
    topics[:], similarity = _join_nearest(state, topics, embeddings, cfg, candidates, nearest)
    return similarity
