from __future__ import annotations

import numpy as np

from pipeline.report.plots import _spread


def test_map_labels_are_moved_apart_until_no_two_boxes_overlap():
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 10, size=(500, 2))
    centres = np.vstack([rng.normal(5, 0.3, size=(12, 2)), rng.uniform(0, 10, size=(20, 2))])
    boxes = np.column_stack([rng.uniform(0.05, 0.15, 32), rng.uniform(0.03, 0.06, 32)])
    placed = _spread(centres, points, boxes)
    unit = (placed - points.min(axis=0)) / np.ptp(points, axis=0)
    for i in range(len(unit)):
        for j in range(i + 1, len(unit)):
            apart = np.abs(unit[i] - unit[j]) >= (boxes[i] + boxes[j]) / 2
            assert apart.any(), (i, j)
    # labels that were clear of the others stay near their themes
    lonely = [i for i in range(12, 32) if (np.abs(centres[i] - np.delete(centres, i, 0)) > 2).any(axis=1).all()]
    assert all(np.linalg.norm(placed[i] - centres[i]) < 1.0 for i in lonely)
