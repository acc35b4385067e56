"""Benchmark: ingest + clean of the full daily corpus, and a 1-million-line Kaggle-format file.

Targets (issue #2): the daily corpus (228 files, ~57k records) ingests and cleans in <= 30 s wall with
<= 2 GB peak RSS on the 2-core machine; a 1M-line Kaggle snapshot filtered to one category peaks
at <= 1 GB RSS. Each measurement runs the real CLI in a fresh process (``--force``, so nothing is
skipped) and reads that process's own peak RSS from ``wait4``. Medians over ``--repeat`` runs.

    python benchmarks/ingest.py [--repeat 3] [--kaggle-lines 1000000] [--skip-kaggle]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
CORPUS = SHARED / "arxiv-daily"
KAGGLE_SAMPLE = SHARED / "formats" / "arxiv-metadata-oai-snapshot_head200.jsonl"


def measure_rss(args: list[str]) -> tuple[float, float, str]:
    """Run ``paper-trends ARGS`` in a fresh child process: wall seconds, its peak RSS (MiB), its log."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: become the CLI
        os.chdir(REPO)
        devnull = os.open(os.devnull, os.O_WRONLY)
        log = os.open(os.path.join(tempfile.gettempdir(), f"pt-bench-{os.getpid()}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(devnull, 1)
        os.dup2(log, 2)
        os.execv(sys.executable, [sys.executable, "-m", "pipeline", "-q", *args])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    log_path = Path(tempfile.gettempdir()) / f"pt-bench-{pid}.log"
    stderr = log_path.read_text(encoding="utf-8", errors="replace").strip()
    log_path.unlink(missing_ok=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"benchmark command failed: paper-trends {' '.join(args)}\n{stderr}")
    return wall, usage.ru_maxrss / 1024, stderr


def make_kaggle(path: Path, lines: int) -> None:
    """Repeat the 200-line Kaggle sample with fresh ids until it has ``lines`` lines."""
    sample = KAGGLE_SAMPLE.read_bytes().splitlines()
    prefix = b'{"id":"'
    with path.open("wb") as out:
        for i in range(lines):
            line = sample[i % len(sample)]
            assert line.startswith(prefix)
            rest = line[line.index(b'"', len(prefix)) :]
            out.write(prefix + f"{9001 + i // 100_000:04d}.{i % 100_000:05d}".encode() + rest + b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kaggle-lines", type=int, default=1_000_000)
    parser.add_argument("--skip-kaggle", action="store_true")
    opts = parser.parse_args()
    results: dict[str, dict] = {}

    with tempfile.TemporaryDirectory(prefix="pt-bench-") as tmp:
        root = Path(tmp) / "corpus"
        walls, rss = [], []
        for _ in range(opts.repeat):
            wall, peak, log = measure_rss(["--root", str(root), "run", str(CORPUS), "--force"])
            walls.append(wall)
            rss.append(peak)
        results["daily corpus: ingest + clean"] = {
            "runs": opts.repeat, "wall_s_median": round(statistics.median(walls), 2),
            "wall_s_all": [round(w, 2) for w in walls], "peak_rss_mib_max": round(max(rss)),
            "target": "<= 30 s wall, <= 2048 MiB", "log": log.splitlines()[-2:],
        }

        if not opts.skip_kaggle:
            big = Path(tmp) / "arxiv-metadata-oai-snapshot.json"
            start = time.perf_counter()
            make_kaggle(big, opts.kaggle_lines)
            made = time.perf_counter() - start
            for category in ("hep-th", "cs.DC"):
                walls, rss = [], []
                for _ in range(opts.repeat):
                    wall, peak, log = measure_rss(
                        ["--root", str(Path(tmp) / "kaggle"), "ingest", str(big), "--category", category, "--force"]
                    )
                    walls.append(wall)
                    rss.append(peak)
                results[f"kaggle {opts.kaggle_lines:,} lines, --category {category}"] = {
                    "runs": opts.repeat, "file_mib": round(big.stat().st_size / 2**20), "generated_in_s": round(made, 1),
                    "wall_s_median": round(statistics.median(walls), 2), "peak_rss_mib_max": round(max(rss)),
                    "target": "<= 1024 MiB", "log": log.splitlines()[-1:],
                }

    for name, figures in results.items():
        print(f"{name}:")
        for key, value in figures.items():
            print(f"  {key}: {value}")
    out = REPO / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    (out / "ingest.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
