"""What every stage shares: fingerprints that make re-runs safe, the summary line, the root's lock.

A stage's fingerprint hashes its code (the source of the modules it names), its config section and
its input files (path, size, modification time). Its outputs carry the fingerprint; when all of them
do, the stage skips, unless forced.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import json
import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline import io
from pipeline.io import read_fingerprint

log = logging.getLogger(__name__)


class LockedError(RuntimeError):
    """Another paper-trends process writes to the same root."""


@contextlib.contextmanager
def root_lock(root: Path, what: str) -> Iterator[None]:
    """One writer per project root: an exclusive lock on ``<root>/data/.paper-trends.lock`` for the
    run (``what`` names it for whoever finds the lock taken). The operating system releases the lock
    when its process ends, however it ends, so a lock left by a killed run is never in the way; the
    file only says who held it last. LockedError, naming the holder, if another process holds it."""
    import fcntl
    import os

    path = root / "data" / ".paper-trends.lock"
    # the folders this lock had to make: a run that writes nothing into them leaves none behind
    made = [p for p in (root / "data", *(root / "data").parents) if not p.exists()]  # innermost first
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise LockedError(f"{root} is being written by {holder}; wait until it ends, then run again") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} ({what}, since {time.strftime('%Y-%m-%d %H:%M:%S %Z')})")
        handle.flush()
        yield
    finally:
        handle.close()  # releases the lock
        if made and not any(p for p in path.parent.iterdir() if p != path):
            path.unlink(missing_ok=True)
            for folder in made:
                with contextlib.suppress(OSError):  # not empty after all: kept
                    folder.rmdir()


def code_version(*module_names: str) -> str:
    """Hash of the package version and the source of the given modules (packages: every file under
    them, sub-packages and templates included, each by its path within the package, so that moving a
    module or editing a template changes it)."""
    digest = hashlib.sha256(__version__.encode())
    for name in module_names:
        module = importlib.import_module(name)
        path = Path(inspect.getfile(module))
        if path.name == "__init__.py":
            base = path.parent
            files = sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                           and p.suffix not in (".pyc", ".pyo"))
        else:
            base, files = path.parent, [path]
        for file in files:
            digest.update(file.relative_to(base).as_posix().encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def file_signature(path: Path) -> dict[str, Any]:
    stat = path.stat()
    return {"path": path.resolve().as_posix(), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def fingerprint(code: str, config: dict[str, Any], inputs: Iterable[Path]) -> str:
    payload = {
        "code": code,
        "config": config,
        "inputs": [file_signature(p) for p in sorted(inputs)],
    }
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:24]


def outputs_current(outputs: Iterable[Path], fp: str, record: Path | None = None, **expected: Any) -> bool:
    """True when every output exists and carries fingerprint ``fp`` and, if given, so does the run
    ``record`` (a JSON file a stage writes after all its outputs, so a run killed part-way is never
    taken for a finished one), with the ``expected`` values too."""
    if not all(path.exists() and read_fingerprint(path) == fp for path in outputs):
        return False
    if record is None:
        return True
    try:
        written = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return written.get("fingerprint") == fp and all(written.get(k) == v for k, v in expected.items())


@dataclass
class StageResult:
    """What a stage reports: its name, whether it ran, counts, and the time it took."""

    stage: str
    ran: bool
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        counts = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in self.counts.items())
        state = "ran" if self.ran else "skipped (inputs, config and code unchanged; --force re-runs)"
        return f"{self.stage}: {counts} ({self.seconds:.1f} s, {state})"


@dataclass
class Step:
    """The skeleton every stage runs in. Its ``outputs`` carry fingerprint ``fp`` (tables in their
    metadata; other files are covered by the record alone), and its run record (``Paths.run_record``)
    is written after every output, so a run killed part-way is never taken for a finished one::

        step = Step("clean", fp, outputs, paths.run_record("clean"))
        if (skipped := step.skipped(force)) is not None:
            return skipped
        with Timer() as timer:
            ...  # write the outputs
        return step.done(counts, timer.seconds)

    ``expected``: further values the record must hold for the outputs to count as current."""

    name: str
    fp: str
    outputs: list[Path]
    record: Path
    expected: dict[str, Any] = field(default_factory=dict)

    @property
    def tables(self) -> list[Path]:
        """The outputs that carry the fingerprint in their metadata."""
        return [p for p in self.outputs if p.suffix == ".parquet"]

    def current(self) -> bool:
        return all(p.exists() for p in self.outputs) and outputs_current(self.tables, self.fp, self.record, **self.expected)

    def recover(self, kept: Path) -> None:
        """Write the run record from ``kept``, the copy a stage keeps where it commits its outputs,
        when a run was killed after that commit and before its record: the outputs carry the
        fingerprint the copy names, and the record is not current. Else change nothing."""
        if self.current() or not kept.exists():
            return
        record = io.read_json(kept)
        if record.get("fingerprint") == self.fp and outputs_current(self.tables, self.fp):
            io.write_json(record, self.record)

    def skipped(self, force: bool) -> StageResult | None:
        """The result of a skipped run when the outputs are current and nothing forces a run, else None."""
        if force or not self.current():
            return None
        return StageResult(self.name, ran=False, counts=io.read_json(self.record).get("counts", {}))

    def done(self, counts: dict[str, int], seconds: float, *, label: str | None = None,
             details: dict[str, Any] | None = None, **record: Any) -> StageResult:
        """Write the run record (last) and return the result; ``record``: more for the record."""
        io.write_json(self.record_of(counts, seconds, **record), self.record)
        return StageResult(label or self.name, ran=True, counts=counts, seconds=seconds, details=details or {})

    def record_of(self, counts: dict[str, int], seconds: float, **record: Any) -> dict[str, Any]:
        """What ``done`` writes as the run record (a stage may keep a copy where it commits its outputs)."""
        return {"fingerprint": self.fp, "counts": counts, "seconds": round(seconds, 3), **self.expected, **record}


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start
