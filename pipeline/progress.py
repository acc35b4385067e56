"""Progress of long steps: a bar on a terminal, a line every few seconds in a log, nothing under ``-q``.

A step opens a :class:`Meter` with ``meter(desc, total, unit)`` (or wraps a loop in ``progress``) and
advances it as work is done. On a terminal the meter is a tqdm bar with a rate and the time left,
shown once the step has run for ``BAR_DELAY`` seconds. When stderr is a file or a pipe (the weekly
cron job), it logs one line every ``LOG_EVERY`` seconds instead, with the rate and the time left
("embed: 1,024/2,822 papers (36 %), 6.3 papers/s, about 4 min 45 s left"); a step shorter than that
logs nothing.

Work done deep inside another call (the embedder's batches) advances the meter opened with
``fine=True`` around it, through ``advance``, without being handed the meter.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

log = logging.getLogger("pipeline.progress")
T = TypeVar("T")

BAR_DELAY = 1.0  # seconds before a bar shows: a short step does not flicker
LOG_EVERY = 10.0  # seconds between two lines in a log

_enabled = True
_fine: contextvars.ContextVar[Meter | None] = contextvars.ContextVar("fine_meter", default=None)


def set_progress(enabled: bool) -> None:
    """Show or hide progress (the CLI's ``--quiet`` hides it)."""
    global _enabled
    _enabled = enabled


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


class Meter:
    """One long step's progress: ``done`` of ``total`` ``unit``s since ``start``."""

    def __init__(self, desc: str, total: int | None, unit: str) -> None:
        self.desc, self.total, self.unit = desc, total, unit
        self.done = 0
        self.start = time.monotonic()
        self._last_line = self.start
        self._bar = None
        if _enabled and sys.stderr.isatty():
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, leave=False, delay=BAR_DELAY, file=sys.stderr)

    def advance(self, n: int = 1) -> None:
        if n <= 0:
            return
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        elif _enabled and time.monotonic() - self._last_line >= LOG_EVERY:
            self._last_line = time.monotonic()
            log.info("%s", self.line())

    def line(self) -> str:
        """What the meter says in a log: done, share, rate, time left."""
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.done / elapsed
        units = self.unit if self.unit.endswith("s") else f"{self.unit}s"
        said = f"{self.desc}: {self.done:,}"
        if self.total:
            said += f"/{self.total:,} {units} ({100 * self.done / self.total:.0f} %)"
        else:
            said += f" {units}"
        said += f", {rate:,.1f} {units}/s" if rate < 100 else f", {rate:,.0f} {units}/s"
        if self.total and rate > 0:
            said += f", about {_duration((self.total - self.done) / rate)} left"
        return said

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


@contextlib.contextmanager
def meter(desc: str, total: int | None = None, unit: str = "item", *, fine: bool = False) -> Iterator[Meter]:
    """A meter for the step inside the ``with``; ``fine``: the calls inside advance it (``advance``)."""
    m = Meter(desc, total, unit)
    token = _fine.set(m) if fine else None
    try:
        yield m
    finally:
        if token is not None:
            _fine.reset(token)
        m.close()


def advance(n: int) -> None:
    """Advance the meter a caller opened with ``fine=True`` (none: nothing happens)."""
    m = _fine.get()
    if m is not None:
        m.advance(n)


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "", unit: str = "item") -> Iterator[T]:
    """``items``, metered one by one."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with meter(desc, total, unit) as m:
        for item in items:
            yield item
            m.advance()
