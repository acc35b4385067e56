"""Files other than tables: JSON records, text (pages, Markdown, CSV), arrays (safetensors, npz
shards), figures (PNG and SVG), and reads of the raw page store."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.io.atomic import atomic_path
from pipeline.progress import progress


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


def read_text(path: Path) -> str:
    """A stored text file (a feed's id, a report's summary)."""
    return path.read_text(encoding="utf-8")


def remove_tree(path: Path) -> None:
    """A folder and everything in it, or a file; nothing when it is not there."""
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


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


def remove_files(paths: list[Path]) -> None:
    """Delete ``paths`` in order (a path already gone is fine)."""
    for path in paths:
        path.unlink(missing_ok=True)


def touch_files(paths: list[Path]) -> None:
    """Mark ``paths`` as used now (their modification time; a path not there is left alone)."""
    for path in paths:
        if path.exists():
            path.touch()


def unused_files(folder: Path, pattern: str, days: float) -> list[Path]:
    """Files of ``folder`` matching ``pattern`` not modified (nor touched) for ``days`` days."""
    import time

    cutoff = time.time() - days * 86400
    return [p for p in list_files(folder, pattern) if p.stat().st_mtime < cutoff]


def write_array(path: Path, array: object) -> None:
    """One numpy array in an ``.npy`` file (no pickle), atomically; ``read_array`` can map it."""
    import numpy as np

    with atomic_path(path) as tmp, tmp.open("wb") as fh:
        np.save(fh, array, allow_pickle=False)


def read_array(path: Path, *, mapped: bool = False):  # noqa: ANN201 - numpy array or read-only memmap
    """An ``.npy`` array, read whole or (``mapped``) memory-mapped: pages are read as rows are used."""
    import numpy as np

    return np.load(path, mmap_mode="r" if mapped else None, allow_pickle=False)


def read_shard(path: Path) -> dict:
    """Named arrays of an ``.npz`` file (no pickle): the embedding cache's shards before ``.npy`` pairs."""
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


_DRAWING: dict = {}  # the figures being drawn, which forked drawing processes inherit


def _figure_bytes(fig: object, fmt: str) -> bytes:
    import io

    from matplotlib import rc_context

    buffer = io.BytesIO()
    if fmt == "png":
        fig.savefig(buffer, format="png", bbox_inches="tight", dpi=110)
    else:  # text stays text: searchable, small, and several times faster to write than glyph outlines;
        # no date, and a fixed salt for the ids it hashes: fewer differences between two runs' files
        with rc_context({"svg.fonttype": "none", "svg.hashsalt": "paper-trends"}):
            fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()


def _draw(job: tuple[str, str]) -> bytes:
    name, fmt = job
    return _figure_bytes(_DRAWING[name], fmt)


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def write_figures(figures: dict[str, object], folder: Path) -> dict[str, bytes]:
    """``<folder>/<name>.png`` and ``.svg`` of each matplotlib figure; returns each PNG's bytes (also
    embedded in the HTML). Drawing is most of a report's time and keeps one core busy, so where the
    platform forks, processes forked for the purpose (one per core) draw them: each inherits the
    figures and sends back only the bytes, which are the same as drawn here. Elsewhere, on one core,
    or if those processes cannot start or die, the figures are drawn here one by one."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    jobs = [(name, fmt) for name in figures for fmt in ("png", "svg")]
    workers = min(len(jobs), _cores())
    drawn: list[bytes] | None = None
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        _DRAWING.update(figures)
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                drawn = list(progress(pool.map(_draw, jobs), total=len(jobs), desc="figures", unit="figure"))
        except (OSError, BrokenProcessPool):
            drawn = None
        finally:
            _DRAWING.clear()
    if drawn is None:
        drawn = [_figure_bytes(figures[name], fmt) for name, fmt in progress(jobs, desc="figures", unit="figure")]
    folder.mkdir(parents=True, exist_ok=True)
    for (name, fmt), data in zip(jobs, drawn):
        with atomic_path(folder / f"{name}.{fmt}") as tmp:
            tmp.write_bytes(data)
    return {name: data for (name, fmt), data in zip(jobs, drawn) if fmt == "png"}
