"""The weekly trend report: what was published in one ISO week and how the themes moved.

``build_week`` is pure (tables in, content and figures out); ``write`` saves ``index.html``,
``report.md`` and ``figures/*.png|svg`` under ``reports/weekly/<YYYY-Www>/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from pipeline.report import plots
from pipeline.report.data import (
    Corpus,
    areas_of,
    at_level,
    births,
    monday_of,
    category_counts,
    uncategorised,
    theme_by_category,
    week_label,
    weekly_topic_counts,
)
from pipeline.report.trends import TrendConfig, trailing_weeks, trends, week_range
from pipeline.schemas import Papers, TopicInfo

# the paper columns the weekly report reads (load_corpus(cfg, COLUMNS)): no abstracts
COLUMNS = [Papers.paper_id, Papers.title, Papers.url, Papers.categories, Papers.primary_category, Papers.published,
           Papers.week, Papers.week_start]
STATUS_TEXT = {"rising": "rising", "falling": "falling", "new": "new this week", "quiet": "went quiet", "steady": ""}


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

    def by_status(self, status: str) -> pd.DataFrame:
        return self.trend[self.trend["status"] == status]


def build_week(corpus: Corpus, monday: pd.Timestamp, cfg: TrendConfig = TrendConfig(), *, primary_only: bool = False,
          history: int = 12, level: str = "theme") -> WeeklyReport:
    """The report of the week starting ``monday``. At ``level="area"`` every count, test and chart
    is by area; at ``"theme"`` the table of the week's themes is grouped under their areas."""
    areas = areas_of(corpus)
    born = births(corpus) if level == "theme" else {}
    corpus = at_level(corpus, level)
    labels = corpus.labels
    window = week_range(monday, cfg.window)
    papers = corpus.papers
    start = papers[Papers.week_start].min() if not papers.empty else monday
    # weeks before the listings begin are left out of the charts, not drawn as weeks without papers
    shown = [m for m in week_range(monday, max(history, cfg.window) - 1) if m >= start] + [monday]
    counts = weekly_topic_counts(corpus, shown)
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
    report.groups = group_rows(table, areas if level == "theme" else {})
    if level == "theme":
        by_id = papers.set_index(Papers.paper_id)
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
    counting = "primary category only" if primary_only else "every category a paper is listed in"
    note = f"Counts use {counting}; the trailing mean covers {report.trailing_text}."
    unlisted = uncategorised(this, primary_only=primary_only)
    if unlisted:  # digest pages carry no arXiv category: say so rather than show a week emptier than it is
        note += f" {unlisted} of this week's {len(this)} papers list no arXiv category and are not counted here."
    report.figures["categories"] = (plots.category_volume(
        cats["this week"], cats["trailing mean"], title=f"Papers by arXiv category, {report.week}", note=note),
        f"Papers per arXiv category in {report.week} against the weekly mean of {report.trailing_text}.")
    totals = counts.sum(axis=1)
    shares = counts.div(totals.where(totals > 0), axis=0)  # a week without papers has no shares (a gap)
    shares.index = [week_label(m) for m in shares.index]
    named = len([t for t in counts.columns if t != -1])
    report.figures["share_by_week"] = (plots.share_by_week(
        shares, labels, title=f"{level.capitalize()} share by week, {shares.index[0]} to {report.week}", noun=f"{level}s"),
        f"Share of each week's papers held by the {min(plots.TOP_SHARE, named)} largest of the {named} {level}s, "
        f"stacked; the other {level}s and unassigned papers make up the rest of each week.")
    movers = report.trend[report.trend["status"].isin(["rising", "falling"])]["topic"].tolist()
    report.figures["movers"] = (plots.theme_series(
        shares, movers[:9], labels, title=f"Rising and falling {level}s: weekly share"),
        f"Weekly share of each {level} found rising or falling this week; the dot is this week.")
    matrix = theme_by_category(this, primary_only=primary_only)
    report.figures["heatmap"] = (plots.heatmap(
        matrix, labels, title=f"{level.capitalize()}s by arXiv category, {report.week}", note=f"Counts use {counting}."),
        f"Papers of each {level} in each arXiv category this week (counts use {counting}).")
    return report


