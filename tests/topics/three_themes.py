"""Three themes with their own vocabulary and embeddings that are three tight blobs: the small corpus
the clustering, naming and settings tests fit (``corpus``), and the model fitted on it once per session
(``tests/topics/conftest.py``: ``fitted``)."""

from __future__ import annotations

import numpy as np

THEMES = {
    "federated learning": "Federated learning trains models across clients; federated averaging handles non-IID client data and privacy.",
    "gpu kernels": "GPU kernels for sparse matrix multiplication; the CUDA kernels use tensor cores and shared memory tiling.",
    "edge offloading": "Edge offloading moves inference tasks from mobile devices to edge servers to cut latency and energy.",
}


def corpus(per_theme: int = 40, seed: int = 0) -> tuple[list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    docs, vectors, truth = [], [], []
    centers = rng.normal(size=(len(THEMES), 32))
    for k, (name, text) in enumerate(THEMES.items()):
        for i in range(per_theme):
            docs.append(f"{name.title()} study {i}. {text} Variant {i} of the setup.")
            vectors.append(centers[k] + 0.05 * rng.normal(size=32))
            truth.append(k)
    vectors = np.asarray(vectors, dtype=np.float32)
    return docs, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), np.array(truth)


