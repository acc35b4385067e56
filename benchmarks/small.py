"""Benchmark: how many UMAP layouts does a corpus of a given size need? Leiden on the papers'
neighbour graph joined by the neighbours of 3 layouts (what a fit does today), of fewer, or of none,
on samples of a project whose embeddings are cached (``benchmarks/themes.py`` makes them; for the
whole year, ``benchmarks/topics.py --phases scale``).

For each size and sample (seeded), both are fitted with two seeds: homogeneity and NMI against the
papers' primary arXiv categories (seed 42), the two seeds' agreement (ARI), the number of themes and
the clustering's time. Medians over the samples.

    python benchmarks/small.py --project /tmp/pt-bench-topics/heldout4000 --sizes 94,200,400,800,1500 --samples 8
    python benchmarks/small.py --project /tmp/pt-bench-topics/scale --sizes 40000 --samples 1 --layouts 3,1
    python benchmarks/small.py --project /tmp/pt-bench-topics/daily4000 --sizes 1000,3000 --samples 3 --layouts 3 --epochs 0,200

Results go to benchmarks/results/small.json and small.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline import config  # noqa: E402
from pipeline.io import read_table  # noqa: E402
from pipeline.schemas import Papers  # noqa: E402
from pipeline.topics.clustering import components as clustering  # noqa: E402
from pipeline.topics.embedding.embed import EmbeddingCache, make_embedder, paper_texts  # noqa: E402
from pipeline.topics.clustering.graph import LeidenThemes  # noqa: E402
from pipeline.topics.quality.metrics import agreement, information  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def fit(x: np.ndarray, cfg, seed: int, layouts: int, epochs: int = 0) -> tuple[np.ndarray, float]:  # noqa: ANN001
    n = len(x)
    sizes = clustering.scaled(n, cfg)
    start = time.perf_counter()
    maps = [clustering.umap_model(n, sizes, cfg, s) for s in clustering.layout_seeds(seed)[:layouts]]
    for m in maps:
        m.n_epochs = epochs or None  # None: UMAP's own choice (500 below 10,000 points, 200 above)
    model = LeidenThemes(n_neighbors=cfg.graph_neighbors, resolution=sizes.resolution, runs=clustering.CONSENSUS_RUNS,
                         min_cluster_size=sizes.min_cluster_size, max_cluster_size=max(int(n * cfg.max_theme_share), 1),
                         layout=maps or None, random_state=seed)
    labels = model.fit(x).labels_
    return labels, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--sizes", default="94,200,400,800,1500")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--layouts", default="3,0", help="UMAP layouts to compare (3: what a fit does)")
    parser.add_argument("--epochs", default="0", help="UMAP epochs to compare (0: UMAP's own choice, what a fit does)")
    args = parser.parse_args()
    cfg = config.load(args.project)
    papers = read_table(cfg.paths.papers, Papers)
    identity = make_embedder(cfg.topics).identity
    cache = EmbeddingCache(cfg.paths.embeddings, identity)

    class Cached:  # every vector is in the cache: embedding anything is a mistake
        def encode(self, texts):  # noqa: ANN001, ANN202
            raise RuntimeError(f"{len(texts)} texts are not in the cache of {identity}")

    vectors, _ = cache.embed(paper_texts(papers), Cached())
    categories = papers[Papers.primary_category].fillna("none").to_numpy()
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        for sample in range(args.samples):
            pick = np.random.default_rng(1000 + sample).choice(len(papers), size=n, replace=False)
            x, cats = vectors[pick], categories[pick]
            settings = {(int(k), int(e) if int(k) else 0) for k in args.layouts.split(",") for e in args.epochs.split(",")}
            for layouts, epochs in sorted(settings, reverse=True):  # epochs mean nothing without layouts
                a, seconds = fit(x, cfg.topics, 42, layouts, epochs)
                b, _ = fit(x, cfg.topics, 7, layouts, epochs)
                info = information(a, cats)
                rows.append({"n": n, "sample": sample, "layouts": layouts, "epochs": epochs,
                             "themes": int(len(set(a) - {-1})),
                             "homogeneity": info["homogeneity"], "nmi": agreement(a, cats)[0], "ari_seeds": agreement(a, b)[1],
                             "seconds": seconds})
                print(json.dumps(rows[-1]), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "small.json").write_text(json.dumps(rows, indent=1))
    lines = ["| papers | layouts | epochs | themes | homogeneity | NMI | ARI, two seeds | clustering s |",
             "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for n in sorted({r["n"] for r in rows}):
        for layouts, epochs in sorted({(r["layouts"], r["epochs"]) for r in rows}, reverse=True):
            part = [r for r in rows if r["n"] == n and r["layouts"] == layouts and r["epochs"] == epochs]
            med = lambda k: statistics.median(r[k] for r in part)  # noqa: E731
            lines.append(f"| {n:,} | {layouts or 'none'} | {epochs or 'UMAP'} | {med('themes'):.0f} | {med('homogeneity'):.3f} | "
                         f"{med('nmi'):.3f} | {med('ari_seeds'):.3f} | {med('seconds'):.2f} |")
    (RESULTS / "small.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
