"""Themes one author carries, and phrases one author writes: a series of essays, a project's reports.

A theme that one author carries (``pipeline.voice.one_voice``, the one rule the reports use too) is
one voice: the reports say so beside its label (``report.data.carried_by``). Its label must not be a
phrase of that series either: a reader who searches the field by it finds the author's papers, not
the theme's others. So where a carried theme's label fits fewer than ``min_label_support`` of its
papers outside the series, the run asks for it to be named again from those papers alone
(``names.ThemeToName``, the series' papers left out of the naming), as long as ``NAMED_FROM`` of them
remain; with fewer, the theme is the series, and keeps its label beside the reports' note.

The same holds, at a fit or refit, for a theme one author does not carry but whose label is that author's phrase: where
``SERIES_SHARE`` or more of the theme's papers that write its label (and at least ``SERIES_PAPERS``)
are one author's, a coined phrase of a minority names the theme for the rest, and it is named again
from the papers outside that author's. A label is only taken from such a renaming where it fits at
least ``min_label_support`` of the papers it was named from and is not another author's phrase
(``names._takes``): a better label or none.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.schemas import Papers
from pipeline.voice import one_voice

if TYPE_CHECKING:
    import pandas as pd

    from pipeline.config import TopicsConfig
    from pipeline.topics.naming.names import ThemeToName
    from pipeline.topics.state import RunResult

log = logging.getLogger(__name__)

NAMED_FROM = 5  # a carried theme is named again from its other papers only when this many remain
SERIES_SHARE = 0.5  # a label is one author's phrase when they wrote this share of the theme's papers writing it
SERIES_PAPERS = 3  # ... and at least this many of them


def renames(result: RunResult, papers: pd.DataFrame, texts: Sequence[str], cfg: TopicsConfig) -> list[ThemeToName]:
    """A request to name again each carried theme whose label is a phrase of its series (see the
    module docstring), once the run's naming is done (a theme born in it too). ``papers`` and
    ``texts``: the run's papers, in the assignment's order."""
    from pipeline.topics.naming.names import ThemeToName
    from pipeline.topics.naming.vocabulary import stop_words
    from pipeline.topics.naming.words import WordIndex

    if Papers.authors not in papers.columns:
        return []
    state, topics = result.state, result.topics
    authors = papers[Papers.authors].to_numpy()
    stop = stop_words(cfg.stop_words)
    asked = []
    for t in state.ids.tolist():
        rows = np.flatnonzero(topics == t)
        found = one_voice(authors[rows])
        carried = found is not None
        if found is None:
            if result.mode == "update":  # an update keeps its themes' labels; a fit or refit names them afresh
                continue
            found = phrase_of_one(state.labels[t], rows, authors, texts, stop)
            if found is None:
                continue
        author = found.author
        series = np.array([isinstance(names, (list, tuple, np.ndarray)) and author in set(names) for names in authors[rows]],
                          dtype=bool)
        others = rows[~series]
        if len(others) < NAMED_FROM:
            continue
        index = WordIndex([texts[i] for i in others])
        if index.share(index.words(state.labels[t], stop), set(range(len(others)))) >= cfg.min_label_support:
            continue
        log.info("topics: theme %d, %r, is %s %s's papers (%d of %d); named again from the other %d", t,
                 state.labels[t], "mostly" if carried else "named by a phrase of", author, int(series.sum()), len(rows),
                 len(others))
        asked.append(ThemeToName(t, others, topics, state.ids.copy(), state.centroids.copy(), support_on=rows,
                                 authors=authors[rows]))
    return asked


def phrase_of_one(label: str, rows: np.ndarray, authors: np.ndarray, texts: Sequence[str], stop: frozenset[str]):  # noqa: ANN202
    """The author (a ``voice.Voice``) who wrote ``SERIES_SHARE`` or more, and ``SERIES_PAPERS`` or more,
    of the theme's papers (``rows``) that write its ``label``; None where none did."""
    from pipeline.topics.naming.words import WordIndex

    index = WordIndex([texts[i] for i in rows])
    writing = sorted(index.having(index.words(label, stop)))
    if len(writing) < SERIES_PAPERS:
        return None
    return one_voice(authors[rows[writing]], share=SERIES_SHARE, least=SERIES_PAPERS)
