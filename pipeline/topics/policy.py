"""Whether a topics run fits, updates or refits, and why.

``decide`` is a pure function of the themes held (``State``, or None), the configuration, the
embedding model's identity, the newest week of the papers and whether the user asked for a refit
(``--refit``). The stage runs the one path it answers:

- **fit** when no themes are held;
- **refit** when asked, when the embedding model changed (vectors of two models cannot be
  compared), or when the themes are ``refit_every_weeks`` weeks old or older;
- **update** otherwise: the weekly path.

Themes fitted before ``fitted_week`` was kept have no age: counting starts at the newest week
(``Plan.count_from``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.config import TopicsConfig
from pipeline.dates import week_monday
from pipeline.topics.state import State

MODES = ("fit", "update", "refit")


@dataclass(frozen=True)
class Plan:
    mode: str  # one of MODES
    why: str  # said in the log
    automatic: bool = False  # a refit the user did not ask for (the log says why)
    count_from: str | None = None  # an update of themes with no age: their age counts from this week


def weeks_between(start: str, end: str) -> int:
    """Whole weeks from ISO week ``start`` to ISO week ``end``."""
    return (week_monday(end) - week_monday(start)).days // 7


def decide(state: State | None, cfg: TopicsConfig, *, embedder: str, newest: str | None,
           refit: bool = False) -> Plan:
    if state is None:
        return Plan("fit", "no themes fitted yet")
    if refit:
        return Plan("refit", "asked for (--refit)")
    if state.embedder != embedder:
        return Plan("refit", f"the embedding model changed ({state.embedder} -> {embedder})", automatic=True)
    if not cfg.refit_every_weeks or newest is None:
        return Plan("update", "themes held")
    if not state.fitted_week:
        return Plan("update", "themes held, fitted before their age was kept", count_from=newest)
    weeks = weeks_between(state.fitted_week, newest)
    if weeks >= cfg.refit_every_weeks:
        return Plan("refit", f"{weeks} weeks since the themes were fitted ({state.fitted_week}; refit_every_weeks "
                             f"{cfg.refit_every_weeks})", automatic=True)
    return Plan("update", f"themes {weeks} weeks old")
