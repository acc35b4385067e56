"""What ``fresh.py`` and ``matched.py`` share: a pool of (paper, watched theme) to be judged, written
shuffled into JSONL chunks for readers who see one theme a paper (the listings' text, so outside the
repository), and the readers' verdicts read back against that pool."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def write(pool: list[dict], out: Path, chunks: int, seed: int) -> None:
    """``pool`` (each with id, theme, title, abstract, and what the caller keeps) shuffled (``seed``)
    into ``<out>/pool.json`` and ``chunk_<i>.jsonl`` (id, theme, title, abstract only)."""
    np.random.default_rng(seed).shuffle(pool)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pool.json").write_text(json.dumps(pool))
    for i in range(chunks):
        with (out / f"chunk_{i}.jsonl").open("w") as fh:
            for p in pool[i::chunks]:
                fh.write(json.dumps({"id": p["id"], "theme": p["theme"], "title": p["title"],
                                     "abstract": p["abstract"]}) + "\n")


def verdicts(judged: Path) -> tuple[dict, list[tuple[dict, int]]]:
    """The pool written beside ``judged`` (by (id, theme)), and each verdict of the readers' JSONL files
    under ``judged`` ({"id", "theme", "on"}) with its pool entry."""
    pool = {(p["id"], p["theme"]): p for p in json.loads((judged.parent / "pool.json").read_text())}
    found = []
    for path in sorted(judged.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            v = json.loads(line)
            found.append((pool[(v["id"], v["theme"])], int(v["on"])))
    return pool, found
