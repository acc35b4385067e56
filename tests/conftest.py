"""Shared fixtures: the seed listings, the shared corpus, a temp project root, the cheap embedder
(plain helpers are in ``tests/helpers.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import CORPUS, FORMATS, SEEDS, HashEmbedder


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: tests read ../shared beside the repository (CI has it there)")
    return path


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    return SEEDS


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return _require(CORPUS)


@pytest.fixture(scope="session")
def formats_dir() -> Path:
    return _require(FORMATS)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A temporary project root whose data/raw/ holds copies of the three seed listings."""
    raw = tmp_path / "data" / "raw"
    raw.mkdir(parents=True)
    for seed in sorted(SEEDS.glob("0*_*.txt")):
        shutil.copy(seed, raw / seed.name)
    return tmp_path


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


