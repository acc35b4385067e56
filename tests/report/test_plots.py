from __future__ import annotations

import numpy as np
import pytest

from pipeline.report.landscape.mapplot import spread_labels


def test_map_labels_are_moved_apart_until_no_two_boxes_overlap():
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 10, size=(500, 2))
    centres = np.vstack([rng.normal(5, 0.3, size=(12, 2)), rng.uniform(0, 10, size=(20, 2))])
    boxes = np.column_stack([rng.uniform(0.05, 0.15, 32), rng.uniform(0.03, 0.06, 32)])
    placed = spread_labels(centres, points, boxes)
    unit = (placed - points.min(axis=0)) / np.ptp(points, axis=0)
    for i in range(len(unit)):
        for j in range(i + 1, len(unit)):
            apart = np.abs(unit[i] - unit[j]) >= (boxes[i] + boxes[j]) / 2
            assert apart.any(), (i, j)
    # labels that were clear of the others stay near their themes
    lonely = [i for i in range(12, 32) if (np.abs(centres[i] - np.delete(centres, i, 0)) > 2).any(axis=1).all()]
    assert all(np.linalg.norm(placed[i] - centres[i]) < 1.0 for i in lonely)


def test_theme_history_marks_births_splits_and_ends():
    import pandas as pd

    from pipeline.report import plots
    from pipeline.report.data import Corpus
    from pipeline.report.landscape.survey import theme_events

    lineage = pd.DataFrame([
        {"run": "r1", "from_topic": None, "to_topic": 0, "relation": "new", "mode": "fit", "week": "2025-W01"},
        {"run": "r2", "from_topic": None, "to_topic": 7, "relation": "new", "mode": "update", "week": "2025-W03"},
        {"run": "r3", "from_topic": 0, "to_topic": 8, "relation": "split", "mode": "refit", "week": "2025-W04"},
        {"run": "r3", "from_topic": 1, "to_topic": None, "relation": "retired", "mode": "refit", "week": "2025-W04"},
        {"run": "r4", "from_topic": None, "to_topic": 9, "relation": "new", "mode": "update", "week": "2026-W10"},
    ])
    corpus = Corpus(pd.DataFrame(), pd.DataFrame(), lineage)
    weeks = ["2025-W01", "2025-W02", "2025-W03", "2025-W04"]
    events = theme_events(corpus, weeks)
    assert events[["topic", "relation", "week"]].values.tolist() == [
        [7, "new", "2025-W03"], [8, "split", "2025-W04"], [1, "retired", "2025-W04"]]
    assert events["parent"].tolist()[1] == 0 and events["parent"].isna().tolist() == [True, False, True]
    assert sorted(events["topic"]) == [1, 7, 8]  # the fit's own themes and weeks outside are not events
    counts = pd.DataFrame({0: [3, 4, 2, 1], 7: [0, 1, 5, 6], 8: [0, 0, 0, 4]}, index=weeks)
    fig = plots.history(events, counts, {0: "Graph partitioning", 7: "Quantum annealing", 8: "Sparse solvers"},
                        title="History")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "Sparse solvers  (from Graph partitioning)" in texts and "Quantum annealing" in texts
    empty = plots.history(events.iloc[:0], counts, {}, title="History")
    assert "No theme was born, split, merged or retired" in empty.axes[0].texts[0].get_text()


def test_area_treemap_tiles_areas_and_names_what_fits():
    from pipeline.report import plots

    rects = plots.squarify([6, 6, 4, 3, 2, 2, 1], 0, 0, 6, 4)
    assert abs(sum(w * h for _, _, w, h in rects) - 24) < 1e-9  # the box, tiled exactly
    assert all(0 <= x and x + w <= 6 + 1e-9 and 0 <= y and y + h <= 4 + 1e-9 for x, y, w, h in rects)
    assert [round(w * h, 9) for _, _, w, h in rects] == [6, 6, 4, 3, 2, 2, 1]
    tree = [("Systems", [(0, "GPU kernels", 120), (1, "Serving", 80), (4, "Tiny", 1)]),
            ("Learning", [(2, "Federated learning", 150), (3, "Empty", 0)])]
    fig = plots.area_treemap(tree, title="Areas")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "Systems" in texts and "Learning" in texts
    assert "GPU kernels 120" in texts and "Federated learning 150" in texts
    assert not any(t.startswith("Empty") for t in texts)  # a theme without papers gets no box
    assert plots._short("Supercalifragilistic", 8) == "Superca…"


