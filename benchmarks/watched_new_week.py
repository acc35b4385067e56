"""Benchmark: the weekly report with watched themes when a week's papers are new to it.

The watched themes' readings are kept per paper (``data/interim/watched/``), so a report of a store
whose papers are all kept reads no abstract. The first report after a week's listings arrive reads
the abstracts and loads the vectors of that week's papers. This script times both, in fresh
processes, alternated: "kept" (every paper kept), and "week new" (the week's papers removed from the
kept tables just before the run, as after the clean stage has added them).

    python benchmarks/watched_new_week.py --root /tmp/pt-bench-trends/stream-daily \
        --week 2025-W50 --watch benchmarks/watched/daily4.toml [--repeat 5]

Prints the medians; use one machine, nothing else running, and read the two within one run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def timed(root: Path, week: str, watch: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline", "--root", str(root), "--config", str(watch), "-q", "report",
                    "weekly", "--week", week, "--force"], cwd=REPO, check=True, capture_output=True)
    return time.perf_counter() - start


def forget(root: Path, keys: np.ndarray) -> int:
    """Remove the papers of ``keys`` from every kept table of the store; rows removed."""
    removed = 0
    for path in sorted((root / "data" / "interim" / "watched").glob("*.parquet")):
        table = pd.read_parquet(path)
        if "key" not in table:  # an older format's table, which no report reads
            continue
        keep = ~table["key"].isin(keys)
        removed += int((~keep).sum())
        table[keep].to_parquet(path, index=False)
    return removed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True, help="a project whose topics stage has run")
    ap.add_argument("--week", default="2025-W50")
    ap.add_argument("--watch", type=Path, required=True, help="a TOML file with [report.watch]")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    papers = pd.read_parquet(args.root / "data" / "processed" / "papers.parquet", columns=["week", "text_hash"])
    keys = papers.loc[papers["week"] == args.week, "text_hash"].to_numpy(dtype=np.uint64)
    timed(args.root, args.week, args.watch)  # warm-up: every paper kept
    walls: dict[str, list[float]] = {"kept": [], "week new": []}
    for _ in range(args.repeat):
        walls["kept"].append(timed(args.root, args.week, args.watch))
        removed = forget(args.root, keys)
        walls["week new"].append(timed(args.root, args.week, args.watch))
    print(f"{args.week}: {len(keys)} papers, {removed} kept rows removed before each 'week new' run")
    for name, values in walls.items():
        print(f"{name}: median {statistics.median(values):.2f} s, all {[round(v, 2) for v in values]}")


if __name__ == "__main__":
    main()
