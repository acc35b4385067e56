"""Whether a run fits, updates or refits (``policy.decide``), as a table of cases."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.config import TopicsConfig
from pipeline.topics.policy import decide, weeks_between
from pipeline.topics.state import State


def held(fitted_week: str = "2026-W10", embedder: str = "minilm-a") -> State:
    return State(ids=np.array([0]), centroids=np.zeros((1, 4), np.float32), words={0: []}, labels={0: "a"},
                 embedder=embedder, next_id=1, fitted_at="2026-03-02T00:00:00+00:00", fitted_week=fitted_week)


@pytest.mark.parametrize(
    ("state", "cfg", "newest", "refit", "mode", "automatic", "count_from", "why"),
    [
        (None, TopicsConfig(), "2026-W10", False, "fit", False, None, "no themes fitted yet"),
        (None, TopicsConfig(), "2026-W10", True, "fit", False, None, "no themes"),  # nothing to refit yet
        (held(), TopicsConfig(), "2026-W11", True, "refit", False, None, "asked for"),
        (held(embedder="minilm-b"), TopicsConfig(), "2026-W11", False, "refit", True, None, "embedding model changed"),
        (held(), TopicsConfig(), "2026-W11", False, "update", False, None, "1 weeks old"),
        (held(), TopicsConfig(), "2026-W22", False, "update", False, None, "12 weeks old"),
        (held(), TopicsConfig(), "2026-W23", False, "refit", True, None, "13 weeks since"),
        (held(), TopicsConfig(refit_every_weeks=4), "2026-W14", False, "refit", True, None, "refit_every_weeks 4"),
        (held(), TopicsConfig(refit_every_weeks=0), "2027-W10", False, "update", False, None, "themes held"),
        (held(fitted_week=""), TopicsConfig(), "2026-W30", False, "update", False, "2026-W30", "age"),
        (held(), TopicsConfig(), None, False, "update", False, None, "themes held"),  # no dated papers
    ],
)
def test_decide(state, cfg, newest, refit, mode, automatic, count_from, why):
    plan = decide(state, cfg, embedder="minilm-a", newest=newest, refit=refit)
    assert (plan.mode, plan.automatic, plan.count_from) == (mode, automatic, count_from)
    assert why in plan.why


def test_weeks_between_counts_across_the_year():
    assert weeks_between("2025-W52", "2026-W01") == 1 and weeks_between("2026-W10", "2026-W10") == 0
