from __future__ import annotations

import numpy as np
import pytest

from pipeline.topics.embedding import hardware
from pipeline.topics.embedding.embed import EmbeddingCache, TransformerEmbedder, text_hashes


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


def test_chunks_and_repeats_put_every_vector_in_its_row(tmp_path, hash_embedder):
    texts = [f"paper {i % 7} about topic {i % 3}" for i in range(40)]  # 7 distinct texts, in a shuffled order
    texts = [texts[i] for i in np.random.default_rng(1).permutation(40)]
    cache = EmbeddingCache(tmp_path, hash_embedder.identity)
    head, embedded = cache.embed(texts[:20], hash_embedder, chunk=3)
    assert embedded == len(set(texts[:20]))
    vectors, embedded = cache.embed(texts, hash_embedder, chunk=3)
    assert embedded == len(set(texts)) - len(set(texts[:20]))
    np.testing.assert_allclose(vectors, hash_embedder.encode(texts), atol=1e-6)
    np.testing.assert_array_equal(vectors[:20], head)
    # every text was embedded once, in order of first appearance
    assert hash_embedder.texts[: len(set(texts))] == list(dict.fromkeys(texts[:20])) + [
        t for t in dict.fromkeys(texts) if t not in set(texts[:20])]


def test_shards_of_earlier_versions_are_read(tmp_path, hash_embedder):
    texts = ["older shard text", "another older text"]
    folder = tmp_path / hash_embedder.identity
    folder.mkdir()
    np.savez(folder / "shard-000000.npz", hashes=text_hashes(texts), vectors=hash_embedder.encode(texts))
    vectors, embedded = EmbeddingCache(tmp_path, hash_embedder.identity).embed(texts + ["new text"], hash_embedder)
    names = sorted(p.name for p in folder.iterdir())
    assert embedded == 1 and len(names) == 3 and names[0] == "shard-000000.npz"
    assert names[1].startswith("shard-000001-") and names[1].endswith(".hashes.npy")
    assert names[2] == names[1].replace(".hashes.", ".vectors.")
    np.testing.assert_allclose(vectors, hash_embedder.encode(texts + ["new text"]), atol=1e-6)


def test_small_shards_are_merged_and_every_vector_is_still_found(tmp_path, hash_embedder):
    folder = tmp_path / hash_embedder.identity
    runs = [[f"phrase {r} {i}" for i in range(3)] + ["said every run"] for r in range(EmbeddingCache.MERGE_ABOVE + 1)]
    earlier = EmbeddingCache(tmp_path, hash_embedder.identity)
    earlier.embed([], hash_embedder)  # a second process that read the cache before the first run wrote
    for texts in runs[:-2]:  # one small shard per run, as label phrases come
        EmbeddingCache(tmp_path, hash_embedder.identity).embed(texts, hash_embedder)
    earlier.embed(runs[-2], hash_embedder)  # so "said every run" is in two shards
    assert len(list(folder.glob("*.hashes.npy"))) == EmbeddingCache.MERGE_ABOVE
    big = [f"paper {i}" for i in range(EmbeddingCache.SMALL_SHARD)]  # a full shard is never merged
    EmbeddingCache(tmp_path, hash_embedder.identity).embed(big, hash_embedder)
    EmbeddingCache(tmp_path, hash_embedder.identity).embed(runs[-1], hash_embedder)  # one small shard too many
    shards = sorted(folder.glob("*.hashes.npy"))
    assert len(shards) == 2 and len(list(folder.glob("*.vectors.npy"))) == 2
    assert sorted(len(np.load(p)) for p in shards) == [len(set(sum(runs, []))), EmbeddingCache.SMALL_SHARD]
    every = sum(runs, []) + big
    vectors, embedded = EmbeddingCache(tmp_path, hash_embedder.identity).embed(every, hash_embedder)
    assert embedded == 0
    np.testing.assert_allclose(vectors, hash_embedder.encode(every), atol=1e-6)


def test_a_damaged_small_shard_is_left_out_of_a_merge_and_still_named(tmp_path, hash_embedder):
    folder = tmp_path / hash_embedder.identity
    for r in range(EmbeddingCache.MERGE_ABOVE):
        EmbeddingCache(tmp_path, hash_embedder.identity).embed([f"text {r} a", f"text {r} b"], hash_embedder)
    damaged = sorted(folder.glob("*.vectors.npy"))[0]
    np.save(damaged, hash_embedder.encode(["only one"]))  # one vector for two hashes
    EmbeddingCache(tmp_path, hash_embedder.identity).embed(["one more"], hash_embedder)
    assert damaged.exists()
    assert len(list(folder.glob("*.hashes.npy"))) == 2  # the damaged shard and the merged one
    with pytest.raises(ValueError, match=r"vectors\.npy: 1 vectors for 2 hashes"):
        EmbeddingCache(tmp_path, hash_embedder.identity).embed(["text 0 a"], hash_embedder)


