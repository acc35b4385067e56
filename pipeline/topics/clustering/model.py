"""The theme model: cluster the papers, place them, name the themes, merge those that cannot be
named apart, and describe each theme by its keywords.

``ThemeModel`` follows scikit-learn's conventions: the constructor stores its config, ``fit`` returns
``self``, learned attributes end in ``_``. ``fit`` is a short sequence of steps, each a function of
this module or of ``clustering.py`` that takes values and returns one:

1. ``clustering.cluster``: Leiden communities of the neighbour graph (or UMAP + HDBSCAN), cut to
   ``max_theme_share`` of the papers;
2. ``place``: centroids, and the papers left unassigned join their nearest theme until at most
   ``max_outlier_share`` stay unassigned, within the size bound;
3. ``name``: labels, descriptions, label support (``label.py``);
4. ``consolidate``: a theme that cannot be named apart from its neighbours (no phrase of its own lies
   nearest its centroid, or the best one fits under ``min_label_support`` of its papers) joins the
   neighbour it is most linked to while that stays within the bound, or dissolves into its
   neighbours; then 2 and 3 again, up to ``CONSOLIDATION_ROUNDS`` times;
5. ``keywords``: c-TF-IDF on each theme's core (HDBSCAN's clustered papers; Leiden's most central
   ``KEYWORD_CORE``), so outliers and borders do not blur them, ordered by coverage of its papers.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.clustering.components import Clustering, Sizes, cluster, scaled
from pipeline.topics.naming.label import name_groups
from pipeline.topics.clustering.placement import (
    bound_sizes,
    centroids_of,
    nearest,
    reassign_outliers,
    similarity_to_own,
    size_bound,
    unit,
)
from pipeline.topics.naming.vocabulary import (
    TOP_WORDS,
    ctfidf_words,
    plain_vectorizer,
    rerank_by_coverage,
    stop_words,
)
from pipeline.topics.naming.words import LabelCorpus
from pipeline.topics.naming.words import Embed

log = logging.getLogger(__name__)

KEYWORD_CORE = 0.6  # Leiden: a theme's keywords come from this share of its papers, the most central
CONSOLIDATION_ROUNDS = 5  # rounds of merging themes that cannot be named apart


@dataclass(frozen=True)
class Texts:
    """The papers as the naming steps read them: text, title, the word index, the embedding model."""

    docs: list[str]
    titles: list[str]
    corpus: LabelCorpus
    embed: Embed | None = None


@dataclass(frozen=True)
class Placement:
    """The themes of a clustering ``core`` (-1: outlier) with every paper placed: ``topics`` (-1:
    still unassigned), the theme ids, centroids (rows in ``ids`` order), each paper's similarity to
    its theme, sizes and representative papers (row indices, most typical first)."""

    core: np.ndarray
    topics: np.ndarray
    ids: np.ndarray
    centroids: np.ndarray
    similarity: np.ndarray
    sizes: dict[int, int]
    representatives: dict[int, list[int]]


@dataclass(frozen=True)
class Naming:
    labels: dict[int, str]
    descriptions: dict[int, str]
    support: dict[int, float]  # share of the theme's papers that write the label
    faithful: dict[int, bool | None]  # the label lies nearest its own theme (None: not checked)
    complements: dict[int, str] = field(default_factory=dict)  # the phrase shown beside a label part of the theme writes ("": none)


def place(embeddings: np.ndarray, core: np.ndarray, bound: int, cfg: TopicsConfig) -> Placement:
    """Centroids of the clusters of ``core``; outliers join their nearest theme (``min_similarity``,
    ``max_outlier_share``), and those beyond the size ``bound`` their next theme with room."""
    ids = np.array(sorted(set(core.tolist()) - {-1}), dtype=int)
    centroids = centroids_of(embeddings, core, ids.tolist())
    near, best = nearest(embeddings, centroids, ids)
    topics = reassign_outliers(core, best, near, cfg.min_similarity, cfg.max_outlier_share)
    sims = embeddings @ centroids.T
    topics = bound_sizes(topics, core == -1, lambda rows: sims[rows], ids, bound)
    similarity = similarity_to_own(embeddings, topics, ids, centroids, best)
    sizes, representatives = {}, {}
    for t in ids.tolist():
        members = np.flatnonzero(topics == t)
        sizes[t] = len(members)
        order = np.argsort(-similarity[members], kind="stable")
        representatives[t] = members[order[: cfg.n_representatives]].tolist()
    return Placement(core, topics, ids, centroids, similarity, sizes, representatives)


def name(texts: Texts, placement: Placement, floor: float) -> Naming:
    """Labels, descriptions, label support and faithfulness of the placed themes (``label.py``)."""
    named = name_groups(texts.docs, texts.titles, placement.topics, placement.ids.tolist(), placement.centroids,
                        texts.corpus.stop, embed=texts.embed, corpus=texts.corpus, floor=floor)
    return Naming({t: named[t].label for t in named}, {t: named[t].description for t in named},
                  {t: named[t].support for t in named}, {t: named[t].faithful for t in named},
                  {t: named[t].complement for t in named})


def links(graph, placement: Placement) -> np.ndarray:  # noqa: ANN001 - a scipy sparse matrix
    """Theme x theme: the weight of the clustering graph's edges between their papers."""
    from scipy import sparse

    topics, ids = placement.topics, placement.ids
    placed = np.flatnonzero(topics != -1)
    member = sparse.csr_matrix((np.ones(len(placed)), (placed, np.searchsorted(ids, topics[placed]))),
                               shape=(len(topics), len(ids)))
    return (member.T @ graph @ member).toarray()


