"""The weekly trend report: what was published in one ISO week and how the themes moved.

``build_week`` takes tables and gives the content and figures (handing each figure, as it is made,
to an optional ``start_drawing``); ``pipeline.report.stage.write_weekly`` saves ``index.html``,
``report.md`` and ``figures/*.png|svg`` under ``reports/weekly/<YYYY-Www>/``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from pipeline.report import plots
from pipeline.dates import week_label
from pipeline.report.data import (
    Corpus,
    areas_of,
    at_level,
    births,
    monday_of,
    category_counts,
    uncategorised,
    theme_by_category,
    weekly_topic_counts,
)
from pipeline.report.statistics.levels import report_levels
from pipeline.report.statistics.movement import history as movement_history
from pipeline.report.statistics.movement import ENDED_WEEKS, horizons, movement, movers, needed, since, weeks_of
from pipeline.report.statistics.movement import phrases as movement_phrases
from pipeline.config import ReportConfig
from pipeline.report.statistics.trends import trailing_weeks, trends, week_range
from pipeline.report.watched import Matches
from pipeline.schemas import Papers, TopicInfo
from pipeline.voice import SERIES_PAPERS

# the paper columns the weekly report reads (load_corpus(cfg, COLUMNS)): no abstracts
COLUMNS = [Papers.paper_id, Papers.title, Papers.url, Papers.categories, Papers.primary_category, Papers.published,
           Papers.week, Papers.week_start, Papers.authors]  # authors: whether a rise is one voice
STATUS_TEXT = {"rising": "rising", "falling": "falling", "new": "new this week", "quiet": "went quiet", "steady": ""}
class _Phrases(Mapping):
    """Each horizon's name -> how the report says it, read from ``movement.HORIZONS`` when asked."""

    def __getitem__(self, name: str) -> str:
        return movement_phrases()[name]

    def __iter__(self):  # noqa: ANN204
        return iter(movement_phrases())

    def __len__(self) -> int:
        return len(movement_phrases())


PHRASES = _Phrases()
WOULD_TAKE_HORIZONS = 2  # what it would have taken is said for the two shortest horizons
LEVEL_NOUN = {"theme": "", "area": " (area)", "watched": " (watched)"}
READ = 5  # the most representative papers listed first for each mover, new theme and forming group
MOST_MOVERS = 12  # movers shown with their papers in the digest; the page lists the rest below them


