"""What tests share that is not a fixture: where the data is, record builders, a cheap embedder,
and a project cleaned from the seeds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from pipeline.ingest.records import record
from pipeline.schemas import Listings

REPO = Path(__file__).resolve().parents[1]

SEEDS = REPO / "data" / "raw"

SHARED = REPO.parent / "shared"

CORPUS = SHARED / "data" / "arxiv-daily"

FORMATS = SHARED / "data" / "formats"


def listings(*records: dict, source_file: str = "mem.jsonl", source_format: str = "daily-jsonl") -> pd.DataFrame:
    """A Listings table from ``record(...)`` dicts; ``_file``/``_format`` keys override per record."""
    rows, positions = [], {}
    for rec in records:
        rec = dict(rec)
        file = rec.pop("_file", source_file)
        fmt = rec.pop("_format", source_format)
        position = positions.get(file, 0)
        positions[file] = position + 1
        rows.append({**record(**rec), "source_file": file, "source_format": fmt, "position": position})
    return Listings.validate(pd.DataFrame.from_records(rows))


ABSTRACT = "We study a problem in distributed systems and show a method that works well in practice."


class HashEmbedder:
    """A cheap, deterministic stand-in for the sentence model, for tests where the model is not the
    point: hashed word counts projected to 64 dimensions. Similar vocabularies give similar vectors.
    Counts the texts it is asked to embed."""

    identity = "hash-embedder-test"

    def __init__(self) -> None:
        import numpy as np

        self.calls: list[int] = []
        self.texts: list[str] = []
        self._projection = np.random.default_rng(0).normal(size=(4096, 64)).astype("float32")

    def encode(self, texts):  # noqa: ANN001, ANN201
        import numpy as np
        from sklearn.feature_extraction.text import HashingVectorizer

        self.calls.append(len(texts))
        self.texts.extend(texts)
        counts = HashingVectorizer(n_features=4096, stop_words="english", alternate_sign=False, norm="l2")
        vectors = counts.transform(list(texts)) @ self._projection
        vectors = np.asarray(vectors, dtype="float32")
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)

    @property
    def embedded(self) -> int:
        return sum(self.calls)


def cleaned_copy(root: Path):  # noqa: ANN201 - a pipeline.config.Config
    """A fresh project at ``root`` with the seed listings, ingested and cleaned; returns its config."""
    from pipeline import clean, config, ingest

    shutil.copytree(SEEDS, root / "data" / "raw")
    cfg = config.load(root)
    ingest.run(cfg)
    clean.run(cfg)
    return cfg


def keyword_spy(monkeypatch, module, name: str, keyword: str) -> list:  # noqa: ANN001 - pytest's fixture, a module
    """Wrap ``module.name`` so that each call records its keyword argument ``keyword`` (None when not
    given) and goes on to the real function; returns the list the values go to."""
    seen = []
    real = getattr(module, name)

    def spy(*args, **kwargs):  # noqa: ANN202 - whatever the real function returns
        seen.append(kwargs.get(keyword))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen
