"""``topics/store.py``: the model folder, replaced whole by each run."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipeline.io import write_frame
from pipeline.topics import store
from pipeline.topics.state import State


def test_a_killed_runs_leftovers_are_swept_and_the_folder_reopened(tmp_path):
    folder = tmp_path / "models" / "topics"
    folder.mkdir(parents=True)
    State(ids=np.array([1]), centroids=np.ones((1, 2), np.float32), words={1: []}, labels={1: "A"}, embedder="m",
          next_id=2, fitted_at="t").save(folder)
    table = tmp_path / "doc_topics.parquet"
    (tmp_path / "models" / ".topics.abc.tmp").mkdir()  # a model folder half written
    (tmp_path / ".doc_topics.parquet.x.tmp").write_text("half")  # a table half written
    held = store.open_folder(folder, [table])
    assert held is not None and held.labels == {1: "A"}
    assert not list((tmp_path / "models").glob(".topics.*")) and not list(tmp_path.glob(".doc_topics.parquet.*"))


def test_history_reads_the_kept_assignment_before_doc_topics(tmp_path):
    folder = tmp_path / "topics"
    folder.mkdir()
    write_frame(pd.DataFrame({"paper_id": ["a", "b"], "topic": [0, -1]}), folder / "assignment.parquet")
    assignment, lineage = store.history(folder, tmp_path / "doc_topics.parquet", tmp_path / "lineage.parquet",
                                        held=State(np.array([0]), np.zeros((1, 2)), {}, {}, "m", 1, "t"))
    assert assignment == {"a": 0, "b": -1} and lineage.empty
    assert store.history(folder, tmp_path / "doc_topics.parquet", tmp_path / "lineage.parquet", held=None)[0] == {}
