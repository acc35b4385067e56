"""Benchmark: themes for corpora far larger than a year of one field, on one machine.

Above ``fit_sample_size`` papers (default 50,000) the themes are fitted on a seeded sample and every
other paper is placed by its nearest centroid (``topics.fitting.place_rest``). This measures that
path, fit + place and the naming of the areas at the end of the run (``names.name_run``, timed apart too), on synthetic clustered unit vectors (``--sizes``, default 200,000 and 1,000,000;
300 groups of uneven size in 384 dimensions, each with its own small vocabulary so the themes can be
named), each size in a fresh process: wall time, peak RSS, themes, unassigned share, the largest
theme's share, and how pure the themes are (share of papers in their theme's majority group). Label faithfulness is not checked
(no sentence model is loaded), so naming is a little cheaper than in a real run.

It also measures embedding throughput (papers per second, title + abstract, the default 128 tokens)
on ``--embed`` papers of the 2025 daily corpus and projects the Kaggle arXiv snapshot (2.7 M papers):
embedding at that rate plus fit and place at the measured per-paper cost of the largest size.

It also measures the embedding cache (``--cache``, default 1,000,000 vectors of 384 dimensions,
written by the topics stage's chunks of 2,048): looking all of them up again in a fresh process,
wall time and peak RSS against the size of the result. The shards are memory-mapped, so the peak
should be the result plus the hash index, not twice the vectors.

    python benchmarks/scale.py [--sizes 200000,1000000] [--embed 1000] [--cache 1000000]

Results: benchmarks/results/scale.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "scale.json"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from topics import prepare, run_child  # noqa: E402

SNAPSHOT = 2_700_000

FIT_AND_PLACE = r"""
import json, sys, time
import numpy as np
from pipeline.config import TopicsConfig
from pipeline.topics.clustering.fitting import fit
from pipeline.topics.naming.names import name_run

n, groups, dims = int(sys.argv[1]), 300, 384
rng = np.random.default_rng(0)
centres = rng.normal(size=(groups, dims)).astype(np.float32)
weights = rng.pareto(1.5, groups) + 1
truth = rng.choice(groups, size=n, p=weights / weights.sum())
vectors = np.empty((n, dims), dtype=np.float32)
for start in range(0, n, 100_000):  # in blocks: never two copies of the matrix
    part = slice(start, start + 100_000)
    block = centres[truth[part]] + rng.normal(scale=0.9, size=(len(truth[part]), dims)).astype(np.float32)
    vectors[part] = block / np.linalg.norm(block, axis=1, keepdims=True)
words = [[f"w{g}x{j}" for j in range(8)] for g in range(groups)]
common = [f"common{j}" for j in range(50)]
def text(i):
    own = words[truth[i]]
    return f"{own[i % 8]} {own[(i // 8) % 8]}. " + " ".join(own[(i + k) % 8] if k % 2 else common[(i * 7 + k) % 50] for k in range(12))
texts = [text(i) for i in range(n)]
ids = [f"p{i}" for i in range(n)]
started = time.perf_counter()
result = fit(texts, vectors, ids, TopicsConfig(), "synthetic", None, {}, embed=None)
fitted = time.perf_counter() - started
name_run(result, texts, None, TopicsConfig())  # the areas, named at the end as a run does (no model: no faithfulness check)
seconds = time.perf_counter() - started
topics = result.topics
assigned = topics != -1
majority = sum(np.bincount(truth[topics == t]).max() for t in set(topics.tolist()) - {-1})
print(json.dumps({"papers": n, "fit_and_place_s": round(seconds, 1), "of_which_naming_areas_s": round(seconds - fitted, 1),
                  "themes": len(result.state.ids),
                  "unassigned": round(float((~assigned).mean()), 4),
                  "largest_theme_share": round(float(np.bincount(topics[assigned]).max() / n), 4),
                  "purity": round(float(majority / max(assigned.sum(), 1)), 3)}))
"""

EMBED = r"""
import json, sys, time
import pandas as pd
from pipeline.config import TopicsConfig
from pipeline.topics.embedding.embed import make_embedder, paper_texts
papers = pd.read_parquet(sys.argv[1]).sample(int(sys.argv[2]), random_state=0)
texts = paper_texts(papers)
embedder = make_embedder(TopicsConfig())
embedder.encode(texts[:8])  # the model loaded, outside the timing
started = time.perf_counter()
embedder.encode(texts)
print(json.dumps({"papers": len(texts), "papers_per_s": round(len(texts) / (time.perf_counter() - started), 1)}))
"""

CACHE = r"""
import json, resource, sys, time
from pathlib import Path
import numpy as np
from pipeline.topics.embedding.embed import EmbeddingCache

class Synthetic:
    identity = "synthetic-384"
    def encode(self, texts):
        rng = np.random.default_rng(len(texts))
        v = rng.normal(size=(len(texts), 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

folder, n, mode = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
texts = [f"paper {i}" for i in range(n)]
started = time.perf_counter()
vectors, embedded = EmbeddingCache(folder, Synthetic.identity).embed(texts, Synthetic())
print(json.dumps({"mode": mode, "vectors": n, "embedded_now": embedded, "seconds": round(time.perf_counter() - started, 1),
                  "result_mib": round(vectors.nbytes / 2**20),
                  "shards": len(list((folder / Synthetic.identity).glob("shard-*.hashes.npy")))}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--embed", type=int, default=1000, help="papers to measure embedding throughput on (0: skip)")
    parser.add_argument("--cache", type=int, default=1_000_000, help="vectors for the embedding-cache lookup (0: skip)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-topics"))
    args = parser.parse_args()
    results: dict = {"sizes": []}
    for size in [int(s) for s in args.sizes.split(",") if s]:
        wall, rss, out = run_child(FIT_AND_PLACE, str(size))
        row = {**out, "wall_s": round(wall, 1), "peak_rss_mib": round(rss)}
        print(json.dumps(row), flush=True)
        results["sizes"].append(row)
    if args.embed:
        _, _, out = run_child(EMBED, str(prepare(args.work)), str(args.embed))
        results["embedding"] = out
        print(json.dumps(out), flush=True)
        if results["sizes"]:
            largest = max(results["sizes"], key=lambda r: r["papers"])
            per_paper = largest["fit_and_place_s"] / largest["papers"]
            embed_h = SNAPSHOT / out["papers_per_s"] / 3600
            results["kaggle_projection"] = {
                "papers": SNAPSHOT, "embedding_h": round(embed_h, 1),
                "fit_and_place_h": round(SNAPSHOT * per_paper / 3600, 2),
                "note": "fit on the same sample; placement grows linearly, so per-paper cost of the largest size overstates it",
            }
            print(json.dumps(results["kaggle_projection"]), flush=True)
    if args.cache:
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="pt-cache-", dir=args.work if args.work.is_dir() else None))
        try:
            _, write_rss, written = run_child(CACHE, str(folder), str(args.cache), "write")
            wall, rss, read = run_child(CACHE, str(folder), str(args.cache), "lookup")
            _, empty_rss, _ = run_child(CACHE, str(folder), "0", "baseline")  # the interpreter and imports
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        results["cache"] = {**read, "write_s": written["seconds"], "shards": written["shards"], "wall_s": round(wall, 1),
                            "peak_rss_mib": round(rss), "baseline_rss_mib": round(empty_rss),
                            "peak_over_result": round((rss - empty_rss) / max(read["result_mib"], 1), 2)}
        print(json.dumps(results["cache"]), flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
