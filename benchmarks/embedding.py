"""Benchmark: embedding throughput of the plain-torch encoder, by precision (float32, bfloat16 under
autocast) and with its feed-forward block run in chunks of token rows (``pipeline.topics.bert.FF_ROWS``)
against the whole batch at once.

One process, the model loaded once per precision, the same papers of the 2025 daily corpus each
time; the settings alternate (for each precision: whole batch, then each chunk size; again)
``--repeat`` times; medians, the ratio to float32's whole batch, the largest difference to the whole
batch of the same precision, and the lowest cosine to float32's whole-batch vectors.

    python benchmarks/embedding.py [--papers 1000] [--rows 256,512,1024] [--precisions float32,bfloat16] [--repeat 3]

bfloat16 is fast only on a CPU that computes it natively (``pipeline.topics.hardware.cpu_has_bf16``).
Results: benchmarks/results/embedding.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "embedding.json"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--rows", default="256,512,1024", help="chunk sizes to compare with the whole batch")
    parser.add_argument("--precisions", default="float32", help="float32, bfloat16 or both, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-topics"))
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import numpy as np

    from pipeline.io import read_table
    from pipeline.schemas import Papers
    from pipeline.topics import bert
    from pipeline.config import TopicsConfig
    from pipeline.topics.embed import make_embedder, paper_texts
    from pipeline.topics.hardware import cpu_has_bf16
    from topics import prepare

    papers = read_table(prepare(args.work), Papers).sample(args.papers, random_state=1)
    texts = paper_texts(papers)
    embedders = {p: make_embedder(dataclasses.replace(TopicsConfig(), precision=p)) for p in args.precisions.split(",")}
    for embedder in embedders.values():
        embedder.encode(texts[:8])  # the model loaded, outside the timing
    chunks = {"whole batch": 1 << 30, **{f"{n} rows": int(n) for n in args.rows.split(",") if n}}
    settings = {f"{p}, {name}": (p, rows) for p in embedders for name, rows in chunks.items()}
    seconds: dict[str, list[float]] = {name: [] for name in settings}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeat):
        for name, (precision, rows) in settings.items():
            bert.FF_ROWS = rows
            start = time.perf_counter()
            vectors[name] = embedders[precision].encode(texts)
            seconds[name].append(time.perf_counter() - start)
            print(name, round(seconds[name][-1], 2), flush=True)
    first = next(iter(settings))
    base = statistics.median(seconds[first])
    result = {"papers": args.papers, "repeat": args.repeat, "cpu_has_bf16": cpu_has_bf16(), "baseline": first,
              "settings": {
        name: {"seconds_median": round(statistics.median(s), 2), "seconds_all": [round(x, 2) for x in s],
               "papers_per_s": round(args.papers / statistics.median(s), 1),
               "ratio_to_baseline": round(statistics.median(s) / base, 3),
               "max_abs_diff_to_whole_batch": float(np.abs(vectors[name] - vectors[f"{settings[name][0]}, whole batch"]).max()),
               "min_cosine_to_baseline": float((vectors[name] * vectors[first]).sum(axis=1).min())}
        for name, s in seconds.items()}}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
