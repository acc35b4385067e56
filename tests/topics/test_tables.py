"""``topics/tables.py``: the stage's four tables from a run's result."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipeline.io import write_frame
from pipeline.schemas import TopicLineage, empty
from pipeline.topics.state import RunResult, Change, State
from pipeline.topics.tables import doc_topics_table, lineage_table, read_lineage


def result(mode: str, lineage: list[Change]) -> RunResult:
    s = State(ids=np.array([0, 1]), centroids=np.eye(2, dtype=np.float32), words={}, labels={0: "A", 1: "B"},
              embedder="m", next_id=2, fitted_at="2026-11-28T10:00:00+00:00")
    return RunResult(np.array([0, 1, -1]), np.array([0.9, 0.8, 0.1]), s, lineage, mode)


def test_doc_topics_has_every_paper_with_its_theme():
    table = doc_topics_table(["a", "b", "c"], result("fit", []))
    assert table["paper_id"].tolist() == ["a", "b", "c"] and table["topic"].tolist() == [0, 1, -1]


def test_a_fit_starts_the_lineage_afresh_and_an_update_adds_to_it():
    before = lineage_table(empty(TopicLineage), result("fit", [Change(None, 0, "new"), Change(None, 1, "new")]), "2025-W30")
    assert before["relation"].tolist() == ["new", "new"] and set(before["mode"]) == {"fit"}
    after = lineage_table(before, result("update", [Change(None, 2, "new", week="2025-W31")]), "2025-W31")
    assert len(after) == 3 and after["week"].tolist()[-1] == "2025-W31" and after["mode"].tolist()[-1] == "update"
    assert lineage_table(after, result("fit", [Change(None, 0, "new")]), "2025-W32")["relation"].tolist() == ["new"]


def test_a_lineage_table_from_before_weekly_births_gains_their_columns(tmp_path):
    old = pd.DataFrame({"run": ["t"], "from_topic": [None], "to_topic": [0], "relation": ["new"],
                        "similarity": [None], "shared_papers": [0]})
    write_frame(old, tmp_path / "lineage.parquet")
    upgraded = read_lineage(tmp_path / "lineage.parquet")
    assert upgraded["mode"].tolist() == ["fit"] and {"week", "pool_size", "pool_start"} <= set(upgraded.columns)
    assert read_lineage(tmp_path / "none.parquet").empty