@dataclass
class WeeklyReport:
    week: str
    monday: pd.Timestamp
    papers: pd.DataFrame  # this week's papers with topic
    trend: pd.DataFrame  # per theme: counts, shares, p/q, status
    categories: pd.DataFrame  # category, this week, trailing mean
    labels: dict[int, str]
    cfg: ReportConfig
    primary_only: bool
    trailing_papers: int
    trailing_weeks: int  # of the cfg.window weeks before, those that hold papers
    level: str = "theme"  # "theme", or "area": areas take the place of themes
    descriptions: dict[int, str] = field(default_factory=dict)
    groups: list[tuple[str | None, int, pd.DataFrame]] = field(default_factory=list)  # area, papers, rows
    born: dict[int, dict] = field(default_factory=dict)  # themes born in a weekly update: how, and their papers
    forming: list[dict] = field(default_factory=list)  # pool groups of this week, not yet themes: label, near, papers
    figures: dict[str, tuple[Figure, str]] = field(default_factory=dict)
    tests: pd.DataFrame = field(default_factory=pd.DataFrame)  # every test of the report (movement.movement)
    movers: pd.DataFrame = field(default_factory=pd.DataFrame)  # each unit that moved once, strongest first
    mix: pd.DataFrame = field(default_factory=pd.DataFrame)  # the arXiv categories whose share moved (movers rows)
    since: dict[tuple[str, object], pd.Timestamp] = field(default_factory=dict)  # mover -> first week of its run
    series: list[dict] = field(default_factory=list)  # one author's series this month (series_of)
    carriers: dict[tuple[str, object], list[str]] = field(default_factory=dict)  # area mover -> themes carrying it
    quiet: pd.DataFrame = field(default_factory=pd.DataFrame)  # themes whose silence or drop is significant
    names: dict[tuple[str, object], str] = field(default_factory=dict)  # (level, unit) -> name
    reading: dict[tuple[str, object], pd.DataFrame] = field(default_factory=dict)  # (level, unit) -> papers to read
    watched: list[dict] = field(default_factory=list)  # name, sentence, this week, moves, papers
    would_take: list[str] = field(default_factory=list)  # what a theme would have needed, when nothing moved
    waiting: dict[str, int] = field(default_factory=dict)  # this week's unassigned papers by reason

    @property
    def active_movers(self) -> pd.DataFrame:
        """The movers that did not go quiet (those are said apart)."""
        if self.movers.empty:
            return self.movers
        quiet = set(zip(self.quiet["level"], self.quiet["unit"]))
        return self.movers[[(lv, u) not in quiet for lv, u in zip(self.movers["level"], self.movers["unit"])]]

    @property
    def started(self) -> pd.DataFrame:
        """The movers that began moving this week (not moving the week before)."""
        moved = self.active_movers
        return moved[[self.since.get((lv, u), self.monday) >= self.monday
                      for lv, u in zip(moved["level"], moved["unit"])]] if len(moved) else moved

    @property
    def mix_started(self) -> pd.DataFrame:
        """The categories whose share began moving this week: the mix is said once, when it moves."""
        mix = self.mix
        return mix[[self.since.get(("category", u), self.monday) >= self.monday for u in mix["unit"]]] if len(mix) else mix

    @property
    def continuing(self) -> pd.DataFrame:
        """The movers that were already moving the week before, with ``since`` (the first week of the run)."""
        moved = self.active_movers
        if not len(moved):
            return moved.assign(since=pd.Series(dtype=object))
        firsts = [self.since.get((lv, u), self.monday) for lv, u in zip(moved["level"], moved["unit"])]
        return moved.assign(since=firsts)[[f < self.monday for f in firsts]]

    def evidence_text(self, row) -> str:  # noqa: ANN001 - a row of moves
        """``15 papers, 3 once each author's papers of a week count as one; 0.4 expected``, shortened
        when every paper counts."""
        papers = f"{row.papers} paper{'s' if row.papers != 1 else ''}"
        counted = "" if row.k == row.papers else f" ({row.k} counting each author's papers of a week once)"
        return f"{papers}{counted}, {row.expected:.1f} expected"

    @property
    def method_text(self) -> str:
        """How the report decides what moved, in one sentence (from the horizons and the settings)."""
        spans = [f"{h.phrase} ({h.recent} week{'s' if h.recent != 1 else ''} against the {h.before} before)"
                 for h in horizons(self.cfg)]
        return (f"Each {self.tested_text} is tested at {len(spans)} horizons, {', '.join(spans)}: an exact conditional "
                "binomial test of its share against what the week's mix of primary arXiv categories predicts for it, so a busy "
                "week or one category's deadline wave lifts nothing by itself. One author's papers of a week count "
                f"once, and a move that one author carries is never named. A move must exceed {self.cfg.min_change:g}× "
                f"(a fall, 1/{self.cfg.min_change:g}) beyond doubt, with the false discovery rate held at "
                f"{100 * self.cfg.alpha:g} % within each family by Benjamini–Hochberg (themes and areas; categories; each watched theme; "
                f"{len(self.tests)} tests in all, those too small to ever be significant set aside). The size is "
                "the rate ratio, shrunk towards 1 across units, with its 90 % interval.")

    @property
    def tested_text(self) -> str:
        """What the report tests, in words: ``theme, area or watched theme``."""
        kinds = [self.level] + [lv if lv == "area" else "watched theme" for lv in ("area", "watched")
                                if lv != self.level and (self.tests["level"] == lv).any()]
        return kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " or " + kinds[-1]

    def name(self, level: str, unit: object) -> str:
        return self.names.get((level, unit), str(unit))

    def move_text(self, row) -> str:  # noqa: ANN001 - a row of moves or movers
        """``MoE serving (watched) 2.1× (1.4–3.2)``, or ``Blockchain (area): no paper over 4 weeks``."""
        name = (str(row.unit) if row.level == "category" else self.name(row.level, row.unit)) + LEVEL_NOUN.get(row.level, "")
        if row.k == 0 and row.direction == "down":
            return f"{name}: no paper {PHRASES[row.horizon]} ({row.expected:.1f} expected)"
        return f"{name} {row.estimate:.1f}× ({row.low:.1f}–{row.high:.1f})"

    def mix_text(self, row) -> str:  # noqa: ANN001 - a row of the categories' mix
        """``cs.LG 1.6× (1.3–2.0) its usual share this week``, or ``cs.NE: no paper over the quarter
        (23.4 expected)`` (a silence says its horizon once)."""
        quiet = row.k == 0 and row.direction == "down"  # as move_text tells a silence
        return self.move_text(row) + ("" if quiet else f" its usual share {PHRASES[row.horizon]}")

    @property
    def empty(self) -> bool:
        return self.papers.empty

    @property
    def sunday(self) -> pd.Timestamp:
        return self.monday + pd.Timedelta(days=6)

    @property
    def trailing_text(self) -> str:
        weeks = f"the {self.cfg.window} ISO weeks before {self.week}"
        if self.trailing_weeks < self.cfg.window:
            weeks += f" that hold papers ({self.trailing_weeks})"
        return weeks

    @property
    def categorised(self) -> bool:
        """Whether any paper of this week lists an arXiv category (digest pages list none)."""
        return bool(len(self.categories)) and float(self.categories["this week"].sum()) > 0

    def status_text(self, row) -> str:  # noqa: ANN001 - a row of the week's table
        """``rising over 4 weeks``, ``went quiet this week``, ``new this week`` or nothing."""
        text = STATUS_TEXT[row.status]
        horizon = getattr(row, "horizon", "")
        return f"{text} {PHRASES[horizon]}" if text and horizon else text

    def by_status(self, status: str) -> pd.DataFrame:
        return self.trend[self.trend["status"] == status]


