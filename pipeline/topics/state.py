"""The fitted themes as the topics stage keeps them between runs (``State``: ids, centroids, words,
labels, descriptions, areas, the tree, births), what one run decided (``RunResult``), and the rule
that keeps labels unique."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.io import read_arrays, read_json, write_arrays, write_json

# a paper's theme id when it has none: unassigned (as in BERTopic's tables), or, during a weekly
# update only, waiting in the pool of recent papers that no theme explains (never written to a table)
UNASSIGNED = -1
WAITING = -2


@dataclass
class State:
    """Themes as last fitted: stable ids, centroids, keywords (with weights), labels and descriptions,
    and the areas above them (theme -> area, area labels, the tree's rows)."""

    ids: np.ndarray
    centroids: np.ndarray
    words: dict[int, list[tuple[str, float]]]
    labels: dict[int, str]
    embedder: str
    next_id: int
    fitted_at: str
    descriptions: dict[int, str] = field(default_factory=dict)
    support: dict[int, float] = field(default_factory=dict)
    complements: dict[int, str] = field(default_factory=dict)  # shown beside a label part of a theme writes
    area_of: dict[int, int] = field(default_factory=dict)
    area_labels: dict[int, str] = field(default_factory=dict)
    area_descriptions: dict[int, str] = field(default_factory=dict)
    tree: list[dict] = field(default_factory=list)
    next_area: int = 0
    born: dict[int, str] = field(default_factory=dict)  # theme -> week a weekly update found it
    fitted_week: str = ""  # newest week of the papers at the last fit or refit
    forming: list[dict] = field(default_factory=list)  # pool groups still too small: papers, nearest, label, week

    def save(self, folder: Path) -> None:
        write_arrays(folder / "state.safetensors",
                     {"ids": self.ids.astype(np.int64), "centroids": self.centroids.astype(np.float32)})
        write_json({
            "embedder": self.embedder, "next_id": self.next_id, "fitted_at": self.fitted_at,
            "labels": {str(k): v for k, v in self.labels.items()},
            "words": {str(k): [[w, s] for w, s in v] for k, v in self.words.items()},
            "descriptions": {str(k): v for k, v in self.descriptions.items()},
            "support": {str(k): v for k, v in self.support.items()},
            "complements": {str(k): v for k, v in self.complements.items()},
            "area_of": {str(k): v for k, v in self.area_of.items()},
            "area_labels": {str(k): v for k, v in self.area_labels.items()},
            "area_descriptions": {str(k): v for k, v in self.area_descriptions.items()},
            "tree": self.tree, "next_area": self.next_area, "born": {str(k): v for k, v in self.born.items()},
            "fitted_week": self.fitted_week, "forming": self.forming,
        }, folder / "state.json")

    @classmethod
    def load(cls, folder: Path) -> State | None:
        if not (folder / "state.safetensors").exists() or not (folder / "state.json").exists():
            return None
        arrays = read_arrays(folder / "state.safetensors")
        meta = read_json(folder / "state.json")

        def ints(key: str) -> dict:
            return {int(k): v for k, v in meta.get(key, {}).items()}

        return cls(
            ids=arrays["ids"].astype(int), centroids=arrays["centroids"],
            words={int(k): [(w, float(s)) for w, s in v] for k, v in meta["words"].items()},
            labels=ints("labels"), embedder=meta["embedder"], next_id=int(meta["next_id"]),
            fitted_at=meta["fitted_at"], descriptions=ints("descriptions"), support=ints("support"),
            complements=ints("complements"),
            area_of={k: int(v) for k, v in ints("area_of").items()}, area_labels=ints("area_labels"),
            area_descriptions=ints("area_descriptions"), tree=meta.get("tree", []),
            next_area=int(meta.get("next_area", 0)), born=ints("born"), fitted_week=meta.get("fitted_week", ""), forming=meta.get("forming", []),
        )


@dataclass(frozen=True)
class Change:
    """One row of the lineage: what a fit, refit or weekly update did to a theme (``relation``:
    new, same, split, merged, retired). A birth in a weekly update also says its week and the pool it
    came from."""

    from_topic: int | None
    to_topic: int | None
    relation: str
    similarity: float | None = None
    shared_papers: int = 0
    week: str | None = None
    pool_size: int | None = None
    pool_start: str | None = None


@dataclass(frozen=True)
class Forming:
    """A group of pool papers dense, far and recent enough to become a theme, but still too small."""

    rows: np.ndarray
    nearest: int  # the theme it lies nearest
    label: str  # what its papers say most, against that theme's ("" until named, ``names.py``)
    week: str
    key: int  # which of the update's forming groups it is (the request to name it says)


@dataclass
class RunResult:
    """What one topics run (fit, refit or update) produced: every paper's theme and its similarity,
    the state, the lineage rows, what is still forming, and what is left to be named. (Each paper's
    theme alone is kept as ``assignment.parquet`` in the model folder.)"""

    topics: np.ndarray  # stable theme id per paper, -1 unassigned
    similarity: np.ndarray  # cosine to the assigned (or nearest) centroid
    state: State
    lineage: list[Change]
    mode: str
    bertopic: object | None = None
    forming: list[Forming] = field(default_factory=list)  # pool groups still too small
    unexplained: float = 0.0  # an update: share of papers in the pool before the cap placed any
    # a refit that keeps history: the themes papers placed before may move into (theme -> the old
    # themes whose papers may, None for any), and the previous themes it revived
    receiving: dict[int, set[int] | None] = field(default_factory=dict)
    revived: set[int] = field(default_factory=set)
    # what the run left to be named, in order (``names.ThemeToName``, ``FormingToName``,
    # ``AreasToName``): ``names.name_run`` names it and empties this
    to_name: list = field(default_factory=list)


def utc_now() -> str:
    """Now, UTC, to the second, ISO 8601: the time a fit or an update is recorded under."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def with_complement(description: str, complement: str) -> str:
    """A theme's description with its label's complement (``State.complements``) second, as written,
    and without the phrases made only of its words ("MRI · computed tomography · magnetic resonance
    imaging", not "MRI · magnetic resonance imaging · tomography · computed"): as many phrases as
    before, or two."""
    if not complement:
        return description
    phrases = description.split(" · ")
    words = set(re.findall(r"\w+", complement.lower()))
    rest = [p for p in phrases[1:] if not set(re.findall(r"\w+", p.lower())) <= words]
    return " · ".join([phrases[0], complement, *rest][:max(len(phrases), 2)])


def described(label: str, description: str) -> str:
    """A description that starts with ``label`` (a refit may keep an old label over the new one, and
    a label may gain a keyword to stay unique)."""
    phrases = description.split(" · ")
    if phrases and phrases[0].lower() == label.lower():
        return description
    rest = [p for p in phrases[1:] if p.lower() != label.lower()]
    return " · ".join([label[:1].lower() + label[1:] if label[1:2].islower() else label, *rest])
