"""Backtest of the weekly report's movers: how soon a real growth is named, how often chance, one
author's series or a category's deadline wave is.

Reads the weekly flow of ``benchmarks/trends_stream.py`` (the store as each Monday's report saw it:
every paper's theme and each theme's area, week by week) and tests each report week with
``pipeline.report.statistics.movement`` exactly as ``paper-trends report weekly`` does (themes, areas, the
categories' mix, and watched themes where a scenario has them; every horizon; author groups;
the false discovery rate held within each family).

**Planted growth, by thinning.** A planted set is a set of real papers: every paper of one theme
(at the end of the stream), or every paper whose title or abstract holds a phrase. Its natural share
of the field is what it holds once grown. Before week ``k`` only a fraction ``1/f`` of its papers is
kept (each drawn with that probability, seeded), from ``k`` on all: a real ``f``-fold growth at the
field's own volume, written by the many author groups that really wrote it. The report of week
``k + d`` **flags** it when it names as rising, at some horizon, a theme or area of which the set's
papers make at least half of that horizon's recent papers, and the control stream (the same set
thinned by the same draws in every week, so never growing) does not name that unit and horizon in
that week. Weeks to flag: ``d + 1``. **Watched**: the same growth of a phrase set that the user
watches (four phrase sets of the corpus watched, the planted one among them): flagged when the
watched unit is named rising. Two oracles know the set and the week its growth began: its own
papers of weeks k..k+d against the 12 weeks before k (conditional binomial, one-sided), at the
report's multiplicity (the only mover among its tests) and as a single test at alpha.

**A planted one-author series.** 8-15 real papers of one theme, given one invented author and moved
into 1-3 consecutive weeks, either kept in their theme or as a theme of their own. Named as a mover
when the report of any week from the series' first to 3 weeks after its last names that theme rising
and the control (the same papers left where they were) does not; in the series line when the report
of the series' last week lists the invented author.

**A planted mix shift.** One arXiv category's papers doubled for 2-4 weeks (outside the wave half of
them kept, inside all): the theme and area movers per report of the wave's weeks beyond those of the
control (the same thinning without the wave), and whether the mix clause names the category.

**Nulls.** The same papers with their weeks shuffled (each keeps its theme; the weekly volumes stay),
so no trend is left: every mover named is a false alarm, per 26 weekly reports, all families. And
the same with the papers that share a first author within a week moved together (``--null blocks``),
so that one author's batches remain: the null with series present.

Tune on one half of the report weeks, report on the other (--half tune|report). Results:
``benchmarks/results/trends-<corpus>-<half>.json`` and ``.md``.

    python benchmarks/trends.py --corpus csdc|daily --half tune|report [--seeds 5] [--parts growth,watched,series,mix,null]
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
HISTORY = 26  # weeks before a report week that its tests read
PLANTED = "Planted Series-Author"


@dataclasses.dataclass
class Stream:
    weeks: list[pd.Timestamp]  # Mondays of the report weeks, oldest first
    paper_week: np.ndarray  # each paper's week index into ``all_weeks``
    all_weeks: list[pd.Timestamp]
    topics: dict[int, np.ndarray]  # report week index -> each paper's theme then (-1: unassigned or not yet)
    areas: dict[int, dict[int, int]]  # report week index -> theme -> area
    final: np.ndarray  # each paper's theme at the end
    text: pd.Series
    authors: list  # each paper's authors (lists)
    primary: np.ndarray  # each paper's primary category ("" when none)
    pair_row: np.ndarray  # (paper, author code) pairs, each author once a paper
    pair_author: np.ndarray


def load_stream(work: Path, corpus: str) -> Stream:
    from pipeline.dates import week_monday
    from pipeline.voice import author_pairs
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
    authors = [list(a) if a is not None else None for a in papers["authors"]]
    rows, names = author_pairs(authors)
    primary = papers["primary_category"].fillna("").astype(str).to_numpy()
    return Stream([to_ts(w) for w in labels], papers["week"].map(index).to_numpy(), [to_ts(w) for w in all_labels],
                  topics, areas, topics[index[labels[-1]]], papers["title"] + " " + papers["abstract"], authors,
                  primary, rows, pd.factorize(names)[0].astype(np.int64))


@dataclasses.dataclass
class World:
    """One simulated store as the report of week index ``t`` sees it."""

    keep: np.ndarray  # papers present
    week_of: np.ndarray  # each paper's week index
    topics: np.ndarray  # each paper's theme
    areas: dict[int, int]
    primary: np.ndarray
    watched: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)  # name -> membership
    extra_author: np.ndarray | None = None  # papers given the planted author


def world(stream: Stream, t: int, keep: np.ndarray, **kw) -> World:  # noqa: ANN003
    base = {"week_of": stream.paper_week, "topics": stream.topics[t], "areas": stream.areas[t],
            "primary": stream.primary}
    return World(keep=keep, **(base | kw))


def _pairs(stream: Stream, w: World) -> tuple[np.ndarray, np.ndarray]:
    if w.extra_author is None or not w.extra_author.any():
        return stream.pair_row, stream.pair_author
    planted = np.flatnonzero(w.extra_author)
    code = int(stream.pair_author.max()) + 1
    return (np.concatenate([stream.pair_row, planted]),
            np.concatenate([stream.pair_author, np.full(len(planted), code, dtype=np.int64)]))


def levels_at(stream: Stream, t: int, w: World):  # noqa: ANN201 - list of movement.Units
    """The Units the report of week index ``t`` tests in world ``w``."""
    from pipeline.report.statistics.movement import units_of
    from pipeline.voice import evidence_of

    first = max(0, t - HISTORY)
    weeks = stream.all_weeks[first:t + 1]
    rows = w.keep & (w.week_of <= t) & (w.week_of >= first)
    pair_row, pair_author = _pairs(stream, w)
    idx = np.flatnonzero(rows)
    wk = [stream.all_weeks[i] for i in w.week_of[idx]]
    placed = idx[w.topics[idx] >= 0]
    pwk = [stream.all_weeks[i] for i in w.week_of[placed]]
    prim = w.primary
    authors = _authors_of(stream, w)

    def weights(units: np.ndarray, members: np.ndarray) -> np.ndarray:
        groups = np.full(len(w.keep), -1, dtype=np.int64)
        groups[members] = w.week_of[members].astype(np.int64) * 100_003 + units
        inside = np.isin(pair_row, members)
        full = evidence_of(groups, pair_row[inside], pair_author[inside])
        return full[members]

    theme = w.topics[placed]
    tw = weights(theme.astype(np.int64), placed)
    out = [units_of("theme", weeks, pwk, theme.tolist(), prim[placed].tolist(), [authors[i] for i in placed], pwk,
                    prim[placed].tolist(), sorted(set(w.areas) | set(theme.tolist())), weight=tw, volume_weight=tw)]
    area = np.array([w.areas.get(int(x), -1) for x in theme], dtype=np.int64)
    aw = weights(area + 100, placed)
    out.append(units_of("area", weeks, pwk, area.tolist(), prim[placed].tolist(), [authors[i] for i in placed], pwk,
                        prim[placed].tolist(), sorted(set(w.areas.values())), weight=aw, volume_weight=aw))
    blank = [""] * len(idx)
    out.append(units_of("category", weeks, wk, prim[idx].tolist(), blank, [None] * len(idx), wk, blank,
                        sorted(set(prim[idx].tolist()) - {""}), grouped=False))
    if w.watched:
        names = list(w.watched)
        for_rows, for_names = [], []
        for j, name in enumerate(names):
            hit = idx[w.watched[name][idx]]
            for_rows.append(hit)
            for_names.append(np.full(len(hit), j))
        hit, which = np.concatenate(for_rows), np.concatenate(for_names)
        ww = evidence_of(w.week_of[hit].astype(np.int64) * 100_003 + which,
                         *_subset_pairs(pair_row, pair_author, for_rows))
        out.append(units_of("watched", weeks, [stream.all_weeks[i] for i in w.week_of[hit]],
                            [names[j] for j in which], prim[hit].tolist(), [authors[i] for i in hit], wk,
                            prim[idx].tolist(), names, weight=ww,
                            volume_weight=weights(w.topics[idx].astype(np.int64) + 100, idx)))
    return out


def _subset_pairs(pair_row: np.ndarray, pair_author: np.ndarray, blocks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The pairs re-indexed to the rows of ``blocks`` laid end to end (a paper on two watched themes
    stands in two blocks); each block's rows sorted."""
    rows, authors, offset = [], [], 0
    for block in blocks:
        inside = np.isin(pair_row, block)
        rows.append(offset + np.searchsorted(block, pair_row[inside]))
        authors.append(pair_author[inside])
        offset += len(block)
    return np.concatenate(rows).astype(np.int64), np.concatenate(authors).astype(np.int64)


