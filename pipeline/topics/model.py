"""The theme model: BERTopic over precomputed embeddings, with explicit, seeded components.

``ThemeModel`` follows scikit-learn's conventions: the constructor stores its config, ``fit`` returns
``self``, learned attributes end in ``_``. UMAP, HDBSCAN, the vectorizer and c-TF-IDF are built here
rather than left to BERTopic's defaults, and their sizes scale with the corpus (``scaled``). After
clustering, papers HDBSCAN left as outliers join their nearest theme (cosine similarity between the
paper's embedding and the theme's centroid) until at most ``max_outlier_share`` of papers stay
unassigned; keywords stay those of each theme's core, so reassignments do not blur them.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.label import Corpus as LabelCorpus
from pipeline.topics.label import SEGMENT as _SEGMENT
from pipeline.topics.label import TOKEN as _TOKEN
from pipeline.topics.label import TOKEN_RE as _TOKEN_RE
from pipeline.topics.label import Embed, name_groups

log = logging.getLogger(__name__)

# Words that say nothing about a paper's theme in arXiv abstracts (besides English stop words).
DOMAIN_STOP_WORDS = frozenset("""
paper papers propose proposed proposes proposing approach approaches method methods methodology
result results show shows shown showing demonstrate demonstrates demonstrated present presents
presented introduce introduces introduced novel new existing state art achieve achieves achieved
achieving significantly significant performance improve improves improved improving improvement
improvements experiments experiment experimental extensive evaluation evaluate evaluated based using
use used uses framework frameworks work works study studies task tasks problem problems challenge
challenges challenging however also well via across respectively furthermore moreover additionally
code available github com https http www et al arxiv recent recently various different including
effective effectively efficient efficiently key first two three one large high low better best
leverage leverages leveraging enable enables enabling provide provides providing offer offers
outperform outperforms outperforming superior compared comparison baseline baselines benchmark
benchmarks dataset datasets data model models paradigm setting settings specifically particular
remains remain critical crucial important address addresses addressing lack limited limitation
limitations extensive comprehensive furthermore thereby whereas although despite towards toward
""".split())

TOP_WORDS = 50  # c-TF-IDF terms kept per theme: keywords are the first n_keywords


class PhraseAnalyzer:
    """Terms of a text for the vectorizers: words and n-grams of consecutive words within a clause.

    Unlike scikit-learn's analyzer, an n-gram never spans punctuation or a dropped stop word, so
    every keyword is a phrase that appears in some paper as written ("federated learning"), never
    "learning rl" from "reinforcement learning (RL)" or "generation images" from "generation of
    images". A picklable object, so a saved model keeps it."""

    def __init__(self, ngram_max: int, stop: frozenset[str]) -> None:
        self.ngram_max = ngram_max
        self.stop = stop

    def __call__(self, doc: str) -> list[str]:
        terms: list[str] = []
        stop = self.stop
        for segment in _SEGMENT.split(doc.lower()):
            tokens = _TOKEN_RE.findall(segment)
            if not tokens:
                continue
            keep = [t not in stop for t in tokens]
            terms.extend(t for t, k in zip(tokens, keep) if k)
            if self.ngram_max >= 2:
                terms.extend(f"{a} {b}" for a, b, ka, kb in zip(tokens, tokens[1:], keep, keep[1:]) if ka and kb)
            for n in range(3, self.ngram_max + 1):
                terms.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1) if all(keep[i : i + n]))
        return terms


def analyzer(cfg: TopicsConfig) -> PhraseAnalyzer:
    return PhraseAnalyzer(max(cfg.ngram_max, 1), frozenset(stop_words(cfg.stop_words)))


