"""The topics stage's tables from a ``RunResult``: ``doc_topics``, ``topic_info``, ``topic_tree``
and ``topic_lineage`` (whose reader upgrades tables written by older versions), written together."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.io import TableError, read_frame, read_table, write_table
from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage, TopicTree, empty
from pipeline.topics.state import RunResult, utc_now, with_complement


def doc_topics_table(paper_ids: list[str], result: RunResult) -> pd.DataFrame:
    return pd.DataFrame({
        DocTopics.paper_id: paper_ids,
        DocTopics.topic: result.topics,
        DocTopics.probability: np.clip(result.similarity, 0, 1).astype(float),
    })


def topic_info_table(papers: pd.DataFrame, result: RunResult, n_keywords: int, n_representatives: int) -> pd.DataFrame:
    frame = pd.DataFrame({
        "paper_id": papers[Papers.paper_id].to_numpy(), "week": papers[Papers.week].to_numpy(),
        "topic": result.topics, "sim": result.similarity,
    })
    members = frame[frame["topic"] >= 0]
    sizes = members.groupby("topic").size()
    first_week = members.groupby("topic")["week"].min()
    ranked = members.sort_values(["topic", "sim", "paper_id"], ascending=[True, False, True])
    reps = ranked.groupby("topic").head(n_representatives).groupby("topic")["paper_id"].agg(list)
    state = result.state
    rows = [{
        TopicInfo.topic: int(t), TopicInfo.label: state.labels[int(t)],
        TopicInfo.description: with_complement(state.descriptions.get(int(t), state.labels[int(t)]),
                                               state.complements.get(int(t), "")),
        TopicInfo.label_support: state.support.get(int(t)),
        TopicInfo.label_next: state.complements.get(int(t)) or None,
        TopicInfo.area: state.area_of.get(int(t), 0),
        TopicInfo.area_label: state.area_labels.get(state.area_of.get(int(t), 0), "All themes"),
        TopicInfo.keywords: [w for w, _ in state.words[int(t)][:n_keywords]],
        TopicInfo.size: int(sizes.get(t, 0)), TopicInfo.representative_ids: reps.get(t, []),
        TopicInfo.first_week: state.born.get(int(t), first_week.get(t)),
    } for t in state.ids]
    return pd.DataFrame(rows) if rows else empty(TopicInfo)


def topic_tree_table(result: RunResult) -> pd.DataFrame:
    """The state's tree with each node's size counted from today's assignment."""
    rows = result.state.tree
    if not rows:
        return empty(TopicTree)
    sizes = {int(t): int((result.topics == t).sum()) for t in result.state.ids}
    children: dict[str, list[str]] = {}
    for row in rows:
        if row["parent"] is not None:
            children.setdefault(row["parent"], []).append(row["node"])

    def size(node: str) -> int:
        if node.startswith("theme:"):
            return sizes.get(int(node[6:]), 0)
        return sum(size(c) for c in children.get(node, []))

    frame = pd.DataFrame([{**row, "size": size(row["node"])} for row in rows])
    return frame[list(TopicTree.to_schema().columns)]


def read_lineage(path: Path) -> pd.DataFrame:
    """The lineage so far; a table written before weekly births were recorded gains their columns."""
    if not path.exists():
        return empty(TopicLineage)
    try:
        return read_table(path, TopicLineage)
    except TableError:
        frame = read_frame(path)
        missing = [c for c in ("mode", "week", "pool_size", "pool_start") if c not in frame.columns]
        if not missing:
            raise
        for column in missing:
            frame[column] = "fit" if column == "mode" else None
        return TopicLineage.validate(frame[list(TopicLineage.to_schema().columns)])


def lineage_table(before: pd.DataFrame, result: RunResult, newest: str | None) -> pd.DataFrame:
    """The lineage so far (``before``; none before a fit) and the rows of this run, each dated by the run."""
    lineage = before if result.mode != "fit" else empty(TopicLineage)
    if not result.lineage:
        return lineage
    run_at = result.state.fitted_at if result.mode != "update" else utc_now()
    rows = [{"run": run_at, "mode": result.mode, **dataclasses.asdict(change), "week": change.week or newest}
            for change in result.lineage]
    return pd.concat([lineage, pd.DataFrame(rows)[list(TopicLineage.to_schema().columns)]], ignore_index=True)


def write_tables(paths, papers: pd.DataFrame, result: RunResult, lineage: pd.DataFrame, n_keywords: int,  # noqa: ANN001
                 n_representatives: int, stamp: str) -> None:
    """The four tables of a run (``lineage``: ``lineage_table``), each carrying ``stamp`` (the inputs'
    and the fit's fingerprint)."""
    paper_ids = papers[Papers.paper_id].tolist()
    write_table(doc_topics_table(paper_ids, result), paths.doc_topics, DocTopics, fingerprint=stamp)
    write_table(topic_info_table(papers, result, n_keywords, n_representatives), paths.topic_info, TopicInfo,
                fingerprint=stamp)
    write_table(lineage, paths.topic_lineage, TopicLineage, fingerprint=stamp)
    write_table(topic_tree_table(result), paths.topic_tree, TopicTree, fingerprint=stamp)
