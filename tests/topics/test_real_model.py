"""End to end with the real embedding model (all-MiniLM-L6-v2 from the installed package, offline)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline import topics
from pipeline.io import read_table
from pipeline.schemas import DocTopics, Papers, TopicInfo
from pipeline.topics import paper_texts
from pipeline.topics.embedding.embed import TransformerEmbedder
from pipeline.topics.naming.words import WordIndex
from tests.helpers import cleaned_copy

pytestmark = pytest.mark.model


def test_model_loads_offline_and_embeds_meaningfully(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = TransformerEmbedder(max_tokens=64)
    vectors = embedder.encode([
        "Federated learning across edge devices with non-IID data.",
        "Clients train a shared model with federated averaging under privacy constraints.",
        "A CUDA kernel for sparse matrix multiplication on GPUs.",
    ])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, rtol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_seed_listings_end_to_end_is_deterministic(tmp_path):
    results = []
    for name in ("first", "second"):
        cfg = cleaned_copy(tmp_path / name)
        topics.run(cfg)
        results.append((read_table(cfg.paths.doc_topics, DocTopics), read_table(cfg.paths.topic_info, TopicInfo)))
    pd.testing.assert_frame_equal(results[0][0], results[1][0])
    pd.testing.assert_frame_equal(results[0][1], results[1][1])
    doc_topics, info = results[0]
    assert len(doc_topics) == 94 and (doc_topics["topic"] == -1).mean() <= 0.05
    assert len(info) >= 2
    papers = read_table(cfg.paths.papers, Papers)
    defined = WordIndex(paper_texts(papers)).aliases  # the acronyms the seed papers define
    for label in info["label"]:
        words = label.replace("/", " ").split()
        # 2-4 words, or one acronym the papers write for 2-4 words ("HPC": high-performance computing)
        spelled = [max(len(form) for form in defined[w.removesuffix("s")]) for w in words if w.removesuffix("s") in defined]
        assert 2 <= len(words) <= 4 or (len(words) == 1 and spelled and 2 <= spelled[0] <= 4), label
        assert not label.lower().startswith("theme")
