"""Benchmark: do weekly updates find themes that did not exist when the themes were fitted?

Run the way cron runs it, on the 2025 daily corpus (``../shared/data/arxiv-daily``, ingested and
cleaned once into --work):

1. Two **planted** sets are taken out of the fitting weeks:
   - ``field``: every paper listed in one of the period's field categories and not primarily
     cs.CV (a field otherwise absent: audio and speech, eess.AS or cs.SD, in a corpus of vision and
     language papers; vision papers that use sound are vision papers);
   - ``method``: every other paper whose title matches the period's pattern (a sub-area of a
     fitted theme).
2. ``paper-trends topics`` fits the themes on --fit-weeks weeks (other papers sampled at --sample).
3. The next --stream weeks arrive one by one, planted papers included, each followed by a
   ``topics`` run (a weekly update).

After each week: for each planted set, the share of its papers that sit in themes born in the
stream (by an update, or by an automatic refit within the stream) and made mostly (>= 50 %) of that set, and whether such a theme's label
names it (one of --field-words / --method-words); spurious births (themes born by an update mostly
of unplanted papers); papers placed earlier that moved in an update (a refit's moves are counted
apart); the unassigned share (the pool included); the share of the week's own
unplanted papers that are unassigned after its update (they wait in the pool: what that week's
report cannot place yet); and the update's seconds.

    python benchmarks/emergence.py [--period h2] [--field-by-subject | --field-csdc] [--method-by-abstract]
                                   [--sample-seed 1] [--set emerge_window=6 ...]

``--field-by-subject`` plants, besides the audio-listed papers, every paper whose title names the
subject (one of the field words; not "hate speech", "speech acts" and the like) and is not primarily
cs.CV: speech papers listed only in cs.CL are
then absent from the fit too, as a field that did not exist would be. ``--method-by-abstract`` plants
as the sub-area every paper whose title *or abstract* names the method: with titles alone, the
fitting weeks keep the papers that name it only in their abstracts, and those already form a theme
of the method (the sub-area is then not absent from the fit).

``--field-csdc`` plants instead the user's field as the absent one: every paper of primary cs.DC,
from the cs.DC listings (``../shared/data/arxiv-csdc``, June-December 2025) and the daily corpus,
which otherwise barely lists cs.DC. From 2025-W29 on the daily corpus lists no paper of primary
cs.SD or eess.AS, so this is the held-out test of a field absent by category there.

Periods (tune on one, report on the others): ``h1`` fits 2025-W13..W18 and streams W19..W24, ``h2`` fits
W29..W34 and streams W35..W40, ``h3`` (for ``--field-csdc``) fits W41..W46 and streams W47..W52; all
plant audio (or cs.DC) and "Gaussian Splatting". Results:
benchmarks/results/emergence-<period>[-subject][-abstract][-csdc][-sample<seed>][-<key>=<value>...].json and .md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from themes import corpus_root  # noqa: E402
from topics import prepare  # noqa: E402

# words a label of the user's field says (cs.DC's own subjects), chosen before the first run on it
CSDC_WORDS = ("distributed,parallel,cluster,gpu,gpus,hpc,cloud,edge,federated,serverless,scheduling,"
              "consensus,blockchain,inference,serving,training,communication,memory,storage,kernel,kernels,"
              "accelerator,accelerators,datacenter,mpi,workload,workloads,offloading,iot,byzantine,fault,"
              "microservices,supercomputer,scientific,compute,computing,systems,system,scalable,throughput")

# titles that say "speech" or "sound" about text or reasoning, not audio: not the field
NOT_AUDIO = (r"(?:hate|toxic|offensive|hateful|free|counter|political|figures? of|parts?[- ]of)[- ]speech|"
             r"speech acts?\b|sound(?:ness| reasoning| proofs?)")
AUDIO = "eess.AS,cs.SD"  # audio and speech: otherwise rare in a corpus of cs.CV, cs.CL, cs.AI and cs.LG
PLANTED = {"stream": 6, "field": AUDIO, "method": r"Gaussian Splatting|\b3DGS\b",
           "field_words": "audio,speech,music,sound,speaker,voice,acoustic,song", "method_words": "gaussian,splatting,3dgs"}
PERIODS = {
    "h1": {**PLANTED, "fit_weeks": ("2025-W13", 6)},
    "h2": {**PLANTED, "fit_weeks": ("2025-W29", 6)},
    # a third period, for the cs.DC field only (--field-csdc): the daily corpus lists no audio paper after W28
    "h3": {**PLANTED, "fit_weeks": ("2025-W41", 6)},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--period", choices=sorted(PERIODS), default="h2")
    ap.add_argument("--sample", type=float, default=0.5, help="share of the unplanted papers kept (seeded)")
    ap.add_argument("--sample-seed", type=int, default=0,
                    help="seed of that sample (another seed: other papers, so another fit and stream); "
                         "results get a -sample<seed> suffix when it is not 0")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a TopicsConfig override")
    ap.add_argument("--verbose", action="store_true", help="log what each update finds in the pool")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-emergence"))
    field = ap.add_mutually_exclusive_group()
    field.add_argument("--field-by-subject", action="store_true",
                    help="the field also takes every paper (not primarily cs.CV) whose title names "
                         "the subject (one of the period's field words), so that it is absent from the fit by "
                         "subject, not only by category listing; results get a -subject suffix")
    field.add_argument("--field-csdc", action="store_true",
                    help="the field is instead every paper of primary cs.DC, from the cs.DC listings "
                         "(../shared/data/arxiv-csdc) and the daily corpus: a whole field the daily corpus "
                         "otherwise barely lists (23 of the 11,691 papers of 2025-W29..W40 list cs.DC at all), "
                         "and data no setting of detection was chosen on; results get a -csdc suffix")
    ap.add_argument("--method-by-abstract", action="store_true",
                    help="the sub-area takes every paper whose title or abstract names the method; "
                         "results get an -abstract suffix")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.verbose:
        import logging

        logging.basicConfig(level=logging.WARNING, format="%(message)s")
        for name in ("pipeline.topics", "pipeline.topics.weekly.emerge"):
            logging.getLogger(name).setLevel(logging.DEBUG)
    import numpy as np
    import pandas as pd

    from pipeline import config, topics
    from pipeline.io import read_table, write_table
    from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage

    spec = PERIODS[args.period]
    corpus = read_table(prepare(args.work), Papers)
    if args.field_csdc:  # every cs.DC listing of June-December 2025, ingested and cleaned once into --work
        extra = read_table(corpus_root("csdc", args.work) / "data" / "processed" / "papers.parquet", Papers)
        extra = extra[(extra[Papers.primary_category] == "cs.DC") & ~extra[Papers.paper_id].isin(corpus[Papers.paper_id])]
        corpus = pd.concat([corpus, extra], ignore_index=True)
    weeks = sorted(corpus[Papers.week].dropna().unique().tolist())
    first = weeks.index(spec["fit_weeks"][0])
    fit_weeks = weeks[first:first + spec["fit_weeks"][1]]
    stream = weeks[first + len(fit_weeks):first + len(fit_weeks) + spec["stream"]]
    wanted = set(spec["field"].split(","))
    # a vision paper that uses sound (talking heads, audio-visual video) is listed there too, but it
    # is a vision paper: the field is the papers listed in an audio category and not primarily cs.CV
    field = (corpus[Papers.categories].map(lambda cats: bool(wanted & set(cats)))
             & (corpus[Papers.primary_category] != "cs.CV")).to_numpy()
    if args.field_csdc:
        field = (corpus[Papers.primary_category] == "cs.DC").to_numpy()
        spec = {**spec, "field": "cs.DC (primary, with the cs.DC listings)", "field_words": CSDC_WORDS}
    elif args.field_by_subject:
        pattern = r"\b(?:" + "|".join(spec["field_words"].split(",")) + r")s?\b"
        named = corpus[Papers.title].str.contains(pattern, case=False, regex=True)
        named &= ~corpus[Papers.title].str.contains(NOT_AUDIO, case=False, regex=True)
        field |= (named & (corpus[Papers.primary_category] != "cs.CV")).to_numpy()
    method = corpus[Papers.title].str.contains(spec["method"], case=False, regex=True).to_numpy()
    if args.method_by_abstract:
        method = method | corpus[Papers.abstract].str.contains(spec["method"], case=False, regex=True).to_numpy()
    method = method & ~field
    planted = field | method
    kept = planted | (np.random.default_rng(args.sample_seed).random(len(corpus)) < args.sample)
    sets = {"field": set(corpus.loc[field, Papers.paper_id]), "method": set(corpus.loc[method, Papers.paper_id])}
    words = {"field": spec["field_words"].split(","), "method": spec["method_words"].split(",")}

    root = args.work / args.period
    for stale in (root / "data" / "processed", root / "data" / "models"):
        shutil.rmtree(stale, ignore_errors=True)  # the embedding cache in data/interim is kept
    overrides = {}
    for item in args.set:
        key, value = item.split("=", 1)
        overrides[key] = type(getattr(config.TopicsConfig(), key))(value) if value not in ("True", "False") \
            else value == "True"
    cfg = config.load(root)
    cfg = dataclasses.replace(cfg, topics=dataclasses.replace(cfg.topics, **overrides))
    embedder = topics.make_embedder(cfg.topics)

    def store(upto: list[str]) -> pd.DataFrame:
        rows = corpus[Papers.week].isin(upto).to_numpy() & kept
        rows &= ~planted | corpus[Papers.week].isin(stream).to_numpy()
        return corpus[rows].reset_index(drop=True)

    write_table(store(fit_weeks), cfg.paths.papers, Papers)
    started = time.perf_counter()
    topics.run(cfg, embedder=embedder)
    fit_s = time.perf_counter() - started
    before = read_table(cfg.paths.doc_topics, DocTopics).set_index(DocTopics.paper_id)[DocTopics.topic]
    fitted = read_table(cfg.paths.topic_info, TopicInfo)
    report = {"period": args.period, "fit_weeks": [fit_weeks[0], fit_weeks[-1]], "stream": stream,
              "field": spec["field"] + (" or naming the subject" if args.field_by_subject else ""),
              "method": spec["method"] + (" in title or abstract" if args.method_by_abstract else ""),
              "overrides": overrides,
              "sample_seed": args.sample_seed,
              "fit": {"papers": int(len(before)), "themes": int(len(fitted)), "seconds": round(fit_s, 1)},
              "weeks": []}
    moved_total = refit_moved = 0
    trace: dict[str, dict[str, dict[str, int]]] = {}
    for i, week in enumerate(stream):
        papers = store(fit_weeks + stream[: i + 1])
        write_table(papers, cfg.paths.papers, Papers)
        started = time.perf_counter()
        topics.run(cfg, embedder=embedder)
        seconds = time.perf_counter() - started
        now = read_table(cfg.paths.doc_topics, DocTopics).set_index(DocTopics.paper_id)[DocTopics.topic]
        info = read_table(cfg.paths.topic_info, TopicInfo).set_index(TopicInfo.topic)
        lineage = read_table(cfg.paths.topic_lineage, TopicLineage)
        placed = before[before >= 0].index
        moved = int((now.loc[placed] != before.loc[placed]).sum())
        # an automatic refit (refit_every_weeks) may move placed papers: counted apart from the updates' moves
        refit = bool(((lineage["mode"] == "refit") & (lineage["week"] == week)).any())
        refit_moved += moved if refit else 0
        moved_total += 0 if refit else moved
        # themes born in the stream: by an update, or cut by such a refit (new, or split off a theme born in the stream)
        births = lineage[lineage["relation"].isin(["new", "split"]) & (
            (lineage["mode"] == "update") | ((lineage["mode"] == "refit") & lineage["week"].isin(stream)))]
        row = {"week": week, "papers": int(len(now)), "seconds": round(seconds, 1), "moved": moved,
               "unassigned": round(float((now == -1).mean()), 4), "births": [], "sets": {}}
        share_of = {}
        for _, b in births.iterrows():
            t = int(b["to_topic"])
            members = set(now.index[now == t])
            shares = {name: len(members & ids) / max(len(members), 1) for name, ids in sets.items()}
            share_of[t] = shares
            row["births"].append({"topic": t, "week": b["week"], "relation": b["relation"], "mode": b["mode"],
                                  "parent": None if pd.isna(b["from_topic"]) else int(b["from_topic"]),
                                  "label": info.loc[t, TopicInfo.label] if t in info.index else None,
                                  "size": len(members), **{f"share_{k}": round(v, 2) for k, v in shares.items()}})
        for name, ids in sets.items():
            arrived = ids & set(now.index)
            mine = [t for t, s in share_of.items() if s[name] >= 0.5]
            inside = set(now.index[now.isin(mine)]) & arrived
            labels = [info.loc[t, TopicInfo.label] for t in mine if t in info.index]
            # a looser count: born themes whose label names the set, whatever share of it they hold
            # (a speech theme whose other papers are speech papers not listed in an audio category)
            naming = [t for t in share_of if t in info.index
                      and any(w in str(info.loc[t, TopicInfo.label]).lower() for w in words[name])]
            in_naming = set(now.index[now.isin(naming)]) & arrived
            row["sets"][name] = {
                "arrived": len(arrived), "captured": round(len(inside) / len(arrived), 3) if arrived else 0.0,
                "in_naming": round(len(in_naming) / len(arrived), 3) if arrived else 0.0,
                "pooled": round(float((now.loc[sorted(arrived)] == -1).mean()), 3) if arrived else 0.0,
                "themes": len(mine), "labels": labels,
                "named": any(w in lab.lower() for lab in labels for w in words[name]),
            }
        # what a reader of this week's report misses: this week's papers still waiting after the update
        this_week = set(papers.loc[papers[Papers.week] == week, Papers.paper_id]) & set(now.index)
        ordinary = sorted(this_week - sets["field"] - sets["method"])
        row["week_waiting"] = round(float((now.loc[ordinary] == -1).mean()), 3) if ordinary else 0.0
        by_update = {int(b["to_topic"]) for _, b in births.iterrows() if b["mode"] == "update"}
        row["spurious"] = sum(max(s.values()) < 0.5 for t, s in share_of.items() if t in by_update)
        row["refit"] = refit
        for name, ids in sets.items():  # each planted paper's theme after this week (-1: pool or unassigned)
            for paper in sorted(ids & set(now.index)):
                trace.setdefault(name, {}).setdefault(paper, {})[week] = int(now.loc[paper])
        report["weeks"].append(row)
        print(json.dumps({k: row[k] for k in ("week", "seconds", "moved", "unassigned", "week_waiting", "spurious",
                                              "sets")}),
              flush=True)
        before = now
    report["moved_total"] = moved_total
    report["refit_moved"] = refit_moved
    report["refit_weeks"] = [w["week"] for w in report["weeks"] if w.get("refit")]
    report["trace"] = trace
    report["born"] = {int(b["topic"]): b["week"] for w in report["weeks"] for b in w["births"]}
    report["median_update_s"] = statistics.median(w["seconds"] for w in report["weeks"])
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = (f"emergence-{args.period}{'-subject' if args.field_by_subject else ''}"
            f"{'-abstract' if args.method_by_abstract else ''}{'-csdc' if args.field_csdc else ''}"
            f"{f'-sample{args.sample_seed}' if args.sample_seed else ''}"
            + "".join(f"-{k}={v}" for k, v in sorted(overrides.items())))
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=1, default=str))
    (RESULTS / f"{name}.md").write_text(markdown(report))
    print(markdown(report))


def markdown(report: dict) -> str:
    weeks = report["weeks"]
    lines = [f"Period {report['period']}: fit {report['fit_weeks'][0]}..{report['fit_weeks'][1]} "
             f"({report['fit']['papers']} papers, {report['fit']['themes']} themes), stream {weeks[0]['week']}.."
             f"{weeks[-1]['week']}; planted field {report['field']}, method /{report['method']}/", "",
             "| planted set | papers | first birth | captured wk1 | wk2 | last week | last week, in born themes naming it | label names it | labels |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in ("field", "method"):
        per = [w["sets"][name] for w in weeks]
        born = next((w["week"] for w, s in zip(weeks, per) if s["themes"]), "none")
        lines.append(f"| {name} | {per[-1]['arrived']} | {born} | {per[0]['captured']:.0%} | "
                     f"{per[1]['captured'] if len(per) > 1 else 0:.0%} | {per[-1]['captured']:.0%} | "
                     f"{per[-1].get('in_naming', 0):.0%} | "
                     f"{'yes' if per[-1]['named'] else 'no'} | {'; '.join(per[-1]['labels'])} |")
    spurious = weeks[-1]["spurious"]
    shares = [w["week_waiting"] for w in weeks if "week_waiting" in w]  # results from before the measure lack it
    waiting = (f"the week's unplanted papers unassigned (waiting) after its update: median "
               f"{statistics.median(shares):.1%}, max {max(shares):.1%}" if shares else "the week's waiting papers: n/a")
    lines += ["", f"Spurious births: {spurious} in {len(weeks)} weeks ({spurious / len(weeks) * 4:.1f} per 4 weeks); "
              f"papers placed earlier that moved: {report['moved_total']}"
              + (f" (and {report['refit_moved']} in the refit that followed the update of "
                 f"{', '.join(report['refit_weeks'])}: a theme past the size bound)" if report.get("refit_weeks") else "")
              + "; unassigned after each week (pool "
              f"included): max {max(w['unassigned'] for w in weeks):.1%}; {waiting}; update seconds: median "
              f"{report['median_update_s']:.1f}", "", "| born | week | relation | size | field share | method share | label |",
              "|---|---|---|---|---|---|---|"]
    for b in weeks[-1]["births"]:
        lines.append(f"| {b['topic']} | {b['week']} | {b['relation']}{' (refit)' if b.get('mode') == 'refit' else ''}"
                     f"{' of ' + str(b['parent']) if b['parent'] is not None else ''} | {b['size']} | "
                     f"{b['share_field']:.0%} | {b['share_method']:.0%} | {b['label']} |")
    lines += ["", "Where the planted papers went (on arrival -> after the last week):", "",
              "| planted set | old theme on arrival | pool -> old theme | still waiting | pool -> born theme | "
              "born theme on arrival |", "|---|---|---|---|---|---|"]
    for name, counts in fates(report).items():
        total = sum(counts.values()) or 1
        lines.append(f"| {name} | " + " | ".join(
            f"{counts[k]} ({counts[k] / total:.0%})" for k in ("old", "pool>old", "pool>pool", "pool>born", "born")) + " |")
    return "\n".join(lines) + "\n"


def fates(report: dict) -> dict[str, dict[str, int]]:
    """For each planted set: how many papers an old theme took on arrival, how many waited in the pool
    and then went to an old theme (the cap on unassigned papers, or too old for the pool), are still
    waiting, went from the pool to a theme born in the stream, or joined such a theme on arrival."""
    born = {int(t): week for t, week in report.get("born", {}).items()}
    out = {}
    for name, papers in report.get("trace", {}).items():
        counts = dict.fromkeys(("old", "pool>old", "pool>pool", "pool>born", "born"), 0)
        for weeks in papers.values():
            arrived, last = min(weeks), max(weeks)
            first, end = weeks[arrived], weeks[last]
            if first != -1:
                counts["born" if first in born and born[first] <= arrived else "old"] += 1
            else:
                counts["pool>pool" if end == -1 else "pool>born" if end in born else "pool>old"] += 1
        out[name] = counts
    return out


if __name__ == "__main__":
    main()
