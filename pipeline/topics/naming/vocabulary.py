"""The words themes are described by: which phrases count (``PhraseAnalyzer``: 1-3-word phrases of
the papers' own spelling, acronyms kept, stop words and arXiv boilerplate out), the candidate
terms, c-TF-IDF keywords per theme, and their order by how many of the theme's papers use them."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from pipeline.config import TopicsConfig
from pipeline.topics.naming.words import SEGMENT, TOKEN, TOKEN_RE

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
like unlike
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
        for segment in SEGMENT.split(doc.lower()):
            tokens = TOKEN_RE.findall(segment)
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
    return PhraseAnalyzer(max(cfg.ngram_max, 1), stop_words(cfg.stop_words))


def topic_vectorizer_class():  # noqa: ANN202 - sklearn is imported lazily
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
            """Counts of the kept candidates per document. The documents (one per theme, all its
            papers) are analysed once: the counts are the candidates' counts, columns kept."""
            if self.candidates:
                if isinstance(raw_documents, str):
                    raise ValueError("Iterable over raw text documents expected, string object received.")
                raw_documents = list(raw_documents)
                probe = CountVectorizer(vocabulary=self.candidates, analyzer=self.analyzer)
                counts = probe.fit_transform(raw_documents).tocsc()
                in_topics = np.diff(counts.indptr)  # documents each candidate occurs in
                limit = self.topic_max_df * len(raw_documents)
                keep = (in_topics >= 1) & ((in_topics <= limit) if limit >= 2 else True)
                terms = probe.get_feature_names_out()[keep].tolist()
                if terms:
                    self.vocabulary = terms
                    CountVectorizer.fit_transform(self, [])  # a fixed vocabulary: nothing to learn from documents
                    return counts[:, np.flatnonzero(keep)].tocsr()
                self.vocabulary = None
            return super().fit_transform(raw_documents, y)

    return TopicVectorizer


def plain_vectorizer(fitted):  # noqa: ANN001, ANN202
    """A plain CountVectorizer with the fitted vocabulary, which BERTopic can save and load."""
    from sklearn.feature_extraction.text import CountVectorizer

    plain = CountVectorizer(ngram_range=(1, max(len(t.split()) for t in fitted.vocabulary_) if fitted.vocabulary_ else 1),
                            token_pattern=TOKEN, vocabulary=fitted.vocabulary_)
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


def stop_words(extra: Sequence[str] = ()) -> frozenset[str]:
    """English, the domain's and the user's extra stop words (``topics.stop_words``, any sequence):
    built once per run and set of extras, however many steps ask."""
    return _stop_words(tuple(extra))


@functools.lru_cache(maxsize=8)
def _stop_words(extra: tuple[str, ...]) -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS | DOMAIN_STOP_WORDS | {w.lower() for w in extra})


def class_tfidf(counts):  # noqa: ANN001, ANN201 - scipy sparse in and out
    """c-TF-IDF of a (class x term) count matrix, as BERTopic's ``ClassTfidfTransformer`` with
    ``reduce_frequent_words``: each class's term frequencies (L1-normalised, square-rooted) times
    log(1 + average words per class / the term's frequency over all classes)."""
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    counts = sp.csr_matrix(counts, dtype=np.float64)
    frequency = np.asarray(counts.sum(axis=0)).ravel()
    average = int(np.asarray(counts.sum(axis=1)).mean())
    with np.errstate(divide="ignore"):
        idf = np.log(average / frequency + 1)
    tf = normalize(counts, axis=1, norm="l1")
    tf.data = np.sqrt(tf.data)
    return tf @ sp.diags(idf)


def ctfidf_words(docs: list[str], topics: np.ndarray, cfg: TopicsConfig, top: int = TOP_WORDS) -> dict[int, list[tuple[str, float]]]:
    """c-TF-IDF terms per theme computed directly, the way the BERTopic path computes them: one
    document per theme (outliers one more), the candidate terms of ``candidate_terms`` less those in
    more than ``max_df`` of the themes, then ``class_tfidf``. Used for corpora fitted without BERTopic
    (under ``bertopic_min_papers``), so ``import bertopic`` is never needed there."""
    classes = sorted(set(topics.tolist()))
    ids = [t for t in classes if t != -1]
    joined = [" ".join(d for d, k in zip(docs, topics.tolist()) if k == t) for t in classes]
    vectorizer = topic_vectorizer_class()(candidates=candidate_terms(docs, cfg), topic_max_df=cfg.max_df,
                                          analyzer=analyzer(cfg))
    try:
        counts = vectorizer.fit_transform(joined)
    except ValueError:  # no terms left at all
        return {t: [] for t in ids}
    scores = class_tfidf(counts).toarray()
    vocab = vectorizer.get_feature_names_out()
    return {
        t: [(str(vocab[j]), float(row[j])) for j in np.argsort(-row, kind="stable")[:top] if row[j] > 0]
        for t, row in zip(classes, scores) if t != -1
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