def consolidate(placement: Placement, naming: Naming, bound: int, floor: float,
                linked: np.ndarray | None = None) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """A new clustering in which each theme that cannot be named (unfaithful label, or support under
    ``floor``) joins the first of its three nearest themes (most ``linked`` in the clustering's
    graph, else nearest centroids) that stays within ``bound``, or else dissolves (its papers become
    outliers, which then join their nearest theme); with the (theme, into) pairs, into -1 for a
    dissolved theme. None when every theme can be named. Smallest themes go first; a theme that
    took another one in this round takes no second; the last theme left never dissolves."""
    ids = placement.ids.tolist()
    weak = [t for t in ids if naming.faithful[t] is False or naming.support[t] < floor]
    if not weak or len(ids) < 2:
        return None
    sizes = dict(placement.sizes)
    core = np.where(placement.core != -1, placement.topics, -1)
    touched: set[int] = set()
    merged: list[tuple[int, int]] = []
    for t in sorted(weak, key=lambda t: (sizes[t], t)):
        if t in touched:
            continue
        sims = placement.centroids @ placement.centroids[ids.index(t)]
        # most linked first; themes equally linked (none at all, say) by their centroids
        order = np.lexsort((-sims, -linked[ids.index(t)])) if linked is not None else np.argsort(-sims, kind="stable")
        neighbours = [ids[j] for j in order if ids[j] != t][:3]
        into = next((u for u in neighbours if u not in touched and sizes[u] + sizes[t] <= bound), None)
        if into is None and len(set(core.tolist()) - {-1, t}) == 0:
            continue  # the last theme left never dissolves
        into = -1 if into is None else into
        core[core == t] = into
        touched.add(t)
        if into != -1:
            touched.add(into)
            sizes[into] += sizes[t]
        merged.append((t, into))
    return (core, merged) if touched else None


def central(core: np.ndarray, similarity: np.ndarray) -> np.ndarray:
    """``core`` with only the ``KEYWORD_CORE`` share of each theme's papers most similar to its
    centroid left in it. Leiden puts every paper in a theme, and keywords drawn from all of them,
    borders included, co-occur less than those of HDBSCAN's core. The saved BERTopic model is told
    this core, so its ``topics_`` and topic sizes count only these papers, as they count HDBSCAN's."""
    kept = np.full_like(core, -1)
    for t in set(core.tolist()) - {-1}:
        rows = np.flatnonzero(core == t)
        order = np.argsort(-similarity[rows], kind="stable")
        keep = rows[order[: max(1, int(np.ceil(KEYWORD_CORE * len(rows))))]]
        kept[keep] = t
    return kept


def renumbered(core: np.ndarray) -> np.ndarray:
    """Theme numbers without gaps (BERTopic indexes its topic embeddings by number)."""
    ids = sorted(set(core.tolist()) - {-1})
    return np.array([ids.index(t) if t != -1 else -1 for t in core.tolist()], dtype=int)


def refresh_bertopic(model, docs: list[str], embeddings: np.ndarray, core: np.ndarray) -> None:  # noqa: ANN001
    """Tell the fitted BERTopic ``model`` about a changed clustering: c-TF-IDF words and topic
    embeddings (centroids) of the themes in ``core``."""
    from bertopic.vectorizers import ClassTfidfTransformer

    if list(model.topics_) == core.tolist():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("BERTopic").setLevel(logging.ERROR)
        model.update_topics(docs, topics=core.tolist(), vectorizer_model=model.vectorizer_model,
                            ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True), top_n_words=TOP_WORDS)
    model.topic_embeddings_ = np.stack([embeddings[core == t].mean(axis=0) for t in sorted(set(core.tolist()))])


