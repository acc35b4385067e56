"""Benchmark: embedding throughput of the plain-torch encoder with its feed-forward block run in
chunks of token rows (``pipeline.topics.bert.FF_ROWS``) against the whole batch at once.

One process, the model loaded once, the same papers of the 2025 daily corpus each time; the
settings alternate (whole batch, then each chunk size, again) ``--repeat`` times; medians, the
ratio to the whole batch, and whether the vectors are the same.

    python benchmarks/embedding.py [--papers 1000] [--rows 256,512,1024] [--repeat 3]

Results: benchmarks/results/embedding.json.
"""

from __future__ import annotations

import argparse
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
    from topics import prepare

    papers = read_table(prepare(args.work), Papers).sample(args.papers, random_state=1)
    texts = paper_texts(papers)
    embedder = make_embedder(TopicsConfig())
    embedder.encode(texts[:8])  # the model loaded, outside the timing
    settings = {"whole batch": 1 << 30, **{f"{n} rows": int(n) for n in args.rows.split(",")}}
    seconds: dict[str, list[float]] = {name: [] for name in settings}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeat):
        for name, rows in settings.items():
            bert.FF_ROWS = rows
            start = time.perf_counter()
            vectors[name] = embedder.encode(texts)
            seconds[name].append(time.perf_counter() - start)
            print(name, round(seconds[name][-1], 2), flush=True)
    whole = statistics.median(seconds["whole batch"])
    result = {"papers": args.papers, "repeat": args.repeat, "settings": {
        name: {"seconds_median": round(statistics.median(s), 2), "seconds_all": [round(x, 2) for x in s],
               "papers_per_s": round(args.papers / statistics.median(s), 1),
               "ratio_to_whole_batch": round(statistics.median(s) / whole, 3),
               "max_abs_diff": float(np.abs(vectors[name] - vectors["whole batch"]).max())}
        for name, s in seconds.items()}}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
