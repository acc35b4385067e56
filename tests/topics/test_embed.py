from __future__ import annotations

import numpy as np
import pytest

from pipeline.topics.embed import EmbeddingCache, SentenceTransformerEmbedder, text_hashes


def test_cache_embeds_each_text_once_and_persists(tmp_path, hash_embedder):
    cache = EmbeddingCache(tmp_path, hash_embedder.identity)
    texts = ["alpha beta", "gamma delta", "alpha beta"]
    first, embedded = cache.embed(texts, hash_embedder)
    assert embedded == 2 and hash_embedder.calls == [2]  # the repeated text is embedded once
    np.testing.assert_array_equal(first[0], first[2])
    again, embedded = EmbeddingCache(tmp_path, hash_embedder.identity).embed(texts + ["new text"], hash_embedder)
    assert embedded == 1 and hash_embedder.calls == [2, 1]  # a fresh cache object reads the shards
    np.testing.assert_array_equal(again[:3], first)


def test_identities_do_not_share_vectors(tmp_path, hash_embedder):
    EmbeddingCache(tmp_path, "model-a").embed(["x y"], hash_embedder)
    _, embedded = EmbeddingCache(tmp_path, "model-b").embed(["x y"], hash_embedder)
    assert embedded == 1


def test_interrupted_embedding_keeps_finished_chunks(tmp_path, hash_embedder):
    class Failing:
        identity = hash_embedder.identity

        def __init__(self):
            self.n = 0

        def encode(self, texts):
            self.n += 1
            if self.n == 2:
                raise RuntimeError("killed")
            return hash_embedder.encode(texts)

    texts = [f"text number {i}" for i in range(10)]
    with pytest.raises(RuntimeError):
        EmbeddingCache(tmp_path, hash_embedder.identity).embed(texts, Failing(), chunk=4)
    _, embedded = EmbeddingCache(tmp_path, hash_embedder.identity).embed(texts, hash_embedder, chunk=4)
    assert embedded == 6


def test_text_hash_is_stable():
    assert text_hashes(["abc"])[0] == "a9993e364706816aba3e"


def test_identity_names_model_hash_and_token_limit():
    embedder = SentenceTransformerEmbedder(max_tokens=64)
    assert embedder.identity.startswith("all-MiniLM-L6-v2-") and embedder.identity.endswith("-max64")
    assert embedder.identity != SentenceTransformerEmbedder(max_tokens=128).identity
