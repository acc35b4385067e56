"""The theme model: BERTopic over precomputed embeddings, with explicit, seeded components.

``ThemeModel`` follows scikit-learn's conventions: the constructor stores its config, ``fit`` returns
``self``, learned attributes end in ``_``. The clustering (``clustering``: Leiden communities of the
papers' neighbour graph by default, ``graph.py``; or UMAP + HDBSCAN), the vectorizer and c-TF-IDF
are built here rather than left to BERTopic's defaults, and their sizes scale with the corpus
(``scaled``). After clustering, papers left unassigned (communities under the smallest theme, or
HDBSCAN's outliers) join their nearest theme (cosine similarity between the paper's embedding and
the theme's centroid) until at most ``max_outlier_share`` of papers stay unassigned; keywords stay
those of each theme's core (HDBSCAN's clustered papers; Leiden's most central ``KEYWORD_CORE``), so
reassignments and borders do not blur them.

Below ``bertopic_min_papers`` papers (a weekly listing) the same steps run without BERTopic: the
clustering and the c-TF-IDF keywords (``vocabulary.ctfidf_words``, BERTopic's formula) are called
directly, which spares ``import bertopic`` (about 10 s, most of it sentence-transformers); such a
fit saves no BERTopic model. UMAP's numba functions are compiled once per machine and cached
(``_umap_class``), instead of in every process (about 20 s).

On a machine with a CUDA GPU and cuML installed, UMAP and HDBSCAN are cuML's (``on_gpu``,
``topics.clustering_device``), with the same parameters; the Leiden graph and everything after it
stay on the CPU.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.label import Corpus as LabelCorpus
from pipeline.topics.label import Embed, name_groups
from pipeline.topics.placement import bound_sizes, centroids_of, nearest, reassign_outliers, similarity_to_own, size_bound
from pipeline.topics.placement import unit as _unit
from pipeline.topics.vocabulary import (
    TOP_WORDS,
    plain_vectorizer,
    topic_vectorizer_class,
    analyzer,
    candidate_terms,
    ctfidf_words,
    rerank_by_coverage,
    stop_words,
)

log = logging.getLogger(__name__)

SPLIT_MIN, SPLIT_RESOLUTION, SPLIT_SUPPORT, SPLIT_GAIN = 3, 1.0, 0.35, 0.05  # see ThemeModel._split
KEYWORD_CORE = 0.6  # Leiden: a theme's keywords come from this share of its papers, the most central
SMALL_DATA = 4096  # below this many points UMAP computes all pairwise distances instead of NN-descent


def _cache_compiled(prefixes: tuple[str, ...]) -> None:
    """Let numba cache the compiled machine code of every jitted function in the modules under
    ``prefixes`` (umap-learn leaves most without ``cache=True``, so each process compiled them again:
    about 20 s). The code is kept where numba keeps its caches: the package's ``__pycache__``, or
    the user's cache folder (``NUMBA_CACHE_DIR``) when that is not writable."""
    import sys

    from numba.core.registry import CPUDispatcher

    found: dict[object, list] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(prefixes) or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, CPUDispatcher) and type(value._cache).__name__ == "NullCache":
                found.setdefault(value.py_func, []).append(value)
    for twins in found.values():
        # numba's cache key does not include the jit options: of a function jitted both serial and
        # parallel (UMAP's epoch), only the serial one is cached, so the two never share machine code
        if len({id(d) for d in twins}) > 1:
            twins = [d for d in twins if not d.targetoptions.get("parallel")][:1]
        for dispatcher in twins[:1]:
            try:
                dispatcher.enable_caching()
            except RuntimeError:  # no writable place for a cache: compile in every process, as before
                return