def _names(labels: list[str], most: int = 3) -> str:
    """``A``, ``A and B``, ``A, B and C``, ``A, B, C and 2 more``."""
    shown = labels[:most] + ([f"{len(labels) - most} more"] if len(labels) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def opening(r: WeeklyReport) -> list[str]:
    """Three plain sentences before the numbers: the week's volume against the usual week, what rose
    and fell, and what is new (text from the data is escaped where it is rendered)."""
    n = len(r.papers)
    usual = r.trailing_papers / r.trailing_weeks if r.trailing_weeks else 0
    papers = f"{n:,} paper{'s' if n != 1 else ''}"
    volume = (f"{papers}, {n / usual:.1f} × the usual week (the weekly mean of {r.trailing_text})."
              if usual else f"{papers}; no earlier week holds papers to compare with.")
    moved = []
    for status, word in (("rising", "Rising"), ("falling", "Falling")):
        names = [r.labels[t] for t in r.by_status(status)["topic"]]
        if names:
            moved.append(f"{word}: {_names(names)}.")
    movement = " ".join(moved) or f"No {r.level} rose or fell beyond what chance explains."
    new = [r.labels[t] for t in r.by_status("new")["topic"]]
    forming = f" Forming, not yet {r.level}s: {_names([g['label'] for g in r.forming])}." if r.forming else ""
    novelty = (f"New: {_names(new)}." if new else f"No {r.level} is new this week.") + forming
    return [volume, movement, novelty]


def group_rows(trend: pd.DataFrame, areas: dict[int, tuple[int, str]]) -> list[tuple[str | None, int, pd.DataFrame]]:
    """The week's themes (those with papers) ranked by share, grouped under their areas (largest area
    this week first); without ``areas`` one group. Each row keeps its overall ``rank``."""
    rows = trend[trend["count"] > 0].assign(rank=lambda t: range(1, len(t) + 1))
    if not areas or rows.empty:
        return [(None, int(rows["count"].sum()), rows)] if not rows.empty else []
    rows = rows.assign(area=[areas.get(int(t), (-1, "No area"))[1] for t in rows["topic"]])
    totals = rows.groupby("area", sort=False)["count"].sum().sort_values(ascending=False, kind="stable")
    return [(area, int(total), rows[rows["area"] == area]) for area, total in totals.items()]


def to_markdown(r: WeeklyReport) -> str:
    from pipeline.report.render import md_escape as esc

    lines = [f"# Research trends, {r.week}" + (": areas" if r.level == "area" else ""), "",
             f"{r.monday:%a %d %b %Y} – {r.sunday:%a %d %b %Y} (ISO week, UTC)", ""]
    if r.empty:
        lines += [f"**No papers were published in {r.week}.**", ""]
    else:
        lines += [esc(" ".join(opening(r))), ""]
    mean = r.trailing_papers / r.trailing_weeks if r.trailing_weeks else 0.0
    lines += ["## The week in numbers", "", f"- {len(r.papers)} new papers (weekly mean of {r.trailing_text}: {mean:.0f})"]
    for status, title in (("rising", "rising"), ("falling", "falling"), ("new", "new"), ("quiet", "went quiet")):
        names = ", ".join(esc(r.labels[t]) for t in r.by_status(status)["topic"])
        lines.append(f"- {len(r.by_status(status))} {title}{': ' + names if names else ''}")
    waiting = int((r.papers["topic"] == -1).sum()) if "topic" in r.papers else 0
    if waiting:
        lines.append(f"- {waiting} in no theme yet (no theme explains them; they wait for a new theme to form, "
                     "then join their nearest)")
    for g in r.forming:
        near = f", nearest theme {esc(g['near'])}" if g["near"] else ""
        lines += ["", f"_Forming, not yet a theme:_ {esc(g['label'])} ({len(g['papers'])} papers{near})"]
    for t, b in r.born.items():
        grew = f"; it grew out of {esc(b['parent_label'])}" if b["parent_label"] else ""
        lines += ["", f"**New: {esc(r.labels[t])}**, born this week among papers that no earlier theme explained"
                  f"{grew}; {len(b['papers'])} papers up to this week. {esc(r.descriptions.get(t, ''))}", ""]
        lines += [f"- {esc(getattr(p, Papers.title))} ({getattr(p, Papers.week)})" for p in b["papers"].head(20).itertuples()]
    lines += ["", "| category | this week | weekly mean before |", "|---|---:|---:|"]
    lines += [f"| {esc(c)} | {int(row['this week'])} | {row['trailing mean']:.1f} |" for c, row in r.categories.head(12).iterrows()]
    counting = "primary category only" if r.primary_only else "every category a paper is listed in"
    lines += ["", f"_Counts use {counting}._", ""]
    if not r.empty:
        lines += [f"## {r.level.capitalize()}s this week", "", f"| # | {r.level} | papers | share | weekly mean before | status |",
                  "|---:|---|---:|---:|---:|---|"]
        for area, total, rows in r.groups:
            if area:
                lines.append(f"| | **{esc(area)}** ({total}) | | | | |")
            for row in rows.itertuples():
                lines.append(f"| {row.rank} | {esc(r.labels[row.topic])} | {row.count} | {100 * row.share:.1f} % | "
                             f"{row.trailing_mean:.1f} | {STATUS_TEXT[row.status]} |")
        lines += ["", "_Rising/falling: exact conditional binomial test of this week's share against the trailing "
                  f"{r.cfg.window} weeks, Benjamini–Hochberg FDR {100 * r.cfg.alpha:.0f} %._", ""]
        for row in r.trend[r.trend["count"] > 0].head(10).itertuples():
            lines += [f"### {esc(r.labels[row.topic])}", ""]
            for p in r.papers[r.papers["topic"] == row.topic].sort_values(Papers.title).itertuples():
                title = esc(getattr(p, Papers.title))
                url = getattr(p, Papers.url)
                lines.append(f"- [{title}]({url})" if isinstance(url, str) else f"- {title}")
            lines.append("")
    lines += ["## Charts", ""] + [f"![{caption}](figures/{name}.png)" for name, (_, caption) in r.figures.items()]
    return "\n".join(lines) + "\n"
