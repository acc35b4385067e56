"""The weekly report of every week of a weekly flow, read as a reader would: what its opening names.

Builds ``paper-trends report weekly`` for each week that ``benchmarks/trends_stream.py`` kept (the
store as that Monday's report saw it) and checks, for every report:

- at most ``digest.OPENING_UNITS`` themes, areas and watched themes named in the opening;
- no mover measured against 0.0 expected (a unit with no past is new, not rising);
- no rising unit without a paper in its last 4 weeks;
- no mover whose papers of the period (the recent weeks of a rise, the earlier weeks of a fall) are
  half or more one author's.

Writes every opening and the checks to ``benchmarks/results/trends-openings-<corpus>.md``.

    python benchmarks/trends_openings.py --corpus csdc|daily [--work /tmp/pt-bench-trends]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def half_one_author(papers: pd.DataFrame) -> str | None:
    """The author on half or more of ``papers`` (at least two of them), if any."""
    counts = Counter(a for names in papers["authors"] if names is not None for a in set(names))
    if not counts:
        return None
    author, n = counts.most_common(1)[0]
    return author if n >= 2 and 2 * n >= len(papers) else None


def check(report, papers: pd.DataFrame, area_of: dict[int, int]) -> dict:  # noqa: ANN001 - weekly.WeeklyReport
    from pipeline.report.week.digest import OPENING_UNITS, Budget, opening
    from pipeline.report.statistics.movement import horizons

    budget = Budget()
    text = " ".join(opening(report, budget))
    steps = {h.name: (h.recent, h.before) for h in horizons(report.cfg)}
    monday = report.monday
    problems = []
    if len(budget.named) > OPENING_UNITS:
        problems.append(f"{len(budget.named)} units named")
    for row in report.movers.itertuples():
        name = report.name(row.level, row.unit)
        if row.expected <= 0:
            problems.append(f"{name}: against {row.expected:.1f} expected")
        recent, before = steps[row.horizon]
        members = _members(papers, row, area_of)
        last4 = members[(members["week_start"] > monday - pd.Timedelta(weeks=4)) & (members["week_start"] <= monday)]
        if row.direction == "up" and last4.empty:
            problems.append(f"{name}: rising with no paper in its last 4 weeks")
        start = monday - pd.Timedelta(weeks=recent - 1)
        if row.direction == "up":
            period = members[(members["week_start"] >= start) & (members["week_start"] <= monday)]
        else:
            period = members[(members["week_start"] < start) & (members["week_start"] >= start - pd.Timedelta(weeks=before))]
        if (author := half_one_author(period)) is not None:
            problems.append(f"{name}: {author} on half or more of its {len(period)} papers of the period")
    return {"week": report.week, "opening": text, "named": len(budget.named), "movers": len(report.movers),
            "problems": problems}


def _members(papers: pd.DataFrame, row, area_of: dict[int, int]) -> pd.DataFrame:  # noqa: ANN001
    if row.level == "theme":
        return papers[papers["topic"] == row.unit]
    if row.level == "area":
        return papers[papers["topic"].map(area_of) == row.unit]
    return papers.iloc[:0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=("csdc", "daily"), default="csdc")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    ap.add_argument("--min-change", type=float, default=None, help="[report] min_change (default: the config's)")
    args = ap.parse_args()
    from pipeline.config import ReportConfig
    from pipeline.report import data
    from pipeline.report.week.weekly import build_week
    from trends_stream import corpus_papers

    cfg = ReportConfig() if args.min_change is None else ReportConfig(min_change=args.min_change)
    papers = corpus_papers(args.corpus, args.work).reset_index(drop=True)
    folder = args.work / f"stream-{args.corpus}" / "weeks"
    rows, started = [], time.perf_counter()
    for week in sorted(p.name for p in folder.iterdir() if p.is_dir()):
        monday = data.monday_of(week)
        held = papers[papers["week_start"] <= monday + pd.Timedelta(days=6)]
        info = pd.read_parquet(folder / week / "topic_info.parquet")
        lineage = pd.read_parquet(folder / week / "topic_lineage.parquet") if (folder / week / "topic_lineage.parquet").exists() else None
        corpus = data.join(held, pd.read_parquet(folder / week / "doc_topics.parquet"), info, lineage)
        report = build_week(corpus, monday, cfg)
        rows.append(check(report, corpus.papers, dict(zip(info["topic"].astype(int), info["area"].astype(int)))))
        print(f"{week}: {rows[-1]['named']} named, {rows[-1]['movers']} movers, problems: {rows[-1]['problems']}",
              flush=True)
    seconds = time.perf_counter() - started
    lines = [f"# The weekly report's opening on every week of the {args.corpus} flow", "",
             f"`python benchmarks/trends_openings.py --corpus {args.corpus}"
             + (f" --min-change {args.min_change}" if args.min_change is not None else "")
             + f"`; {len(rows)} reports in {seconds:.0f} s; min_change {cfg.min_change}.", "",
             f"- reports with a problem: {sum(bool(r['problems']) for r in rows)} of {len(rows)}",
             f"- units named in an opening: at most {max(r['named'] for r in rows)}, median "
             f"{pd.Series([r['named'] for r in rows]).median():.0f}",
             f"- movers per report: mean {pd.Series([r['movers'] for r in rows]).mean():.2f}, "
             f"max {max(r['movers'] for r in rows)}", "", "| week | named | movers | problems | opening |",
             "|---|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['week']} | {r['named']} | {r['movers']} | {'; '.join(r['problems']) or '–'} | "
                     f"{r['opening'].replace('|', '/')} |")
    suffix = f"-min-change{args.min_change:g}" if args.min_change is not None else ""
    out = REPO / "benchmarks" / "results" / f"trends-openings-{args.corpus}{suffix}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:8]))


if __name__ == "__main__":
    main()
