"""The words of the weekly report: its opening paragraph (``opening``: what moved, at which horizon,
or what it would have taken; what is new, forming or watched) and the Markdown digest
(``to_markdown``) written beside the page as ``report.md``, to paste into an e-mail or a chat."""

from __future__ import annotations

import pandas as pd

from pipeline.dates import week_label
from pipeline.report.statistics.movement import horizons
from pipeline.report.week.weekly import LEVEL_NOUN, MOST_MOVERS, PHRASES, READ, WeeklyReport


def names(labels: list[str], most: int = 3) -> str:
    """``A``, ``A and B``, ``A, B and C``, ``A, B, C and 2 more``."""
    shown = labels[:most] + ([f"{len(labels) - most} more"] if len(labels) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


OPENING_UNITS = 6  # the most themes, areas and watched themes the opening names; the rest are counted


class Budget:
    """How many more units the opening may name."""

    def __init__(self, left: int = OPENING_UNITS) -> None:
        self.left = left
        self.named: list[str] = []  # what it let through, in order

    def names(self, labels: list[str], noun: str = "more") -> str:
        """``A, B and 2 more`` within what is left; ``3 more (below)`` when nothing is."""
        shown = min(self.left, len(labels))
        self.left -= shown
        self.named += labels[:shown]
        rest = len(labels) - shown
        if not shown:
            return f"{rest} {noun} (below)"
        return names(labels[:shown] + ([f"{rest} {noun}"] if rest else []), shown + 1)


def opening(r: WeeklyReport, budget: Budget | None = None) -> list[str]:
    """The opening paragraph, as sentences: the week's volume against the usual week and how the
    categories' mix moved (one clause); what started moving this week, at which horizon and by how
    much, or what it would have taken; what is still moving since an earlier week; what went quiet;
    one author's series; what is new or forming; the watched themes, counted. It names at most
    ``OPENING_UNITS`` themes, areas and watched themes (text from the data is escaped where it is
    rendered); ``budget``: pass one in to see what it named."""
    budget = budget if budget is not None else Budget()
    n = len(r.papers)
    usual = r.trailing_papers / r.trailing_weeks if r.trailing_weeks else 0
    papers = f"{n:,} paper{'s' if n != 1 else ''}"
    volume = (f"{papers}, {n / usual:.1f} × the usual week (the weekly mean of {r.trailing_text})"
              if usual else f"{papers}; no earlier week holds papers to compare with")
    if len(r.mix_started):
        volume += "; the mix of primary categories moved: " + names(
            [r.mix_text(row) for row in r.mix_started.itertuples()], 3)
    out = [volume + "."]
    started, continuing = r.started, r.continuing
    if len(started):
        parts = []
        for h in horizons(r.cfg):
            rows = started[started["horizon"] == h.name]
            if len(rows):
                parts.append(f"{h.phrase}: " + budget.names([r.move_text(row) for row in rows.itertuples()]))
        out.append("Started moving " + "; ".join(parts) + ".")
    new = [r.labels[t] for t in r.by_status("new")["topic"]]
    if new:
        out.append(f"New: {budget.names(new)}.")
    if len(continuing):
        parts = []
        for direction, word in (("up", "rising"), ("down", "falling")):
            rows = continuing[continuing["direction"] == direction]
            if len(rows):
                labels = [f"{r.name(row.level, row.unit)}{LEVEL_NOUN.get(row.level, '')} (since {week_label(row.since)})"
                          for row in rows.itertuples()]
                parts.append(f"still {word}: " + budget.names(labels))
        sentence = "; ".join(parts)
        out.append(sentence[0].upper() + sentence[1:] + ".")
    if not len(r.active_movers):
        if r.would_take:
            out.append(f"No {r.tested_text} moved beyond what chance explains at any horizon: "
                       + "; ".join(r.would_take) + ".")
        elif len(r.quiet):
            pass  # what went quiet is the only move, said next
        elif len(r.tests):
            out.append(f"No {r.level} moved beyond what chance explains at any horizon.")
        else:
            out.append("Too few earlier weeks hold papers to tell whether anything moved.")
    if len(r.quiet):
        out.append("Went quiet: " + budget.names([r.move_text(row) for row in r.quiet.itertuples()]) + ".")
    if r.series:
        s = r.series[0]
        more = f" ({len(r.series) - 1} more below)" if len(r.series) > 1 else ""
        on = f" on {budget.names([s['label']])}" if budget.left else ""  # else its line below names it
        out.append(f"One author's series: {s['author']}, {len(s['papers'])} papers{on}, {_weeks(s)}{more}.")
    if r.forming:
        out.append(f"Forming, not yet {r.level}s: {len(r.forming)} group{'s' if len(r.forming) != 1 else ''} (below).")
    elif not new:
        out.append(f"No {r.level} is new this week.")
    if r.watched:
        on = [w for w in r.watched if w["count"]]
        total = sum(w["count"] for w in r.watched)
        out.append(f"Watched: {total} paper{'s' if total != 1 else ''} on {len(on)} of your {len(r.watched)} "
                   f"themes this week.")
    return out


def _weeks(s: dict) -> str:
    return s["first"] if s["first"] == s["last"] else f"{s['first']} to {s['last']}"


def to_markdown(r: WeeklyReport) -> str:
    """The report as a digest to paste into an e-mail or a chat: the opening paragraph, what moved
    with what to read, what is new, the watched themes, the week's themes in a table."""
    from pipeline.report.render import md_escape as esc
    from pipeline.report.render import md_paper_links

    lines = [f"# Research trends, {r.week}" + (": areas" if r.level == "area" else ""), "",
             f"{r.monday:%a %d %b %Y} – {r.sunday:%a %d %b %Y} (ISO week, UTC)", ""]
    if r.empty:
        return "\n".join(lines + [f"**No papers were published in {r.week}.**", ""]) + "\n"
    lines += [esc(" ".join(opening(r))), ""]
    mean = r.trailing_papers / r.trailing_weeks if r.trailing_weeks else 0.0
    lines += ["## The week in numbers", "", f"- {len(r.papers)} new papers (weekly mean of {r.trailing_text}: {mean:.0f})",
              f"- {len(r.movers)} moved at some horizon, {len(r.by_status('new'))} new"]
    waiting = sum(r.waiting.values())
    if waiting:
        reasons = [(reason, n) for reason, n in r.waiting.items() if n]
        why = reasons[0][0] if len(reasons) == 1 else "; ".join(f"{n} {reason}" for reason, n in reasons)
        lines.append(f"- {waiting} in no theme yet ({why}; they wait a few weeks for a new theme to form, "
                     "then join their nearest)")
    if r.categorised:
        lines += ["", "| category | this week | weekly mean before |", "|---|---:|---:|"]
        lines += [f"| {esc(c)} | {int(row['this week'])} | {row['trailing mean']:.1f} |"
                  for c, row in r.categories.head(12).iterrows()]
    counting = "primary category only" if r.primary_only else "every category a paper is listed in"
    lines += ["", f"_Counts use {counting}._" if r.categorised
              else "_None of this week's papers lists an arXiv category._", ""]
    if len(r.active_movers):
        lines += ["## What moved", ""]
        for row in r.active_movers.head(MOST_MOVERS).itertuples():
            first = r.since.get((row.level, row.unit), r.monday)
            run = "" if first >= r.monday else f", moving since {week_label(first)}"
            lines.append(f"- **{esc(r.move_text(row))}** {PHRASES[row.horizon]}: {r.evidence_text(row)} "
                         f"(q = {row.q_value:.2g}{run})")
            if carriers := r.carriers.get((row.level, row.unit)):
                lines.append(f"  - carried by its themes {esc(names(carriers, 3))}; their recent papers:")
            lines += md_paper_links(r.reading.get((row.level, row.unit), pd.DataFrame()), READ)
        rest = r.active_movers.iloc[MOST_MOVERS:]
        if len(rest):
            lines.append(f"- {len(rest)} more, weaker: " + "; ".join(
                f"{esc(r.move_text(row))} {PHRASES[row.horizon]}" for row in rest.itertuples()))
        lines.append("")
    if r.series:
        lines += ["## One author's series", "", "_A run of papers by one author is one piece of news, not a trend: "
                  "it is never named among the movers._", ""]
        for s in r.series:
            lines.append(f"- **{esc(s['author'])}**: {len(s['papers'])} papers on {esc(s['label'])}, {_weeks(s)}")
            lines += md_paper_links(s["papers"], READ)
        lines.append("")
    if len(r.quiet):
        lines += ["## Went quiet", ""]
        for row in r.quiet.itertuples():
            lines += [f"- {esc(r.move_text(row))} (q = {row.q_value:.2g})"]
            lines += md_paper_links(r.reading.get((row.level, row.unit), pd.DataFrame()), READ)
        lines.append("")
    if r.born or r.forming:
        lines += ["## New this week", ""]
        for t, b in r.born.items():
            grew = f"; it grew out of {esc(b['parent_label'])}" if b["parent_label"] else ""
            lines += [f"- **New: {esc(r.labels[t])}**, born this week among papers no earlier theme explained{grew}; "
                      f"{len(b['papers'])} papers. {esc(r.descriptions.get(t, ''))}"] + md_paper_links(b["papers"], READ)
        for g in r.forming:
            near = f", nearest theme {esc(g['near'])}" if g["near"] else ""
            lines += [f"- _Forming, not yet a theme:_ {esc(g['label'])} ({len(g['papers'])} papers{near})"]
            lines += md_paper_links(g["papers"], READ)
        lines.append("")
    if r.watched:
        lines += ["## Watched", ""]
        for w in r.watched:
            moved = [f"{PHRASES[m.horizon]} {m.estimate:.1f}×" + (" (moved)" if m.mover else "")
                     for m in w["moves"].itertuples()]
            count = (f"{w['count']} paper{'s' if w['count'] != 1 else ''} this week ({w.get('by_name', 0)} writing its name)"
                     if w["count"] else "no paper on it this week")
            lines += [f"- **{esc(w['name'])}**: {count}"
                      + (f"; {', '.join(moved)}" if moved else "")] + md_paper_links(w["papers"], READ)
        lines.append("")
    lines += [f"## {r.level.capitalize()}s this week", "", f"| # | {r.level} | papers | share | weekly mean before | status |",
              "|---:|---|---:|---:|---:|---|"]
    for area, total, rows in r.groups:
        if area:
            lines.append(f"| | **{esc(area)}** ({total}) | | | | |")
        for row in rows.itertuples():
            lines.append(f"| {row.rank} | {esc(r.labels[row.topic])} | {row.count} | {100 * row.share:.1f} % | "
                         f"{row.trailing_mean:.1f} | {r.status_text(row)} |")
    lines += ["", f"_{esc(r.method_text)}_", ""]
    return "\n".join(lines) + "\n"
