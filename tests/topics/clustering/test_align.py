from __future__ import annotations

import numpy as np
import pytest

from pipeline.topics.clustering.align import Themes, align, keyword_similarity

E = np.eye(4, dtype=np.float32)
WORDS = {0: [("federated", 1.0), ("clients", 0.5)], 1: [("gpu", 1.0), ("kernels", 0.5)],
         2: [("edge", 1.0), ("offloading", 0.5)], 3: [("quantum", 1.0), ("qubits", 0.5)]}


def themes(ids, rows, words=None):
    words = words or {i: WORDS[r] for i, r in zip(ids, rows)}
    return Themes(np.array(ids), E[rows], words)


def relations(result):
    return sorted(((r.from_topic, r.to_topic, r.relation) for r in result.lineage), key=str)


def test_keyword_similarity():
    assert keyword_similarity(WORDS[0], WORDS[0]) == pytest.approx(1.0)
    assert keyword_similarity(WORDS[0], WORDS[1]) == 0.0


def test_same_themes_keep_their_ids_whatever_the_fitted_numbering():
    old = themes([10, 11, 12], [0, 1, 2])
    new = themes([0, 1, 2], [2, 0, 1])  # refit numbers them differently
    papers = {f"p{i}": i % 3 for i in range(30)}
    result = align(new, old, papers, {p: {0: 12, 1: 10, 2: 11}[t] for p, t in papers.items()}, threshold=0.55, next_id=13)
    assert result.ids == {0: 12, 1: 10, 2: 11}
    assert relations(result) == [(10, 10, "same"), (11, 11, "same"), (12, 12, "same")]


def test_split_merge_new_retired():
    old = themes([0, 1, 2, 3], [0, 1, 2, 3])
    # new 0 continues old 0; new 1 continues old 1; new 2 = half of old 1 (split);
    # new 3 = old 2 + old 3 merged, unlike either; old themes all accounted for
    new = Themes(np.array([0, 1, 2, 3]), np.stack([E[0], E[1], (E[1] + E[3]) / np.sqrt(2), (E[2] + E[3]) / np.sqrt(2)]),
                 {0: WORDS[0], 1: WORDS[1], 2: [("tensor", 1.0)], 3: [("mix", 1.0)]})
    old_assign, new_assign = {}, {}
    for i in range(10):
        old_assign[f"a{i}"], new_assign[f"a{i}"] = 0, 0
        old_assign[f"b{i}"], new_assign[f"b{i}"] = 1, (1 if i < 5 else 2)
        old_assign[f"c{i}"], new_assign[f"c{i}"] = 2, 3
        old_assign[f"d{i}"], new_assign[f"d{i}"] = 3, 3
    new_assign.update({f"n{i}": 2 for i in range(3)})
    result = align(new, old, new_assign, old_assign, threshold=0.55, next_id=4)
    assert result.ids[0] == 0 and result.ids[1] == 1
    assert {result.ids[2], result.ids[3]} == {4, 5}
    rel = relations(result)
    assert (1, result.ids[2], "split") in rel
    assert (2, result.ids[3], "merged") in rel and (3, result.ids[3], "merged") in rel
    assert not any(r == "retired" for _, _, r in rel)


def test_new_and_retired():
    old = themes([0], [0])
    new = themes([0], [3])
    result = align(new, old, {"x": 0}, {"y": 0}, threshold=0.55, next_id=7)
    assert result.ids == {0: 7}
    assert relations(result) == sorted([(None, 7, "new"), (0, None, "retired")], key=str)
