from __future__ import annotations

import math

import pytest

from pipeline.topics.metrics import agreement, diversity, npmi, summary


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

    from pipeline.topics.metrics import information

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