def build_week(corpus: Corpus, monday: pd.Timestamp, cfg: ReportConfig = ReportConfig(), *, primary_only: bool = False,
          history: int = 12, level: str = "theme", watched: Matches | None = None,
          start_drawing: Callable[[str, Figure], object] | None = None) -> WeeklyReport:
    """The report of the week starting ``monday``. At ``level="area"`` every count, test and chart
    is by area; at ``"theme"`` the table of the week's themes is grouped under their areas, and the
    areas are tested beside the themes. ``watched``: ``watched.match`` of ``corpus.papers`` (rows in
    the same order), when the configuration names watched themes. ``start_drawing(name, figure)`` is
    called with each figure as soon as it is complete (the charts before the movement tests), so that
    drawing it can go on beside the rest of the work."""
    areas = areas_of(corpus)
    born = births(corpus) if level == "theme" else {}
    corpus = at_level(corpus, level)
    labels = corpus.labels
    window = week_range(monday, cfg.window)
    papers = corpus.papers
    start = papers[Papers.week_start].min() if not papers.empty else monday
    # weeks before the listings begin are left out, not counted as weeks without papers
    tested = [m for m in week_range(monday, max(movement_history(cfg), cfg.window)) if m >= start] + [monday]
    shown = tested[-(max(history, cfg.window) + 1):]
    counts = weekly_topic_counts(corpus, tested)
    this = papers[papers[Papers.week_start] == monday]
    before = papers[papers[Papers.week_start].isin(window)]
    first_seen = papers[papers["topic"] >= 0].groupby("topic")[Papers.week_start].min()
    # a theme born in a weekly update is new in the week it was born, though papers that waited in the
    # pool for it may be older
    for t, week in corpus.themes[TopicInfo.first_week].dropna().items():
        if int(t) in born:
            first_seen[int(t)] = monday_of(week)
    table = trends(counts, monday, first_seen, cfg)
    covered = trailing_weeks(counts.reindex(window, fill_value=0))
    cats = pd.DataFrame({
        "this week": category_counts(this, primary_only=primary_only),
        "trailing mean": category_counts(before, primary_only=primary_only) / covered,
    }).fillna(0).sort_values("this week", ascending=False)
    report = WeeklyReport(week_label(monday), monday, this, table, cats, labels, cfg, primary_only, len(before),
                          covered, level, corpus.themes[TopicInfo.description].astype(str).to_dict())
    figure = _figure_adder(report, start_drawing)
    shares = _charts(report, counts.reindex(shown), figure)
    _move(report, corpus, counts, areas if level == "theme" else {}, watched, tested)
    moving = [u for lv, u in zip(report.movers.get("level", []), report.movers.get("unit", [])) if lv == level]
    if moving:  # no movers, no figure: the opening says what it would have taken
        figure("movers", plots.theme_series(shares, moving[:9], labels, title=f"{level.capitalize()}s that moved: weekly share"),
               f"Weekly share of each {level} that moved at some horizon; the dot is this week.")
    report.groups = group_rows(report.trend, areas if level == "theme" else {})
    by_id = papers.set_index(Papers.paper_id)
    if level == "theme":
        for group in corpus.forming:
            if group.get("week") == report.week:
                members = by_id.loc[[p for p in group["papers"] if p in by_id.index]].reset_index()
                report.forming.append({"label": group["label"], "near": labels.get(group["nearest"]),
                                       "papers": members})
    for t in report.by_status("new")["topic"]:
        if int(t) in born:
            # its papers up to this week (a report made later must not count papers that came after)
            members = papers[(papers["topic"] == t) & (papers[Papers.week_start] <= monday)].sort_values(
                ["probability", Papers.paper_id], ascending=[False, True])
            parent = born[int(t)]["parent"]
            report.born[int(t)] = {**born[int(t)], "papers": members,
                                   "parent_label": labels.get(parent) if parent is not None else None}
    waiting = this[this["topic"] == -1]
    if len(waiting):
        forming_ids = {p for g in report.forming for p in g["papers"][Papers.paper_id]}
        near_forming = int(waiting[Papers.paper_id].isin(forming_ids).sum())
        report.waiting = {"in a group still forming": near_forming,
                          "no theme explains them, or they came with new papers like them": len(waiting) - near_forming}
    return report


