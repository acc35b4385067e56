"""Backtest of the weekly report's movers: how soon a real growth is flagged, how often chance is.

Reads the weekly flow of ``benchmarks/trends_stream.py`` (the store as each Monday's report saw it:
every paper's theme and each theme's area, week by week) and tests each report week with
``pipeline.report.movement`` exactly as ``paper-trends report weekly`` does (themes and areas, every
horizon, the false discovery rate held over all of them).

**Planted growth, by thinning.** A planted set is a set of real papers: every paper of one theme
(at the end of the stream), or every paper whose title or abstract holds a phrase. Its natural share
of the field is what it holds once grown. Before week ``k`` only a fraction ``1/f`` of its papers is
kept (each drawn with that probability, seeded), from ``k`` on all: a real ``f``-fold growth at the
field's own volume. The report of week ``k + d`` (``d = 0, 1, ...``) **flags** it when it names as
rising, at some horizon, a theme or area of which the set's papers make at least half of that
horizon's recent papers, and the control stream (the same set thinned by the same draws in every
week, so never growing) does not flag that unit and horizon in that week. Weeks to flag: ``d + 1``.

**Null.** The same papers with their weeks shuffled (each keeps its theme; the weekly volumes stay),
so no trend is left: every mover flagged is a false alarm; reported per 26 weekly reports.

Tune on one half of the report weeks, report on the other (--half tune|report). Results:
``benchmarks/results/trends-<corpus>-<half>.json`` and ``.md``.

    python benchmarks/trends.py --corpus csdc|daily --half tune|report [--seeds 5] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

PHRASES = {  # phrase sets, chosen before the first run: subjects of each corpus
    "csdc": {"federated": r"federated", "blockchain": r"blockchain", "serverless": r"serverless",
             "mixture-of-experts": r"mixture[- ]of[- ]experts|\bMoE\b", "quantum": r"quantum",
             "consensus": r"consensus", "KV cache": r"\bKV[- ]cache"},
    "daily": {"diffusion": r"diffusion", "agent": r"\bagents?\b", "reinforcement learning": r"reinforcement learning",
              "Gaussian splatting": r"gaussian splatting|\b3DGS\b", "retrieval-augmented": r"retrieval[- ]augmented|\bRAG\b",
              "medical": r"medical", "speech": r"\bspeech\b", "robot": r"\brobot"},
}
SHARE_BINS = [0.0, 0.01, 0.02, 0.03, 0.05, 1.0]
MAX_WEEKS = 6  # reports looked at after the growth begins


@dataclasses.dataclass
class Stream:
    weeks: list[pd.Timestamp]  # Mondays of the report weeks, oldest first
    paper_week: np.ndarray  # each paper's week index into ``all_weeks``
    all_weeks: list[pd.Timestamp]
    topics: dict[int, np.ndarray]  # report week index -> each paper's theme then (-1: unassigned or not yet)
    areas: dict[int, dict[int, int]]  # report week index -> theme -> area
    final: np.ndarray  # each paper's theme at the end
    text: pd.Series


def load_stream(work: Path, corpus: str) -> Stream:
    from pipeline.dates import week_monday
    from trends_stream import corpus_papers

    papers = corpus_papers(corpus, work).reset_index(drop=True)
    folder = work / f"stream-{corpus}" / "weeks"
    labels = sorted(p.name for p in folder.iterdir() if p.is_dir())
    all_labels = sorted(papers["week"].dropna().unique())
    index = {w: i for i, w in enumerate(all_labels)}
    ids = papers["paper_id"]
    topics, areas = {}, {}
    for label in labels:
        doc = pd.read_parquet(folder / label / "doc_topics.parquet").set_index("paper_id")["topic"]
        info = pd.read_parquet(folder / label / "topic_info.parquet")
        topics[index[label]] = ids.map(doc).fillna(-1).astype(int).to_numpy()
        areas[index[label]] = dict(zip(info["topic"].astype(int), info["area"].astype(int)))
    to_ts = lambda w: pd.Timestamp(week_monday(w)).tz_localize("UTC")  # noqa: E731
    return Stream([to_ts(w) for w in labels], papers["week"].map(index).to_numpy(), [to_ts(w) for w in all_labels],
                  topics, areas, topics[index[labels[-1]]], papers["title"] + " " + papers["abstract"])


def tables(stream: Stream, t: int, keep: np.ndarray, week_of: np.ndarray | None = None,
           topics: np.ndarray | None = None) -> tuple[dict[str, pd.DataFrame], pd.Series]:
    """The theme and area counts and the volume that the report of week index ``t`` sees."""
    week_of = stream.paper_week if week_of is None else week_of
    topics = stream.topics[t] if topics is None else topics
    rows = keep & (week_of <= t)
    weeks = stream.all_weeks[:t + 1]
    volume = pd.Series(np.bincount(week_of[rows], minlength=t + 1), index=weeks)
    area_of = stream.areas[t]
    levels = {}
    for level, units in (("theme", topics[rows]),
                         ("area", np.array([area_of.get(int(x), -1) if x >= 0 else -1 for x in topics[rows]]))):
        frame = pd.DataFrame({"w": week_of[rows], "u": units})
        frame = frame[frame["u"] >= 0]
        counts = frame.groupby(["w", "u"]).size().unstack(fill_value=0).reindex(range(t + 1), fill_value=0)
        counts.index = weeks
        levels[level] = counts
    return levels, volume


def report_movers(stream: Stream, t: int, keep: np.ndarray, cfg, **kw) -> pd.DataFrame:  # noqa: ANN001
    """Every test the report of week index ``t`` flags (a unit may be flagged at several horizons)."""
    from pipeline.report.movement import movement

    levels, volume = tables(stream, t, keep, **kw)
    table = movement(levels, volume, stream.all_weeks[t], cfg, estimates=False)
    found = table[table["mover"].astype(bool)]
    found.attrs["tests"] = len(table)
    return found


def oracle_weeks(stream: Stream, members: np.ndarray, keep: np.ndarray, k: int, last: int, tests: int,
                 alpha: float) -> tuple[int | None, int | None]:
    """Weeks until a test that knows the set and the week its growth began flags it: its own papers
    of weeks k..k+d against the 12 weeks before k (conditional binomial, one-sided), first at the
    report's multiplicity (p <= alpha / tests: the only mover among them) and then as a single test
    (p <= alpha). What no honest report can beat."""
    from scipy.stats import binom

    volume = np.bincount(stream.paper_week[keep], minlength=len(stream.all_weeks))
    own = np.bincount(stream.paper_week[keep & members], minlength=len(stream.all_weeks))
    before = slice(max(0, k - 12), k)
    k0, n0 = int(own[before].sum()), int(volume[before].sum())
    found: list[int | None] = [None, None]
    for d in range(MAX_WEEKS):
        if k + d > last:
            break
        now = slice(k, k + d + 1)
        kk, n = int(own[now].sum()), int(volume[now].sum())
        p = float(binom.sf(kk - 1, kk + k0, n / (n + n0))) if kk + k0 and n0 else 1.0
        for i, bound in enumerate((alpha / max(tests, 1), alpha)):
            if found[i] is None and p <= bound:
                found[i] = d + 1
    return found[0], found[1]


def planted_flags(stream: Stream, members: np.ndarray, k: int, factor: float, seed: int, cfg,  # noqa: ANN001
                  last: int) -> dict:
    """Weeks until the report flags a ``factor``-fold growth of ``members`` from week index ``k``
    (None: not within MAX_WEEKS reports), and what the oracle tests give."""
    rng = np.random.default_rng(seed)
    drawn = rng.random(len(members)) < 1 / factor
    planted = ~members | drawn | (stream.paper_week >= k)
    control = ~members | drawn
    weeks = _first_flag(stream, members, k, planted, control, cfg, last)
    first = report_movers(stream, k, planted, cfg)
    oracle, single = oracle_weeks(stream, members, planted, k, last, first.attrs["tests"], cfg.alpha)
    return {"weeks": weeks, "oracle": oracle, "single": single}


def _first_flag(stream: Stream, members: np.ndarray, k: int, planted: np.ndarray, control: np.ndarray, cfg,  # noqa: ANN001
                last: int) -> int | None:
    for d in range(MAX_WEEKS):
        t = k + d
        if t > last:
            return None
        found = report_movers(stream, t, planted, cfg)
        found = found[found["direction"] == "up"]
        if found.empty:
            continue
        baseline = report_movers(stream, t, control, cfg)
        seen = set(zip(baseline["level"], baseline["unit"], baseline["horizon"]))
        for row in found.itertuples():
            if (row.level, row.unit, row.horizon) in seen:
                continue
            if _planted_share(stream, t, planted, members, row) >= 0.5:
                return d + 1
    return None


def _planted_share(stream: Stream, t: int, keep: np.ndarray, members: np.ndarray, row) -> float:  # noqa: ANN001
    from pipeline.report.movement import horizons

    h = {x.name: x for x in horizons()}.get(row.horizon)
    recent = 1 if h is None else h.recent
    rows = keep & (stream.paper_week <= t) & (stream.paper_week > t - recent)
    topics = stream.topics[t]
    unit = topics if row.level == "theme" else np.array([stream.areas[t].get(int(x), -1) if x >= 0 else -1
                                                          for x in topics])
    inside = rows & (unit == row.unit)
    return float((inside & members).sum() / max(inside.sum(), 1))


def null_flags(stream: Stream, report: list[int], seed: int, cfg) -> list[int]:  # noqa: ANN001
    """Movers flagged in each report week of ``report`` when the papers' weeks are shuffled."""
    rng = np.random.default_rng(seed)
    shuffled = stream.paper_week.copy()
    span = stream.paper_week >= 0
    shuffled[span] = rng.permutation(stream.paper_week[span])
    keep = np.ones(len(shuffled), dtype=bool)
    areas = stream.areas[max(stream.topics)]
    out = []
    for t in report:
        s = dataclasses.replace(stream, areas={**stream.areas, t: areas})
        table = report_movers(s, t, keep, cfg, week_of=shuffled, topics=stream.final)
        out.append(int(table[["level", "unit"]].drop_duplicates().shape[0]))  # each unit named once
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(PHRASES), default="csdc")
    ap.add_argument("--half", choices=("tune", "report"), default="tune")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--null-seeds", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=None, help="[report] alpha (default: the config's)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    args = ap.parse_args()
    from pipeline.config import ReportConfig

    cfg = ReportConfig() if args.alpha is None else ReportConfig(alpha=args.alpha)
    started = time.perf_counter()
    stream = load_stream(args.work, args.corpus)
    report_weeks = sorted(stream.topics)
    middle = len(report_weeks) // 2
    half = report_weeks[:middle] if args.half == "tune" else report_weeks[middle:]
    # growth begins where at least MAX_WEEKS - 1 reports of the half follow, every other week
    starts = [t for t in half[::2] if t + MAX_WEEKS - 1 <= half[-1]] or half[:1]
    n_weeks = len(stream.all_weeks)
    volume = np.bincount(stream.paper_week, minlength=n_weeks)
    sets = {}
    for theme in sorted(set(stream.final[stream.final >= 0].tolist())):
        sets[f"theme {theme}"] = stream.final == theme
    for name, pattern in PHRASES[args.corpus].items():
        sets[f"phrase {name}"] = stream.text.str.contains(pattern, case=False, regex=True).to_numpy()
    runs = []
    for name, members in sets.items():
        share = float(members.sum() / volume.sum())
        if share < 0.01:
            continue
        for factor in (3.0, 2.0):
            for k in starts:
                for seed in range(args.seeds):
                    found = planted_flags(stream, members, k, factor, seed, cfg, half[-1])
                    runs.append({"set": name, "share": round(share, 4), "factor": factor,
                                 "start": str(stream.all_weeks[k].date()), "seed": seed, **found})
        print(json.dumps({"set": name, "share": round(share, 4),
                          "flagged": [r["weeks"] for r in runs if r["set"] == name]}), flush=True)
    null = [null_flags(stream, half, seed, cfg) for seed in range(args.null_seeds)]
    result = {"corpus": args.corpus, "half": args.half, "alpha": cfg.alpha, "window": cfg.window,
              "report_weeks": [str(stream.all_weeks[t].date()) for t in half],
              "starts": [str(stream.all_weeks[t].date()) for t in starts], "seeds": args.seeds,
              "mean_weekly_papers": round(float(volume[half].mean()), 1),
              "runs": runs, "null": null, "seconds": round(time.perf_counter() - started, 1)}
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = f"trends-{args.corpus}-{args.half}" + (f"-alpha{args.alpha}" if args.alpha is not None else "")
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=1))
    (RESULTS / f"{name}.md").write_text(markdown(result))
    print(markdown(result))


