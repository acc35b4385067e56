"""Benchmark: the report stage on the 2025 corpus, once topics exist.

Each report is written by ``paper-trends report …`` in a fresh process (so imports and reading the
tables count, as they do for a user); medians over --repeat runs. Targets: a weekly report in
5 s or less, the whole-year survey in 30 s or less. Whether Dask is installed is recorded: with it
(the ``cluster`` extra), pandera imports ``dask.dataframe`` in every command, about a second. The survey's interactive map (``map.html``) is
then opened from disk in headless Chromium with the network off, --repeat times in a fresh browser:
its size, and the time until it is interactive (the page's own clock from navigation start to the
first drawing with every handler attached; targets 15 MB and 3 s).

    python benchmarks/report.py [--root /tmp/pt-bench-topics/scale] [--weeks 2025-W22,2025-W36,2025-W52] [--repeat 3]
                                [--watch benchmarks/watched/daily.toml] [--no-survey]

With ``--watch FILE`` (a TOML file with ``[report.watch]``) each weekly report is also written with
those watched themes, the two alternated run by run (without, with, without, ...), so that the cost
of watched themes is read side by side.

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
TARGETS_S = {"weekly": 5.0, "survey": 30.0, "map_interactive": 3.0}
MAP_TARGET_MB = 15.0


def timed(root: Path, repeat: int, *args: str, configs: tuple[Path | None, ...] = (None,)) -> dict:
    """Medians over ``repeat`` runs of ``paper-trends report *args``, once per config in ``configs``
    (None: the root's own), the configs alternated run by run; one result per config."""
    walls: dict = {c: [] for c in configs}
    rss: dict = {c: [] for c in configs}
    for _ in range(repeat):
        for config in configs:
            extra = ["--config", str(config)] if config is not None else []
            wall, peak, _ = run_child(CLI, "--root", str(root), *extra, "-q", "report", *args)
            walls[config].append(wall)
            rss[config].append(peak)
    out = {c: {"wall_s_median": round(statistics.median(walls[c]), 2), "wall_s_all": [round(w, 2) for w in walls[c]],
               "peak_rss_mib": round(max(rss[c]))} for c in configs}
    return out[None] if configs == (None,) else out


def map_timing(root: Path, repeat: int) -> dict:
    """Size of the newest survey's map.html and its time to interactive in headless Chromium."""
    import sys

    sys.path.insert(0, str(REPO))
    from tests.cdp import Page

    page = max((root / "reports" / "survey").glob("*/map.html"), key=lambda p: p.stat().st_mtime)
    ready, walls, requests = [], [], 0
    with tempfile.TemporaryDirectory() as scratch:
        for k in range(repeat):
            with Page(Path(scratch) / f"profile{k}", width=1400, height=900) as browser:
                walls.append(browser.open(page.as_uri(), "document.body && document.body.dataset.ready === '1'"))
                ready.append(browser.evaluate("window.mapReadyMs") / 1000)
                requests = max(requests, len([u for u in browser.requests if not u.startswith("file:")]))
    return {"path": str(page), "size_mb": round(page.stat().st_size / 1e6, 2),
            "interactive_s_median": round(statistics.median(ready), 2),
            "interactive_s_all": [round(r, 2) for r in ready],
            "open_wall_s_median": round(statistics.median(walls), 2), "network_requests": requests}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "pt-bench-topics" / "scale")
    parser.add_argument("--weeks", default="2025-W22,2025-W36,2025-W52")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--watch", type=Path, help="a TOML file with [report.watch]: weekly reports with and without")
    parser.add_argument("--no-survey", action="store_true", help="weekly reports only")
    opts = parser.parse_args()
    if not (opts.root / "data" / "processed" / "topic_info.parquet").exists():
        raise SystemExit(f"{opts.root}: no topics yet; run `python benchmarks/topics.py --phases scale` first")
    import importlib.util
    import os

    results: dict = {"root": str(opts.root), "dask_installed": importlib.util.find_spec("dask") is not None,
                     "cores": len(os.sched_getaffinity(0)), "weekly": {}}
    for week in [w for w in opts.weeks.split(",") if w]:  # --weeks "": the survey and its map only
        if opts.watch is None:
            results["weekly"][week] = timed(opts.root, opts.repeat, "weekly", "--week", week, "--force")
        else:
            both = timed(opts.root, opts.repeat, "weekly", "--week", week, "--force", configs=(None, opts.watch))
            results["weekly"][week] = both[None]
            results.setdefault("weekly_watched", {"config": str(opts.watch)})[week] = both[opts.watch]
    worst_weekly = max((r["wall_s_median"] for k in ("weekly", "weekly_watched")
                        for w, r in results.get(k, {}).items() if w != "config"), default=0.0)
    if opts.no_survey:
        results["verdict"] = {"weekly_worst_median_s": worst_weekly, "weekly_target_s": TARGETS_S["weekly"],
                              "weekly_ok": worst_weekly <= TARGETS_S["weekly"]}
        name = RESULTS.with_name("report-watched.json" if opts.watch else "report-weekly.json")
        name.write_text(json.dumps(results, indent=2) + "\n")
        print(json.dumps(results, indent=2))
        return
    results["survey"] = timed(opts.root, opts.repeat, "survey", "--force")  # forced: a report of unchanged tables is skipped
    results["map"] = map_timing(opts.root, opts.repeat)
    results["verdict"] = {
        "weekly_worst_median_s": worst_weekly, "weekly_target_s": TARGETS_S["weekly"],
        "weekly_ok": worst_weekly <= TARGETS_S["weekly"],
        "survey_median_s": results["survey"]["wall_s_median"], "survey_target_s": TARGETS_S["survey"],
        "survey_ok": results["survey"]["wall_s_median"] <= TARGETS_S["survey"],
        "map_mb": results["map"]["size_mb"], "map_ok": results["map"]["size_mb"] <= MAP_TARGET_MB
        and results["map"]["interactive_s_median"] <= TARGETS_S["map_interactive"],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
