"""How papers are clustered into themes: the components (UMAP, HDBSCAN, Leiden on the neighbour
graph, BERTopic around them), their sizes for a corpus (``scaled``), and ``cluster``, which runs
them and returns the clusters as a value.

``topics.clustering`` picks the path: ``"leiden"`` (default) takes communities of the papers'
nearest-neighbour graph, joined with their neighbours in ``LAYOUTS`` UMAP layouts and weighed by
the agreement of ``CONSENSUS_RUNS`` partitions (``graph.py``); ``"hdbscan"`` is BERTopic's own path,
UMAP then HDBSCAN, with themes above the size bound split along HDBSCAN's tree (``split.py``).
From ``bertopic_min_papers`` papers on, the clustering runs inside BERTopic, whose fitted model is
saved; below, the same components are called directly, which spares ``import bertopic`` (about
10 s). UMAP's numba functions are compiled once per machine and cached (``umap_class``). With a
CUDA GPU and cuML, UMAP and HDBSCAN are cuML's (``on_gpu``, ``topics.clustering_device``); the
Leiden graph stays on the CPU.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.naming.vocabulary import TOP_WORDS, analyzer, candidate_terms, topic_vectorizer_class

log = logging.getLogger(__name__)

SMALL_DATA = 4096  # below this many points UMAP computes all pairwise distances instead of NN-descent
# Leiden: UMAP layouts (each of its own seed) whose neighbour graphs are averaged into the graph
# (one layout's randomness was most of what two seeds disagreed on), and the partitions whose
# agreement weighs it
LAYOUTS = 3
# from this many papers on, one layout: on 40,000 papers of the 2025 year it gave the themes of three
# (homogeneity 0.481 both, two seeds' ARI 0.852 against 0.848) in 0.59 x the time; at 20,000 three
# still agree more (0.917 against 0.844), and under 1,000 they matter most (docs/decisions/layouts-by-size.md)
ONE_LAYOUT_FROM = 40_000
CONSENSUS_RUNS = 10


def cache_compiled(prefixes: tuple[str, ...]) -> None:
    """Let numba cache the compiled machine code of every jitted function in the modules under
    ``prefixes`` (umap-learn leaves most without ``cache=True``, so each process compiled them again:
    about 20 s). The code is kept where numba keeps its caches: the package's ``__pycache__``, or,
    when that is not writable, ``NUMBA_CACHE_DIR`` or the user's cache folder (``~/.cache/numba``)."""
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


def compiled_before() -> bool:
    """Whether numba has cached UMAP's machine code on this installation (``cache_compiled``): the
    first run after installing compiles it, a minute or two on 2 cores. Numba keeps it in the
    package's ``__pycache__``, or, where that is not writable, under ``NUMBA_CACHE_DIR`` or the
    user's cache folder (``~/.cache/numba``), in a folder named after the package."""
    import importlib.util
    import os

    spec = importlib.util.find_spec("umap")
    if spec and spec.origin and next((Path(spec.origin).parent / "__pycache__").glob("*.nbi"), None) is not None:
        return True
    elsewhere = [Path(os.environ["NUMBA_CACHE_DIR"])] if os.environ.get("NUMBA_CACHE_DIR") else []
    elsewhere.append(Path.home() / ".cache" / "numba")
    return any(any(part.startswith("umap") for part in found.relative_to(place).parts[:-1])
               for place in elsewhere if place.is_dir() for found in place.rglob("*.nbi"))


@cache
def umap_class():  # noqa: ANN202 - umap is imported lazily
    if not compiled_before():
        log.info("compiling UMAP's code once after installing (a minute or two on 2 cores; later runs load it "
                 "from numba's cache)")
    from sklearn.metrics.pairwise import euclidean_distances
    from umap import UMAP

    cache_compiled(("umap",))

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
            with warnings.catch_warnings():
                # a seeded layout runs on one thread: our choice (seeds that agree), no news to the user
                warnings.filterwarnings("ignore", message="n_jobs value .* overridden to 1 by setting random_state")
                if not self.precomputed_:
                    return super().fit_transform(X, y=y, **kwargs)
                self.metric = "precomputed"
                try:
                    warnings.filterwarnings("ignore", message="using precomputed metric")
                    return super().fit_transform(euclidean_distances(X), y=y, **kwargs)
                finally:
                    self.metric = "euclidean"

        def transform(self, X):  # noqa: ANN001, ANN201, N803
            if getattr(self, "precomputed_", False):
                raise NotImplementedError("a small-data fit lays out only the papers it was fitted on")
            return super().transform(X)

    return ThemeUMAP