def _authors_of(stream: Stream, w: World) -> list:
    if w.extra_author is None or not w.extra_author.any():
        return stream.authors
    out = list(stream.authors)
    for i in np.flatnonzero(w.extra_author):
        out[i] = list(out[i] or []) + [PLANTED]
    return out


def report_table(stream: Stream, t: int, w: World, cfg) -> pd.DataFrame:  # noqa: ANN001
    """Every test the report of week index ``t`` makes in world ``w``."""
    from pipeline.report.statistics.movement import movement

    table = movement(levels_at(stream, t, w), stream.all_weeks[t], cfg, estimates=False)
    table.attrs["tests"] = int((table["family"] == "report").sum())
    return table


def named(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["mover"].astype(bool)]


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


def planted_flags(stream: Stream, members: np.ndarray, k: int, factor: float, seed: int, cfg, last: int,  # noqa: ANN001
                  watched: dict[str, np.ndarray] | None = None, name: str | None = None) -> dict:
    """Weeks until the report flags a ``factor``-fold growth of ``members`` from week index ``k``
    (None: not within MAX_WEEKS reports), and what the oracle tests give. With ``watched`` (and the
    planted set's ``name`` among them) the watched unit is what must be named."""
    rng = np.random.default_rng(seed)
    drawn = rng.random(len(members)) < 1 / factor
    planted = ~members | drawn | (stream.paper_week >= k)
    control = ~members | drawn
    weeks = None
    tests = None
    for d in range(MAX_WEEKS):
        t = k + d
        if t > last:
            break
        found = report_table(stream, t, world(stream, t, planted, watched=watched or {}), cfg)
        if tests is None:
            tests = int((found["family"] == ("watched" if watched else "report")).sum())
        up = named(found)
        up = up[up["direction"] == "up"]
        up = up[up["level"] == "watched"] if watched else up[up["family"] == "report"]
        if up.empty:
            continue
        baseline = named(report_table(stream, t, world(stream, t, control, watched=watched or {}), cfg))
        seen = set(zip(baseline["level"], baseline["unit"], baseline["horizon"]))
        for row in up.itertuples():
            if (row.level, row.unit, row.horizon) in seen:
                continue
            if watched:
                if row.unit == name:
                    weeks = d + 1
                    break
            elif _planted_share(stream, t, planted, members, row) >= 0.5:
                weeks = d + 1
                break
        if weeks is not None:
            break
    oracle, single = oracle_weeks(stream, members, planted, k, last, tests or 1, cfg.alpha)
    return {"weeks": weeks, "oracle": oracle, "single": single}


