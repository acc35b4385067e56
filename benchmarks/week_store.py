"""A project root holding the store as the weekly flow left it after one week (``trends_stream.py``):
the papers up to that week, its theme tables and fitted state, the stream's embedding cache. Used to
read a real week's report the way the user would have received it on that Monday.

    python benchmarks/week_store.py --corpus csdc --week 2025-W47 --root /tmp/csdc-W47
    paper-trends --root /tmp/csdc-W47 --config benchmarks/watched/csdc.toml report weekly --week 2025-W47

--root must be a new folder, or one this script made before (it is replaced whole).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=("csdc", "daily"), default="csdc")
    ap.add_argument("--week", required=True)
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    args = ap.parse_args()
    from pipeline import config
    from pipeline.io import write_table
    from pipeline.schemas import Papers
    from trends_stream import corpus_papers

    stream = args.work / f"stream-{args.corpus}"
    kept = stream / "weeks" / args.week
    if not kept.is_dir():
        raise SystemExit(f"{kept}: no such week in the stream")
    if args.root.exists():
        made = (args.root / "data" / "processed" / "papers.parquet").exists() and not (args.root / ".git").exists()
        if not made and any(args.root.iterdir()):
            raise SystemExit(f"{args.root}: not empty and not a store this script made; give a new folder")
        shutil.rmtree(args.root)
    paths = config.Paths(args.root)
    papers = corpus_papers(args.corpus, args.work)
    write_table(papers[papers[Papers.week] <= args.week].reset_index(drop=True), paths.papers, Papers)
    for name in ("doc_topics", "topic_info", "topic_lineage", "topic_tree"):
        if (kept / f"{name}.parquet").exists():
            shutil.copy2(kept / f"{name}.parquet", paths.processed / f"{name}.parquet")
    shutil.copytree(kept / "topics", paths.topic_model)
    paths.interim.mkdir(parents=True, exist_ok=True)
    shutil.copytree(stream / "data" / "interim" / "embeddings", paths.embeddings)
    print(args.root)


if __name__ == "__main__":
    main()
