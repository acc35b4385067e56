"""The topics stage end to end on the seed listings, with the cheap test embedder."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from pipeline import clean, config, ingest, topics
from pipeline.io import read_table, write_table
from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage, TopicTree
from tests.helpers import cleaned_copy


@pytest.fixture
def cleaned(project):
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    return cfg


def tables(cfg):
    paths = cfg.paths
    return (
        read_table(paths.doc_topics, DocTopics).set_index("paper_id"),
        read_table(paths.topic_info, TopicInfo).set_index("topic"),
        read_table(paths.topic_lineage, TopicLineage),
    )


@pytest.mark.parametrize("through_bertopic", [True, False])
def test_first_run_fits_and_writes_every_output(cleaned, hash_embedder, through_bertopic):
    # the 94 seed papers are under bertopic_min_papers: by default they are fitted without BERTopic
    if through_bertopic:
        cleaned = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, bertopic_min_papers=0))
    result = topics.run(cleaned, embedder=hash_embedder)
    assert result.ran and result.stage == "topics (fit)"
    doc_topics, info, lineage = tables(cleaned)
    papers = read_table(cleaned.paths.papers, Papers)
    assert set(doc_topics.index) == set(papers["paper_id"])
    assert (doc_topics["topic"] == -1).mean() <= 0.05
    assert len(info) >= 2 and info["size"].sum() == (doc_topics["topic"] >= 0).sum()
    assert info["label"].is_unique
    assert all(len(r) == 3 and set(r) <= set(papers["paper_id"]) for r in info["representative_ids"])
    assert set(lineage["relation"]) == {"new"} and sorted(lineage["to_topic"]) == sorted(info.index)
    folder = cleaned.paths.models / "topics"
    record = json.loads(cleaned.paths.run_record("topics").read_text())
    assert record["mode"] == "fit" and record["seed"] == 42 and record["versions"]["bertopic"]
    assert (folder / "state.safetensors").exists()
    assert (folder / "bertopic" / "topics.json").exists() == through_bertopic
    embedded = Counter(hash_embedder.texts)  # each paper once, each candidate label once
    assert all(embedded[text] == 1 for text in topics.paper_texts(papers))
    assert max(embedded.values()) == 1
    state = topics.State.load(cleaned.paths.models / "topics")
    assert set(info["area"]) == set(state.area_of.values()) and info["area_label"].str.len().min() > 0
    assert all(" · " in d or d == label for d, label in zip(info["description"], info["label"]))
    assert info["label_support"].between(0, 1).all()
    tree = read_table(cleaned.paths.topic_tree, TopicTree).set_index("node")
    assert sorted(tree.loc[tree["level"] == "theme", "topic"]) == sorted(info.index)
    assert set(tree.loc[tree["level"] == "area"].index) == {f"area:{a}" for a in info["area"]}
    assert tree["parent"].isna().sum() == 1 and tree.loc[tree["parent"].isna(), "size"].item() == info["size"].sum()
    for topic, row in info.iterrows():  # a theme's area node is among its ancestors
        node = f"theme:{topic}"
        while tree.loc[node, "level"] != "area":
            node = tree.loc[node, "parent"]
        assert node == f"area:{row['area']}"
        assert tree.loc[f"area:{row['area']}", "label"] == row["area_label"]


def test_rerun_with_nothing_new_skips(cleaned, hash_embedder):
    topics.run(cleaned, embedder=hash_embedder)
    calls = list(hash_embedder.calls)
    again = topics.run(cleaned, embedder=hash_embedder)
    assert not again.ran and hash_embedder.calls == calls
    assert again.counts["embedded now"] == 0 and again.counts["papers"] > 0  # what the skip did, what is held


def test_same_seed_same_output(tmp_path, hash_embedder):
    outputs = []
    for name in ("a", "b"):
        cfg = cleaned_copy(tmp_path / name)
        topics.run(cfg, embedder=hash_embedder)
        doc_topics, info, _ = tables(cfg)
        outputs.append((doc_topics, info))
    pd.testing.assert_frame_equal(outputs[0][0], outputs[1][0])
    pd.testing.assert_frame_equal(outputs[0][1], outputs[1][1])


def test_new_papers_join_existing_themes_and_old_ones_keep_theirs(cleaned, hash_embedder):
    paths = cleaned.paths
    papers = read_table(paths.papers, Papers)
    # fit on all but ten papers, then the ten arrive
    held_out = papers.iloc[::9].head(10)
    write_table(papers.drop(held_out.index), paths.papers, Papers)
    topics.run(cleaned, embedder=hash_embedder)
    before, info_before, lineage_before = tables(cleaned)
    write_table(papers, paths.papers, Papers)
    hash_embedder.calls.clear()
    result = topics.run(cleaned, embedder=hash_embedder)
    after, info_after, lineage_after = tables(cleaned)
    assert result.stage == "topics (update)"
    assert hash_embedder.embedded == 10  # only the new papers
    placed = before.index[before["topic"] >= 0]
    assert after.loc[placed, "topic"].tolist() == before.loc[placed, "topic"].tolist()
    assert set(after.loc[held_out["paper_id"], "topic"]) <= set(info_before.index) | {-1}
    assert list(info_after.index) == list(info_before.index)
    assert info_after["label"].tolist() == info_before["label"].tolist()
    assert info_after["size"].sum() == (after["topic"] >= 0).sum()
    pd.testing.assert_frame_equal(lineage_after, lineage_before)


def test_refit_keeps_ids_and_labels_of_persisting_themes(cleaned, hash_embedder):
    topics.run(cleaned, embedder=hash_embedder)
    before, info_before, _ = tables(cleaned)
    result = topics.run(cleaned, refit=True, embedder=hash_embedder)
    after, info_after, lineage = tables(cleaned)
    assert result.stage == "topics (refit)"
    # same papers, same seed: every theme persists with its id and label
    assert after["topic"].tolist() == before["topic"].tolist()
    assert info_after["label"].to_dict() == info_before["label"].to_dict()
    # and every area keeps its id and label
    assert info_after[["area", "area_label"]].to_dict() == info_before[["area", "area_label"]].to_dict()
    runs = lineage["run"].unique()
    last = lineage[lineage["run"] == runs[-1]] if len(runs) > 1 else lineage.iloc[len(info_before):]
    assert set(last["relation"]) == {"same"} and (last["from_topic"] == last["to_topic"]).all()
    assert len(lineage) == 2 * len(info_before)


def test_refit_with_another_seed_aligns_to_old_ids(cleaned, hash_embedder):
    topics.run(cleaned, embedder=hash_embedder)
    before, info_before, _ = tables(cleaned)
    other = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, seed=7))
    topics.run(other, refit=True, embedder=hash_embedder)
    after, info_after, lineage = tables(other)
    kept = set(info_after.index) & set(info_before.index)
    assert kept, "at least one theme should persist across seeds"
    for t in kept:
        assert info_after.loc[t, "label"] == info_before.loc[t, "label"]
        same = before.index[before["topic"] == t].intersection(after.index[after["topic"] == t])
        assert len(same) > 0  # a kept id still holds some of its papers
    new_ids = set(info_after.index) - set(info_before.index)
    assert all(i > max(info_before.index) for i in new_ids)  # ids are never reused


def test_topics_without_papers_says_what_to_do(tmp_path, hash_embedder):
    with pytest.raises(Exception, match="papers.parquet: not found"):
        topics.run(config.load(tmp_path), embedder=hash_embedder)


def test_evaluate_reports_label_measures(cleaned, hash_embedder):
    from pipeline.topics.quality.evaluate import evaluate

    topics.run(cleaned, embedder=hash_embedder)
    result = evaluate(cleaned, stability=False, embedder=hash_embedder)
    info = read_table(cleaned.paths.topic_info, TopicInfo)
    assert 0 <= result["label_accuracy"] <= 1 and result["n_areas"] == info["area"].nunique()
    assert result["label_support_median"] == pytest.approx(info["label_support"].median(), abs=1e-3)
    assert result["label_support_min"] == pytest.approx(info["label_support"].min(), abs=1e-3)
    assert result["largest_theme_share"] == pytest.approx(info["size"].max() / 94, abs=1e-3)
    assert isinstance(result["duplicate_labels"], list)
    written = json.loads((cleaned.paths.reports / "evaluation" / "metrics.json").read_text())
    assert written["label_accuracy"] == result["label_accuracy"]


def test_the_automatic_refit_comes_when_the_themes_are_old_enough(cleaned, hash_embedder):
    papers = read_table(cleaned.paths.papers, Papers)
    last = papers["week"].max()
    weekly = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, refit_every_weeks=1))
    write_table(papers[papers["week"] < last], cleaned.paths.papers, Papers)
    topics.run(weekly, embedder=hash_embedder)
    fitted = topics.State.load(cleaned.paths.models / "topics")
    assert fitted.fitted_week == papers.loc[papers["week"] < last, "week"].max()
    write_table(papers, cleaned.paths.papers, Papers)
    assert topics.run(weekly, embedder=hash_embedder).stage == "topics (refit)"
    assert topics.State.load(cleaned.paths.models / "topics").fitted_week == last
    # with the policy off (or the themes young enough) a new week is an update
    write_table(papers[papers["week"] < last], cleaned.paths.papers, Papers)
    topics.run(cleaned, refit=True, embedder=hash_embedder)
    write_table(papers, cleaned.paths.papers, Papers)
    off = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, refit_every_weeks=0))
    assert topics.run(off, embedder=hash_embedder).stage == "topics (update)"


def test_twenty_near_identical_papers_beside_a_days_listing_still_get_unique_labels(project, hash_embedder):
    import gzip

    lines = [json.dumps({
        "id": f"2506.{10000 + i}", "title": f"Federated learning with stragglers, variant {i}",
        "summary": "We study federated learning with stragglers on edge devices and show a scheduler that "
                   "tolerates stragglers in federated learning.",
        "authors": ["A. Author"], "categories": ["cs.DC"], "comment": None,
        "pdf": f"https://arxiv.org/pdf/2506.{10000 + i}", "abs": f"https://arxiv.org/abs/2506.{10000 + i}"})
        for i in range(20)]
    with gzip.open(project / "data" / "raw" / "2025-06-02.jsonl.gz", "wt") as out:
        out.write("\n".join(lines) + "\n")
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    topics.run(cfg, embedder=hash_embedder)
    info = read_table(cfg.paths.topic_info, TopicInfo)
    assert info["label"].is_unique
    state = topics.State.load(cfg.paths.models / "topics")
    assert sorted(state.labels.values()) == sorted(info["label"])


def test_labels_are_made_distinct_before_they_are_written():
    import numpy as np

    state = topics.State(ids=np.array([0, 1, 2]), centroids=np.eye(3, dtype=np.float32),
                         words={0: [("gpu", 1.0)], 1: [("gpu", 1.0), ("kernels", 0.5)], 2: []},
                         labels={0: "GPU kernels", 1: "GPU kernels", 2: ""}, embedder="x", next_id=3, fitted_at="",
                         tree=[{"node": "theme:1", "parent": None, "level": "theme", "topic": 1, "area": 0,
                                "size": 1, "distance": 0.0, "label": "GPU kernels"}])
    topics.distinct(state)
    assert len(set(state.labels.values())) == 3 and state.labels[0] == "GPU kernels"
    assert state.labels[1] == "GPU kernels (1)" and state.labels[2] == "Theme 2"
    assert state.tree[0]["label"] == state.labels[1]


def test_a_run_killed_part_way_is_never_taken_for_a_finished_one(cleaned, hash_embedder, monkeypatch):
    cleaned = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, bertopic_min_papers=0))
    topics.run(cleaned, embedder=hash_embedder)
    folder = cleaned.paths.models / "topics"
    from pipeline.topics import tables as topic_tables

    real_write = topic_tables.write_table

    def killed_at_the_tree(df, path, *args, **kwargs):
        if path == cleaned.paths.topic_tree:
            raise KeyboardInterrupt
        return real_write(df, path, *args, **kwargs)

    # a refit of the same papers killed after the model and the first tables were written
    other = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, seed=7))
    monkeypatch.setattr(topic_tables, "write_table", killed_at_the_tree)
    with pytest.raises(KeyboardInterrupt):
        topics.run(other, refit=True, embedder=hash_embedder)
    monkeypatch.setattr(topic_tables, "write_table", real_write)
    result = topics.run(other, embedder=hash_embedder)
    assert result.ran and result.stage == "topics (update)"  # not "skipped" on half-written outputs
    state = topics.State.load(folder)
    info = read_table(cleaned.paths.topic_info, TopicInfo).set_index("topic")
    assert info["label"].to_dict() == state.labels
    assert json.loads(cleaned.paths.run_record("topics").read_text())["fitted_at"] == state.fitted_at

    # killed while the BERTopic model is saved: the model folder stays as it was, whole
    import bertopic

    before = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))

    def broken_save(self, path, **kwargs):
        (Path(path) / "half").mkdir(parents=True)
        raise KeyboardInterrupt

    monkeypatch.setattr(bertopic.BERTopic, "save", broken_save)
    with pytest.raises(KeyboardInterrupt):
        topics.run(cleaned, refit=True, embedder=hash_embedder)
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == before
    assert [p.name for p in folder.parent.iterdir()] == ["topics"]  # no temporary folder left


def test_the_assignment_survives_a_lost_doc_topics_table(cleaned, hash_embedder):
    topics.run(cleaned, embedder=hash_embedder)
    before, info_before, _ = tables(cleaned)
    cleaned.paths.doc_topics.unlink()
    result = topics.run(cleaned, embedder=hash_embedder)
    after, info_after, _ = tables(cleaned)
    assert result.stage == "topics (update)"
    assert after["topic"].to_dict() == before["topic"].to_dict()  # no paper moved
    assert info_after["label"].to_dict() == info_before["label"].to_dict()
    cleaned.paths.doc_topics.write_bytes(b"PAR1 damaged")
    topics.run(cleaned, embedder=hash_embedder)
    assert tables(cleaned)[0]["topic"].to_dict() == before["topic"].to_dict()


def test_a_refit_keeps_the_birth_week_of_a_theme_born_in_an_update(cleaned, hash_embedder):
    topics.run(cleaned, embedder=hash_embedder)
    folder = cleaned.paths.models / "topics"
    meta = json.loads((folder / "state.json").read_text())
    theme = int(next(iter(meta["labels"])))
    meta["born"] = {str(theme): "2026-W24"}
    (folder / "state.json").write_text(json.dumps(meta))
    topics.run(cleaned, refit=True, embedder=hash_embedder)
    assert topics.State.load(folder).born == {theme: "2026-W24"}
    assert read_table(cleaned.paths.topic_info, TopicInfo).set_index("topic").loc[theme, "first_week"] == "2026-W24"


def test_a_refit_of_papers_seen_before_embeds_nothing(cleaned, hash_embedder):
    """Papers and label phrases both come from the cache: the model is never loaded."""
    first = topics.run(cleaned, embedder=hash_embedder)
    before = len(hash_embedder.texts)
    again = topics.run(cleaned, refit=True, embedder=hash_embedder)
    assert again.ran and again.stage == "topics (refit)" and again.counts["embedded now"] == 0
    assert len(hash_embedder.texts) == before
    assert again.counts["themes"] == first.counts["themes"]


def test_a_corpus_above_the_sample_bound_is_fitted_on_a_sample_and_every_paper_placed(cleaned, hash_embedder):
    sampled = dataclasses.replace(cleaned, topics=dataclasses.replace(cleaned.topics, fit_sample_size=60))
    result = topics.run(sampled, embedder=hash_embedder)
    doc_topics, info, _ = tables(sampled)
    papers = read_table(sampled.paths.papers, Papers)
    assert len(papers) > 60 and set(doc_topics.index) == set(papers["paper_id"])
    assert (doc_topics["topic"] == -1).mean() <= 0.05 and result.counts["unassigned"] <= 0.05 * len(papers)
    assert set(doc_topics["topic"]) - {-1} == set(info.index) and info["size"].sum() == (doc_topics["topic"] >= 0).sum()
    # the same seed draws the same sample: a second fit from scratch gives the same tables
    import shutil

    shutil.rmtree(sampled.paths.models / "topics")
    again = topics.run(sampled, embedder=hash_embedder)
    assert again.stage == "topics (fit)"
    assert tables(sampled)[0]["topic"].to_dict() == doc_topics["topic"].to_dict()
    # another seed draws another sample
    other = dataclasses.replace(sampled, topics=dataclasses.replace(sampled.topics, seed=7))
    shutil.rmtree(sampled.paths.models / "topics")
    topics.run(other, embedder=hash_embedder)
    assert tables(other)[0]["topic"].to_dict() != doc_topics["topic"].to_dict()




def _kill(monkeypatch, cfg, at: str) -> None:
    """Make the next topics run stop as a kill would, at one of the places where it writes."""
    from pipeline.topics import store
    from pipeline.topics import tables as topic_tables
    from pipeline.topics.state import State

    real_write, real_save, real_model = topic_tables.write_table, State.save, store.save_model

    def write_table(df, path, *args, **kwargs):
        if at == "writing doc_topics" and path == cfg.paths.doc_topics:
            (path.parent / f".{path.name}.killed.tmp").write_bytes(b"PAR1 half")  # what a kill leaves
            raise KeyboardInterrupt
        if at == "after doc_topics" and path == cfg.paths.topic_info:
            raise KeyboardInterrupt
        if at == "after the lineage" and path == cfg.paths.topic_tree:
            raise KeyboardInterrupt
        return real_write(df, path, *args, **kwargs)

    def save(self, folder):
        real_save(self, folder)
        raise KeyboardInterrupt  # state.json has just appeared (in the folder being written)

    def save_model(*args, **kwargs):
        real_model(*args, **kwargs)
        raise KeyboardInterrupt  # the folder is in place, the run record not yet written

    monkeypatch.setattr(topic_tables, "write_table", write_table)
    if at == "state.json written":
        monkeypatch.setattr(State, "save", save)
    if at == "before the run record":
        monkeypatch.setattr(store, "save_model", save_model)


def _same_tables(a, b) -> None:
    for (x, y) in zip(tables(a), tables(b)):
        pd.testing.assert_frame_equal(x.drop(columns=["run"], errors="ignore"), y.drop(columns=["run"], errors="ignore"))


@pytest.mark.parametrize("at", ["writing doc_topics", "after doc_topics", "after the lineage", "state.json written",
                                "before the run record"])
def test_whatever_a_kill_leaves_the_next_run_gives_the_uninterrupted_result(cleaned, hash_embedder, monkeypatch,
                                                                           tmp_path, at):
    whole = cleaned_copy(tmp_path / "uninterrupted")
    topics.run(whole, embedder=hash_embedder)
    with monkeypatch.context() as patched:
        _kill(patched, cleaned, at)
        with pytest.raises(KeyboardInterrupt):
            topics.run(cleaned, embedder=hash_embedder)
    half = cleaned.paths.models / ".topics.killed.tmp"
    half.mkdir(parents=True, exist_ok=True)  # a folder a SIGKILL leaves half-written
    again = topics.run(cleaned, embedder=hash_embedder)
    _same_tables(cleaned, whole)
    assert not half.exists() and not list(cleaned.paths.doc_topics.parent.glob(".*.tmp"))  # swept
    assert again.ran == (at != "before the run record")  # a run killed after its commit is finished, not redone
    assert not topics.run(cleaned, embedder=hash_embedder).ran  # and the next one has nothing to do


def test_a_refit_killed_after_its_lineage_adds_its_rows_once(cleaned, hash_embedder, monkeypatch, tmp_path):
    whole = cleaned_copy(tmp_path / "uninterrupted")
    topics.run(whole, embedder=hash_embedder)
    topics.run(whole, refit=True, embedder=hash_embedder)
    topics.run(cleaned, embedder=hash_embedder)
    with monkeypatch.context() as patched:
        _kill(patched, cleaned, "after the lineage")
        with pytest.raises(KeyboardInterrupt):
            topics.run(cleaned, refit=True, embedder=hash_embedder)
    topics.run(cleaned, refit=True, embedder=hash_embedder)
    _same_tables(cleaned, whole)
    assert set(tables(cleaned)[2]["mode"]) == {"fit", "refit"}


@pytest.mark.parametrize("at", ["after doc_topics", "after the lineage", "before the run record"])
def test_a_weekly_update_killed_anywhere_gives_the_uninterrupted_update(cleaned, hash_embedder, monkeypatch,
                                                                         tmp_path, at):
    """The cron job's path: a fit on the papers before the last weeks, then an update that adds them."""
    def fit_then_update(cfg, kill=None):  # noqa: ANN001, ANN202
        papers = read_table(cfg.paths.papers, Papers)
        last = sorted(papers["week"].dropna().unique())[-3:]
        write_table(papers[~papers["week"].isin(last)], cfg.paths.papers, Papers)
        topics.run(cfg, embedder=hash_embedder)
        write_table(papers, cfg.paths.papers, Papers)
        if kill is not None:
            with monkeypatch.context() as patched:
                _kill(patched, cfg, kill)
                with pytest.raises(KeyboardInterrupt):
                    topics.run(cfg, embedder=hash_embedder)
        return topics.run(cfg, embedder=hash_embedder)

    whole = cleaned_copy(tmp_path / "uninterrupted")
    assert fit_then_update(whole).stage == "topics (update)"
    fit_then_update(cleaned, at)
    _same_tables(cleaned, whole)  # the lineage too (a refit's rows added once: the test above)


