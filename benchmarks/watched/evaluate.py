"""Precision and recall of the watched-theme matching on the hand-labelled cs.DC set (README.md here).

Tune split: papers of 2025-W23..W39 (the thresholds were chosen on it); report split: W40 on.
Embeddings come from the stream's cache (``benchmarks/trends_stream.py --corpus csdc`` made it).

    python benchmarks/watched/evaluate.py [--work /tmp/pt-bench-trends]

Results: benchmarks/results/watched-csdc.json and .md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
KEYS = {"MoE serving": "moe_serving", "Edge offloading": "edge_offloading",
        "Federated learning": "federated_learning", "Collective communication": "collective_communication"}
SPLIT = "2025-W40"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    args = ap.parse_args()
    import pandas as pd

    from pipeline import config
    from pipeline.report.watched import match
    from pipeline.topics.embed import EmbeddingCache, make_embedder, paper_texts
    from trends_stream import corpus_papers

    watch = tomllib.loads((HERE / "csdc.toml").read_text())["report"]["watch"]
    report_cfg = config.ReportConfig()
    papers = corpus_papers("csdc", args.work).reset_index(drop=True)
    cfg = config.load(args.work / "stream-csdc")
    embedder = make_embedder(cfg.topics)
    cache = EmbeddingCache(cfg.paths.embeddings, embedder.identity)
    vectors, _ = cache.embed(paper_texts(papers), embedder)
    sentences, _ = cache.embed(list(watch.values()), embedder)
    found = match(papers["title"] + " " + papers["abstract"], vectors, watch, sentences,
                  z_alone=report_cfg.watch_z, z_words=report_cfg.watch_z_words)
    labels = pd.DataFrame([json.loads(line) for line in (HERE / "labels_csdc.jsonl").read_text().splitlines()])
    at = papers.reset_index().set_index("paper_id").loc[labels["id"]]
    rows, split = at["index"].to_numpy(), (at["week"] >= SPLIT).map({True: "report", False: "tune"}).to_numpy()
    result = {"thresholds": {"watch_z": report_cfg.watch_z, "watch_z_words": report_cfg.watch_z_words},
              "papers": len(labels), "by_split": {}}
    lines = ["| split | watched theme | labelled positive | matched | precision | recall |", "|---|---|---|---|---|---|"]
    for part in ("tune", "report"):
        mask = split == part
        tp = fp = fn = 0
        for name, key in KEYS.items():
            truth = labels[key].to_numpy()[mask] == 1
            pred = found.on[name].to_numpy()[rows][mask]
            a, b, c = int((pred & truth).sum()), int((pred & ~truth).sum()), int((~pred & truth).sum())
            tp, fp, fn = tp + a, fp + b, fn + c
            p, r = a / max(a + b, 1), a / max(a + c, 1)
            result["by_split"].setdefault(part, {})[name] = {"positives": int(truth.sum()), "matched": a + b,
                                                              "precision": round(p, 3), "recall": round(r, 3)}
            lines.append(f"| {part} | {name} | {int(truth.sum())} | {a + b} | {p:.2f} | {r:.2f} |")
        p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
        result["by_split"][part]["all (pooled)"] = {"precision": round(p, 3), "recall": round(r, 3)}
        lines.append(f"| {part} | **all, pooled** | {tp + fn} | {tp + fp} | {p:.2f} | {r:.2f} |")
    out = REPO / "benchmarks" / "results"
    (out / "watched-csdc.json").write_text(json.dumps(result, indent=1))
    (out / "watched-csdc.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