def test_a_shard_whose_files_disagree_is_named(tmp_path, hash_embedder):
    EmbeddingCache(tmp_path, hash_embedder.identity).embed(["one text", "two texts"], hash_embedder)
    vectors = next((tmp_path / hash_embedder.identity).glob("*.vectors.npy"))
    np.save(vectors, hash_embedder.encode(["one text"]))  # a shard damaged by hand
    with pytest.raises(ValueError, match=r"vectors\.npy: 1 vectors for 2 hashes"):
        EmbeddingCache(tmp_path, hash_embedder.identity).embed(["one text"], hash_embedder)


def test_cached_vectors_sit_in_memory_once(tmp_path):
    """Looking up a corpus copies each vector once, into the result: the shards are mapped, not read."""
    import tracemalloc

    class Wide:
        identity = "wide"

        def encode(self, texts):  # noqa: ANN001, ANN202
            return np.random.default_rng(len(texts)).normal(size=(len(texts), 384)).astype(np.float32)

    texts = [f"text {i}" for i in range(20_000)]
    first, _ = EmbeddingCache(tmp_path, "wide").embed(texts, Wide(), chunk=4096)
    tracemalloc.start()
    again, embedded = EmbeddingCache(tmp_path, "wide").embed(texts, Wide())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert embedded == 0 and np.array_equal(again, first)
    assert peak < 1.3 * again.nbytes, f"peak {peak / 1e6:.1f} MB for a {again.nbytes / 1e6:.1f} MB result"


def test_text_hash_is_stable():
    assert text_hashes(["abc"])[0] == "a9993e364706816aba3e"


def test_identity_names_model_hash_and_token_limit():
    embedder = TransformerEmbedder(max_tokens=64)
    assert embedder.identity.startswith("all-MiniLM-L6-v2-") and embedder.identity.endswith("-max64")
    assert embedder.identity != TransformerEmbedder(max_tokens=128).identity


def test_vectors_match_sentence_transformers_and_batching_does_not_change_them(monkeypatch):
    """The model run in plain torch gives sentence-transformers' vectors, whatever the batch and
    however the feed-forward block is cut into chunks of token rows; long texts are cut at the same
    token."""
    from sentence_transformers import SentenceTransformer

    from pipeline.topics.embedding import bert

    texts = ["Expert parallelism for MoE serving on GPU clusters. We route tokens to experts.",
             "  Byzantine fault tolerant consensus  ", "x", "Ünïcode — dashes and “quotes” " * 40]
    ours = TransformerEmbedder(max_tokens=128, batch_size=2)
    reference = SentenceTransformer(str(ours.model_path), device="cpu", local_files_only=True)
    reference.max_seq_length = 128
    expected = reference.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    vectors = ours.encode(texts)
    assert vectors.dtype == np.float32 and vectors.shape == expected.shape
    np.testing.assert_allclose(vectors, expected, atol=1e-5)
    np.testing.assert_allclose(TransformerEmbedder(batch_size=64).encode(texts), vectors, atol=1e-5)
    chunks = []
    whole = bert.Bert._feed_forward
    monkeypatch.setattr(bert.Bert, "_feed_forward", lambda self, x, at: chunks.append(x.shape[0]) or whole(self, x, at))
    monkeypatch.setattr(bert, "FF_ROWS", 7)  # chunks that do not divide the rows evenly
    np.testing.assert_allclose(TransformerEmbedder(batch_size=64).encode(texts), expected, atol=1e-5)
    full = [f"Paper {i}: expert parallelism for MoE serving on GPU clusters, take {i}. " * 20 for i in range(3)]
    np.testing.assert_allclose(TransformerEmbedder(batch_size=64).encode(full),  # every row a token, none padding
                               reference.encode(full, normalize_embeddings=True, convert_to_numpy=True), atol=1e-5)
    assert chunks and min(chunks) > 7  # the chunked path ran


