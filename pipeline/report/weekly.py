"""The weekly trend report: what was published in one ISO week and how the themes moved.

``build_week`` is pure (tables in, content and figures out); ``write`` saves ``index.html``,
``report.md`` and ``figures/*.png|svg`` under ``reports/weekly/<YYYY-Www>/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from pipeline.report import plots
from pipeline.dates import week_label
from pipeline.report.data import (
    Corpus,
    areas_of,
    at_level,
    births,
    VOICE_PAPERS,
    VOICE_SHARE,
    monday_of,
    category_counts,
    one_voice,
    uncategorised,
    theme_by_category,
    weekly_topic_counts,
)
from pipeline.report.movement import horizons, movement, movers, needed, weeks_of
from pipeline.report.trends import TrendConfig, trailing_weeks, trends, week_range
from pipeline.report.watched import Matches
from pipeline.schemas import Papers, TopicInfo

# the paper columns the weekly report reads (load_corpus(cfg, COLUMNS)): no abstracts
COLUMNS = [Papers.paper_id, Papers.title, Papers.url, Papers.categories, Papers.primary_category, Papers.published,
           Papers.week, Papers.week_start, Papers.authors]  # authors: whether a rise is one voice
STATUS_TEXT = {"rising": "rising", "falling": "falling", "new": "new this week", "quiet": "went quiet", "steady": ""}
HISTORY = 26  # weeks before this one that the longest horizon reads (13 against 13)
PHRASES = {h.name: h.phrase for h in horizons()}
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
    cfg: TrendConfig
    primary_only: bool
    trailing_papers: int
    trailing_weeks: int  # of the cfg.window weeks before, those that hold papers
    level: str = "theme"  # "theme", or "area": areas take the place of themes
    descriptions: dict[int, str] = field(default_factory=dict)
    groups: list[tuple[str | None, int, pd.DataFrame]] = field(default_factory=list)  # area, papers, rows
    born: dict[int, dict] = field(default_factory=dict)  # themes born in a weekly update: how, and their papers
    forming: list[dict] = field(default_factory=list)  # pool groups of this week, not yet themes: label, near, papers
    figures: dict[str, tuple[Figure, str]] = field(default_factory=dict)
    moves: pd.DataFrame = field(default_factory=pd.DataFrame)  # every test of the report (movement.movement)
    movers: pd.DataFrame = field(default_factory=pd.DataFrame)  # each unit that moved once, strongest first
    quiet: pd.DataFrame = field(default_factory=pd.DataFrame)  # themes whose silence or drop is significant
    names: dict[tuple[str, object], str] = field(default_factory=dict)  # (level, unit) -> name
    reading: dict[tuple[str, object], pd.DataFrame] = field(default_factory=dict)  # (level, unit) -> papers to read
    watched: list[dict] = field(default_factory=list)  # name, sentence, this week, moves, papers
    would_take: list[str] = field(default_factory=list)  # what a theme would have needed, when nothing moved
    waiting: dict[str, int] = field(default_factory=dict)  # this week's unassigned papers by reason

    @property
    def moved(self) -> pd.DataFrame:
        """The movers that did not go quiet (those are said apart)."""
        if self.movers.empty:
            return self.movers
        quiet = set(zip(self.quiet["level"], self.quiet["unit"]))
        return self.movers[[(lv, u) not in quiet for lv, u in zip(self.movers["level"], self.movers["unit"])]]

    @property
    def voices(self) -> dict[tuple[str, object], tuple[str, int, int]]:
        """The rises that are one voice: (level, unit) -> (author, their papers, the papers of the
        period to read), where one author is on at least ``VOICE_SHARE`` of a rising unit's papers of
        its horizon, and on ``VOICE_PAPERS`` or more: a batch of one group's papers, not
        necessarily the field moving."""
        out = {}
        for row in self.moved.itertuples():
            rows = self.reading.get((row.level, row.unit))
            if row.direction == "up" and rows is not None:
                if (found := one_voice(rows, VOICE_SHARE, VOICE_PAPERS)) is not None:
                    out[(row.level, row.unit)] = found
        return out

    @property
    def tested_text(self) -> str:
        """What the report tests, in words: ``theme, area or watched theme``."""
        kinds = [self.level] + [lv if lv == "area" else "watched theme" for lv in ("area", "watched")
                                if lv != self.level and (self.moves["level"] == lv).any()]
        return kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " or " + kinds[-1]

    def name(self, level: str, unit: object) -> str:
        return self.names.get((level, unit), str(unit))

    def move_text(self, row) -> str:  # noqa: ANN001 - a row of moves or movers
        """``MoE serving (watched) 2.1× (1.4–3.2)``, or ``Blockchain (area): no paper over 4 weeks``."""
        name = self.name(row.level, row.unit) + LEVEL_NOUN.get(row.level, "")
        if row.k == 0 and row.direction == "down":
            return f"{name}: no paper {PHRASES[row.horizon]} ({row.expected:.1f} expected)"
        return f"{name} {row.estimate:.1f}× ({row.low:.1f}–{row.high:.1f})"

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


def build_week(corpus: Corpus, monday: pd.Timestamp, cfg: TrendConfig = TrendConfig(), *, primary_only: bool = False,
          history: int = 12, level: str = "theme", watched: Matches | None = None) -> WeeklyReport:
    """The report of the week starting ``monday``. At ``level="area"`` every count, test and chart
    is by area; at ``"theme"`` the table of the week's themes is grouped under their areas, and the
    areas are tested beside the themes. ``watched``: ``watched.match`` of ``corpus.papers`` (rows in
    the same order), when the configuration names watched themes."""
    areas = areas_of(corpus)
    born = births(corpus) if level == "theme" else {}
    corpus = at_level(corpus, level)
    labels = corpus.labels
    window = week_range(monday, cfg.window)
    papers = corpus.papers
    start = papers[Papers.week_start].min() if not papers.empty else monday
    # weeks before the listings begin are left out, not counted as weeks without papers
    tested = [m for m in week_range(monday, max(HISTORY, cfg.window)) if m >= start] + [monday]
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
    _move(report, corpus, counts, areas if level == "theme" else {}, watched, tested)
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
    counting = "primary category only" if primary_only else "every category a paper is listed in"
    note = f"Counts use {counting}; the trailing mean covers {report.trailing_text}."
    unlisted = uncategorised(this, primary_only=primary_only)
    if unlisted:  # digest pages carry no arXiv category: say so rather than show a week emptier than it is
        note += f" {unlisted} of this week's {len(this)} papers list no arXiv category and are not counted here."
    if report.categorised:  # else (digest pages only) nothing to draw: the numbers section says so in a line
        report.figures["categories"] = (plots.category_volume(
            cats["this week"], cats["trailing mean"], title=f"Papers by arXiv category, {report.week}", note=note),
            f"Papers per arXiv category in {report.week} against the weekly mean of {report.trailing_text}.")
    shown_counts = counts.reindex(shown)
    totals = shown_counts.sum(axis=1)
    shares = shown_counts.div(totals.where(totals > 0), axis=0)  # a week without papers has no shares (a gap)
    shares.index = [week_label(m) for m in shares.index]
    named = len([t for t in shown_counts.columns if t != -1])
    report.figures["share_by_week"] = (plots.share_by_week(
        shares, labels, title=f"{level.capitalize()} share by week, {shares.index[0]} to {report.week}", noun=f"{level}s"),
        f"Share of each week's papers held by the {min(plots.TOP_SHARE, named)} largest of the {named} {level}s, "
        f"stacked; the other {level}s and unassigned papers make up the rest of each week.")
    moving = [u for lv, u in zip(report.movers.get("level", []), report.movers.get("unit", [])) if lv == level]
    if moving:  # no movers, no figure: the opening says what it would have taken
        report.figures["movers"] = (plots.theme_series(
            shares, moving[:9], labels, title=f"{level.capitalize()}s that moved: weekly share"),
            f"Weekly share of each {level} that moved at some horizon; the dot is this week.")
    matrix = theme_by_category(this, primary_only=primary_only)
    if not matrix.empty:
        report.figures["heatmap"] = (plots.heatmap(
            matrix, labels, title=f"{level.capitalize()}s by arXiv category, {report.week}", note=f"Counts use {counting}."),
            f"Papers of each {level} in each arXiv category this week (counts use {counting}).")
    return report


def _move(report: WeeklyReport, corpus: Corpus, counts: pd.DataFrame, areas: dict[int, tuple[int, str]],
          watched: Matches | None, tested: list[pd.Timestamp]) -> None:
    """Every unit's movement at every horizon (themes or areas, the areas beside the themes, the watched
    themes), the movers, what went quiet, the papers to read, and the statuses of the week's table."""
    from pipeline.report.watched import weekly_counts

    papers = corpus.papers
    units = counts.drop(columns=[-1], errors="ignore")
    # a theme's (an area's) share is of the papers placed in a theme: the latest weeks' papers still
    # waiting in the pool would otherwise lower every theme's recent share; a watched theme's share is
    # of every paper, since it matches papers whether or not they were placed
    volumes = {report.level: units.sum(axis=1), "area": units.sum(axis=1), "watched": counts.sum(axis=1)}
    levels = {report.level: units}
    names: dict[tuple[str, object], str] = {(report.level, t): label for t, label in report.labels.items()}
    area_of = {t: a for t, (a, _) in areas.items()}
    if areas:
        levels["area"] = units.T.groupby([area_of.get(int(t), -1) for t in units.columns]).sum().T
        names |= {("area", a): label for a, label in areas.values()}
    watch = list(watched.names) if watched is not None else []
    if watch:
        levels["watched"] = weekly_counts(watched.on, papers[Papers.week_start], watch, tested)
        names |= {("watched", w): w for w in watch}
    report.names = names
    report.moves = moves = movement(levels, {lv: volumes[lv] for lv in levels}, report.monday, report.cfg)
    report.movers = movers(moves)
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

    def members(level: str, unit: object) -> tuple[pd.Series, pd.Series]:
        if level == "watched":
            return watched.on[unit].to_numpy(), watched.z[unit]
        topic = papers["topic"] if level == report.level else papers["topic"].map(area_of)
        return (topic == unit).to_numpy(), papers["probability"]

    steps = {h.name: h.recent for h in horizons(report.cfg)}
    for row in report.movers.itertuples():
        inside, order = members(row.level, row.unit)
        weeks = steps.get(row.horizon, 4)
        recent = papers[Papers.week_start] > report.monday - pd.Timedelta(weeks=weeks)
        chosen = papers[inside & recent.to_numpy() & (papers[Papers.week_start] <= report.monday).to_numpy()]
        report.reading[(row.level, row.unit)] = chosen.assign(_order=order[chosen.index]).sort_values(
            ["_order", Papers.paper_id], ascending=[False, True])
    for name in watch:
        inside, order = members("watched", name)
        now = papers[inside & (papers[Papers.week_start] == report.monday).to_numpy()]
        report.watched.append({
            "name": name, "sentence": dict(report.cfg.watch).get(name, ""), "count": len(now),
            "total": int(inside[(papers[Papers.week_start] <= report.monday).to_numpy()].sum()),
            "moves": moves[(moves["level"] == "watched") & (moves["unit"] == name)],
            "papers": now.assign(_order=order[now.index]).sort_values(["_order", Papers.paper_id],
                                                                      ascending=[False, True])})
    if report.movers.empty and len(moves):
        report.would_take = _would_take(report, counts, len(moves))


def _would_take(report: WeeklyReport, counts: pd.DataFrame, tests: int) -> list[str]:
    """What a theme of the median share would have needed to count as rising, this week and over 4
    weeks, when it were the only mover among the report's ``tests`` tests."""
    units = counts.drop(columns=[-1], errors="ignore")
    volume = units.sum(axis=1)  # the themes' shares are of the papers placed in a theme
    out = []
    for h in horizons(report.cfg)[:2]:
        recent, before = weeks_of(report.monday, h)
        n = int(volume.reindex(recent, fill_value=0).sum())
        n0 = int(volume.reindex(before, fill_value=0).sum())
        held = units.reindex(before, fill_value=0).sum()
        held = held[held > 0]
        if n == 0 or n0 == 0 or held.empty:
            continue
        share = float((held / n0).median())
        k = needed(n, n0, share, tests, report.cfg.alpha)
        if k is None:
            continue
        papers = f"with {n:,} papers in themes {'this week' if h.recent == 1 else 'in the last 4 weeks'}"
        out.append(f"{papers}, a {report.level} of {100 * share:.1f} % (the median {report.level}) would need "
                   f"{k} papers ({share * n:.1f} expected) to count as rising")
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
