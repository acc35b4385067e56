"""The weekly flow over a real stream, as cron runs it, kept week by week for ``benchmarks/trends.py``.

Fit the themes on the first --fit-weeks weeks of a corpus, then add the next weeks one at a time,
each followed by ``paper-trends topics`` (a weekly update: papers no theme explains wait in the pool,
new themes are born). After each week the store is copied to ``<work>/<corpus>/weeks/<YYYY-Www>/``
(``doc_topics``, ``topic_info``, ``topic_lineage``, ``topic_tree`` and the fitted state in
``topics/``): what that Monday's report
was made from. The embedding cache in ``<work>/<corpus>/data/interim`` is kept between runs.

    python benchmarks/trends_stream.py --corpus csdc|daily [--fit-weeks 8] [--work /tmp/pt-bench-trends]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from themes import corpus_root  # noqa: E402
from topics import prepare  # noqa: E402


def corpus_papers(name: str, work: Path):  # noqa: ANN201 - DataFrame
    from pipeline.io import read_table
    from pipeline.schemas import Papers

    if name == "csdc":
        return read_table(corpus_root("csdc", work) / "data" / "processed" / "papers.parquet", Papers)
    if name == "daily":
        return read_table(prepare(work), Papers)
    raise SystemExit(f"unknown corpus {name!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=("csdc", "daily"), default="csdc")
    ap.add_argument("--fit-weeks", type=int, default=8)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from pipeline import config, topics
    from pipeline.io import write_table
    from pipeline.schemas import Papers

    corpus = corpus_papers(args.corpus, args.work)
    if Papers.text_hash not in corpus:  # a corpus cleaned before the clean stage kept the text's hash
        from pipeline.schemas import paper_text, text_hash

        corpus[Papers.text_hash] = text_hash(map(paper_text, corpus[Papers.title], corpus[Papers.abstract]))
    weeks = sorted(corpus[Papers.week].dropna().unique().tolist())
    root = args.work / f"stream-{args.corpus}"
    for stale in (root / "data" / "processed", root / "data" / "models", root / "weeks"):
        shutil.rmtree(stale, ignore_errors=True)
    cfg = config.load(root)
    embedder = topics.make_embedder(cfg.topics)
    log = []
    for i in range(args.fit_weeks - 1, len(weeks)):
        week = weeks[i]
        write_table(corpus[corpus[Papers.week].isin(weeks[:i + 1])].reset_index(drop=True), cfg.paths.papers, Papers)
        started = time.perf_counter()
        topics.run(cfg, embedder=embedder)
        seconds = round(time.perf_counter() - started, 1)
        keep = root / "weeks" / week
        keep.mkdir(parents=True, exist_ok=True)
        for path in (cfg.paths.doc_topics, cfg.paths.topic_info, cfg.paths.topic_lineage, cfg.paths.topic_tree):
            if path.exists():
                shutil.copy2(path, keep / path.name)
        # the fitted state as that Monday's report read it (the BERTopic model is left out)
        model = keep / "topics"
        model.mkdir(exist_ok=True)
        for path in cfg.paths.topic_model.iterdir():
            if path.is_file():
                shutil.copy2(path, model / path.name)
        log.append({"week": week, "seconds": seconds})
        print(json.dumps(log[-1]), flush=True)
    (root / "weeks" / "log.json").write_text(json.dumps({"fit_weeks": weeks[:args.fit_weeks], "log": log}, indent=1))


if __name__ == "__main__":
    main()