def markdown(result: dict) -> str:
    runs = pd.DataFrame(result["runs"])
    lines = [f"Backtest on {result['corpus']}, {result['half']} half: report weeks {result['report_weeks'][0]} to "
             f"{result['report_weeks'][-1]} ({result['mean_weekly_papers']} papers a week), growth starting "
             f"{', '.join(result['starts'])}, {result['seeds']} seeds each; alpha {result['alpha']}", "",
             "| set's share of the field (grown) | factor | runs | flagged within 3 weeks | within 6 weeks | "
             "median weeks to flag | oracle at the report's multiplicity: within 3 / 6 weeks | "
             "oracle, single test at alpha: within 3 / 6 |", "|---|---|---|---|---|---|---|---|"]
    runs["bin"] = pd.cut(runs["share"], SHARE_BINS, right=False)
    for (interval, factor), group in runs.groupby(["bin", "factor"], observed=True, sort=True):
        weeks = group["weeks"]
        flagged = weeks.dropna()
        within = lambda col, d: f"{(group[col].fillna(99) <= d).mean():.0%}"  # noqa: E731
        lines.append(f"| {interval.left:.0%}–{interval.right:.0%} | {factor:.0f}× | {len(group)} | "
                     f"{within('weeks', 3)} | {within('weeks', 6)} | "
                     f"{flagged.median() if len(flagged) else '–'} | {within('oracle', 3)} / {within('oracle', 6)} | "
                     f"{within('single', 3)} / {within('single', 6)} |")
    null = np.array(result["null"])
    per26 = null.sum(axis=1) / null.shape[1] * 26
    lines += ["", f"Null (weeks shuffled, {len(null)} shuffles of {null.shape[1]} report weeks): movers flagged per "
              f"26 weekly reports: mean {per26.mean():.2f}, max {per26.max():.2f}; reports with any mover: "
              f"{(null > 0).mean():.1%}", "", "| set | share | factor | weeks to flag, by start and seed |",
              "|---|---|---|---|"]
    for (name, factor), group in runs.groupby(["set", "factor"], sort=False):
        lines.append(f"| {name} | {group['share'].iloc[0]:.1%} | {factor:.0f}× | "
                     + " ".join("–" if pd.isna(w) else str(int(w)) for w in group["weeks"]) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
