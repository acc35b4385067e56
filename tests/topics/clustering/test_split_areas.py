"""Themes split along HDBSCAN's condensed tree, and areas from the tree of theme centroids."""

from __future__ import annotations

import numpy as np

from pipeline.topics.clustering import areas
from pipeline.topics.clustering.split import CondensedTree, split_large

DTYPE = [("parent", np.intp), ("child", np.intp), ("lambda_val", float), ("child_size", np.intp)]


def tree() -> CondensedTree:
    # points 0-9; root 10 -> clusters 11 (points 0-5) and 12 (points 6-9);
    # 11 loses point 0, then splits into 13 (points 1-3) and 14 (points 4-5)
    rows = [(10, 11, 1.0, 6), (10, 12, 1.0, 4), (11, 0, 1.5, 1), (11, 13, 2.0, 3), (11, 14, 2.0, 2)]
    rows += [(13, p, 3.0, 1) for p in (1, 2, 3)] + [(14, p, 3.0, 1) for p in (4, 5)]
    rows += [(12, p, 2.0, 1) for p in (6, 7, 8, 9)]
    return CondensedTree(np.array(rows, dtype=DTYPE), 10)


def test_condensed_tree_points_and_nodes():
    t = tree()
    assert sorted(t.under(11).tolist()) == [0, 1, 2, 3, 4, 5] and sorted(t.under(10).tolist()) == list(range(10))
    assert t.node_of(np.array([1, 2, 3])) == 13 and t.node_of(np.array([0, 4])) == 11


def test_large_theme_is_replaced_by_its_parts_in_the_tree():
    labels = np.array([0] * 6 + [1] * 4)
    out = split_large(labels, tree(), max_size=4)
    # theme 0 (6 > 4) becomes 13 (keeps id 0) and 14 (new id 2); point 0 fell out before the split
    assert out.tolist() == [-1, 0, 0, 0, 2, 2, 1, 1, 1, 1]
    assert split_large(labels, tree(), max_size=6).tolist() == labels.tolist()
    # a leaf that is still too large stays whole
    assert split_large(np.array([-1, 0, 0, 0, -1, -1, 1, 1, 1, 1]), tree(), max_size=2)[1:4].tolist() == [0, 0, 0]


def centroids_two_groups():
    rng = np.random.default_rng(0)
    a, b = np.eye(8)[0], np.eye(8)[1]
    rows = [a + 0.1 * rng.normal(size=8) for _ in range(3)] + [b + 0.1 * rng.normal(size=8) for _ in range(4)]
    rows = np.array(rows)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_areas_group_near_themes_and_the_tree_is_whole():
    ids = [10, 11, 12, 20, 21, 22, 23]
    sizes = dict(zip(ids, [5, 5, 5, 4, 4, 4, 4]))
    t = areas.build_tree(centroids_two_groups(), ids, sizes, k=2)
    assert {t.area_of[i] for i in (10, 11, 12)} != {t.area_of[i] for i in (20, 21, 22, 23)}
    assert len({t.area_of[i] for i in (10, 11, 12)}) == 1 and len({t.area_of[i] for i in (20, 21, 22, 23)}) == 1
    assert t.area_of[20] == 0  # the larger area (16 papers) is area 0
    nodes = {r["node"]: r for r in t.rows}
    roots = [r for r in t.rows if r["parent"] is None]
    assert len(roots) == 1 and roots[0]["size"] == sum(sizes.values())
    assert all(r["parent"] in nodes for r in t.rows if r["parent"] is not None)
    assert sorted(r["node"] for r in t.rows if r["level"] == "area") == ["area:0", "area:1"]
    for theme in ids:  # every theme lies under its area's node
        node = f"theme:{theme}"
        while nodes[node]["level"] != "area":
            node = nodes[node]["parent"]
        assert node == f"area:{t.area_of[theme]}"