PLANTED = "2599."  # the ids of the papers ``with_a_mixture`` plants


def with_a_mixture(cfg) -> None:  # noqa: ANN001
    """Add to the seed papers a theme of two strands, neither written by half of it: 11 papers on
    quantum annealing, 10 on trapped ions and 4 on qubit readout, whose abstracts all say "qubit",
    "coherence" and "fidelity" apart, between stop words."""
    from pipeline.schemas import paper_text, text_hash

    papers = read_table(cfg.paths.papers, Papers)
    shared = "The qubit is what we study; for coherence, errors are the limit, and for fidelity, the qubit."
    texts = ([(f"Quantum annealing schedules {i}", f"Quantum annealing with schedule {i}. {shared}") for i in range(11)]
             + [(f"Trapped ions gates {i}", f"Trapped ions with gate set {i}. {shared}") for i in range(10)]
             + [(f"Qubit readout {i}", f"Readout of the qubit {i}. {shared}") for i in range(4)])
    titles, abstracts = [t for t, _ in texts], [a for _, a in texts]
    planted = papers.iloc[[i % len(papers) for i in range(len(texts))]].assign(
        paper_id=[f"{PLANTED}{i:05d}" for i in range(len(texts))], title=titles, abstract=abstracts,
        sources=[[f"planted#{i}"] for i in range(len(texts))])
    if Papers.text_hash in papers:
        planted[Papers.text_hash] = text_hash(map(paper_text, titles, abstracts))
    write_table(pd.concat([papers, planted], ignore_index=True), cfg.paths.papers, Papers)


