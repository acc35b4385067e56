"""The vocabulary themes are described by: candidate phrases, c-TF-IDF keywords, their order."""

from __future__ import annotations

import numpy as np

from pipeline.config import TopicsConfig

CFG = TopicsConfig()


def test_theme_vectorizer_counts_the_kept_candidates_in_one_pass():
    from sklearn.feature_extraction.text import CountVectorizer

    from pipeline.topics.naming.vocabulary import analyzer, topic_vectorizer_class

    themes = ["Federated learning on edge devices. Federated learning, again.",
              "KV cache for LLM serving; the KV cache grows.", "Edge devices and LLM serving.",
              "LLM serving on edge devices.", "Quantum circuits."]
    candidates = ["federated learning", "kv cache", "edge devices", "llm serving", "never written"]
    calls = []

    class Counting(type(analyzer(CFG))):
        def __call__(self, doc: str) -> list[str]:
            calls.append(doc)
            return super().__call__(doc)

    counting = Counting(CFG.ngram_max, analyzer(CFG).stop)
    vectorizer = topic_vectorizer_class()(candidates=candidates, topic_max_df=0.5, analyzer=counting)
    counts = vectorizer.fit_transform(themes)
    # in more than half of the themes ("edge devices", "llm serving") or in none: left out
    assert vectorizer.get_feature_names_out().tolist() == ["federated learning", "kv cache"]
    assert counts.toarray().tolist() == [[2, 0], [0, 2], [0, 0], [0, 0], [0, 0]]
    assert len(calls) == len(themes)  # each theme's document analysed once
    plain = CountVectorizer(vocabulary=["federated learning", "kv cache"], analyzer=analyzer(CFG))
    assert (plain.fit_transform(themes) != counts).nnz == 0
    assert (vectorizer.transform(themes) != counts).nnz == 0
    nothing = topic_vectorizer_class()(candidates=["never written"], analyzer=analyzer(CFG))
    counts = nothing.fit_transform(themes)  # no candidate left: every term of the themes
    assert nothing.vocabulary is None and counts.shape == (5, len(nothing.get_feature_names_out()))
    assert {"federated learning", "quantum circuits"} <= set(nothing.get_feature_names_out())


def _two_subjects() -> tuple[list[str], np.ndarray]:
    """Twenty papers on federated learning and twenty on GPU kernels, all of them about systems."""
    fed = [f"Federated learning round {i}. Federated learning clients average models over systems." for i in range(20)]
    gpu = [f"GPU kernels study {i}. GPU kernels tile shared memory in systems." for i in range(20)]
    return fed + gpu, np.array([0] * 20 + [1] * 20)


def test_each_themes_keywords_are_its_own_phrases_and_a_word_of_every_theme_is_none():
    from pipeline.topics.naming.vocabulary import ctfidf_words

    docs, topics = _two_subjects()
    words = ctfidf_words(docs, topics, CFG)
    top = {t: [w for w, _ in terms[:3]] for t, terms in words.items()}
    assert "federated learning" in top[0] and "gpu kernels" in top[1]
    assert not any("gpu" in w for w, _ in words[0]) and not any("federated" in w for w, _ in words[1])
    assert not any(w == "systems" for terms in words.values() for w, _ in terms)  # in both themes (max_df)
    assert all(s > 0 for terms in words.values() for _, s in terms)


def test_stop_words_are_english_the_domain_list_and_the_users():
    from pipeline.topics.naming.vocabulary import candidate_terms, stop_words

    stop = set(stop_words(("Kernels",)))
    assert {"the", "propose", "results", "kernels"} <= stop and "federated" not in stop
    docs, _ = _two_subjects()
    terms = set(candidate_terms(docs, TopicsConfig(stop_words=("kernels",))))
    assert "gpu" in terms and not any("kernels" in t for t in terms)


def test_keywords_most_of_a_themes_papers_use_come_before_a_term_a_few_repeat():
    from pipeline.topics.naming.vocabulary import rerank_by_coverage

    docs = [f"Paper {i}. Edge offloading moves inference to edge servers." for i in range(10)]
    docs[0] += " Kubeflow kubeflow kubeflow kubeflow."
    topics = np.zeros(10, dtype=int)
    # c-TF-IDF scored the tool's name, written by one paper, above the subject all ten write
    ranked = rerank_by_coverage({0: [("kubeflow", 0.9), ("edge offloading", 0.5)]}, docs, topics, CFG)
    assert [w for w, _ in ranked[0]] == ["edge offloading", "kubeflow"]


def test_the_stop_words_are_built_once_per_set_of_extras():
    from pipeline.topics.naming.vocabulary import stop_words

    assert stop_words(("Kernels",)) is stop_words(("Kernels",))  # every step of a run shares one set
    assert "kernels" in stop_words(("Kernels",)) and "kernels" not in stop_words()
