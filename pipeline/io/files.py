"""Files other than tables: JSON records, text (pages, Markdown, CSV), arrays (safetensors, npz
shards), figures (PNG and SVG), and reads of the raw page store."""

from __future__ import annotations

import json
from pathlib import Path


from pipeline.io.atomic import atomic_path

def write_json(obj: dict, path: Path) -> None:
    """Write a small JSON record (run records, stage summaries) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, default=str) + "\n", encoding="utf-8")


def read_json(path: Path) -> dict:
    """Read a JSON record written by ``write_json``; an empty dict if there is none."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def write_text(path: Path, text: str) -> None:
    """Write a text file (a report page, Markdown, CSV) whole or not at all."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def read_bytes(path: Path) -> bytes:
    """A stored file's bytes (a raw API page)."""
    return path.read_bytes()


def list_files(folder: Path, pattern: str) -> list[Path]:
    """Files in ``folder`` (not below it) whose names match ``pattern``, sorted; none if no folder."""
    return sorted(folder.glob(pattern)) if folder.is_dir() else []


def write_arrays(path: Path, arrays: dict) -> None:
    """Named numpy arrays in a safetensors file (no pickle), atomically."""
    from safetensors.numpy import save_file

    with atomic_path(path) as tmp:
        save_file(arrays, str(tmp))


def read_arrays(path: Path) -> dict:
    from safetensors.numpy import load_file

    return load_file(str(path))


def write_shard(path: Path, **arrays: object) -> None:
    """Named arrays in an ``.npz`` file (no pickle), atomically: one shard of an append-only store."""
    import numpy as np

    with atomic_path(path) as tmp, tmp.open("wb") as fh:
        np.savez(fh, **arrays)


def read_shard(path: Path) -> dict:
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def write_figure(fig: object, folder: Path, name: str) -> bytes:
    """``<folder>/<name>.png`` and ``.svg`` of a matplotlib figure; returns the PNG's bytes (drawn once,
    also embedded in the HTML). Text stays text in the SVG: searchable, small, and several times
    faster to write than glyph outlines."""
    import io

    from matplotlib import rc_context

    folder.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight", dpi=110)
    png = buffer.getvalue()
    with atomic_path(folder / f"{name}.png") as tmp:
        tmp.write_bytes(png)
    with atomic_path(folder / f"{name}.svg") as tmp, rc_context({"svg.fonttype": "none"}):
        fig.savefig(tmp, format="svg", bbox_inches="tight")
    return png
