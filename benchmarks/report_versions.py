"""Benchmark: one weekly report by two versions of the code, side by side.

The other revision is checked out in a temporary git worktree; both run ``python -m pipeline ...
report weekly --week W --force`` in fresh processes on the same store, alternated (old, new, old, new,
...), with and without a watched-themes file; one warm-up run of each first (a version whose
watched-readings format differs reads every paper once). Medians of ``--repeat``.

    python benchmarks/report_versions.py --old 38a4009 --root /tmp/pt-bench-trends/stream-daily \
        --week 2025-W50 [--watch benchmarks/watched/daily.toml] [--repeat 5]

Prints a table; writes benchmarks/results/report_versions.json. Use one machine, nothing else
running: the figures are to be read within one run, as ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(code: Path, root: Path, week: str, config: Path | None) -> float:
    extra = ["--config", str(config)] if config else []
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline", "--root", str(root), *extra, "-q", "report", "weekly",
                    "--week", week, "--force"], cwd=code, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the git revision to compare with the working tree")
    ap.add_argument("--root", type=Path, required=True, help="a project whose topics stage has run")
    ap.add_argument("--week", default="2025-W50")
    ap.add_argument("--watch", type=Path, help="a TOML file with [report.watch]")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    watch = args.watch.resolve() if args.watch else None
    with tempfile.TemporaryDirectory() as scratch:
        old = Path(scratch) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), args.old], cwd=REPO, check=True)
        try:
            versions = {"old": old, "new": REPO}
            configs = {"with watched themes": watch, "without": None} if watch else {"without": None}
            for code in versions.values():  # warm-up
                for config in configs.values():
                    timed(code, args.root, args.week, config)
            walls: dict = {(v, c): [] for v in versions for c in configs}
            for _ in range(args.repeat):
                for c, config in configs.items():
                    for v, code in versions.items():
                        walls[(v, c)].append(timed(code, args.root, args.week, config))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=REPO, check=False)
    result = {"old": args.old, "week": args.week, "root": str(args.root), "repeat": args.repeat,
              "medians_s": {f"{v} {c}": round(statistics.median(w), 2) for (v, c), w in walls.items()},
              "all_s": {f"{v} {c}": [round(x, 2) for x in w] for (v, c), w in walls.items()}}
    print(f"| | {args.old} | working tree | ratio |\n|---|---:|---:|---:|")
    for c in configs:
        a, b = statistics.median(walls[("old", c)]), statistics.median(walls[("new", c)])
        print(f"| {c} | {a:.2f} s | {b:.2f} s | {a / b:.2f} |")
    out = REPO / "benchmarks" / "results" / "report_versions.json"
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
