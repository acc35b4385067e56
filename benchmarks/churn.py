"""Benchmark: does a refit after one more week keep the themes people already read?

For each corpus (the cs.DC listings and the 4,000-paper sample of the 2025 corpus, as in
``benchmarks/themes.py``): fit the themes on every week but the last, add the last week, and refit
(``paper-trends topics --refit``, what the automatic refit runs). Measured: the share of the papers
placed before that keep their theme id, the share of the themes that keep their label, the lineage
of the refit, and the same for a refit that lets every paper move (``refit_keeps_placed=false``,
i.e. a cold fit aligned to the old themes, as before).

    python benchmarks/churn.py [--corpora csdc,daily4000] [--sample N]

``--sample N`` fits both times on a sample of N papers and places the rest (``fit_sample_size``, the
path of corpora larger than 50,000 papers), so that path's refit is measured on a corpus of this size.

Results: benchmarks/results/churn.json and churn.md (churn-sample<N>.* with --sample).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def measure(source: Path, root: Path, keeps_placed: bool, embedder, sample: int = 0) -> dict:  # noqa: ANN001
    from pipeline import config, topics
    from pipeline.io import read_table, write_table
    from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage

    papers = read_table(source / "data" / "processed" / "papers.parquet", Papers)
    last = papers[Papers.week].max()
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(source / "data" / "interim" / "embeddings", root / "data" / "interim" / "embeddings")
    cfg = config.load(root)
    cfg = dataclasses.replace(cfg, topics=dataclasses.replace(cfg.topics, refit_keeps_placed=keeps_placed,
                                                              fit_sample_size=sample or cfg.topics.fit_sample_size))
    write_table(papers[papers[Papers.week] < last].reset_index(drop=True), cfg.paths.papers, Papers)
    topics.run(cfg, embedder=embedder)
    before = read_table(cfg.paths.doc_topics, DocTopics).set_index(DocTopics.paper_id)[DocTopics.topic]
    labels_before = read_table(cfg.paths.topic_info, TopicInfo).set_index(TopicInfo.topic)[TopicInfo.label]
    write_table(papers, cfg.paths.papers, Papers)
    topics.run(cfg, refit=True, embedder=embedder)
    after = read_table(cfg.paths.doc_topics, DocTopics).set_index(DocTopics.paper_id)[DocTopics.topic]
    labels_after = read_table(cfg.paths.topic_info, TopicInfo).set_index(TopicInfo.topic)[TopicInfo.label]
    lineage = read_table(cfg.paths.topic_lineage, TopicLineage)
    refit = lineage[lineage["mode"] == "refit"]
    placed = before[before >= 0].index
    same_label = sum(labels_after.get(t) == label for t, label in labels_before.items())
    return {
        "papers_before": int(len(before)), "added_week": last, "added_papers": int(len(after) - len(before)),
        "themes_before": int(len(labels_before)), "themes_after": int(len(labels_after)),
        "placed_kept_id": round(float((after.loc[placed] == before.loc[placed]).mean()), 4),
        "themes_kept_label": round(same_label / max(len(labels_before), 1), 4),
        "lineage": {k: int(v) for k, v in refit["relation"].value_counts().items()},
        "unassigned_after": round(float((after == -1).mean()), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="csdc,daily4000")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-topics"),
                    help="where benchmarks/themes.py keeps its corpora (made here if missing)")
    ap.add_argument("--sample", type=int, default=0, help="fit on a sample of this many papers, place the rest")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from themes import corpus_root

    from pipeline import config, topics

    embedder = topics.make_embedder(config.TopicsConfig())
    results = {}
    for name in args.corpora.split(","):
        source = corpus_root(name, args.work)
        if not (source / "data" / "interim" / "embeddings").exists():  # embed the corpus once
            topics.run(config.load(source), embedder=embedder)
        results[name] = {mode: measure(source, args.work / f"churn-{name}", mode == "keeps placed", embedder,
                                       args.sample)
                         for mode in ("keeps placed", "cold refit")}
        print(json.dumps({name: results[name]}), flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = f"churn-sample{args.sample}" if args.sample else "churn"
    (RESULTS / f"{stem}.json").write_text(json.dumps(results, indent=1))
    lines = ["| corpus | refit | papers before + added | placed papers keeping their theme | themes keeping their label "
             "| themes before → after | lineage |", "|---|---|---|---|---|---|---|"]
    for name, modes in results.items():
        for mode, r in modes.items():
            lineage = ", ".join(f"{k} {v}" for k, v in sorted(r["lineage"].items()))
            lines.append(f"| {name} | {mode} | {r['papers_before']} + {r['added_papers']} ({r['added_week']}) | "
                         f"{r['placed_kept_id']:.1%} | {r['themes_kept_label']:.1%} | {r['themes_before']} → "
                         f"{r['themes_after']} | {lineage} |")
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
