"""Benchmark: the report stage on the 2025 corpus, once topics exist.

Each report is written by ``paper-trends report …`` in a fresh process (so imports and reading the
tables count, as they do for a user); medians over --repeat runs. Targets: a weekly report in
10 s or less, the whole-year survey in 60 s or less.

    python benchmarks/report.py [--root /tmp/pt-bench-topics/scale] [--weeks 2025-W22,2025-W36,2025-W52] [--repeat 3]

``--root`` is a project whose topics stage has run on the corpus; by default the one that
``benchmarks/topics.py --phases scale`` leaves behind. Results go to benchmarks/results/report.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from topics import CLI, REPO, run_child

RESULTS = REPO / "benchmarks" / "results" / "report.json"
TARGETS_S = {"weekly": 10.0, "survey": 60.0}


def timed(root: Path, repeat: int, *args: str) -> dict:
    walls, rss = [], []
    for _ in range(repeat):
        wall, peak, _ = run_child(CLI, "--root", str(root), "-q", "report", *args)
        walls.append(wall)
        rss.append(peak)
    return {"wall_s_median": round(statistics.median(walls), 2), "wall_s_all": [round(w, 2) for w in walls],
            "peak_rss_mib": round(max(rss))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "pt-bench-topics" / "scale")
    parser.add_argument("--weeks", default="2025-W22,2025-W36,2025-W52")
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    if not (opts.root / "data" / "processed" / "topic_info.parquet").exists():
        raise SystemExit(f"{opts.root}: no topics yet; run `python benchmarks/topics.py --phases scale` first")
    results: dict = {"root": str(opts.root), "weekly": {}}
    for week in opts.weeks.split(","):
        results["weekly"][week] = timed(opts.root, opts.repeat, "weekly", "--week", week)
    results["survey"] = timed(opts.root, opts.repeat, "survey")
    worst_weekly = max(r["wall_s_median"] for r in results["weekly"].values())
    results["verdict"] = {
        "weekly_worst_median_s": worst_weekly, "weekly_target_s": TARGETS_S["weekly"],
        "weekly_ok": worst_weekly <= TARGETS_S["weekly"],
        "survey_median_s": results["survey"]["wall_s_median"], "survey_target_s": TARGETS_S["survey"],
        "survey_ok": results["survey"]["wall_s_median"] <= TARGETS_S["survey"],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
