"""The words of the weekly report: its opening paragraph (``opening``: what moved, at which horizon,
or what it would have taken; what is new, forming or watched) and the Markdown digest
(``to_markdown``) written beside the page as ``report.md``, to paste into an e-mail or a chat."""

from __future__ import annotations

import pandas as pd

from pipeline.report.movement import horizons
from pipeline.report.weekly import LEVEL_NOUN, MOST_MOVERS, PHRASES, READ, WeeklyReport


def names(labels: list[str], most: int = 3) -> str:
    """``A``, ``A and B``, ``A, B and C``, ``A, B, C and 2 more``."""
    shown = labels[:most] + ([f"{len(labels) - most} more"] if len(labels) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def opening(r: WeeklyReport) -> list[str]:
    """The opening paragraph, as sentences: the week's volume against the usual week; what moved, at
    which horizon and by how much, or what it would have taken; what went quiet; what is new or
    forming; the watched themes (text from the data is escaped where it is rendered)."""
    n = len(r.papers)
    usual = r.trailing_papers / r.trailing_weeks if r.trailing_weeks else 0
    papers = f"{n:,} paper{'s' if n != 1 else ''}"
    out = [f"{papers}, {n / usual:.1f} × the usual week (the weekly mean of {r.trailing_text})."
           if usual else f"{papers}; no earlier week holds papers to compare with."]
    if len(r.moved):
        parts = []
        for h in horizons(r.cfg):
            rows = r.moved[r.moved["horizon"] == h.name]
            if len(rows):
                parts.append(f"{h.phrase}: " + names([r.move_text(row) for row in rows.itertuples()], 4))
        out.append("Moved " + "; ".join(parts) + ".")
        voices = r.voices
        if voices:
            out.append("Mostly one author's papers: " + names(
                [f"{r.name(*key)}{LEVEL_NOUN.get(key[0], '')} ({author} on {n} of its {m} papers)"
                 for key, (author, n, m) in voices.items()], 4) + ".")
    elif r.would_take:
        out.append(f"No {r.tested_text} moved beyond what chance explains at any horizon: "
                   + "; ".join(r.would_take) + ".")
    elif len(r.quiet):
        pass  # what went quiet is the only move, said next
    elif len(r.moves):
        out.append(f"No {r.level} moved beyond what chance explains at any horizon.")
    else:
        out.append("Too few earlier weeks hold papers to tell whether anything moved.")
    if len(r.quiet):
        out.append("Went quiet: " + names([r.move_text(row) for row in r.quiet.itertuples()]) + ".")
    new = [r.labels[t] for t in r.by_status("new")["topic"]]
    forming = f" Forming, not yet {r.level}s: {names([g['label'] for g in r.forming])}." if r.forming else ""
    out.append((f"New: {names(new)}." if new else f"No {r.level} is new this week.") + forming)
    if r.watched:
        out.append("Watched: " + names([f"{w['name']} {w['count']} paper{'s' if w['count'] != 1 else ''}"
                                          for w in r.watched], len(r.watched)) + " this week.")
    return out


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
    if len(r.moved):
        lines += ["## What moved", ""]
        voices = r.voices
        for row in r.moved.head(MOST_MOVERS).itertuples():
            lines.append(f"- **{esc(r.move_text(row))}** {PHRASES[row.horizon]}: {row.k} papers, "
                         f"{row.expected:.1f} expected (q = {row.q_value:.2g})")
            if (voice := voices.get((row.level, row.unit))) is not None:
                lines.append(f"  - mostly one author's papers: {esc(voice[0])} is an author of {voice[1]} of its "
                             f"{voice[2]} papers of the period")
            lines += md_paper_links(r.reading.get((row.level, row.unit), pd.DataFrame()), READ)
        rest = r.moved.iloc[MOST_MOVERS:]
        if len(rest):
            lines.append(f"- {len(rest)} more, weaker: " + "; ".join(
                f"{esc(r.move_text(row))} {PHRASES[row.horizon]}" for row in rest.itertuples()))
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
            lines += [f"- **{esc(w['name'])}**: {w['count']} paper{'s' if w['count'] != 1 else ''} this week"
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
    lines += ["", f"_Moved: exact conditional binomial tests at three horizons (this week against the {r.cfg.window} "
              f"before, 4 weeks against 12, 13 against 13), Benjamini–Hochberg FDR {100 * r.cfg.alpha:.0f} % over all "
              f"{len(r.moves)} tests; ratios shrunk towards 1, 90 % intervals._", ""]
    return "\n".join(lines) + "\n"