def keywords(texts: Texts, embeddings: np.ndarray, core: np.ndarray, topics: np.ndarray, bertopic,  # noqa: ANN001
             cfg: TopicsConfig) -> tuple[dict, dict]:
    """c-TF-IDF keywords of the themes of ``core`` (BERTopic's, told about the final clustering,
    when there is a BERTopic model), and the same ordered by coverage of each theme's papers."""
    if bertopic is not None:
        refresh_bertopic(bertopic, texts.docs, embeddings, core)
        words = {int(t): [(w, float(s)) for w, s in bertopic.get_topic(int(t)) if w]
                 for t in sorted(set(core.tolist()) - {-1})}
    else:
        words = ctfidf_words(texts.docs, core, cfg)
    return words, rerank_by_coverage(words, texts.docs, topics, cfg)


# the [topics] settings the theme model reads: its named parameters, defaults as in TopicsConfig
MODEL_SETTINGS = ("clustering", "clustering_device", "n_neighbors", "n_components", "min_cluster_size", "min_samples",
                  "resolution", "graph_neighbors", "bertopic_min_papers", "max_theme_share", "min_similarity",
                  "max_outlier_share", "min_label_support", "n_keywords", "n_representatives", "stop_words", "min_df",
                  "max_df", "ngram_max", "seed")
_D = TopicsConfig()


