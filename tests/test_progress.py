"""Long steps show progress: a bar on a terminal, periodic lines with a rate in a log, nothing under -q."""

from __future__ import annotations

import logging
import re
import sys

import numpy as np
import pytest

from pipeline import progress
from pipeline.topics.embedding.embed import EmbeddingCache
from tests.helpers import HashEmbedder

LINE = re.compile(r"^embed: [\d,]+/1,000 papers \(\d+ %\), [\d.,]+ papers/s, about .+ left$")


class BatchedEmbedder(HashEmbedder):
    """Embeds in batches of 100 and says so after each, as the sentence model does."""

    def encode(self, texts):  # noqa: ANN001, ANN201
        parts = []
        for start in range(0, len(texts), 100):
            parts.append(super().encode(texts[start:start + 100]))
            progress.advance(len(texts[start:start + 100]))
        return np.concatenate(parts)


@pytest.fixture
def log_lines(monkeypatch, caplog):
    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)  # every advance is "a few seconds later"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    caplog.set_level(logging.INFO, logger="pipeline.progress")
    yield lambda: [r.getMessage() for r in caplog.records if r.name == "pipeline.progress"]
    progress.set_progress(True)


def test_embedding_in_a_log_writes_lines_with_a_rate_and_the_time_left(tmp_path, log_lines):
    texts = [f"paper {i} about distributed training number {i % 37}" for i in range(1_000)]
    EmbeddingCache(tmp_path, "hash").embed(texts, BatchedEmbedder(), chunk=500)
    lines = log_lines()
    assert len(lines) == 10, lines  # one per batch of 100: the embedder's batches, not the cache's two chunks
    assert all(LINE.match(line) for line in lines), lines
    assert lines[0].startswith("embed: 100/1,000 papers (10 %)") and lines[-1].startswith("embed: 1,000/1,000")


def test_a_step_shorter_than_the_interval_says_nothing(monkeypatch, caplog):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    caplog.set_level(logging.INFO, logger="pipeline.progress")
    assert list(progress.progress(range(50), desc="naming", unit="theme")) == list(range(50))
    assert not [r for r in caplog.records if r.name == "pipeline.progress"]


def test_quiet_writes_no_progress(log_lines):
    progress.set_progress(False)
    assert list(progress.progress(range(5), desc="layouts", unit="layout")) == list(range(5))
    assert log_lines() == []


def test_a_loop_meter_counts_its_items(log_lines):
    list(progress.progress(["a", "b", "c"], desc="layouts", unit="layout"))
    assert [line.split(",")[0] for line in log_lines()] == [
        "layouts: 1/3 layouts (33 %)", "layouts: 2/3 layouts (67 %)", "layouts: 3/3 layouts (100 %)"]


def test_a_terminal_gets_a_bar_not_lines(monkeypatch, caplog, capsys):
    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)
    monkeypatch.setattr(progress, "BAR_DELAY", 0.0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    caplog.set_level(logging.INFO, logger="pipeline.progress")
    list(progress.progress(range(3), desc="figures", unit="figure"))
    assert not [r for r in caplog.records if r.name == "pipeline.progress"]
    assert "figures" in capsys.readouterr().err  # tqdm drew on stderr