@cache
def _umap_class():  # noqa: ANN202 - umap is imported lazily
    from sklearn.metrics.pairwise import euclidean_distances
    from umap import UMAP

    _cache_compiled(("umap",))

    class ThemeUMAP(UMAP):
        """UMAP whose exact small-data path gets its distance matrix from sklearn.

        Under 4,096 points UMAP computes every pairwise distance through a per-pair callback, whatever
        the metric: about 30 s for 4,000 papers. The same matrix from ``euclidean_distances`` takes
        0.2 s and yields the same kind of layout, still seeded and exact (NN-descent would be as fast
        but made two seeds agree less). Such a fit can lay out only the data it was fitted on.
        """

        def fit_transform(self, X, y=None, **kwargs):  # noqa: ANN001, ANN003, ANN201, N803
            X = np.asarray(X)  # noqa: N806
            self.precomputed_ = (self.metric == "euclidean" and len(X) < SMALL_DATA
                                 and not self.force_approximation_algorithm)
            if not self.precomputed_:
                return super().fit_transform(X, y=y, **kwargs)
            self.metric = "precomputed"
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="using precomputed metric")
                    return super().fit_transform(euclidean_distances(X), y=y, **kwargs)
            finally:
                self.metric = "euclidean"

        def transform(self, X):  # noqa: ANN001, ANN201, N803
            if getattr(self, "precomputed_", False):
                raise NotImplementedError("a small-data fit lays out only the papers it was fitted on")
            return super().transform(X)

    return ThemeUMAP


