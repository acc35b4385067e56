"""``topics/state.py``: what the topics stage keeps between runs."""

from __future__ import annotations

import numpy as np

from pipeline.topics.naming.lifecycle import distinct, unique
from pipeline.topics.state import State, described


def state() -> State:
    return State(ids=np.array([0, 3]), centroids=np.eye(2, 4, dtype=np.float32),
                 words={0: [("federated learning", 0.9), ("clients", 0.5)], 3: [("consensus", 0.8)]},
                 labels={0: "Federated learning", 3: "Consensus"}, embedder="model-x", next_id=4,
                 fitted_at="2026-11-28T10:00:00+00:00", descriptions={0: "Federated learning · clients"},
                 support={0: 0.6, 3: 0.4}, complements={3: "Byzantine faults"}, area_of={0: 0, 3: 0}, area_labels={0: "Distributed learning"},
                 born={3: "2025-W40"}, fitted_week="2025-W38",
                 forming=[{"papers": ["2501.00001"], "nearest": 0, "label": "x", "week": "2025-W40"}])


def test_a_state_saved_and_loaded_is_the_same_state(tmp_path):
    before = state()
    before.save(tmp_path)
    after = State.load(tmp_path)
    assert after is not None
    assert after.ids.tolist() == [0, 3] and np.array_equal(after.centroids, before.centroids)
    for name in ("words", "labels", "embedder", "next_id", "fitted_at", "descriptions", "support", "complements", "area_of",
                 "area_labels", "born", "fitted_week", "forming"):
        assert getattr(after, name) == getattr(before, name), name
    assert State.load(tmp_path / "nothing here") is None  # before the first fit


def test_labels_are_made_unique_by_a_keyword_then_by_the_theme_number():
    assert unique("Consensus", [("raft", 1.0)], {"Consensus"}, 7) == "Consensus (raft)"
    assert unique("Consensus", [("consensus", 1.0)], {"Consensus"}, 7) == "Consensus (7)"
    assert unique("Raft", [], set(), 7) == "Raft"
    s = state()
    s.labels[3] = "Federated learning"
    distinct(s)
    assert s.labels == {0: "Federated learning", 3: "Federated learning (consensus)"}


def test_a_description_starts_with_the_label_it_describes():
    assert described("Consensus", "consensus · raft · paxos") == "consensus · raft · paxos"
    assert described("BFT consensus", "consensus · raft") == "BFT consensus · raft"