def test_the_plain_torch_encoder_runs_the_default_model_and_transformers_runs_the_rest(monkeypatch, tmp_path):
    """The default model runs in pipeline.topics.embedding.bert, whose vectors equal transformers' own; a
    folder it does not cover (another architecture) goes to transformers."""
    import json
    import subprocess
    import sys

    from pipeline.topics.embedding import bert, embed

    texts = ["Expert parallelism for MoE serving on GPU clusters.", "x", "Ünïcode — “quotes” " * 60]
    ours = TransformerEmbedder(max_tokens=64, batch_size=2)
    vectors = ours.encode(texts)
    assert isinstance(ours._model, bert.Bert)
    monkeypatch.setattr(bert, "load", lambda folder, device: None)
    through_transformers = TransformerEmbedder(max_tokens=64, batch_size=2)
    np.testing.assert_allclose(through_transformers.encode(texts), vectors, atol=1e-5)
    assert isinstance(through_transformers._model, embed._Transformers)
    monkeypatch.undo()

    other = tmp_path / "other"
    other.mkdir()
    for item in ours.model_path.iterdir():
        (other / item.name).symlink_to(item)
    (other / "config.json").unlink()
    config = json.loads((ours.model_path / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    assert bert.load(other, "cpu") is None and bert.load(ours.model_path, "cpu") is not None
    (other / "config.json").write_text(json.dumps({**config, "hidden_act": "relu"}))
    assert bert.load(other, "cpu") is None

    code = ("import sys; from pipeline.topics.embedding.embed import TransformerEmbedder; TransformerEmbedder().encode(['a b']); "
            "print('transformers' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]  # embedding imports neither


def test_auto_device_falls_back_to_the_cpu_without_a_gpu(monkeypatch):
    import torch

    from pipeline.topics.embedding.hardware import pick_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert pick_device("auto") == "cpu" and pick_device("cuda") == "cuda"
    embedder = TransformerEmbedder(device="auto")
    assert embedder.encode(["one text"]).shape == (1, 384) and embedder.device_ == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device("auto") == "cuda"


def test_a_pickled_embedder_finds_the_model_in_its_own_installation():
    import pickle

    embedder = TransformerEmbedder(max_tokens=64)
    state = embedder.__getstate__()
    assert state["model_path"] is None and state["_model"] is None  # resolved again where it is unpickled
    copy = pickle.loads(pickle.dumps(embedder))
    assert copy.model_path == embedder.model_path and copy.identity == embedder.identity


def test_auto_precision_is_bfloat16_only_on_a_cpu_that_computes_it(monkeypatch):
    from pipeline.config import TopicsConfig
    from pipeline.topics.embedding import embed

    monkeypatch.setattr(hardware, "cpu_has_bf16", lambda: True)
    assert hardware.resolve_precision("auto", "cpu") == "bfloat16"
    monkeypatch.setattr(hardware, "gpu_models", lambda: ["NVIDIA H100 80GB HBM3"])
    assert hardware.resolve_precision("auto", "cuda") == "bfloat16"  # a GPU with bfloat16 units uses them
    monkeypatch.setattr(hardware, "gpu_models", lambda: ["Tesla V100-SXM2-16GB"])
    assert hardware.resolve_precision("auto", "cuda") == "float32"  # one without them would emulate it
    assert hardware.resolve_precision("float32", "cpu") == "float32"
    monkeypatch.setattr(hardware, "cpu_has_bf16", lambda: False)
    assert hardware.resolve_precision("auto", "cpu") == "float32"  # emulated bfloat16 would be slower
    assert hardware.resolve_precision("bfloat16", "cpu") == "bfloat16"
    with pytest.raises(ValueError, match="unknown precision 'half'"):
        hardware.resolve_precision("half", "cpu")
    monkeypatch.setattr(hardware, "cpu_has_bf16", lambda: True)
    assert embed.make_embedder(TopicsConfig(device="cpu")).precision == "bfloat16"  # the config's default is "auto"


def test_bfloat16_vectors_are_cached_apart_and_lie_next_to_float32_ones(monkeypatch):
    import pickle

    import torch

    from pipeline.topics.embedding import bert

    texts = ["Expert parallelism for MoE serving on GPU clusters. We route tokens to experts.",
             "Byzantine fault tolerant consensus for permissioned blockchains.", "x",
             "Federated learning with differential privacy on edge devices. " * 30]
    exact = TransformerEmbedder(max_tokens=128, precision="float32")
    fast = TransformerEmbedder(max_tokens=128, precision="bfloat16")
    assert fast.identity == exact.identity + "-bf16"
    assert pickle.loads(pickle.dumps(fast)).precision == "bfloat16"  # a worker computes what the identity says
    a, b = exact.encode(texts), fast.encode(texts)
    assert b.dtype == np.float32 and np.allclose(np.linalg.norm(b, axis=1), 1, atol=1e-5)
    assert not np.array_equal(a, b)  # bfloat16 did run
    assert (a * b).sum(axis=1).min() > 0.999
    products = []
    linear = torch.nn.functional.linear
    monkeypatch.setattr(torch.nn.functional, "linear", lambda *a, **k: products.append(1) or linear(*a, **k))
    monkeypatch.setattr(bert, "FF_ROWS", 7)
    np.testing.assert_array_equal(TransformerEmbedder(max_tokens=128, precision="bfloat16").encode(texts), b)
    assert len(products) == 6 * 6  # one batch, 6 layers of 6 products: under autocast the feed-forward is not cut


def test_gpus_that_compute_bfloat16_are_told_from_those_that_do_not(monkeypatch):
    for names, native in [(["NVIDIA H200"], True), (["NVIDIA H100 80GB HBM3"], True), (["NVIDIA A100-SXM4-80GB"], True),
                          (["NVIDIA L4"], True), (["NVIDIA L40S"], True), (["NVIDIA GeForce RTX 3090"], True),
                          (["NVIDIA RTX A6000"], True), (["NVIDIA RTX 6000 Ada Generation"], True),
                          (["Tesla T4"], False), (["Tesla P100-PCIE-16GB"], False), (["Tesla V100-SXM2-16GB"], False),
                          (["Quadro GV100"], False), (["NVIDIA TITAN RTX"], False), (["NVIDIA T1000"], False),
                          (["NVIDIA GeForce RTX 2080 Ti"], False), (["NVIDIA H100", "Tesla V100"], False), ([], False)]:
        monkeypatch.setattr(hardware, "gpu_models", lambda names=names: names)
        assert hardware.gpu_has_bf16() == native, names


class SlowGpuModel:
    """Stands in for the encoder on a GPU: each forward pass records when it began, and (``ahead``)
    waits for the next batch's tokenising to begin, so a test can see the two overlap."""

    hidden_size = 3

    def __init__(self, ahead: bool, batches: int) -> None:
        import threading

        self.ahead, self.batches = ahead, batches
        self.ended: list[float] = []
        self.events: list[tuple[str, int, float, str]] = []
        self.lock = threading.Lock()

    def tokenize(self, texts, max_tokens, device):  # noqa: ANN001, ANN201
        import threading
        import time

        import torch

        with self.lock:
            self.events.append(("tokenize", len(texts), time.perf_counter(), threading.current_thread().name))
        lengths = torch.tensor([[len(t), 1] for t in texts], dtype=torch.long)
        return {"input_ids": lengths, "attention_mask": torch.ones_like(lengths)}

    def __call__(self, input_ids, attention_mask):  # noqa: ANN001, ANN204
        import time

        import torch

        start = time.perf_counter()
        with self.lock:
            self.events.append(("forward", len(input_ids), start, "main"))
            done = sum(kind == "forward" for kind, *_ in self.events)
        # on a GPU the next batch's tokens are being made while this batch runs: wait (at most 5 s)
        # until its tokenising has begun, as a GPU's work would take the time it needs
        deadline = time.perf_counter() + (5.0 if self.ahead else 0.0)
        while time.perf_counter() < deadline and sum(k == "tokenize" for k, *_ in self.events) < min(done + 1, self.batches):
            time.sleep(0.001)
        self.ended.append(time.perf_counter())
        # hidden state of a token: (its id, 1, 2), so a text's vector depends on its length
        ids = input_ids.float().unsqueeze(-1)
        return torch.cat([ids, torch.ones_like(ids), 2 * torch.ones_like(ids)], dim=-1)


@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_on_a_gpu_the_next_batch_is_tokenised_while_the_gpu_runs_this_one(monkeypatch, device):
    """A stand-in encoder "on a GPU" (tensors stay on the CPU): tokenising runs one batch ahead in a
    thread, the batch size is the GPU's, and the vectors are those of the CPU path, in order."""
    import torch

    from pipeline.topics.embedding import bert, embed

    batch = hardware.GPU_BATCH if device == "cuda" else hardware.CPU_BATCH
    model = SlowGpuModel(ahead=device == "cuda", batches=-(-1000 // batch))
    monkeypatch.setattr(bert, "load", lambda folder, dev: model)
    monkeypatch.setattr(hardware, "pick_device", lambda wanted: device)
    monkeypatch.setattr(torch.Tensor, "to", lambda self, *args, **kwargs: self)  # no CUDA here
    texts = [f"paper {'x' * (i % 17)} {i}" for i in range(1000)]
    embedder = embed.TransformerEmbedder(precision="float32")
    vectors = embedder.encode(texts)
    sizes = [n for kind, n, _, _ in model.events if kind == "forward"]
    assert sum(sizes) == 1000 and max(sizes) == batch
    tokenized = [e for e in model.events if e[0] == "tokenize"]
    forwards = [e for e in model.events if e[0] == "forward"]
    if device == "cuda":
        assert {thread for *_, thread in tokenized} == {"tokenize_0"}
        # batch k + 1's tokenising began while batch k ran (the stand-in waits for it at most 5 s)
        assert all(tokenized[k + 1][2] < model.ended[k] for k in range(len(forwards) - 1))
    else:  # in turn: each batch is tokenised after the one before has run
        assert {thread for *_, thread in tokenized} == {"MainThread"}
        assert all(tokenized[k + 1][2] > model.ended[k] for k in range(len(forwards) - 1))
    lengths = np.array([len(t) for t in texts], dtype=np.float64)
    pooled = np.column_stack([(lengths + 1) / 2, np.ones(1000), 2 * np.ones(1000)])  # tokens (len, 1) averaged
    np.testing.assert_allclose(vectors, pooled / np.linalg.norm(pooled, axis=1, keepdims=True), rtol=1e-5)


def test_long_texts_are_cut_before_tokenising_and_keep_the_whole_texts_tokens(monkeypatch):
    """A text is cut at a space before ``max_tokens * CHARS_PER_TOKEN`` characters before it is
    tokenised; the tokens are the whole text's, also where the cut part does not fill the limit
    (long one-token words: tokenised again whole) and where there is no space to cut at."""
    import torch

    from pipeline.topics.embedding import bert

    model = bert.load(TransformerEmbedder().model_path, "cpu")
    texts = ["Expert parallelism for MoE serving on GPU clusters. " * 30,  # cut, fills the limit
             "understanding " * 200,  # 14 characters a token: the cut part holds fewer than 128
             "x" * 3000,  # no space
             "Ünïcode — “quotes” and\nnew lines\tand tabs " * 50,
             "short"]
    model.tokenizer = recording = _Recording(model.tokenizer)
    calls = recording.calls
    tokens = model.tokenize(texts, 128, "cpu")
    assert model.cuts  # the model's tokenizer splits words at whitespace (BertPreTokenizer)
    assert len(calls) == 2 and calls[1] == [texts[1]]  # the second text again, whole, alone
    assert len(calls[0][0]) <= 128 * bert.CHARS_PER_TOKEN < len(texts[0]) and calls[0][1] != texts[1]
    assert calls[0][2] == texts[2] and calls[0][4] == texts[4]
    monkeypatch.setattr(bert, "CHARS_PER_TOKEN", 10**6)  # no cut at all
    whole = model.tokenize(texts, 128, "cpu")
    assert len(calls) == 3 and calls[2] == texts
    assert whole["input_ids"].shape == tokens["input_ids"].shape == (5, 128)
    for name in whole:
        assert torch.equal(whole[name], tokens[name]), name
    monkeypatch.undo()
    model.cuts = False  # a tokenizer that does not split words at whitespace: texts go whole
    model.tokenize(texts, 128, "cpu")
    assert calls[3] == texts
    short = ["understanding " * 200, "a short one"]  # the text tokenised again pads less than 128 ...
    calls.clear()
    model.cuts = True
    padded = model.tokenize(short, 128, "cpu")
    assert len(calls) == 2 and padded["input_ids"].shape == (2, 128)  # ... and is padded to the batch's longest
    model.cuts = False
    for name, tensor in model.tokenize(short, 128, "cpu").items():
        assert torch.equal(tensor, padded[name]), name


class _Recording:
    """A tokenizer that records the texts of each ``encode_batch``."""

    def __init__(self, tokenizer) -> None:  # noqa: ANN001
        self.tokenizer, self.calls = tokenizer, []

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.tokenizer, name)

    def encode_batch(self, batch: list[str]):  # noqa: ANN201
        self.calls.append(list(batch))
        return self.tokenizer.encode_batch(batch)