def _planted_share(stream: Stream, t: int, keep: np.ndarray, members: np.ndarray, row) -> float:  # noqa: ANN001
    from pipeline.report.statistics.movement import horizons

    h = {x.name: x for x in horizons()}.get(row.horizon)
    recent = 1 if h is None else h.recent
    rows = keep & (stream.paper_week <= t) & (stream.paper_week > t - recent)
    topics = stream.topics[t]
    unit = topics if row.level == "theme" else np.array([stream.areas[t].get(int(x), -1) if x >= 0 else -1
                                                          for x in topics])
    inside = rows & (unit == row.unit)
    return float((inside & members).sum() / max(inside.sum(), 1))


def series_run(stream: Stream, theme: int, k: int, span: int, size: int, own: bool, seed: int, cfg,  # noqa: ANN001
               last: int) -> dict:
    """One planted series (see the module docstring): named as a mover? in the series line?"""
    from pipeline.report.week.weekly import series_of

    rng = np.random.default_rng(seed)
    pool = np.flatnonzero(stream.final == theme)
    chosen = rng.choice(pool, size=size, replace=False)
    moved = stream.paper_week.copy()
    moved[chosen] = k + (np.arange(size) % span)
    extra = np.zeros(len(moved), dtype=bool)
    extra[chosen] = True
    keep = np.ones(len(moved), dtype=bool)
    new_id = int(max(stream.final.max(), max(max(a) for a in stream.areas.values())) + 1)
    mover = in_line = False
    for t in range(k, min(k + span + 3, last) + 1):
        topics = stream.topics[t].copy()
        topics[chosen] = new_id if own else theme
        areas = dict(stream.areas[t]) | ({new_id: -99} if own else {})
        w = world(stream, t, keep, week_of=moved, topics=topics, areas=areas, extra_author=extra)
        found = named(report_table(stream, t, w, cfg))
        unit = new_id if own else theme
        hits = found[(found["level"] == "theme") & (found["unit"] == unit) & (found["direction"] == "up")]
        if len(hits):
            control = world(stream, t, keep, topics=topics, areas=areas)
            base = named(report_table(stream, t, control, cfg))
            if not ((base["level"] == "theme") & (base["unit"] == unit) & (base["direction"] == "up")).any():
                mover = True
        if t == k + span - 1:
            line = series_of(_papers_frame(stream, t, w), stream.all_weeks[t], {})
            in_line = any(s["author"] == PLANTED for s in line)
    return {"mover": mover, "in_line": in_line}