def test_area_ids_survive_a_refit_by_shared_papers():
    old = {0: {"a", "b", "c", "d"}, 1: {"e", "f", "g"}}
    new = {0: {"e", "f", "g", "h"}, 1: {"a", "b", "c"}, 2: {"x", "y"}}
    ids, next_id = areas.match(new, old, next_id=2)
    assert ids == {0: 1, 1: 0, 2: 2} and next_id == 3
    t = areas.relabel(areas.build_tree(centroids_two_groups(), list(range(7)), {i: 1 for i in range(7)}, k=2), {0: 5, 1: 7})
    assert set(t.area_of.values()) == {5, 7} and {r["node"] for r in t.rows if r["level"] == "area"} == {"area:5", "area:7"}


def test_outline_lists_each_area_with_its_themes():
    import pandas as pd

    ids = [10, 11, 12, 20, 21, 22, 23]
    t = areas.build_tree(centroids_two_groups(), ids, dict(zip(ids, [5, 5, 5, 4, 4, 4, 4])), k=2)
    names = {f"theme:{i}": f"T{i}" for i in ids} | {"area:0": "Big", "area:1": "Small"}
    table = pd.DataFrame([{**r, "label": names.get(r["node"])} for r in t.rows])
    lines = areas.outline(table).splitlines()
    assert lines[0] == "area: Big (16 papers)" and lines[5] == "area: Small (15 papers)"
    assert sorted(lines[1:5]) == [f"  theme: T{i} (4 papers)" for i in (20, 21, 22, 23)]
    assert not any("join" in line for line in lines)


def test_papers_outside_the_sample_join_the_theme_of_their_group():
    import dataclasses

    from pipeline.config import TopicsConfig
    from pipeline.topics.clustering.fitting import fit, sample_rows
    from tests.topics.three_themes import corpus

    docs, vectors, truth = corpus(per_theme=60)
    cfg = dataclasses.replace(TopicsConfig(), fit_sample_size=90)
    ids = [f"p{i}" for i in range(len(docs))]
    result = fit(docs, vectors, ids, cfg, "test", None, {})
    assert len(result.topics) == len(docs) and (result.topics == -1).mean() <= 0.05
    for t in set(result.topics.tolist()) - {-1}:  # each theme is one true group, sampled or placed
        assert len(set(truth[result.topics == t].tolist())) == 1
    assert (result.topics[np.setdiff1d(np.arange(len(docs)), sample_rows(ids, 90, cfg.seed))] != -1).mean() >= 0.9


def test_papers_placed_outside_the_sample_do_not_push_a_theme_past_the_size_bound():
    """A group that holds 80 of 130 papers: the sample's fit keeps it within the bound (50 papers),
    and placing the rest fills it to the bound; the least similar of the others go to their next
    theme. The sample's papers never move."""
    import dataclasses

    from pipeline.config import TopicsConfig
    from pipeline.topics.clustering.fitting import fit, sample_rows
    from tests.topics.three_themes import corpus

    docs, vectors, truth = corpus(per_theme=80)
    rows = np.concatenate([np.flatnonzero(truth == 0), np.flatnonzero(truth == 1)[:25], np.flatnonzero(truth == 2)[:25]])
    docs, vectors, truth = [docs[i] for i in rows], vectors[rows], truth[rows]
    cfg = dataclasses.replace(TopicsConfig(), fit_sample_size=70)
    ids = [f"p{i}" for i in range(len(docs))]
    result = fit(docs, vectors, ids, cfg, "test", None, {})
    sample = sample_rows(ids, 70, cfg.seed)
    big = set(result.topics[sample][truth[sample] == 0].tolist())
    assert len(big) == 1 and (truth[sample] == 0).sum() < 50  # the sample alone is within the bound
    (theme,) = big
    sizes = np.bincount(result.topics[result.topics >= 0])
    assert sizes.max() <= 50 and (result.topics == theme).sum() == 50
    assert ((result.topics != theme) & (truth == 0)).sum() == 30  # placed beyond the bound: moved on
    moved = np.flatnonzero((result.topics != theme) & (truth == 0))
    assert not np.isin(moved, sample).any() and (result.topics[moved] != -1).all()
    kept = np.setdiff1d(np.flatnonzero(truth == 0), np.union1d(moved, sample))
    own = vectors @ result.state.centroids[result.state.ids.tolist().index(theme)]
    assert own[moved].max() <= own[kept].min()  # the least similar moved


