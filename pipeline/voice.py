"""One author's papers: the one rule for "carried by one author", and how much independent evidence
a set of papers holds.

Papers are not independent events. One author's run of essays, a project's reports, a lab's batch
before a deadline: each is one piece of news however many papers it spans. Two places need to know:

- the topics stage, which names a theme that one author carries from its other papers
  (``topics.naming.series``), and the reports, which say so beside its label;
- the weekly report and the survey, which never name a rise or a fall as a trend when one author's
  papers carry it, and count papers that share an author within a unit and a week as one piece of
  evidence (``evidence``).

``one_voice`` is that rule, with its thresholds here and nowhere else: one author on at least
``VOICE_SHARE`` of the papers, and on at least ``VOICE_PAPERS`` of them. ``SERIES_PAPERS`` is how
many papers one author must have in one theme within a month for the weekly report to say it in its
"One author's series" line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

VOICE_SHARE = 0.5  # one author on at least half of the papers ...
VOICE_PAPERS = 3  # ... and on at least three of them: two papers of three are not a series
SERIES_PAPERS = 5  # one author's papers in one theme within 4 weeks that the weekly report names as a series


@dataclass(frozen=True)
class Voice:
    """The author who carries a set of papers: ``papers`` of its ``of`` papers are theirs."""

    author: str
    papers: int
    of: int


def one_voice(authors: Iterable[Sequence[str] | None], share: float | None = None,
              least: int | None = None) -> Voice | None:
    """The author on at least ``share`` of the papers (each one's ``authors``) and on at least
    ``least`` of them (the most frequent; ties in name order); None where there is none, or no
    authors. By default ``VOICE_SHARE`` and ``VOICE_PAPERS``, the rule; other values serve tests."""
    share = VOICE_SHARE if share is None else share
    least = VOICE_PAPERS if least is None else least
    authors = [a if not isinstance(a, float) else None for a in authors]
    counts = Counter(a for names in authors if names is not None for a in set(names))
    if not counts:
        return None
    author, n = min(counts.items(), key=lambda item: (-item[1], item[0]))
    return Voice(str(author), int(n), len(authors)) if n >= least and n >= share * len(authors) else None


def evidence(groups: Sequence, authors: Sequence[Sequence[str] | None]) -> np.ndarray:
    """Each paper's weight as evidence: ``1 / m``, where ``m`` is the most papers that any of its
    authors has in the paper's group (a unit and a week, say). One author's ``m`` papers in a group
    count as one, and together a group's weights are never below 1 when it holds a paper. A paper
    without authors weighs 1. ``groups``: one hashable key per paper."""
    rows, names = author_pairs(authors)
    codes = pd.factorize(pd.Series(list(groups), dtype=object))[0] if len(authors) else np.zeros(0, dtype=int)
    return evidence_of(np.asarray(codes, dtype=np.int64), rows, pd.factorize(names)[0] if len(names) else names)


def author_pairs(authors: Sequence[Sequence[str] | None]) -> tuple[np.ndarray, np.ndarray]:
    """(paper row, author) for each author of each paper, each author once a paper."""
    listed = pd.Series([a if a is not None and not isinstance(a, float) else [] for a in authors], dtype=object)
    pairs = listed.explode().dropna()
    pairs = pd.DataFrame({"row": pairs.index.to_numpy(dtype=np.int64), "name": pairs.to_numpy(dtype=object)})
    pairs = pairs.drop_duplicates()
    return pairs["row"].to_numpy(dtype=np.int64), pairs["name"].to_numpy(dtype=object)


def evidence_of(groups: np.ndarray, pair_row: np.ndarray, pair_author: np.ndarray) -> np.ndarray:
    """``evidence`` from integer codes: ``groups`` (one per paper), and (paper row, author code)
    pairs. Fast enough to run once per simulated week in a backtest."""
    n = len(groups)
    most = np.ones(n, dtype=np.int64)
    if len(pair_row):
        pair_author = np.asarray(pair_author, dtype=np.int64)
        key = groups[pair_row] * (int(pair_author.max()) + 1) + pair_author
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        np.maximum.at(most, pair_row, counts[inverse])
    return 1.0 / most
