"""The units a report tests, built from its papers: themes (or areas in their place), the areas
beside the themes, the watched themes, and the arXiv categories whose mix says how the field's
volume moved (``movement.Units``, one per level).

A theme's and an area's papers are those placed in a theme, and the volume they are measured
against is the placed papers (the latest weeks' papers still waiting in the pool would otherwise
lower every recent share); a watched theme matches papers whether or not they were placed, so its
volume is every paper. The categories are every paper, each counted as itself (a deadline wave is
many groups' papers), against the field as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pipeline.report.statistics.movement import Units, units_of, week_unit_evidence
from pipeline.report.watched import Matches
from pipeline.schemas import Papers


def _authors(papers: pd.DataFrame) -> list:
    if Papers.authors not in papers.columns:
        return [None] * len(papers)
    return [a if isinstance(a, list) else list(a) if a is not None and not isinstance(a, float) else None
            for a in papers[Papers.authors].tolist()]


def _primary(papers: pd.DataFrame) -> list:
    if Papers.primary_category not in papers.columns:
        return [""] * len(papers)
    return papers[Papers.primary_category].tolist()


def report_levels(papers: pd.DataFrame, weeks: Sequence[pd.Timestamp], level: str = "theme",
                  area_of: dict[int, int] | None = None, watched: Matches | None = None,
                  ids: Sequence | None = None) -> list[Units]:
    """The report's levels from ``papers`` (Papers columns with ``topic``; at ``level="area"`` the
    topic is already the area): ``level`` itself, "area" when ``area_of`` (theme -> area) is given,
    "watched" when ``watched`` (rows in the order of ``papers``) names themes, and "category" when
    the papers list categories."""
    inside = papers[Papers.week_start].isin(set(weeks)).to_numpy()
    # the columns the levels read, of the weeks' papers (a list column is slow to filter; authors become lists once)
    field = papers.loc[inside, [c for c in (Papers.week_start, "topic", Papers.primary_category) if c in papers.columns]]
    listed = papers.loc[inside, [Papers.authors]] if Papers.authors in papers.columns else field
    field = field.assign(**{Papers.authors: pd.Series(_authors(listed), index=field.index, dtype=object)})
    # each paper's evidence among its theme's papers of the week (unplaced: the pool's), computed once
    evidence = week_unit_evidence(field[Papers.week_start], field["topic"].tolist(), field[Papers.authors].tolist())
    out = [placed_units(field, weeks, level, ids=ids, evidence=evidence)]
    if area_of:
        out.append(placed_units(field, weeks, "area", area_of))
    if watched is not None and watched.names:
        out.append(watched_units(field, weeks, Matches(watched.on[inside], watched.z[inside]), evidence=evidence))
    if Papers.primary_category in field.columns and field[Papers.primary_category].notna().any():
        out.append(category_units(field, weeks))
    return out


def placed_units(papers: pd.DataFrame, weeks: Sequence[pd.Timestamp], level: str = "theme",
                 area_of: dict[int, int] | None = None, ids: Sequence | None = None,
                 evidence: np.ndarray | None = None) -> Units:
    """Themes (or, with ``area_of``, their areas) over the papers placed in a theme. ``evidence``:
    each paper's (rows of ``papers``) among its theme's papers of its week, when the caller has it."""
    inside = papers[Papers.week_start].isin(set(weeks)).to_numpy()
    field = papers[inside]
    placed_rows = (field["topic"] >= 0).to_numpy()
    placed = field[placed_rows]
    authors, primary = _authors(placed), _primary(placed)
    week = placed[Papers.week_start]  # a column: the Mondays are looked up whole, not one Timestamp a paper
    unit = placed["topic"].astype(int).tolist()
    if area_of is not None:
        unit = [area_of.get(t, -1) for t in unit]
        ids = sorted(set(area_of.values()))
    if evidence is not None and area_of is None:
        weight = np.asarray(evidence)[inside][placed_rows]
    else:
        weight = week_unit_evidence(week, unit, authors)  # the volume is the units' own papers: the same weights
    return units_of(level, weeks, week, unit, primary, authors, week, primary, ids, weight=weight, volume_weight=weight)


def watched_units(papers: pd.DataFrame, weeks: Sequence[pd.Timestamp], watched: Matches,
                  evidence: np.ndarray | None = None) -> Units:
    """The watched themes over every paper (``watched``: rows in the order of ``papers``; ``evidence``:
    each paper's among its theme's papers of its week, when the caller has it)."""
    inside = papers[Papers.week_start].isin(set(weeks)).to_numpy()
    field = papers[inside]
    rows, names = np.nonzero(watched.on[inside][watched.names].to_numpy())
    week, primary, authors = field[Papers.week_start], _primary(field), _authors(field)
    # every paper weighs in the volume as it does among its theme's papers of the week (unplaced: the pool's)
    volume_weight = (np.asarray(evidence)[inside] if evidence is not None
                     else week_unit_evidence(week, field["topic"].tolist(), authors))
    return units_of("watched", weeks, week.iloc[rows], [watched.names[j] for j in names],
                    [primary[i] for i in rows], [authors[i] for i in rows], week, primary, watched.names,
                    volume_weight=volume_weight)


def category_units(papers: pd.DataFrame, weeks: Sequence[pd.Timestamp]) -> Units:
    """The primary categories' shares of every paper: the field's mix (each paper counts as itself)."""
    field = papers[papers[Papers.week_start].isin(set(weeks)).to_numpy()]
    week = field[Papers.week_start]
    cats = [c if isinstance(c, str) else "" for c in _primary(field)]
    blank = [""] * len(field)
    return units_of("category", weeks, week, cats, blank, [None] * len(field), week, blank,
                    sorted(c for c in set(cats) if c), grouped=False)