def test_area_treemap_names_a_tall_narrow_box_upwards():
    from pipeline.report import plots

    themes = [(0, "Load balancing", 38), (1, "Carbon footprint", 40), (2, "Scientific workflows", 55),
              (3, "Cloud computing", 50), (4, "Scheduling algorithms", 27), (5, "Serverless computing", 23),
              (6, "HPC systems", 21)]
    fig = plots.area_treemap([("Cloud", themes), ("Big", [(7, "Other", 900)])], title="Areas")
    shown = {t.get_text().replace("\n", " "): t.get_rotation() for t in fig.axes[0].texts}
    assert shown["HPC systems 21"] == 0  # narrow: wrapped across, whole
    assert not any("…" in text for text in shown)
    narrow = plots.area_treemap([("Cloud", [(0, "Serverless", 30), (1, "Other", 900)])], title="Areas")
    upwards = [t.get_text() for t in narrow.axes[0].texts if t.get_rotation() == 90]
    assert upwards == ["Serverless 30"]  # too narrow for its word across, tall enough to name upwards


def test_a_name_is_wrapped_to_fit_whole_or_not_shown():
    from pipeline.report.plots import fit_name

    assert fit_name("Approximate nearest neighbor search 31", 14, 8) == ("Approximate nearest\nneighbor search 31", 6.5)
    assert fit_name("Lower bound 53", 30, 2) == ("Lower bound 53", 6.5)
    assert fit_name("Distributed optimization 14", 3, 3) is None  # no width of it cuts a word
    text, size = fit_name("Decentralized learning 28", 7, 3)
    assert size < 6.5 and text.replace("\n", " ") == "Decentralized learning 28"


def test_area_treemap_names_upwards_within_the_box():
    from pipeline.report import plots

    rng = np.random.default_rng(3)
    words = ["Serverless", "computing", "platforms", "heterogeneous", "accelerator", "scheduling", "Wide"]
    checked = 0
    for _ in range(30):
        areas = []
        for a in range(int(rng.integers(2, 6))):
            sizes = sorted(rng.integers(5, 300, size=int(rng.integers(2, 9))).tolist(), reverse=True)
            areas.append((f"Area {a}", [(10 * a + i, " ".join(rng.choice(words, size=int(rng.integers(1, 5)))), n)
                                        for i, n in enumerate(sizes)]))
        fig = plots.area_treemap(areas, title="Areas")
        ax = fig.axes[0]
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        canvas = FigureCanvasAgg(fig)
        canvas.draw()  # the constrained layout places the axes
        renderer = canvas.get_renderer()
        boxes = [patch.get_window_extent(renderer) for patch in ax.patches]
        for text in ax.texts:
            if text.get_rotation() != 90:
                continue
            anchor = ax.transData.transform(text.get_position())
            box = min((b for b in boxes if b.contains(*anchor)), key=lambda b: b.width * b.height)  # its theme's
            extent = text.get_window_extent(renderer)
            assert extent.y1 <= box.y1 + 1 and extent.x1 <= box.x1 + 1, text.get_text()
            checked += 1
    assert checked >= 5


def test_area_treemap_draws_an_area_too_flat_to_hold_its_themes():
    from pipeline.report import plots

    fig = plots.area_treemap([("Big", [(0, "a", 5000)]), ("Small", [(1, "b", 3), (2, "c", 2)])], title="Areas")
    assert "Big" in [t.get_text() for t in fig.axes[0].texts]


