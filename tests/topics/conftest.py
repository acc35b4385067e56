"""Fixtures shared by the topics tests: a model fitted once per session on ``three_themes.corpus``."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics.clustering.model import ThemeModel
from tests.topics.three_themes import corpus


@pytest.fixture(scope="session")
def fitted() -> tuple[ThemeModel, list[str], np.ndarray, np.ndarray]:
    """The three themes fitted once with the defaults, for the tests that only read the model."""
    docs, vectors, truth = corpus()
    return ThemeModel.from_config(TopicsConfig()).fit(docs, vectors), docs, vectors, truth
