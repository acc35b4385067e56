"""Files other than tables: JSON records, text (pages, Markdown, CSV), arrays (safetensors, npz
shards), figures (PNG and SVG), and reads of the raw page store."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pipeline.io.atomic import atomic_path
from pipeline.progress import progress

log = logging.getLogger(__name__)


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


SLOTS = 64  # jobs of one drawing that the caller can take back (``FigureDrawing.write``)
_CLAIMS = None  # in a drawing process: which jobs someone has begun, shared with the caller


def _claim(claims, slot: int, wait: float | None = None) -> bool:  # noqa: ANN001 - a multiprocessing Array
    """Claim job ``slot`` for this process; False when another process has it, or (``wait``: the
    most seconds to wait for the lock) when the lock is held that long, by a process killed holding it."""
    lock = claims.get_lock()
    if not lock.acquire(timeout=wait if wait is not None else -1):
        return False
    try:
        if claims[slot]:
            return False
        claims[slot] = 1
        return True
    finally:
        lock.release()


def _drawn(fig: object, fmt: str, slot: int | None) -> bytes | None:  # what a drawing process runs, sent by name
    if slot is not None and not _claim(_CLAIMS, slot):
        return None  # the caller drew it
    return _figure_bytes(fig, fmt)


FORMATS = ("png", "svg")
MOST_DRAWING = 3  # drawing processes beside a caller that keeps computing (a weekly report has at most 4 figures)


def _drawing_process(parent: int, claims) -> None:  # noqa: ANN001 - a multiprocessing Array
    """Set up a drawing process: the jobs' claims shared with the caller; Ctrl-C is the caller's to
    report (one line, not a traceback per process); and the process ends when its caller is gone,
    even one killed without cleaning up."""
    import os
    import signal
    import threading
    import time

    global _CLAIMS
    _CLAIMS = claims
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class FigureDrawing:
    """Figures drawn to PNG and SVG by other processes while the caller goes on with its work.

    Drawing is most of a report's time and keeps one core busy. The drawing processes are forked
    when this is made, so a caller that makes it before reading its tables forks processes that do
    not hold them. ``start(name, fig)`` sends them a finished figure (pickled), one job per format;
    they send back the bytes, which are the same as drawn here. With one core or no ``fork``, or
    where a process cannot start, dies or cannot take a figure, the figure is drawn here by
    ``write`` (and the log says why). ``write(folder)`` waits for every drawing and writes
    ``<name>.png`` and ``.svg``; leaving the ``with`` block ends the processes, and a process whose
    caller is killed ends by itself.

    ``workers``: how many processes draw (0: none, all drawn here); by default one fewer than the
    cores, at most ``MOST_DRAWING``, as the caller keeps one core busy."""

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor

        cores = _cores()
        workers = min(min(cores - 1, MOST_DRAWING) if workers is None else workers, cores) if cores > 1 else 0
        self._figures: dict[str, object] = {}
        self._futures: dict[tuple[str, str], object] = {}
        self._slots: dict[tuple[str, str], int | None] = {}
        self._next_slot = 0
        self._claims = None
        self._pool = None
        if workers and "fork" in multiprocessing.get_all_start_methods():
            try:
                context = multiprocessing.get_context("fork")
                self._claims = context.Array("b", SLOTS)
                self._pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_drawing_process,
                                                 initargs=(os.getpid(), self._claims))
                self._pool.submit(int)  # forks the processes now
            except (OSError, ImportError, NotImplementedError) as exc:  # no fork, or no shared semaphores
                log.info("figures: drawn in this process (%s: %s)", type(exc).__name__, exc)
                if self._pool is not None:
                    self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def start(self, name: str, fig: object) -> None:
        """Hand over a finished figure: drawing starts now where a process is free."""
        self._figures[name] = fig
        if self._pool is not None:
            for fmt in FORMATS:
                slot = self._next_slot if self._next_slot < SLOTS else None  # each job its own slot
                self._next_slot += 1
                self._slots[(name, fmt)] = slot
                try:
                    self._futures[(name, fmt)] = self._pool.submit(_drawn, fig, fmt, slot)
                except Exception as exc:  # noqa: BLE001 - a broken pool: drawn here by write()
                    log.info("figures: %s drawn in this process (%s)", name, type(exc).__name__)

    def _bytes(self, name: str, fmt: str) -> bytes:
        future = self._futures.get((name, fmt))
        if future is not None:
            try:
                drawn = future.result()
                if drawn is not None:
                    return drawn
            except Exception as exc:  # noqa: BLE001 - the process died or the figure would not pickle: drawn
                # here, where a fault of the drawing itself is raised as it would be without the processes
                log.info("figures: %s.%s drawn in this process (%s: %s)", name, fmt, type(exc).__name__, exc)
        return _figure_bytes(self._figures[name], fmt)

    def _take_back(self) -> dict[tuple[str, str], bytes]:
        """Draw here the jobs no process has begun, the last first, while the processes draw the
        first: the caller, waiting, has a core to spare. Each job is claimed before it is drawn, by
        a process or here (``_claim``), so none is drawn twice; the processes take jobs in order, so
        those left form the end of the queue."""
        here = {}
        for key in reversed([k for k in self._futures if self._slots.get(k) is not None]):
            if not _claim(self._claims, self._slots[key], wait=1.0):
                break
            here[key] = _figure_bytes(self._figures[key[0]], key[1])
        return here

    def write(self, folder: Path) -> dict[str, bytes]:
        """``<folder>/<name>.png`` and ``.svg`` of every figure started, in the order started; returns
        each PNG's bytes (also embedded in the HTML)."""
        here = self._take_back()
        drawn = {name: [here[(name, fmt)] if (name, fmt) in here else self._bytes(name, fmt) for fmt in FORMATS]
                 for name in progress(list(self._figures), desc="figures", unit="figure")}
        folder.mkdir(parents=True, exist_ok=True)
        for name, formats in drawn.items():
            for fmt, data in zip(FORMATS, formats):
                with atomic_path(folder / f"{name}.{fmt}") as tmp:
                    tmp.write_bytes(data)
        return {name: png for name, (png, _) in drawn.items()}

    def __enter__(self) -> FigureDrawing:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


def write_figures(figures: dict[str, object], folder: Path) -> dict[str, bytes]:
    """``<folder>/<name>.png`` and ``.svg`` of each matplotlib figure, each format of each figure a
    job for one of up to one process per core (``FigureDrawing``; drawn here on one core); returns
    each PNG's bytes."""
    with FigureDrawing(workers=min(len(figures) * len(FORMATS), _cores())) as drawing:
        for name, fig in figures.items():
            drawing.start(name, fig)
        return drawing.write(folder)