def _cuda_visible() -> bool:
    """Whether a CUDA device is there for cuML (asked through CuPy, which cuML installs)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean no GPU
        return False


def on_gpu(device: str) -> bool:
    """Whether UMAP and HDBSCAN run on cuML for ``topics.clustering_device``: ``"cuda"`` always (an
    error without cuML), ``"auto"`` when cuML is installed and sees a CUDA device, ``"cpu"`` never."""
    import importlib.util

    if device == "cpu":
        return False
    installed = importlib.util.find_spec("cuml") is not None
    if device == "cuda" and not installed:
        raise RuntimeError("topics.clustering_device = 'cuda' needs cuML (pip install cuml-cu12, on a machine "
                           "with a CUDA GPU); use 'auto' or 'cpu' without it")
    if device == "cuda":
        return True
    if not installed or not _cuda_visible():
        return False
    try:  # an installation that cannot load (a driver or CUDA mismatch) leaves "auto" on the CPU
        import cuml  # noqa: F401
    except Exception as error:  # noqa: BLE001
        log.warning("topics: cuML is installed but cannot be imported (%s); UMAP and HDBSCAN run on the CPU", error)
        return False
    return True


@dataclass(frozen=True)
class Sizes:
    n_neighbors: int
    min_cluster_size: int
    min_samples: int
    resolution: float


def scaled(n: int, cfg: TopicsConfig) -> Sizes:
    """Clustering sizes for a corpus of ``n`` papers: a weekly listing of 100 and a year of 40,000
    both get themes of sensible granularity. Explicit config values win.

    The smallest theme is 0.5 % of the papers up to 2,000 papers and grows with the square root
    beyond (14 at 4,000 papers, 45 at 40,000), so a larger corpus is mapped at a finer grain instead
    of in the same number of ever broader themes. Leiden's resolution is the configured one from
    2,000 papers on and falls in proportion below (a twentieth of it at 100 papers), so a weekly
    listing is not cut into crumbs of a handful of papers each.
    Themes then split (size bound) and merge (naming) in ``ThemeModel.fit``."""
    knee = 2000
    min_cluster_size = cfg.min_cluster_size or int(
        np.clip(round(0.005 * min(n, knee) * np.sqrt(max(n, knee) / knee)), 5, 250)
    )
    return Sizes(
        n_neighbors=cfg.n_neighbors or int(np.clip(round(np.sqrt(n) / 4), 5, 30)),
        min_cluster_size=min_cluster_size,
        min_samples=cfg.min_samples or max(2, min_cluster_size // 3),
        resolution=cfg.resolution * min(n, knee) / knee,
    )


class ThemeModel:
    """Cluster papers into themes and describe each theme.

    Learned: ``topics_`` (theme per paper, -1 unassigned), ``core_`` (papers HDBSCAN put in a theme),
    ``similarity_`` (cosine to the assigned theme's centroid), ``topic_ids_``, ``centroids_``,
    ``words_`` (theme -> [(term, c-TF-IDF score)], best first), ``labels_``, ``descriptions_``,
    ``label_support_``, ``label_faithful_``, ``representatives_`` (theme -> row indices), ``sizes_``,
    ``merged_`` (themes merged or dissolved while naming), ``split_`` (themes split into parts,
    with the ids theme and parts had before ``fit`` closed the gaps), ``clusters_`` (the clustering before
    naming merged any theme, -1 for outliers), ``label_corpus_`` (the papers as prepared
    for naming, reused for the areas).
    """

    def __init__(self, cfg: TopicsConfig) -> None:
        self.cfg = cfg

    def _components(self, n: int, candidates: list[str]):  # noqa: ANN202
        from bertopic import BERTopic
        from bertopic.dimensionality import BaseDimensionalityReduction
        from bertopic.vectorizers import ClassTfidfTransformer
        TopicVectorizer = topic_vectorizer_class()  # noqa: N806
        vectorizer = TopicVectorizer(candidates=candidates, topic_max_df=self.cfg.max_df, analyzer=analyzer(self.cfg))
        leiden = self.cfg.clustering == "leiden"  # the graph is built on the vectors (and lays them out itself)
        return BERTopic(
            # not "english": BERTopic would strip hyphens ("test-time" -> "testtime") before counting
            language="multilingual",
            umap_model=BaseDimensionalityReduction() if leiden else self._umap(n),
            hdbscan_model=self._leiden(n) if leiden else self._hdbscan(n),
            vectorizer_model=vectorizer,
            ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True), top_n_words=TOP_WORDS,
            calculate_probabilities=False, verbose=False,
        )

    def _umap(self, n: int, seed: int | None = None):  # noqa: ANN202 - umap is imported lazily
        # Embeddings are unit vectors, so euclidean distance ranks neighbours exactly as cosine does.
        params = dict(n_neighbors=min(self.sizes_.n_neighbors, n - 1), n_components=self.cfg.n_components,
                      min_dist=0.0, metric="euclidean", random_state=self.cfg.seed if seed is None else seed)
        if on_gpu(self.cfg.clustering_device):
            from cuml.manifold import UMAP

            return UMAP(**params, output_type="numpy")
        return _umap_class()(**params, low_memory=False)

    def _hdbscan(self, n: int):  # noqa: ANN202 - hdbscan is imported lazily
        params = dict(
            min_cluster_size=self.sizes_.min_cluster_size, min_samples=self.sizes_.min_samples, metric="euclidean",
            cluster_selection_method="eom", prediction_data=False,
            # on large corpora EOM can now and then pick one giant cluster over the themes inside it
            max_cluster_size=n // 3 if n >= 1000 else 0,
        )
        if on_gpu(self.cfg.clustering_device):
            from cuml.cluster.hdbscan import HDBSCAN as GpuHDBSCAN  # noqa: N811

            return GpuHDBSCAN(**params, output_type="numpy")
        from hdbscan import HDBSCAN

        return HDBSCAN(**params, core_dist_n_jobs=1)

    def _leiden(self, n: int):  # noqa: ANN202
        from pipeline.topics.graph import LeidenThemes

        return LeidenThemes(n_neighbors=self.cfg.graph_neighbors, resolution=self.sizes_.resolution,
                            runs=self.cfg.consensus_runs, min_cluster_size=self.sizes_.min_cluster_size,
                            max_cluster_size=size_bound(n, self.cfg.max_theme_share),
                            layout=[self._umap(n, s) for s in self._layout_seeds()] if self.cfg.graph_layout else None,
                            random_state=self.cfg.seed)

    def _layout_seeds(self) -> list[int]:
        """The seeds of the ``graph_layouts`` UMAP layouts: the model's seed, then seeds drawn from it
        (not seed + 1, ..., which a neighbouring seed would share)."""
        extra = np.random.default_rng(self.cfg.seed).integers(0, 2**31 - 1, size=self.cfg.graph_layouts - 1)
        return [self.cfg.seed, *extra.tolist()]

    def _cluster(self, docs: list[str], embeddings: np.ndarray):  # noqa: ANN202 - a condensed tree
        """The clusters (-1: outlier, the others numbered by size as BERTopic does) and, for
        HDBSCAN, its condensed tree (None for Leiden, whose themes are already within the size
        bound); through BERTopic from ``bertopic_min_papers`` papers on."""
        n = len(docs)
        leiden = self.cfg.clustering == "leiden"
        if n >= self.cfg.bertopic_min_papers:
            self.bertopic_ = self._components(n, candidate_terms(docs, self.cfg))
            core = np.asarray(self.bertopic_.fit_transform(docs, embeddings=embeddings)[0])
            if leiden:
                self._graph = self.bertopic_.hdbscan_model.graph_
            return core, None if leiden else self.bertopic_.hdbscan_model.condensed_tree_
        if leiden:
            clusterer = self._leiden(n).fit(embeddings)
            self._graph = clusterer.graph_
            return clusterer.labels_, None
        clusterer = self._hdbscan(n).fit(self._umap(n).fit_transform(embeddings))
        labels = np.asarray(clusterer.labels_)
        found, counts = np.unique(labels[labels != -1], return_counts=True)
        rank = {int(t): i for i, t in enumerate(found[np.argsort(-counts, kind="stable")])}
        return np.array([rank.get(int(t), -1) for t in labels], dtype=int), clusterer.condensed_tree_

    def fit(self, docs: list[str], embeddings: np.ndarray, *, titles: list[str] | None = None,
            embed: Embed | None = None) -> ThemeModel:
        """Cluster ``docs`` (title and abstract) by their ``embeddings`` and name the themes.

        ``titles`` weigh more in the labels (default: the text before the first ". "); ``embed``
        (the papers' embedding model) checks that each label lies nearest its own theme.

        Steps: BERTopic (Leiden on the neighbour graph, cut to ``max_theme_share``; or UMAP,
        HDBSCAN, then themes above the bound split along HDBSCAN's tree; c-TF-IDF); outliers join
        their nearest theme; labels (``label.py``); with ``split_themes``, themes whose papers come
        apart into better-named parts are replaced by them (``_split``); then themes that cannot be named apart from
        their neighbours (no phrase of theirs lies nearest their own centroid, or the best fits
        under ``min_label_support`` of their papers) merge into a neighbour while it stays under
        the size bound (the one they share most graph edges with, or else the nearest centroids),
        or dissolve into their neighbours."""
        n = len(docs)
        embeddings = _unit(np.asarray(embeddings, dtype=np.float32))
        self._docs, self._embeddings = docs, embeddings
        self._titles = titles if titles is not None else [d.split(". ", 1)[0] for d in docs]
        self._embed = embed
        self.bertopic_ = None
        self._graph = None
        self.merged_ = []  # (theme, into) pairs; into -1: dissolved
        self.sizes_ = scaled(n, self.cfg)
        core, tree = np.zeros(n, dtype=int), None  # too few papers to cluster: one theme
        self.clustered_ = False
        if n >= max(20, 2 * self.sizes_.min_cluster_size):
            core, tree = self._cluster(docs, embeddings)
            self.clustered_ = True
            if (core == -1).all():
                self.bertopic_, core, tree, self.clustered_ = None, np.zeros(n, dtype=int), None, False
        self.max_theme_size_ = size_bound(n, self.cfg.max_theme_share)
        if tree is not None:
            from pipeline.topics.split import CondensedTree, split_large

            core = split_large(core, CondensedTree(tree.to_numpy(), n), self.max_theme_size_)
        self.clusters_ = core.copy()
        self._names = LabelCorpus(docs, self._titles, frozenset(stop_words(self.cfg.stop_words)))
        self._place(core)
        self._name()
        self.split_ = []
        if self.clustered_ and self._graph is not None and self.cfg.split_themes:
            split = self._split(core)
            if split is not None:
                core = split
                self._place(core)
                self._name()
        for _ in range(self.cfg.consolidation_rounds if self.clustered_ else 0):
            merged = self._consolidate()
            if merged is None:
                break
            core = merged
            self._place(core)
            self._name()
        if self.merged_ or self.split_:  # theme numbers without gaps (BERTopic indexes its topic embeddings by number)
            ids = sorted(set(core.tolist()) - {-1})
            core = np.array([ids.index(t) if t != -1 else -1 for t in core.tolist()], dtype=int)
            self._place(core)
            self._name()
        self._words(self._central(core) if self._graph is not None else core)
        if self.bertopic_ is not None:
            self.bertopic_.vectorizer_model = plain_vectorizer(self.bertopic_.vectorizer_model)
        self.label_corpus_ = self._names  # reused to name the areas
        if self.bertopic_ is not None and self._graph is not None:  # the fitted clusterer's graph and layout
            clusterer = self.bertopic_.hdbscan_model
            clusterer.graph_ = clusterer.layout = None
        del self._docs, self._embeddings, self._titles, self._embed, self._names, self._graph
        return self

    def _place(self, core: np.ndarray) -> None:
        """The themes of a clustering ``core`` (-1: outlier): centroids, the assignment with outliers
        placed (within the size bound), similarities, sizes and representative papers."""
        embeddings = self._embeddings
        self.core_ = core != -1
        self.topic_ids_ = np.array(sorted(set(core.tolist()) - {-1}), dtype=int)
        self.centroids_ = centroids_of(embeddings, core, self.topic_ids_.tolist())
        near, best = nearest(embeddings, self.centroids_, self.topic_ids_)
        topics = reassign_outliers(core, best, near, self.cfg.min_similarity, self.cfg.max_outlier_share)
        sims = embeddings @ self.centroids_.T
        self.topics_ = bound_sizes(topics, core == -1, lambda rows: sims[rows], self.topic_ids_, self.max_theme_size_)
        self.similarity_ = similarity_to_own(embeddings, self.topics_, self.topic_ids_, self.centroids_, best)
        self.sizes_by_topic_ = {int(t): int((self.topics_ == t).sum()) for t in self.topic_ids_}
        self.representatives_ = {}
        for t in self.topic_ids_:
            members = np.flatnonzero(self.topics_ == t)
            order = np.argsort(-self.similarity_[members], kind="stable")
            self.representatives_[int(t)] = members[order[: self.cfg.n_representatives]].tolist()

    def _name(self) -> None:
        """Labels, descriptions, label support and faithfulness of the placed themes (``label.py``)."""
        named = name_groups(self._docs, self._titles, self.topics_, self.topic_ids_.tolist(), self.centroids_,
                            self._names.stop, embed=self._embed, corpus=self._names,
                            floor=self.cfg.min_label_support)
        self.labels_ = {t: named[t].label for t in named}
        self.descriptions_ = {t: named[t].description for t in named}
        self.label_support_ = {t: named[t].support for t in named}
        self.label_faithful_ = {t: named[t].faithful for t in named}

    def _central(self, core: np.ndarray) -> np.ndarray:
        """``core`` with only the ``KEYWORD_CORE`` share of each theme's papers most similar to its
        centroid left in it. HDBSCAN's themes have a core (the papers it clustered, before the
        outliers join) that their keywords come from; Leiden puts every paper in a theme, and
        keywords drawn from all of them, borders included, co-occurred less (NPMI 0.17 against
        0.25 on the 2025 sample). The saved BERTopic model is told this core, so its ``topics_``
        and topic sizes count only these papers (-1 for the rest), as they count HDBSCAN's."""
        central = np.full_like(core, -1)
        for t in set(core.tolist()) - {-1}:
            rows = np.flatnonzero(core == t)
            order = np.argsort(-self.similarity_[rows], kind="stable")
            keep = rows[order[: max(1, int(np.ceil(KEYWORD_CORE * len(rows))))]]
            central[keep] = t
        return central

    def _words(self, core: np.ndarray) -> None:
        """Keywords of the final themes: c-TF-IDF on each theme's core (BERTopic's, told about the
        final clustering), then ordered by coverage of the theme's papers."""
        if self.bertopic_ is not None:
            self._refresh_bertopic(core)
            self.words_ = {int(t): [(w, float(s)) for w, s in self.bertopic_.get_topic(int(t)) if w]
                           for t in sorted(set(core.tolist()) - {-1})}
        else:
            self.words_ = ctfidf_words(self._docs, core, self.cfg)
        self.ctfidf_words_ = self.words_
        self.words_ = rerank_by_coverage(self.words_, self._docs, self.topics_, self.cfg)

    def _split(self, core: np.ndarray) -> np.ndarray | None:
        """A new clustering in which each theme whose papers come apart into better-named parts is
        replaced by those parts; None when no theme does.

        A theme of at least ``SPLIT_MIN`` x the smallest theme's size is partitioned on its own
        subgraph of the consensus graph (Leiden, the resolution rising from ``SPLIT_RESOLUTION``, lowered
        below 2,000 papers as in ``scaled``, until two parts of at least the smallest theme's size
        appear; the papers of smaller parts become
        outliers, placed as others are). All themes' trial parts are named together, and a theme
        keeps its split when every part has a faithful label that at least ``SPLIT_SUPPORT`` of the
        part's papers contain and the parts' labels cover more of their papers, weighted by size,
        than the theme's label covers of it (by ``SPLIT_GAIN``): "MoE inference" for mixture-of-experts
        training and serving together comes apart into "MoE training" and "MoE inference" only when
        the papers say so."""
        from pipeline.topics.graph import leiden

        min_size = self.sizes_.min_cluster_size
        before = {t: self.label_support_[t] for t in self.topic_ids_.tolist()}
        trial = core.copy()
        next_id = int(self.topic_ids_.max()) + 1
        parts: dict[int, list[int]] = {}
        for t in self.topic_ids_.tolist():
            rows = np.flatnonzero(self.topics_ == t)
            if len(rows) < SPLIT_MIN * min_size:
                continue
            sub = self._graph[rows][:, rows]
            # from SPLIT_RESOLUTION, lowered below 2,000 papers as the clustering's own resolution is
            resolution, pieces = SPLIT_RESOLUTION * self.sizes_.resolution / self.cfg.resolution, None
            highest = max(self.sizes_.resolution * 4, resolution * 8)
            while resolution <= highest:
                found = leiden(sub, resolution, self.cfg.seed)
                if (np.bincount(found) >= min_size).sum() >= 2:
                    pieces = found
                    break
                resolution *= 1.5
            if pieces is None:
                continue
            counts = np.bincount(pieces)
            big = [int(p) for p in np.argsort(-counts, kind="stable") if counts[p] >= min_size]
            new = [t, *range(next_id, next_id + len(big) - 1)]
            next_id += len(big) - 1
            trial[rows] = -1
            for piece, u in zip(big, new):
                trial[rows[pieces == piece]] = u
            parts[t] = new
        if not parts:
            return None
        placed = self.topics_
        self._place(trial)
        self._name()
        split = core.copy()
        for t, new in parts.items():
            sizes = np.array([self.sizes_by_topic_[u] for u in new], dtype=float)
            supports = np.array([self.label_support_[u] for u in new])
            if (all(self.label_faithful_[u] is not False for u in new) and supports.min() >= SPLIT_SUPPORT
                    and (sizes * supports).sum() / sizes.sum() >= before[t] + SPLIT_GAIN):
                rows = np.flatnonzero(placed == t)
                split[rows] = trial[rows]
                self.split_.append((t, new))
        if not self.split_:
            self._place(core)  # back to the themes before the trial (named from the memo)
            self._name()
            return None
        return split  # rejected parts leave gaps in the ids, which ``fit`` closes at its end

    def _consolidate(self) -> np.ndarray | None:
        """A new clustering in which each theme that cannot be named (see ``fit``) joins the first
        of its three nearest themes (most linked in the clustering's graph, else nearest centroids)
        that stays under the size bound, or else dissolves (its papers
        become outliers, which then join their nearest theme); None when every theme can be named.
        Smallest themes go first; a theme that took another one in this round takes no second."""
        weak = [int(t) for t in self.topic_ids_
                if self.label_faithful_[int(t)] is False or self.label_support_[int(t)] < self.cfg.min_label_support]
        if not weak or len(self.topic_ids_) < 2:
            return None
        ids = self.topic_ids_.tolist()
        sizes = dict(self.sizes_by_topic_)
        core = np.where(self.core_, self.topics_, -1)
        touched: set[int] = set()
        links = self._links() if getattr(self, "_graph", None) is not None else None
        for t in sorted(weak, key=lambda t: (sizes[t], t)):
            if t in touched:
                continue
            sims = self.centroids_ @ self.centroids_[ids.index(t)]
            # most linked first; themes equally linked (none at all, say) by their centroids
            order = np.lexsort((-sims, -links[ids.index(t)])) if links is not None else np.argsort(-sims, kind="stable")
            neighbours = [ids[j] for j in order if ids[j] != t][:3]
            into = next((u for u in neighbours
                         if u not in touched and sizes[u] + sizes[t] <= self.max_theme_size_), None)
            if into is None and len(set(core.tolist()) - {-1, t}) == 0:
                continue  # the last theme left never dissolves
            if into is None and not self.cfg.dissolve_unnamed:
                continue
            into = -1 if into is None else into
            core[core == t] = into
            touched.add(t)
            if into != -1:
                touched.add(into)
                sizes[into] += sizes[t]
            self.merged_.append((t, into))
        return core if touched else None

    def _links(self) -> np.ndarray:
        """Theme x theme: the weight of the clustering graph's edges between their papers."""
        from scipy import sparse

        placed = np.flatnonzero(self.topics_ != -1)
        member = sparse.csr_matrix(
            (np.ones(len(placed)), (placed, np.searchsorted(self.topic_ids_, self.topics_[placed]))),
            shape=(len(self.topics_), len(self.topic_ids_)))
        return (member.T @ self._graph @ member).toarray()

    def _refresh_bertopic(self, core: np.ndarray) -> None:
        """Tell the fitted BERTopic model about a changed clustering: c-TF-IDF words and topic
        embeddings (centroids) of the themes in ``core``."""
        from bertopic.vectorizers import ClassTfidfTransformer

        model = self.bertopic_
        if list(model.topics_) == core.tolist():
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            logging.getLogger("BERTopic").setLevel(logging.ERROR)
            model.update_topics(self._docs, topics=core.tolist(), vectorizer_model=model.vectorizer_model,
                                ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True), top_n_words=TOP_WORDS)
        model.topic_embeddings_ = np.stack([self._embeddings[core == t].mean(axis=0) for t in sorted(set(core.tolist()))])

    def keywords(self, topic: int) -> list[str]:
        return [w for w, _ in self.words_[topic][: self.cfg.n_keywords]]