def _papers_frame(stream: Stream, t: int, w: World) -> pd.DataFrame:
    """The last 4 weeks' papers of world ``w`` as ``series_of`` reads them."""
    rows = np.flatnonzero(w.keep & (w.week_of <= t) & (w.week_of > t - 4))
    authors = _authors_of(stream, w)
    return pd.DataFrame({"paper_id": rows.astype(str), "week_start": [stream.all_weeks[i] for i in w.week_of[rows]],
                         "topic": w.topics[rows], "authors": [authors[i] for i in rows], "probability": 1.0})


def mix_run(stream: Stream, category: str, k: int, span: int, seed: int, cfg) -> dict:  # noqa: ANN001
    """One category's papers doubled for ``span`` weeks from ``k``: movers per report beyond the control's."""
    rng = np.random.default_rng(seed)
    inside = stream.primary == category
    drawn = rng.random(len(inside)) < 0.5
    wave = (stream.paper_week >= k) & (stream.paper_week < k + span)
    planted = ~inside | drawn | wave
    control = ~inside | drawn
    extra_themes, extra_areas, clause = [], [], []
    for t in range(k, k + span):
        found = named(report_table(stream, t, world(stream, t, planted), cfg))
        base = named(report_table(stream, t, world(stream, t, control), cfg))
        seen = set(zip(base["level"], base["unit"]))
        fresh = [(lv, u) for lv, u in zip(found["level"], found["unit"]) if (lv, u) not in seen]
        extra_themes.append(len({u for lv, u in fresh if lv == "theme"}))
        extra_areas.append(len({u for lv, u in fresh if lv == "area"}))
        clause.append(bool(((found["level"] == "category") & (found["unit"] == category)).any()))
    return {"themes": extra_themes, "areas": extra_areas, "clause": clause}