class ThemeModel:
    """Cluster papers into themes and describe each theme.

    Parameters: the ``[topics]`` settings it reads, by name (``MODEL_SETTINGS``; the defaults are
    ``TopicsConfig``'s), as scikit-learn's estimators and ``graph.LeidenThemes`` take theirs;
    ``ThemeModel.from_config(cfg)`` takes them from a configuration, ``set_params`` changes some.

    Learned: ``topics_`` (theme per paper, -1 unassigned), ``core_`` (papers the clustering put in a
    theme), ``similarity_`` (cosine to the assigned theme's centroid), ``topic_ids_``, ``centroids_``,
    ``words_`` (theme -> [(term, score)], best first), ``ctfidf_words_`` (the same before ordering by
    coverage), ``labels_``, ``descriptions_``, ``label_support_``, ``label_faithful_``,
    ``representatives_`` (theme -> row indices), ``sizes_`` (the clustering sizes, ``scaled``),
    ``sizes_by_topic_``, ``max_theme_size_``, ``merged_`` ((theme, into) pairs while naming; into
    -1: dissolved), ``clusters_`` (the clustering before any merge, -1 for outliers), ``clustered_``,
    ``bertopic_`` (the fitted BERTopic model, or None), ``label_corpus_`` (the papers as prepared
    for naming, reused for the areas).
    """

    def __init__(self, *, clustering: str = _D.clustering, clustering_device: str = _D.clustering_device,
                 n_neighbors: int | None = _D.n_neighbors, n_components: int = _D.n_components,
                 min_cluster_size: int | None = _D.min_cluster_size, min_samples: int | None = _D.min_samples,
                 resolution: float = _D.resolution, graph_neighbors: int = _D.graph_neighbors,
                 bertopic_min_papers: int = _D.bertopic_min_papers, max_theme_share: float = _D.max_theme_share,
                 min_similarity: float = _D.min_similarity, max_outlier_share: float = _D.max_outlier_share,
                 min_label_support: float = _D.min_label_support, n_keywords: int = _D.n_keywords,
                 n_representatives: int = _D.n_representatives, stop_words: tuple[str, ...] = _D.stop_words,
                 min_df: int | None = _D.min_df, max_df: float = _D.max_df, ngram_max: int = _D.ngram_max,
                 seed: int = _D.seed) -> None:
        self.clustering, self.clustering_device = clustering, clustering_device
        self.n_neighbors, self.n_components, self.min_cluster_size = n_neighbors, n_components, min_cluster_size
        self.min_samples, self.resolution, self.graph_neighbors = min_samples, resolution, graph_neighbors
        self.bertopic_min_papers, self.max_theme_share = bertopic_min_papers, max_theme_share
        self.min_similarity, self.max_outlier_share = min_similarity, max_outlier_share
        self.min_label_support, self.n_keywords, self.n_representatives = min_label_support, n_keywords, n_representatives
        self.stop_words, self.min_df, self.max_df, self.ngram_max = stop_words, min_df, max_df, ngram_max
        self.seed = seed

    @classmethod
    def from_config(cls, cfg: TopicsConfig) -> ThemeModel:
        """The model with the ``[topics]`` settings it reads (``MODEL_SETTINGS``)."""
        return cls(**{name: getattr(cfg, name) for name in MODEL_SETTINGS})

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in MODEL_SETTINGS}

    def set_params(self, **params) -> ThemeModel:  # noqa: ANN003
        unknown = set(params) - set(MODEL_SETTINGS)
        if unknown:
            raise ValueError(f"ThemeModel has no parameter {', '.join(sorted(unknown))}")
        for name, value in params.items():
            setattr(self, name, value)
        return self

    @property
    def cfg(self) -> TopicsConfig:
        """The parameters as the clustering and naming steps read them (validated as ``[topics]`` is)."""
        return TopicsConfig(**self.get_params())

    def fit(self, docs: list[str], embeddings: np.ndarray, *, titles: list[str] | None = None,
            embed: Embed | None = None) -> ThemeModel:
        """Cluster ``docs`` (title and abstract) by their ``embeddings`` and name the themes (the
        steps of the module docstring). ``titles`` weigh more in the labels (default: the text
        before the first ". "); ``embed`` (the papers' embedding model) checks that each label lies
        nearest its own theme."""
        cfg = self.cfg
        embeddings = unit(np.asarray(embeddings, dtype=np.float32))
        titles = titles if titles is not None else [d.split(". ", 1)[0] for d in docs]
        texts = Texts(docs, titles, LabelCorpus(docs, titles, stop_words(cfg.stop_words)), embed)
        sizes = scaled(len(docs), cfg)
        bound = size_bound(len(docs), cfg.max_theme_share)
        clustering = cluster(docs, embeddings, sizes, bound, cfg)
        core = clustering.core
        placement = place(embeddings, core, bound, cfg)
        naming = name(texts, placement, cfg.min_label_support)
        merged: list[tuple[int, int]] = []
        for _ in range(CONSOLIDATION_ROUNDS if clustering.clustered else 0):
            linked = links(clustering.graph, placement) if clustering.graph is not None else None
            step = consolidate(placement, naming, bound, cfg.min_label_support, linked)
            if step is None:
                break
            core, pairs = step
            merged += pairs
            placement = place(embeddings, core, bound, cfg)
            naming = name(texts, placement, cfg.min_label_support)
        if merged:
            core = renumbered(core)
            placement = place(embeddings, core, bound, cfg)
            naming = name(texts, placement, cfg.min_label_support)
        keyword_core = central(core, placement.similarity) if clustering.graph is not None else core
        ctfidf, words = keywords(texts, embeddings, keyword_core, placement.topics, clustering.bertopic, cfg)
        self._learn(clustering, sizes, bound, placement, naming, merged, ctfidf, words, texts.corpus)
        return self

    def _learn(self, clustering: Clustering, sizes: Sizes, bound: int, placement: Placement, naming: Naming,
               merged: list[tuple[int, int]], ctfidf: dict, words: dict, corpus: LabelCorpus) -> None:
        """The learned attributes, from the values ``fit`` computed."""
        self.clusters_, self.clustered_, self.sizes_, self.max_theme_size_ = (
            clustering.core.copy(), clustering.clustered, sizes, bound)
        self.core_, self.topics_, self.topic_ids_ = placement.core != -1, placement.topics, placement.ids
        self.centroids_, self.similarity_ = placement.centroids, placement.similarity
        self.sizes_by_topic_, self.representatives_ = placement.sizes, placement.representatives
        self.labels_, self.descriptions_ = naming.labels, naming.descriptions
        self.label_support_, self.label_faithful_ = naming.support, naming.faithful
        self.label_complements_ = naming.complements
        self.merged_, self.ctfidf_words_, self.words_, self.label_corpus_ = merged, ctfidf, words, corpus
        self.bertopic_ = clustering.bertopic
        if self.bertopic_ is not None:
            self.bertopic_.vectorizer_model = plain_vectorizer(self.bertopic_.vectorizer_model)
            if clustering.graph is not None:  # the fitted clusterer's graph and layout are not saved
                self.bertopic_.hdbscan_model.graph_ = self.bertopic_.hdbscan_model.layout = None

    def keywords(self, topic: int) -> list[str]:
        return [w for w, _ in self.words_[topic][: self.n_keywords]]