def cuda_visible() -> bool:
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
    if not installed or not cuda_visible():
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
    Themes then split (size bound) and merge (naming) in ``model.ThemeModel.fit``."""
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


def umap_model(n: int, sizes: Sizes, cfg: TopicsConfig, seed: int | None = None):  # noqa: ANN201 - lazy import
    """UMAP for ``n`` papers, seeded. Embeddings are unit vectors, so euclidean distance ranks
    neighbours exactly as cosine does."""
    params = dict(n_neighbors=min(sizes.n_neighbors, n - 1), n_components=cfg.n_components,
                  min_dist=0.0, metric="euclidean", random_state=cfg.seed if seed is None else seed)
    if on_gpu(cfg.clustering_device):
        from cuml.manifold import UMAP

        return UMAP(**params, output_type="numpy")
    return umap_class()(**params, low_memory=False)


def hdbscan_model(n: int, sizes: Sizes, cfg: TopicsConfig):  # noqa: ANN201 - hdbscan is imported lazily
    params = dict(
        min_cluster_size=sizes.min_cluster_size, min_samples=sizes.min_samples, metric="euclidean",
        cluster_selection_method="eom", prediction_data=False,
        # on large corpora EOM can now and then pick one giant cluster over the themes inside it
        max_cluster_size=n // 3 if n >= 1000 else 0,
    )
    if on_gpu(cfg.clustering_device):
        from cuml.cluster.hdbscan import HDBSCAN as GpuHDBSCAN  # noqa: N811

        return GpuHDBSCAN(**params, output_type="numpy")
    from hdbscan import HDBSCAN

    return HDBSCAN(**params, core_dist_n_jobs=1)


def layout_seeds(seed: int, n: int = 0) -> list[int]:
    """The seeds of the UMAP layouts of ``n`` papers (``LAYOUTS``; one from ``ONE_LAYOUT_FROM``
    papers on): ``seed``, then seeds drawn from it (not seed + 1, ..., which a neighbouring seed
    would share)."""
    extra = np.random.default_rng(seed).integers(0, 2**31 - 1, size=LAYOUTS - 1)
    return [seed, *extra.tolist()][: 1 if n >= ONE_LAYOUT_FROM else LAYOUTS]


def leiden_model(n: int, sizes: Sizes, bound: int, cfg: TopicsConfig):  # noqa: ANN201
    from pipeline.topics.clustering.graph import LeidenThemes

    return LeidenThemes(n_neighbors=cfg.graph_neighbors, resolution=sizes.resolution, runs=CONSENSUS_RUNS,
                        min_cluster_size=sizes.min_cluster_size, max_cluster_size=bound,
                        layout=[umap_model(n, sizes, cfg, s) for s in layout_seeds(cfg.seed, n)],
                        random_state=cfg.seed)


def bertopic_model(n: int, sizes: Sizes, bound: int, cfg: TopicsConfig, candidates: list[str]):  # noqa: ANN201
    """BERTopic with this project's components: the clustering above, the vectorizer restricted to
    the candidate phrases, c-TF-IDF with frequent words reduced."""
    from bertopic import BERTopic
    from bertopic.dimensionality import BaseDimensionalityReduction
    from bertopic.vectorizers import ClassTfidfTransformer

    TopicVectorizer = topic_vectorizer_class()  # noqa: N806
    vectorizer = TopicVectorizer(candidates=candidates, topic_max_df=cfg.max_df, analyzer=analyzer(cfg))
    leiden = cfg.clustering == "leiden"  # the graph is built on the vectors (and lays them out itself)
    return BERTopic(
        # not "english": BERTopic would strip hyphens ("test-time" -> "testtime") before counting
        language="multilingual",
        umap_model=BaseDimensionalityReduction() if leiden else umap_model(n, sizes, cfg),
        hdbscan_model=leiden_model(n, sizes, bound, cfg) if leiden else hdbscan_model(n, sizes, cfg),
        vectorizer_model=vectorizer,
        ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True), top_n_words=TOP_WORDS,
        calculate_probabilities=False, verbose=False,
    )


@dataclass(frozen=True)
class Clustering:
    """What ``cluster`` found: each paper's cluster (``core``, -1 outlier, numbered by size), the
    neighbour graph (Leiden; None for HDBSCAN), the fitted BERTopic model (None below
    ``bertopic_min_papers`` papers), and whether the papers were clustered at all (too few, or all
    outliers: one theme)."""

    core: np.ndarray
    graph: object | None = None
    bertopic: object | None = None
    clustered: bool = True


def cluster(docs: list[str], embeddings: np.ndarray, sizes: Sizes, bound: int, cfg: TopicsConfig) -> Clustering:
    """Cluster ``docs`` by their unit ``embeddings``; themes above ``bound`` papers are cut (Leiden:
    again on their subgraph; HDBSCAN: along its condensed tree)."""
    n = len(docs)
    one = Clustering(np.zeros(n, dtype=int), clustered=False)
    if n < max(20, 2 * sizes.min_cluster_size):  # too few papers to cluster: one theme
        return one
    leiden = cfg.clustering == "leiden"
    model = graph = tree = None
    if n >= cfg.bertopic_min_papers:
        model = bertopic_model(n, sizes, bound, cfg, candidate_terms(docs, cfg))
        core = np.asarray(model.fit_transform(docs, embeddings=embeddings)[0])
        graph = model.hdbscan_model.graph_ if leiden else None
        tree = None if leiden else model.hdbscan_model.condensed_tree_
    elif leiden:
        clusterer = leiden_model(n, sizes, bound, cfg).fit(embeddings)
        core, graph = clusterer.labels_, clusterer.graph_
    else:
        clusterer = hdbscan_model(n, sizes, cfg).fit(umap_model(n, sizes, cfg).fit_transform(embeddings))
        labels = np.asarray(clusterer.labels_)
        found, counts = np.unique(labels[labels != -1], return_counts=True)
        rank = {int(t): i for i, t in enumerate(found[np.argsort(-counts, kind="stable")])}
        core, tree = np.array([rank.get(int(t), -1) for t in labels], dtype=int), clusterer.condensed_tree_
    if (core == -1).all():  # nothing clustered: one theme (Leiden's graph still picks its keywords)
        return Clustering(one.core, graph, clustered=False)
    if tree is not None:
        from pipeline.topics.clustering.split import CondensedTree, split_large

        core = split_large(core, CondensedTree(tree.to_numpy(), n), bound)
    return Clustering(core, graph, model)