def _figure_adder(report: WeeklyReport, start_drawing: Callable[[str, Figure], object] | None) -> Callable:
    def figure(name: str, fig: Figure, caption: str) -> None:
        report.figures[name] = (fig, caption)
        if start_drawing is not None:
            start_drawing(name, fig)
    return figure


def _charts(report: WeeklyReport, shown_counts: pd.DataFrame, figure: Callable) -> pd.DataFrame:
    """The charts that do not wait for the movement tests: papers by category, the share by week of
    the largest units (returned, for the movers' chart), units by category."""
    this, level, counting = report.papers, report.level, ("primary category only" if report.primary_only
                                                         else "every category a paper is listed in")
    note = f"Counts use {counting}; the trailing mean covers {report.trailing_text}."
    unlisted = uncategorised(this, primary_only=report.primary_only)
    if unlisted:  # digest pages carry no arXiv category: say so rather than show a week emptier than it is
        note += f" {unlisted} of this week's {len(this)} papers list no arXiv category and are not counted here."
    if report.categorised:  # else (digest pages only) nothing to draw: the numbers section says so in a line
        figure("categories", plots.category_volume(
            report.categories["this week"], report.categories["trailing mean"],
            title=f"Papers by arXiv category, {report.week}", note=note),
            f"Papers per arXiv category in {report.week} against the weekly mean of {report.trailing_text}.")
    totals = shown_counts.sum(axis=1)
    shares = shown_counts.div(totals.where(totals > 0), axis=0)  # a week without papers has no shares (a gap)
    shares.index = [week_label(m) for m in shares.index]
    named = len([t for t in shown_counts.columns if t != -1])
    figure("share_by_week", plots.share_by_week(
        shares, report.labels, title=f"{level.capitalize()} share by week, {shares.index[0]} to {report.week}",
        noun=f"{level}s"),
        f"Share of each week's papers held by the {min(plots.TOP_SHARE, named)} largest of the {named} {level}s, "
        f"stacked; the other {level}s and unassigned papers make up the rest of each week.")
    matrix = theme_by_category(this, primary_only=report.primary_only)
    if not matrix.empty:
        figure("heatmap", plots.heatmap(
            matrix, report.labels, title=f"{level.capitalize()}s by arXiv category, {report.week}",
            note=f"Counts use {counting}."),
            f"Papers of each {level} in each arXiv category this week (counts use {counting}).")
    return shares


SINCE_WEEKS = 13  # how far back "still rising since" looks