def test_pack_leaves_no_two_discs_overlapping_and_keeps_sides():
    from pipeline.report.landscape.survey import pack

    rng = np.random.default_rng(1)
    places = rng.normal(size=(12, 2)) * 0.01  # all on top of each other
    places[0] = [-1, 0]
    places[1] = [1, 0]
    radii = rng.uniform(1, 5, 12)
    out = pack(places, radii)
    gap = np.linalg.norm(out[:, None] - out[None], axis=2) - (radii[:, None] + radii[None])
    assert gap[np.triu_indices(12, 1)].min() >= 0
    assert out[0, 0] < out[1, 0]  # the two far apart keep their sides


def test_map_layout_gives_each_area_its_own_region():
    from pipeline.report.landscape.survey import landmark_layout

    rng = np.random.default_rng(0)
    # six themes in two areas; themes 0 and 3 are the closest pair across the areas
    base = rng.normal(size=(6, 32))
    base[3] = base[0] + 0.3 * rng.normal(size=32)
    centroids = {t: v / np.linalg.norm(v) for t, v in enumerate(base)}
    topics = np.repeat(np.arange(6), 40)
    embeddings = np.stack([centroids[t] + 0.05 * rng.normal(size=32) for t in topics])
    areas = {0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1}
    xy = landmark_layout(embeddings, topics, centroids, areas=areas)
    area = np.array([areas[t] for t in topics])
    middle = np.stack([xy[area == a].mean(axis=0) for a in (0, 1)])
    nearer = np.argmin(np.linalg.norm(xy[:, None] - middle[None], axis=2), axis=1)
    assert (nearer == area).all()  # every paper lies on its own area's side
    for t in range(6):  # and each theme's papers form one disc apart from the other themes'
        own = np.linalg.norm(xy[topics == t] - xy[topics == t].mean(axis=0), axis=1).max()
        others = np.linalg.norm(xy[topics != t] - xy[topics == t].mean(axis=0), axis=1).min()
        assert others > own


def test_map_data_escapes_the_script_element_and_keeps_every_paper():
    import json

    import pandas as pd

    from pipeline.report.landscape.explore import map_data, script_json
    from pipeline.report.landscape.mapplot import hull

    text = script_json({"title": "</script><script>alert(1)</script> & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"title": "</script><script>alert(1)</script> & \u2028"}
    square = hull(np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]]))
    assert sorted(map(tuple, square)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    papers = pd.DataFrame({"paper_id": ["a", "b", "c"], "title": ["x", "y", "z"],
                           "authors": [["A", "B", "C", "D", "E"], [], ["F"]], "week": ["2025-W02", "2025-W01", "2025-W02"],
                           "url": ["https://arxiv.org/abs/1", None, None]})
    data = map_data(papers, np.zeros((3, 2)), np.array([5, -1, 5]), {5: "Theme"}, {5: (0, "Area")}, title="t", subtitle="s")
    assert data["t"] == [0, -1, 0] and data["unassigned"] == 1
    assert [data["weeks"][w] for w in data["w"]] == ["2025-W02", "2025-W01", "2025-W02"]
    assert data["authors"] == ["A, B, C, D, E", "", "F"]  # all of them: the search covers every author
    assert data["themes"][0]["label"] == "Theme" and data["areas"][0]["themes"] == [0]


def test_share_by_week_leaves_a_week_without_papers_empty():
    """A week without papers is an empty place: no area is drawn across it from its neighbours."""
    import pandas as pd

    from pipeline.report import plots

    shares = pd.DataFrame({1: [0.6, np.nan, np.nan, 0.3], 2: [0.4, np.nan, np.nan, 0.7]},
                          index=["2026-W01", "2026-W02", "2026-W03", "2026-W04"])
    fig = plots.share_by_week(shares, {1: "Edge computing", 2: "LLM serving"}, title="t")
    ax = fig.axes[0]
    assert not ax.collections  # bars, not a stacked area
    heights = {}
    for bar in ax.patches:
        week = round(bar.get_x() + bar.get_width() / 2)
        heights[week] = heights.get(week, 0) + bar.get_height()
    assert heights == {0: pytest.approx(100), 1: 0, 2: 0, 3: pytest.approx(100)}
    assert any("2 of the 4 weeks hold no papers" in t.get_text() for t in ax.texts)