def _topic_vectorizer_class():  # noqa: ANN202 - sklearn is imported lazily
    from sklearn.feature_extraction.text import CountVectorizer

    class TopicVectorizer(CountVectorizer):
        """The vectorizer BERTopic fits on one document per theme, limited to ``candidates`` (terms
        common enough among the papers themselves) minus those in more than ``topic_max_df`` of the
        themes, which say nothing about any one theme."""

        def __init__(self, candidates=None, topic_max_df=1.0, analyzer="word"):  # noqa: ANN001
            super().__init__(analyzer=analyzer)
            self.candidates = candidates
            self.topic_max_df = topic_max_df

        def fit_transform(self, raw_documents, y=None):  # noqa: ANN001, ANN201
            if self.candidates:
                probe = CountVectorizer(vocabulary=self.candidates, analyzer=self.analyzer)
                in_topics = np.asarray((probe.fit_transform(raw_documents) > 0).sum(axis=0)).ravel()
                limit = self.topic_max_df * len(raw_documents)
                keep = (in_topics >= 1) & ((in_topics <= limit) if limit >= 2 else True)
                terms = probe.get_feature_names_out()[keep].tolist()
                self.vocabulary = terms or None
            return super().fit_transform(raw_documents, y)

    return TopicVectorizer


MIN_THEME_BOUND = 50  # the size bound never splits a theme of 50 papers or fewer (a week's listing)
SMALL_DATA = 4096  # below this many points UMAP computes all pairwise distances instead of NN-descent


@cache
def _umap_class():  # noqa: ANN202 - umap is imported lazily
    from sklearn.metrics.pairwise import euclidean_distances
    from umap import UMAP

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


def _plain_vectorizer(fitted):  # noqa: ANN001, ANN202
    """A plain CountVectorizer with the fitted vocabulary, which BERTopic can save and load."""
    from sklearn.feature_extraction.text import CountVectorizer

    plain = CountVectorizer(ngram_range=(1, max(len(t.split()) for t in fitted.vocabulary_) if fitted.vocabulary_ else 1),
                            token_pattern=_TOKEN, vocabulary=fitted.vocabulary_)
    plain.vocabulary_, plain.fixed_vocabulary_ = fitted.vocabulary_, True
    return plain