def _move(report: WeeklyReport, corpus: Corpus, counts: pd.DataFrame, areas: dict[int, tuple[int, str]],
          watched: Matches | None, tested: list[pd.Timestamp]) -> None:
    """Every unit's movement at every horizon (themes or areas, the areas beside the themes, the watched
    themes, the categories' mix), the movers and since when they move, what went quiet, one author's
    series, the papers to read, and the statuses of the week's table."""
    papers = corpus.papers
    names: dict[tuple[str, object], str] = {(report.level, t): label for t, label in report.labels.items()}
    area_of = {t: a for t, (a, _) in areas.items()}
    if areas:
        names |= {("area", a): label for a, label in areas.values()}
    watch = list(watched.names) if watched is not None else []
    names |= {("watched", w): w for w in watch}
    report.names = names
    # the weeks the tests read: the longest horizon's, and as far again as "since" looks back
    start = papers[Papers.week_start].min() if not papers.empty else report.monday
    weeks = [m for m in week_range(report.monday, movement_history(report.cfg) + SINCE_WEEKS) if m >= start] + [report.monday]
    levels = report_levels(papers, weeks, report.level, area_of or None, watched if watch else None,
                           ids=sorted(report.labels))
    report.tests = moves = movement(levels, report.monday, report.cfg)
    found = movers(moves)
    report.since = since(levels, report.monday, found, report.cfg, most=SINCE_WEEKS)
    report.mix = found[found["level"] == "category"].reset_index(drop=True)
    report.movers = found[found["level"] != "category"].reset_index(drop=True)
    # went quiet: a significant drop to no paper at all over the horizon's recent weeks
    report.quiet = report.movers[(report.movers["direction"] == "down") & (report.movers["k"] == 0)]
    moved = {r.unit: ("rising" if r.direction == "up" else "falling", r.horizon)
             for r in report.movers.itertuples() if r.level == report.level}
    quiet = set(report.quiet.loc[report.quiet["level"] == report.level, "unit"])
    trend = report.trend
    statuses = [s if s == "new" else "quiet" if t in quiet else moved.get(t, ("steady", ""))[0]
                for t, s in zip(trend["topic"], trend["status"])]
    report.trend = trend.assign(status=statuses, horizon=[
        moved[t][1] if s in ("rising", "falling", "quiet") and t in moved else ""
        for t, s in zip(trend["topic"], statuses)])
    report.series = series_of(papers, report.monday, report.labels)

    def members(level: str, unit: object) -> tuple[np.ndarray, pd.Series]:
        if level == "watched":
            return watched.on[unit].to_numpy(), watched.evidence(unit)
        topic = papers["topic"] if level == report.level else papers["topic"].map(area_of)
        return (topic == unit).to_numpy(), papers["probability"]

    steps = {h.name: h.recent for h in horizons(report.cfg)}
    upto = (papers[Papers.week_start] <= report.monday).to_numpy()
    for row in report.movers.itertuples():
        weeks_back = steps.get(row.horizon, 4)
        recent = (papers[Papers.week_start] > report.monday - pd.Timedelta(weeks=weeks_back)).to_numpy() & upto
        inside, order = members(row.level, row.unit)
        if row.level == "area" and row.direction == "up":
            # an area's rise is carried by some of its themes: read theirs, not a sample of the whole area
            carriers = _carriers(moves, row, [t for t, a in area_of.items() if a == row.unit])
            if carriers:  # else no theme of it was tested at that horizon: the area's own papers
                report.carriers[(row.level, row.unit)] = [report.labels.get(t, str(t)) for t in carriers]
                inside = papers["topic"].isin(carriers).to_numpy()
        chosen = papers[inside & recent]
        report.reading[(row.level, row.unit)] = newest_first(chosen, order[chosen.index])
    for name in watch:
        inside, order = members("watched", name)
        now = papers[inside & (papers[Papers.week_start] == report.monday).to_numpy()]
        report.watched.append({
            "name": name, "sentence": dict(report.cfg.watch).get(name, ""), "count": len(now),
            "by_name": int(watched.by_name[name].loc[now.index].sum()) if watched.by_name is not None else 0,
            "total": int(inside[upto].sum()),
            "moves": moves[(moves["level"] == "watched") & (moves["unit"] == name)],
            "papers": now.assign(_order=order[now.index]).sort_values(["_order", Papers.paper_id],
                                                                      ascending=[False, True])})
    report_tests = moves[moves["family"] == "report"]
    if report.movers.empty and len(report_tests):
        report.would_take = _would_take(report, counts, len(report_tests))


def newest_first(papers: pd.DataFrame, order: pd.Series) -> pd.DataFrame:
    """``papers`` the newest week first, and within a week the most central (highest ``order``) first."""
    return papers.assign(_order=order.to_numpy()).sort_values(
        [Papers.week_start, "_order", Papers.paper_id], ascending=[False, False, True])


def _carriers(moves: pd.DataFrame, row, themes: list[int]) -> list[int]:  # noqa: ANN001 - a movers row
    """The themes of an area whose evidence above expected, at the area's horizon, makes at least
    half of what its themes added together (the largest first, at most 3)."""
    own = moves[(moves["level"] != "area") & (moves["family"] == "report") & (moves["horizon"] == row.horizon)
                & moves["unit"].isin(themes)]
    excess = (own["k"] - own["expected"]).to_numpy()
    order = np.argsort(-excess)
    total = excess[excess > 0].sum()
    out, got = [], 0.0
    for i in order[:3]:
        if excess[i] <= 0 or (out and got >= total / 2):
            break
        out.append(int(own["unit"].iloc[i]))
        got += excess[i]
    return out