@pytest.mark.parametrize("refit", [False, True])
def test_each_themes_complement_is_kept_and_written_where_its_label_fits_part_of_it(cleaned, hash_embedder, refit):
    from pipeline.topics.fitted import load_state
    from pipeline.topics.naming.complement import BELOW

    with_a_mixture(cleaned)
    topics.run(cleaned, embedder=hash_embedder)
    if refit:  # measured again on each kept label
        assert topics.run(cleaned, refit=True, embedder=hash_embedder).stage == "topics (refit)"
    state = load_state(cleaned.paths)
    assert set(state.complements) == set(state.ids.tolist())  # every theme, "" where none
    docs, info, _ = tables(cleaned)
    planted = docs.loc[docs.index.str.startswith(PLANTED), "topic"]
    mixture = int(planted.mode().iloc[0])  # the theme most planted papers are in
    assert info.loc[mixture, "label_support"] < BELOW  # one strand names it
    assert state.complements[mixture] != ""  # and it shows the rest
    for t, beside in state.complements.items():
        assert (info.loc[t, "label_next"] if pd.notna(info.loc[t, "label_next"]) else "") == beside
        if state.support[t] >= BELOW:
            assert beside == ""  # a label half its theme writes needs none
        if beside:
            assert info.loc[t, "label_support"] < BELOW and beside.lower() not in info.loc[t, "label"].lower()
            assert info.loc[t, "description"].split(" · ")[1] == beside  # second, as written


def test_a_description_lists_the_complement_as_written_not_its_words():
    from pipeline.topics.state import with_complement

    line = "MRI · magnetic resonance imaging · tomography · computed"
    assert with_complement(line, "computed tomography") == "MRI · computed tomography · magnetic resonance imaging"
    assert with_complement("OCR", "document") == "OCR · document"
    assert with_complement(line, "") == line
