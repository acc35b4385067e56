from __future__ import annotations

import math

import numpy as np
import pytest

from pipeline.topics.quality.metrics import agreement, area_measures, diversity, npmi, summary


def test_npmi_known_values():
    docs = ["alpha beta", "alpha beta", "gamma delta", "gamma", "delta"]
    # alpha/beta always together: p=0.4 each, joint 0.4 -> log(0.4/0.16)/-log(0.4) = 1
    assert npmi({0: ["alpha", "beta"]}, docs) == pytest.approx(1.0)
    # alpha/gamma never together -> -1
    assert npmi({0: ["alpha", "gamma"]}, docs) == pytest.approx(-1.0)
    # gamma/delta: p=0.4 each, joint 0.2 -> log(0.2/0.16)/-log(0.2)
    assert npmi({0: ["gamma", "delta"]}, docs) == pytest.approx(math.log(0.2 / 0.16) / -math.log(0.2))
    # averaged over topics; outlier topic ignored
    assert npmi({0: ["alpha", "beta"], 1: ["alpha", "gamma"], -1: ["x", "y"]}, docs) == pytest.approx(0.0)


def test_npmi_matches_hyphenated_and_multiword_terms():
    docs = ["test-time scaling of reasoning", "test time scaling again", "other text here"]
    assert npmi({0: ["test-time scaling", "reasoning"]}, docs) > 0
    assert npmi({0: ["test time scaling", "scaling"]}, docs) == pytest.approx(1.0)


def test_diversity():
    assert diversity({0: ["a", "b"], 1: ["b", "c"]}) == 0.75
    assert diversity({0: list("abcdefghijklmnopqrstuvwxyz"), 1: ["a"]}, top=25) == 25 / 26


def test_agreement_and_summary():
    assert agreement([0, 0, 1, 1], ["x", "x", "y", "y"]) == pytest.approx((1.0, 1.0))
    out = summary([0, 0, 1, -1], {0: ["alpha"], 1: ["beta"]}, ["alpha", "alpha", "beta", "z"], ["cs.DC", "cs.DC", "cs.NI", None])
    assert out["n_topics"] == 2 and out["outlier_share"] == 0.25 and out["papers"] == 4
    assert out["nmi_primary_category"] == pytest.approx(1.0)


def test_information_splits_nmi_into_homogeneity_and_completeness():
    from sklearn.metrics import normalized_mutual_info_score

    from pipeline.topics.quality.metrics import information

    # each category cut into two pure themes: homogeneous, half complete
    topics, categories = [0, 0, 1, 1, 2, 2, 3, 3], ["x", "x", "x", "x", "y", "y", "y", "y"]
    out = information(topics, categories)
    assert out["homogeneity"] == pytest.approx(1.0)
    assert out["completeness"] == pytest.approx(0.5)
    assert out["mutual_information"] == pytest.approx(math.log(2))
    h, c = out["homogeneity"], out["completeness"]
    assert 2 * h * c / (h + c) == pytest.approx(normalized_mutual_info_score(categories, topics))
    # one theme of everything: complete and says nothing
    whole = information([0] * 8, categories)
    assert whole["mutual_information"] == pytest.approx(0.0) and whole["completeness"] == 1.0
    assert math.copysign(1.0, information([0] * 4, ["x"] * 4)["category_entropy"]) == 1.0  # 0.0, not -0.0
    assert all(math.isnan(v) for v in information([], []).values())
    summary_ = summary(topics, {t: ["a"] for t in range(4)}, ["a"] * 8, categories)
    assert summary_["homogeneity_primary_category"] == pytest.approx(1.0)
    assert summary_["completeness_primary_category"] == pytest.approx(0.5)


def test_a_label_used_as_a_search_query_is_scored_by_its_hits_and_its_nearest_papers():
    import numpy as np

    from pipeline.topics.quality.metrics import hindsight, r_precision, reader_measures
    from pipeline.topics.naming.words import WordIndex

    texts = ([f"Collective communication {i}. All-reduce on GPU clusters." for i in range(6)]
             + [f"Checkpointing {i}. Fault tolerance of LLM training on GPU clusters." for i in range(4)])
    topics = np.array([0] * 6 + [1] * 4)
    embeddings = np.array([[1.0, 0.0]] * 6 + [[0.0, 1.0]] * 4, dtype=np.float32)

    def embed(labels):  # "collective" points at theme 0's papers, anything else at theme 1's
        return np.array([[1.0, 0.1] if "ollective" in label else [0.1, 1.0] for label in labels], dtype=np.float32)

    good = reader_measures({0: "Collective communication", 1: "Checkpointing"}, topics, texts, embeddings, [0, 1],
                           embed=embed)
    assert good["lexical_f1"] == {0: 1.0, 1: 1.0} and good["r_precision"] == {0: 1.0, 1: 1.0}
    # "GPU clusters" is written by every paper: all of theme 0's papers are hits, but so are theme 1's
    shared = reader_measures({0: "GPU clusters", 1: "Checkpointing"}, topics, texts, embeddings, [0, 1], embed=embed)
    assert shared["lexical_precision"][0] == 0.6 and shared["lexical_recall"][0] == 1.0
    assert shared["lexical_f1"][0] == pytest.approx(0.75) and shared["r_precision"][0] == pytest.approx(1 / 3)  # 2 of its 6
    assert shared["r_precision_under_0.25"] == 0.0 and shared["lexical_f1_median"] == pytest.approx(0.875)
    assert r_precision(np.array([[1.0, 0.0]]), [1], topics, embeddings) == [0.0]
    titles = [t.split(". ")[0] for t in texts]
    best = hindsight(topics, titles, [0, 1], WordIndex(texts), frozenset())
    assert best[0] == ("collective", 1.0) and best[1] == ("checkpointing", 1.0)


def test_area_measures_say_which_areas_are_named_for_what_their_themes_share():
    from pipeline.topics.naming.words import WordIndex

    texts = (["stream processing of windowed joins"] * 6 + ["stream processing with watermarks"] * 4
             + ["graph partitioning by edge cuts"] * 5 + ["protein folding maps"] * 5 + ["crop yields"] * 5)
    topics = np.repeat([1, 2, 3, 4, 5], [6, 4, 5, 5, 5])
    labels = {1: "Windowed joins", 2: "Watermarks", 3: "Graph partitioning", 4: "Protein folding", 5: "Crop yields"}
    area_of = {1: 0, 2: 0, 3: 0, 4: 1, 5: 1}
    shared = area_measures({0: "Stream processing", 1: "Protein folding & Crop yields"}, area_of, labels, topics,
                           WordIndex(texts), frozenset({"of", "with", "by"}), 0.1)
    assert shared[0] == {"area": 0, "label": "Stream processing", "papers": 15, "themes": 3, "named_by": "phrase",
                         "themes_writing": 2, "shared": round(10 / 15, 3)}
    assert shared[1]["named_by"] == "themes"
    [after_one] = area_measures({0: "Graph partitioning"}, area_of, labels, topics, WordIndex(texts),
                                frozenset({"of", "with", "by"}), 0.1)
    assert after_one["themes_writing"] == 1 and after_one["shared"] == round(5 / 15, 3)  # named after one theme
    [alone] = area_measures({2: "Crop yields"}, {5: 2}, labels, topics, WordIndex(texts), frozenset(), 0.1)
    assert alone["named_by"] == "themes"  # an area of one theme is named by it