def null_flags(stream: Stream, report: list[int], seed: int, cfg, blocks: bool = False,  # noqa: ANN001
               watched: dict[str, np.ndarray] | None = None) -> list[dict]:
    """Movers named in each report week of ``report`` when the papers' weeks are shuffled (with
    ``blocks``: the papers that share a first author within a week moved together)."""
    rng = np.random.default_rng(seed)
    shuffled = stream.paper_week.copy()
    span = np.flatnonzero(stream.paper_week >= 0)
    if blocks:
        first = np.array([a[0] if a else "" for a in (stream.authors[i] or [""] for i in span)], dtype=object)
        key = pd.Series(list(zip(stream.paper_week[span], first)))
        codes, uniques = pd.factorize(key)
        weeks = np.array([u[0] for u in uniques])
        shuffled[span] = rng.permutation(weeks)[codes]
    else:
        shuffled[span] = rng.permutation(stream.paper_week[span])
    keep = np.ones(len(shuffled), dtype=bool)
    last = max(stream.topics)
    out = []
    for t in report:
        w = world(stream, t, keep, week_of=shuffled, topics=stream.final, areas=stream.areas[last],
                  watched=watched or {})
        table = named(report_table(stream, t, w, cfg))
        out.append({family: int(table[table["family"] == family][["level", "unit"]].drop_duplicates().shape[0])
                    for family in ("report", "watched", "mix")})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(PHRASES), default="csdc")
    ap.add_argument("--half", choices=("tune", "report"), default="tune")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--growth-seeds", type=int, default=None, help="seeds of the planted growth (default: --seeds)")
    ap.add_argument("--null-seeds", type=int, default=10)
    ap.add_argument("--parts", default="growth,watched,series,mix,null")
    ap.add_argument("--alpha", type=float, default=None, help="[report] alpha (default: the config's)")
    ap.add_argument("--min-change", type=float, default=None, help="[report] min_change (default: the config's)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    args = ap.parse_args()
    from pipeline.config import ReportConfig

    settings = {k: v for k, v in (("alpha", args.alpha), ("min_change", args.min_change)) if v is not None}
    cfg = ReportConfig(**settings)
    parts = set(args.parts.split(","))
    started = time.perf_counter()
    stream = load_stream(args.work, args.corpus)
    report_weeks = sorted(stream.topics)
    middle = len(report_weeks) // 2
    half = report_weeks[:middle] if args.half == "tune" else report_weeks[middle:]
    # growth begins where at least MAX_WEEKS - 1 reports of the half follow, every other week
    starts = [t for t in half[::2] if t + MAX_WEEKS - 1 <= half[-1]] or half[:1]
    volume = np.bincount(stream.paper_week, minlength=len(stream.all_weeks))
    phrase_sets = {name: stream.text.str.contains(pattern, case=False, regex=True).to_numpy()
                   for name, pattern in PHRASES[args.corpus].items()}
    result = {"corpus": args.corpus, "half": args.half, "alpha": cfg.alpha, "min_change": cfg.min_change,
              "window": cfg.window, "report_weeks": [str(stream.all_weeks[t].date()) for t in half],
              "starts": [str(stream.all_weeks[t].date()) for t in starts], "seeds": args.seeds,
              "growth_seeds": args.growth_seeds,
              "mean_weekly_papers": round(float(volume[half].mean()), 1)}
    if "growth" in parts:
        sets = {f"theme {t}": stream.final == t for t in sorted(set(stream.final[stream.final >= 0].tolist()))}
        sets |= {f"phrase {name}": members for name, members in phrase_sets.items()}
        runs = []
        for name, members in sets.items():
            share = float(members.sum() / volume.sum())
            if share < 0.01:
                continue
            for factor in (3.0, 2.0):
                for k in starts:
                    for seed in range(args.seeds if args.growth_seeds is None else args.growth_seeds):
                        found = planted_flags(stream, members, k, factor, seed, cfg, half[-1])
                        runs.append({"set": name, "share": round(share, 4), "factor": factor,
                                     "start": str(stream.all_weeks[k].date()), "seed": seed, **found})
            print(json.dumps({"set": name, "share": round(share, 4),
                              "flagged": [r["weeks"] for r in runs if r["set"] == name]}), flush=True)
        result["runs"] = runs
    watch = _watch_sets(phrase_sets, volume)
    if "watched" in parts:
        runs = []
        for name in watch:
            share = float(phrase_sets[name].sum() / volume.sum())
            for k in starts:
                for seed in range(args.seeds):
                    found = planted_flags(stream, phrase_sets[name], k, 3.0, seed, cfg, half[-1],
                                          watched={n: phrase_sets[n] for n in watch}, name=name)
                    runs.append({"set": name, "share": round(share, 4), "factor": 3.0,
                                 "start": str(stream.all_weeks[k].date()), "seed": seed, **found})
            print(json.dumps({"watched": name, "flagged": [r["weeks"] for r in runs if r["set"] == name]}), flush=True)
        result["watched_runs"] = runs
    if "series" in parts:
        sizes = pd.Series(stream.final[stream.final >= 0]).value_counts()
        themes = sizes[sizes >= 30].index[:10].tolist()
        runs = []
        for i, theme in enumerate(themes):
            for own in (False, True):
                for seed in range(max(1, args.seeds // 2)):
                    rng = np.random.default_rng(1000 * i + seed)
                    span, size = int(rng.integers(1, 4)), int(rng.integers(8, 16))
                    k = int(rng.choice(starts))
                    found = series_run(stream, int(theme), k, span, size, own, 1000 * i + seed, cfg, half[-1])
                    runs.append({"theme": int(theme), "own": own, "span": span, "size": size,
                                 "start": str(stream.all_weeks[k].date()), **found})
        print(json.dumps({"series": len(runs), "mover": sum(r["mover"] for r in runs),
                          "in_line": sum(r["in_line"] for r in runs)}), flush=True)
        result["series_runs"] = runs
    if "mix" in parts:
        counts = pd.Series(stream.primary[stream.primary != ""]).value_counts()
        runs = []
        for category in counts.index[:3]:
            for k in starts:
                for span in (2, 4):
                    if k + span - 1 > half[-1]:
                        continue
                    found = mix_run(stream, str(category), k, span, k, cfg)
                    runs.append({"category": str(category), "start": str(stream.all_weeks[k].date()), "span": span,
                                 **found})
        print(json.dumps({"mix": len(runs), "themes per report": float(np.mean([x for r in runs for x in r["themes"]]))}),
              flush=True)
        result["mix_runs"] = runs
    if "null" in parts:
        watched = {n: phrase_sets[n] for n in watch}
        result["null"] = [null_flags(stream, half, seed, cfg, watched=watched) for seed in range(args.null_seeds)]
        result["null_blocks"] = [null_flags(stream, half, seed, cfg, blocks=True, watched=watched)
                                 for seed in range(args.null_seeds)]
    result["seconds"] = round(time.perf_counter() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = f"trends-{args.corpus}-{args.half}" + "".join(f"-{k}{v}" for k, v in settings.items())
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=1))
    (RESULTS / f"{name}.md").write_text(markdown(result))
    print(markdown(result))


def _watch_sets(phrase_sets: dict[str, np.ndarray], volume: np.ndarray) -> list[str]:
    """Four phrase sets to watch: those holding 1-8 % of the papers, the largest first."""
    shares = {n: m.sum() / volume.sum() for n, m in phrase_sets.items()}
    fit = sorted((n for n, s in shares.items() if 0.01 <= s <= 0.08), key=lambda n: -shares[n])
    return fit[:4]


def _growth_table(runs: pd.DataFrame, title: str) -> list[str]:
    lines = [title, "", "| set's share of the field (grown) | factor | runs | flagged within 3 weeks | within 6 weeks | "
             "median weeks to flag | oracle at the report's multiplicity: within 3 / 6 weeks | "
             "oracle, single test at alpha: within 3 / 6 |", "|---|---|---|---|---|---|---|---|"]
    runs = runs.assign(bin=pd.cut(runs["share"], SHARE_BINS, right=False))
    for (interval, factor), group in runs.groupby(["bin", "factor"], observed=True, sort=True):
        flagged = group["weeks"].dropna()
        within = lambda col, d: f"{(group[col].fillna(99) <= d).mean():.0%}"  # noqa: E731
        lines.append(f"| {interval.left:.0%}–{interval.right:.0%} | {factor:.0f}× | {len(group)} | "
                     f"{within('weeks', 3)} | {within('weeks', 6)} | "
                     f"{flagged.median() if len(flagged) else '–'} | {within('oracle', 3)} / {within('oracle', 6)} | "
                     f"{within('single', 3)} / {within('single', 6)} |")
    return lines


def markdown(result: dict) -> str:
    lines = [f"Backtest on {result['corpus']}, {result['half']} half: report weeks {result['report_weeks'][0]} to "
             f"{result['report_weeks'][-1]} ({result['mean_weekly_papers']} papers a week), growth starting "
             f"{', '.join(result['starts'])}, {result['seeds']} seeds each ({result.get('growth_seeds') or result['seeds']} for the growth of themes and phrase sets); alpha {result['alpha']}, min_change "
             f"{result['min_change']}; {result.get('seconds', 0):.0f} s", ""]
    if result.get("runs"):
        lines += _growth_table(pd.DataFrame(result["runs"]), "Planted growth of themes and phrase sets:") + [""]
    if result.get("watched_runs"):
        runs = pd.DataFrame(result["watched_runs"])
        lines += ["Planted 3× growth of a watched phrase set (four watched):", "",
                  "| watched set | share | runs | flagged within 3 weeks | within 6 | single-test oracle within 3 | "
                  "ratio to the oracle within 3 |", "|---|---|---|---|---|---|---|"]
        for name, group in runs.groupby("set", sort=False):
            got = (group["weeks"].fillna(99) <= 3).mean()
            oracle = (group["single"].fillna(99) <= 3).mean()
            lines.append(f"| {name} | {group['share'].iloc[0]:.1%} | {len(group)} | {got:.0%} | "
                         f"{(group['weeks'].fillna(99) <= 6).mean():.0%} | {oracle:.0%} | "
                         f"{got / oracle if oracle else float('nan'):.2f} |")
        got, oracle = (runs["weeks"].fillna(99) <= 3).mean(), (runs["single"].fillna(99) <= 3).mean()
        lines += [f"| all | | {len(runs)} | {got:.0%} | {(runs['weeks'].fillna(99) <= 6).mean():.0%} | {oracle:.0%} | "
                  f"{got / oracle if oracle else float('nan'):.2f} |", ""]
    if result.get("series_runs"):
        runs = pd.DataFrame(result["series_runs"])
        lines += ["Planted one-author series (8-15 papers in 1-3 weeks):", "",
                  "| where | runs | named as a mover | in the series line |", "|---|---|---|---|"]
        for own, group in runs.groupby("own"):
            lines.append(f"| {'a theme of its own' if own else 'inside a theme'} | {len(group)} | "
                         f"{group['mover'].mean():.0%} | {group['in_line'].mean():.0%} |")
        lines.append("")
    if result.get("mix_runs"):
        runs = pd.DataFrame(result["mix_runs"])
        themes = [x for r in result["mix_runs"] for x in r["themes"]]
        areas = [x for r in result["mix_runs"] for x in r["areas"]]
        clause = [x for r in result["mix_runs"] for x in r["clause"]]
        lines += [f"Planted mix shift (one of the 3 largest categories doubled for 2 or 4 weeks; {len(runs)} runs, "
                  f"{len(themes)} reports): theme movers per report beyond the control's: mean {np.mean(themes):.2f}, "
                  f"max {max(themes)}; area movers: mean {np.mean(areas):.2f}; the category named in the mix clause in "
                  f"{np.mean(clause):.0%} of the wave's reports.", ""]
    for key, title in (("null", "weeks shuffled"), ("null_blocks", "weeks shuffled, one first author's papers of a "
                                                                    "week kept together")):
        if result.get(key):
            null = result[key]
            weeks = len(null[0])
            per = {f: np.array([[w[f] for w in s] for s in null]) for f in ("report", "watched", "mix")}
            total = sum(per.values())
            per26 = total.sum(axis=1) / weeks * 26
            lines.append(f"Null ({title}, {len(null)} shuffles of {weeks} report weeks): false movers per 26 weekly "
                         f"reports, all families: mean {per26.mean():.2f}, max {per26.max():.2f} (themes and areas "
                         f"{(per['report'].sum(axis=1) / weeks * 26).mean():.2f}, watched "
                         f"{(per['watched'].sum(axis=1) / weeks * 26).mean():.2f}, categories "
                         f"{(per['mix'].sum(axis=1) / weeks * 26).mean():.2f}); reports with any: "
                         f"{(total > 0).mean():.1%}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