def test_a_sampled_refit_moves_papers_outside_the_sample_into_a_theme_found_new():
    """Papers placed before in a theme (here: a third group lumped into the second) move, sampled or
    not, into the theme the refit finds for them; the others keep their themes."""
    import dataclasses

    from pipeline.config import TopicsConfig
    from pipeline.topics.clustering.fitting import fit, sample_rows
    from tests.topics.three_themes import corpus

    docs, vectors, truth = corpus(per_theme=60)
    ids = [f"p{i}" for i in range(len(docs))]
    two = truth < 2
    first = fit([d for d, k in zip(docs, two) if k], vectors[two], [p for p, k in zip(ids, two) if k],
                TopicsConfig(), "test", None, {})
    theme_of = dict(zip([p for p, k in zip(ids, two) if k], first.topics.tolist()))
    lumped = {p: theme_of[ids[i]] if two[i] else int(first.topics[truth[two] == 1][0])
              for i, p in enumerate(ids)}  # the third group's papers were placed in the second's theme
    cfg = dataclasses.replace(TopicsConfig(), fit_sample_size=90)
    result = fit(docs, vectors, ids, cfg, "test", first.state, lumped)
    sample = sample_rows(ids, 90, cfg.seed)
    outside = np.setdiff1d(np.arange(len(docs)), sample)
    third = result.topics[truth == 2]
    assert len(set(third.tolist())) == 1 and third[0] not in first.state.ids.tolist()
    assert (truth[outside] == 2).sum() > 10  # the third group has papers outside the sample
    before = np.array([lumped[p] for p in ids])
    assert (result.topics[two] == before[two]).all()  # the first two groups' papers keep their themes
    relations = {row.relation for row in result.lineage if row.to_topic == third[0]}
    assert third[0] != -1 and relations and relations <= {"new", "split"}


def test_a_sampled_refit_keeps_the_areas_ids():
    import dataclasses

    from pipeline.config import TopicsConfig
    from pipeline.topics.clustering.fitting import fit
    from tests.topics.three_themes import corpus

    import pipeline.topics.naming.names as names_module
    from pipeline.topics import name_run
    from pipeline.topics.clustering.fitting import sample_rows

    docs, vectors, _ = corpus(per_theme=60)
    ids = [f"p{i}" for i in range(len(docs))]
    first = fit(docs, vectors, ids, TopicsConfig(), "test", None, {})
    name_run(first, docs, None, TopicsConfig())
    assert len(set(first.state.area_of.values())) >= 2 and all(first.state.area_labels.values())
    cfg = dataclasses.replace(TopicsConfig(), fit_sample_size=90)  # half the papers
    again = fit(docs, vectors, ids, cfg, "test", first.state, dict(zip(ids, first.topics.tolist())))
    named_on = []
    real = names_module.name_groups

    def spy(texts, *args, **kwargs):  # noqa: ANN001, ANN202
        named_on.append(list(texts))
        return real(texts, *args, **kwargs)

    names_module.name_groups = spy
    try:
        name_run(again, docs, None, cfg)
    finally:
        names_module.name_groups = real
    assert again.state.area_of == first.state.area_of
    assert again.state.area_labels == first.state.area_labels
    # the areas of a sampled fit are named on the sample's papers, as they were cut
    assert named_on == [[docs[i] for i in sample_rows(ids, 90, cfg.seed)]]


def test_a_sampled_refit_keeps_every_theme_even_one_the_sample_would_miss():
    import dataclasses

    from pipeline.config import TopicsConfig
    from pipeline.topics.clustering.fitting import fit, sample_rows
    from tests.topics.three_themes import corpus

    docs, vectors, _ = corpus(per_theme=60)
    ids = [f"p{i}" for i in range(len(docs))]
    first = fit(docs, vectors, ids, TopicsConfig(), "test", None, {})
    before = first.topics.copy()
    small = int(first.state.ids[-1])
    cfg = dataclasses.replace(TopicsConfig(), fit_sample_size=40)
    sample = set(sample_rows(ids, 40, cfg.seed).tolist())
    keep = np.array([i for i in np.flatnonzero(before == small) if i not in sample][:2])  # a theme left with two papers ...
    before[np.setdiff1d(np.flatnonzero(before == small), keep)] = int(first.state.ids[0])
    assert len(keep) == 2 and not sample & set(keep.tolist())  # ... which a plain sample of 40 misses
    again = fit(docs, vectors, ids, cfg, "test", first.state, dict(zip(ids, before.tolist())))
    assert set(first.state.ids.tolist()) <= set(again.state.ids.tolist())
    assert (again.topics[keep] == small).all()
    assert not any(row.relation == "retired" for row in again.lineage)
    centroid = vectors[keep].mean(axis=0)  # centred on both its papers, not on the one sampled
    np.testing.assert_allclose(again.state.centroids[again.state.ids.tolist().index(small)],
                               centroid / np.linalg.norm(centroid), atol=1e-5)