def candidate_terms(docs: list[str], cfg: TopicsConfig) -> list[str]:
    """Terms (1..ngram_max words, no stop words) in at least ``min_df`` papers and at most half of
    them: rarer ones (a tool's name in one abstract) make keywords nobody can read, and never
    co-occur with anything, which is what NPMI measures."""
    from sklearn.feature_extraction.text import CountVectorizer

    min_df = cfg.min_df or int(np.clip(round(len(docs) * 0.0015), 2, 30))
    vectorizer = CountVectorizer(analyzer=analyzer(cfg), min_df=min(min_df, max(1, len(docs) // 5)),
                                 max_df=0.5 if len(docs) >= 20 else 1.0)
    try:
        vectorizer.fit(docs)
    except ValueError:  # nothing left after stop words and min_df
        return []
    return vectorizer.get_feature_names_out().tolist()


def stop_words(extra: tuple[str, ...] = ()) -> list[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return sorted(ENGLISH_STOP_WORDS | DOMAIN_STOP_WORDS | {w.lower() for w in extra})


@dataclass(frozen=True)
class Sizes:
    n_neighbors: int
    min_cluster_size: int
    min_samples: int


def scaled(n: int, cfg: TopicsConfig) -> Sizes:
    """Clustering sizes for a corpus of ``n`` papers: a weekly listing of 100 and a year of 40,000
    both get themes of sensible granularity. Explicit config values win.

    The smallest theme is 0.5 % of the papers up to 2,000 papers and grows with the square root
    beyond (14 at 4,000 papers, 45 at 40,000), so a larger corpus is mapped at a finer grain instead
    of in the same number of ever broader themes.
    Themes then split (size bound) and merge (naming) in ``ThemeModel.fit``."""
    knee = 2000
    min_cluster_size = cfg.min_cluster_size or int(
        np.clip(round(0.005 * min(n, knee) * np.sqrt(max(n, knee) / knee)), 5, 250)
    )
    return Sizes(
        n_neighbors=cfg.n_neighbors or int(np.clip(round(np.sqrt(n) / 4), 5, 30)),
        min_cluster_size=min_cluster_size,
        min_samples=cfg.min_samples or max(2, min_cluster_size // 3),
    )


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def centroids_of(embeddings: np.ndarray, topics: np.ndarray, ids: list[int]) -> np.ndarray:
    """Unit-length mean embedding of each topic in ``ids`` (rows in that order)."""
    return _unit(np.stack([embeddings[topics == t].mean(axis=0) for t in ids]).astype(np.float32))


def nearest(embeddings: np.ndarray, centroids: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest centroid (as a topic id) and its cosine similarity, per embedding."""
    if len(ids) == 0:
        return np.full(len(embeddings), -1), np.zeros(len(embeddings), np.float32)
    sims = embeddings @ centroids.T
    best = sims.argmax(axis=1)
    return ids[best], sims[np.arange(len(sims)), best].astype(np.float32)


def similarity_to_own(
    embeddings: np.ndarray, topics: np.ndarray, ids: np.ndarray, centroids: np.ndarray, best: np.ndarray
) -> np.ndarray:
    """Cosine of each paper to its theme's centroid; ``best`` (to the nearest theme) where unassigned."""
    if len(ids) == 0:
        return best.astype(np.float32)
    column = {int(t): i for i, t in enumerate(ids)}
    rows = np.array([column.get(int(t), -1) for t in topics])
    own = np.einsum("ij,ij->i", embeddings, centroids[np.maximum(rows, 0)])
    return np.where(rows >= 0, own, best).astype(np.float32)


def reassign_outliers(
    topics: np.ndarray, similarity: np.ndarray, nearest_topic: np.ndarray, min_similarity: float, max_share: float,
    candidates: np.ndarray | None = None,
) -> np.ndarray:
    """Unassigned papers (-1; only those in ``candidates`` if given) join their nearest theme if
    similar enough; then the most similar remaining candidates join too, until at most ``max_share``
    of all papers stay unassigned."""
    out = topics.copy()
    candidates = (out == -1) if candidates is None else (candidates & (out == -1))
    if not candidates.any() or (nearest_topic < 0).all():
        return out
    join = candidates & (similarity >= min_similarity)
    out[join] = nearest_topic[join]
    left = np.flatnonzero(candidates & (out == -1))
    allowed = max(0, int(np.floor(max_share * len(out))) - int(((out == -1) & ~candidates).sum()))
    if len(left) > allowed:
        order = left[np.argsort(-similarity[left], kind="stable")]
        extra = order[: len(left) - allowed]
        out[extra] = nearest_topic[extra]
    return out


def bound_sizes(topics: np.ndarray, core: np.ndarray, sims: np.ndarray, ids: np.ndarray, bound: int) -> np.ndarray:
    """Outliers that joined a theme beyond ``bound`` papers join their next most similar theme with
    room instead (least similar first); papers of a theme's core (``core`` != -1) never move.
    ``sims``: papers x themes (columns in ``ids`` order)."""
    out = topics.copy()
    column = {int(t): j for j, t in enumerate(ids)}
    sizes = {int(t): int((out == t).sum()) for t in ids}
    for t in sorted(sizes, key=lambda t: (-sizes[t], t)):
        excess = sizes[t] - bound
        if excess <= 0:
            continue
        joined = np.flatnonzero((out == t) & (core == -1))
        for i in joined[np.argsort(sims[joined, column[t]], kind="stable")][:excess]:
            for j in np.argsort(-sims[i], kind="stable"):
                other = int(ids[j])
                if other != t and sizes[other] < bound:
                    out[i] = other
                    sizes[other] += 1
                    sizes[t] -= 1
                    break
    return out


class ThemeModel:
    """Cluster papers into themes and describe each theme.

    Learned: ``topics_`` (theme per paper, -1 unassigned), ``core_`` (papers HDBSCAN put in a theme),
    ``similarity_`` (cosine to the assigned theme's centroid), ``topic_ids_``, ``centroids_``,
    ``words_`` (theme -> [(term, c-TF-IDF score)], best first), ``labels_``, ``descriptions_``,
    ``label_support_``, ``label_faithful_``, ``representatives_`` (theme -> row indices), ``sizes_``,
    ``merged_`` (themes merged or dissolved while naming), ``label_corpus_`` (the papers as prepared
    for naming, reused for the areas).
    """

    def __init__(self, cfg: TopicsConfig) -> None:
        self.cfg = cfg

    def _components(self, n: int, candidates: list[str]):  # noqa: ANN202
        from bertopic import BERTopic
        from bertopic.vectorizers import ClassTfidfTransformer
        from hdbscan import HDBSCAN
        TopicVectorizer = _topic_vectorizer_class()  # noqa: N806
        sizes = scaled(n, self.cfg)
        self.sizes_ = sizes
        # Embeddings are unit vectors, so euclidean distance ranks neighbours exactly as cosine does.
        umap = _umap_class()(
            n_neighbors=min(sizes.n_neighbors, n - 1), n_components=self.cfg.n_components, min_dist=0.0,
            metric="euclidean", random_state=self.cfg.seed, low_memory=False,
        )
        hdbscan = HDBSCAN(
            min_cluster_size=sizes.min_cluster_size, min_samples=sizes.min_samples, metric="euclidean",
            cluster_selection_method="eom", prediction_data=False, core_dist_n_jobs=1,
            # on large corpora EOM can now and then pick one giant cluster over the themes inside it
            max_cluster_size=n // 3 if n >= 1000 else 0,
        )
        vectorizer = TopicVectorizer(candidates=candidates, topic_max_df=self.cfg.max_df, analyzer=analyzer(self.cfg))
        return BERTopic(
            # not "english": BERTopic would strip hyphens ("test-time" -> "testtime") before counting
            language="multilingual",
            umap_model=umap, hdbscan_model=hdbscan, vectorizer_model=vectorizer,
            ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True), top_n_words=TOP_WORDS,
            calculate_probabilities=False, verbose=False,
        )

    def fit(self, docs: list[str], embeddings: np.ndarray, *, titles: list[str] | None = None,
            embed: Embed | None = None) -> ThemeModel:
        """Cluster ``docs`` (title and abstract) by their ``embeddings`` and name the themes.

        ``titles`` weigh more in the labels (default: the text before the first ". "); ``embed``
        (the papers' embedding model) checks that each label lies nearest its own theme.

        Steps: BERTopic (UMAP, HDBSCAN, c-TF-IDF); themes above ``max_theme_share`` split along
        HDBSCAN's tree; outliers join their nearest theme; labels (``label.py``); then themes that
        cannot be named apart from their neighbours (no phrase of theirs lies nearest their own
        centroid, or the best fits under ``min_label_support`` of their papers) merge into a
        neighbour while it stays under the size bound, or dissolve into their neighbours."""
        n = len(docs)
        embeddings = _unit(np.asarray(embeddings, dtype=np.float32))
        self._docs, self._embeddings = docs, embeddings
        self._titles = titles if titles is not None else [d.split(". ", 1)[0] for d in docs]
        self._embed = embed
        self.bertopic_ = None
        self.merged_ = []  # (theme, into) pairs; into -1: dissolved
        core = np.zeros(n, dtype=int)  # too few papers to cluster: one theme
        if n >= max(20, 2 * scaled(n, self.cfg).min_cluster_size):
            self.bertopic_ = self._components(n, candidate_terms(docs, self.cfg))
            core = np.asarray(self.bertopic_.fit_transform(docs, embeddings=embeddings)[0])
            if (core == -1).all():
                self.bertopic_, core = None, np.zeros(n, dtype=int)
        self.max_theme_size_ = max(int(self.cfg.max_theme_share * n), MIN_THEME_BOUND)
        if self.bertopic_ is not None:
            from pipeline.topics.split import CondensedTree, split_large

            tree = CondensedTree(self.bertopic_.hdbscan_model.condensed_tree_.to_numpy(), n)
            core = split_large(core, tree, self.max_theme_size_)
        self._names = LabelCorpus(docs, self._titles, frozenset(stop_words(self.cfg.stop_words)))
        self._place(core)
        self._name()
        for _ in range(self.cfg.consolidation_rounds if self.bertopic_ is not None else 0):
            merged = self._consolidate()
            if merged is None:
                break
            core = merged
            self._place(core)
            self._name()
        if self.merged_:  # theme numbers without gaps (BERTopic indexes its topic embeddings by number)
            ids = sorted(set(core.tolist()) - {-1})
            core = np.array([ids.index(t) if t != -1 else -1 for t in core.tolist()], dtype=int)
            self._place(core)
            self._name()
        self._words(core)
        if self.bertopic_ is not None:
            self.bertopic_.vectorizer_model = _plain_vectorizer(self.bertopic_.vectorizer_model)
        self.label_corpus_ = self._names  # reused to name the areas
        del self._docs, self._embeddings, self._titles, self._embed, self._names
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
        self.topics_ = bound_sizes(topics, core, embeddings @ self.centroids_.T, self.topic_ids_, self.max_theme_size_)
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
                            self._names.stop, embed=self._embed, corpus=self._names)
        self.labels_ = {t: named[t].label for t in named}
        self.descriptions_ = {t: named[t].description for t in named}
        self.label_support_ = {t: named[t].support for t in named}
        self.label_faithful_ = {t: named[t].faithful for t in named}

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

    def _consolidate(self) -> np.ndarray | None:
        """A new clustering in which each theme that cannot be named (see ``fit``) joins the nearest
        of its three nearest themes that stays under the size bound, or else dissolves (its papers
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
        for t in sorted(weak, key=lambda t: (sizes[t], t)):
            if t in touched:
                continue
            sims = self.centroids_ @ self.centroids_[ids.index(t)]
            neighbours = [ids[j] for j in np.argsort(-sims, kind="stable") if ids[j] != t][:3]
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


def ctfidf_words(docs: list[str], topics: np.ndarray, cfg: TopicsConfig, top: int = TOP_WORDS) -> dict[int, list[tuple[str, float]]]:
    """c-TF-IDF terms per topic computed directly (for corpora too small for BERTopic to cluster)."""
    import scipy.sparse as sp
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    ids = sorted(set(topics.tolist()) - {-1})
    vectorizer = CountVectorizer(analyzer=analyzer(cfg))
    try:
        counts = vectorizer.fit_transform(docs)
    except ValueError:  # no terms left at all
        return {t: [] for t in ids}
    per_topic = sp.csr_matrix(np.vstack([np.asarray(counts[topics == t].sum(axis=0)) for t in ids]))
    scores = ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(per_topic).toarray()
    vocab = vectorizer.get_feature_names_out()
    return {
        t: [(str(vocab[j]), float(row[j])) for j in np.argsort(-row, kind="stable")[:top] if row[j] > 0]
        for t, row in zip(ids, scores)
    }


def rerank_by_coverage(
    words: dict[int, list[tuple[str, float]]], docs: list[str], topics: np.ndarray, cfg: TopicsConfig
) -> dict[int, list[tuple[str, float]]]:
    """Order each theme's c-TF-IDF terms so its first ``n_keywords`` read as one subject.

    Each term is weighted by its c-TF-IDF score times the square of the share of the theme's papers
    that use it (c-TF-IDF alone favours a tool's name that three papers repeat). Keywords are then
    picked greedily: the heaviest term first, then at each step the term whose weight, scaled by
    how well it co-occurs with the terms already picked in the theme's papers (mean NPMI), is
    largest. The remaining terms follow by weight."""
    from sklearn.feature_extraction.text import CountVectorizer

    vocabulary = sorted({w for terms in words.values() for w, _ in terms})
    if not vocabulary:
        return words
    counter = CountVectorizer(vocabulary=vocabulary, analyzer=analyzer(cfg), binary=True)
    present = counter.transform(docs).tocsr()
    column = {w: i for i, w in enumerate(vocabulary)}
    out = {}
    for topic, terms in words.items():
        members = np.flatnonzero(topics == topic)
        if not len(members) or not terms:
            out[topic] = terms
            continue
        use = present[members][:, [column[w] for w, _ in terms]].toarray().astype(np.float64)
        share = use.mean(axis=0)
        weight = np.array([s for _, s in terms]) * share**2
        chosen = [int(np.argmax(weight))]
        while len(chosen) < min(cfg.n_keywords, len(terms)):
            joint = (use.T @ use[:, chosen]) / len(members) + 1e-12
            npmi = np.log(joint / (share[:, None] * share[chosen][None, :] + 1e-12)) / -np.log(joint)
            score = weight * (1 + npmi.mean(axis=1))
            score[chosen] = -np.inf
            chosen.append(int(np.argmax(score)))
        rest = [j for j in np.argsort(-weight, kind="stable") if j not in set(chosen)]
        out[topic] = [(terms[j][0], float(weight[j])) for j in chosen + rest]
    return out