def series_of(papers: pd.DataFrame, monday: pd.Timestamp, labels: dict[int, str], weeks: int = ENDED_WEEKS,
              ) -> list[dict]:
    """One author's series this month: an author with at least ``SERIES_PAPERS`` papers in one theme
    over the last ``weeks`` weeks, one of them this week. Each: author, theme, its label, the
    papers (newest first), the first and the last week; the most papers first, a co-author of the
    same series once."""
    if Papers.authors not in papers.columns:
        return []
    recent = papers[(papers[Papers.week_start] > monday - pd.Timedelta(weeks=weeks))
                    & (papers[Papers.week_start] <= monday) & (papers["topic"] >= 0)]
    recent = recent.assign(**{Papers.authors: [sorted(set(a)) if isinstance(a, (list, tuple, np.ndarray)) else None
                                               for a in recent[Papers.authors]]})
    pairs = recent[["topic", Papers.authors]].explode(Papers.authors).dropna(subset=[Papers.authors])
    if pairs.empty:
        return []
    sizes = pairs.groupby(["topic", Papers.authors]).size()
    sizes = sizes[sizes >= SERIES_PAPERS].sort_index().sort_values(ascending=False, kind="stable")
    out: list[dict] = []
    for (topic, author), _ in sizes.items():
        rows = recent[(recent["topic"] == topic) & recent[Papers.authors].map(
            lambda a, who=author: a is not None and who in set(a))]
        if not (rows[Papers.week_start] == monday).any():
            continue
        ids = set(rows[Papers.paper_id])
        if any(s["topic"] == topic and len(ids & s["ids"]) * 2 >= len(ids) for s in out):
            continue  # a co-author of a series already named
        rows = newest_first(rows, rows["probability"].fillna(0))
        out.append({"author": str(author), "topic": int(topic), "label": labels.get(int(topic), str(topic)),
                    "papers": rows, "ids": ids, "first": week_label(rows[Papers.week_start].min()),
                    "last": week_label(rows[Papers.week_start].max())})
    return out


def _would_take(report: WeeklyReport, counts: pd.DataFrame, tests: int) -> list[str]:
    """What a theme of the median share would have needed to count as rising at the shortest
    horizons (this week, over 4 weeks), when it were the only mover among the report's ``tests`` tests."""
    units = counts.drop(columns=[-1], errors="ignore")
    volume = units.sum(axis=1)  # the themes' shares are of the papers placed in a theme
    out = []
    for h in sorted(horizons(report.cfg), key=lambda h: h.recent)[:WOULD_TAKE_HORIZONS]:
        recent, before = weeks_of(report.monday, h)
        n = int(volume.reindex(recent, fill_value=0).sum())
        n0 = int(volume.reindex(before, fill_value=0).sum())
        held = units.reindex(before, fill_value=0).sum()
        held = held[held > 0]
        if n == 0 or n0 == 0 or held.empty:
            continue
        share = float((held / n0).median())
        k = needed(n, n0, share, tests, report.cfg.alpha, report.cfg.min_change)
        papers = f"with {n:,} papers in themes {h.phrase}, a {report.level} of {100 * share:.1f} % (the median {report.level})"
        out.append(f"{papers} could not count as rising even with all of them" if k is None else
                   f"{papers} would need {k} papers by different authors ({share * n:.1f} expected) to count as rising")
    return out


def group_rows(trend: pd.DataFrame, areas: dict[int, tuple[int, str]]) -> list[tuple[str | None, int, pd.DataFrame]]:
    """The week's themes (those with papers) ranked by share, grouped under their areas (largest area
    this week first); without ``areas`` one group. Each row keeps its overall ``rank``."""
    rows = trend[trend["count"] > 0].assign(rank=lambda t: range(1, len(t) + 1))
    if not areas or rows.empty:
        return [(None, int(rows["count"].sum()), rows)] if not rows.empty else []
    rows = rows.assign(area=[areas.get(int(t), (-1, "No area"))[1] for t in rows["topic"]])
    totals = rows.groupby("area", sort=False)["count"].sum().sort_values(ascending=False, kind="stable")
    return [(area, int(total), rows[rows["area"] == area]) for area, total in totals.items()]