def test_a_paper_is_sampled_by_its_id_so_a_grown_corpus_keeps_its_sample():
    from pipeline.topics.clustering.fitting import sample_rows

    ids = [f"2507.{i:05d}" for i in range(5000)]
    first = {ids[i] for i in sample_rows(ids, 1000, 42)}
    assert len(first) == 1000
    shuffled = list(np.random.default_rng(0).permutation(ids))
    assert {shuffled[i] for i in sample_rows(shuffled, 1000, 42)} == first  # order does not matter
    grown = ids + [f"2508.{i:05d}" for i in range(100)]  # a week more: about 20 of them replace old ones
    again = {grown[i] for i in sample_rows(grown, 1000, 42)}
    assert 960 <= len(first & again) < 1000 and all(p.startswith("2508.") for p in again - first)
    assert len(first & {ids[i] for i in sample_rows(ids, 1000, 7)}) < 300  # another seed, another sample
    assert len(sample_rows(ids[:50], 1000, 42)) == 50


def test_a_refit_keeps_an_areas_phrase_but_not_a_label_made_of_its_old_themes():
    from pipeline.topics.state import State

    centroids = centroids_two_groups()
    topics = np.repeat(np.arange(7), 5)
    paper_ids = [f"p{i}" for i in range(len(topics))]
    embeddings = centroids[topics].astype(np.float32)

    def state(labels: dict[int, str]) -> State:
        return State(np.arange(7), centroids, {}, labels, "test", 7, "now")

    first = state({t: f"Old theme {t}" for t in range(7)})
    areas.cut(first, topics, embeddings, paper_ids)
    big, small = first.area_of[3], first.area_of[0]
    pair = [t for t, a in first.area_of.items() if a == big][:2]
    first.area_labels = {big: f"Old theme {pair[0]} & Old theme {pair[1]}", small: "Stream processing"}
    refit = state({t: f"New theme {t}" for t in range(7)})
    job = areas.cut(refit, topics, embeddings, paper_ids, previous=first,
                    previous_topics=dict(zip(paper_ids, topics.tolist())))
    assert job.kept == {small: "Stream processing"}  # the themes' label is named again from the new themes


def test_an_area_over_the_share_limit_is_split_along_the_tree_even_beside_a_larger_single_theme():
    from pipeline.topics.clustering.areas import MAX_AREA_SHARE, UNEVEN, build_tree

    rng = np.random.default_rng(0)
    centres = np.eye(16, 8)[[0] + [1] * 8 + [2] * 4 + [3] * 3]  # theme 0 alone; a group of 8; of 4; of 3
    centroids = centres + 0.01 * rng.normal(size=centres.shape)
    centroids[1:9, 4] += np.linspace(0, 0.4, 8)  # the group of 8 has two halves along the tree
    sizes = {0: 480, **{t: 53 for t in range(1, 9)}, **{t: 10 for t in range(9, 16)}}
    tree = build_tree(centroids, list(range(16)), sizes, k=4)
    total = sum(sizes.values())
    limit = max(MAX_AREA_SHARE, UNEVEN / 4) * total
    areas = {}
    for t, a in tree.area_of.items():
        areas.setdefault(a, []).append(t)
    assert [0] in areas.values()  # the one-theme area of 48 % stays: nothing to split
    assert all(sum(sizes[t] for t in g) <= limit for g in areas.values() if len(g) >= 2)  # the 42 % group is split
