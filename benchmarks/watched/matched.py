"""Every paper the shipped rule matches, judged: precision over all of a theme's matches, not only
over the labelled pools (README.md here, "Precision over every match").

The pools of ``labels_<corpus>.jsonl`` were drawn from broad patterns, the papers nearest each
sentence and a random draw, so a match outside them went uncounted. This writes, for both corpora,
every (paper, theme) the rule at the shipped thresholds matches that no reader has judged yet (in the
pools or in ``labels_matched.jsonl``), shuffled into JSONL chunks for readers (outside the
repository: they are the listings' text); ``--score`` adds the verdicts to ``labels_matched.jsonl``
(ids, themes, verdicts only). A rule stricter than the
shipped one matches mostly judged papers (not only: a paper it no longer lists under one theme may
fall to another, unjudged there); ``evaluate.py`` says how many matches were judged nowhere.

    python benchmarks/watched/matched.py --work /tmp/pt-bench-trends --out /tmp/matched --chunks 5
    python benchmarks/watched/matched.py --score /tmp/matched/judged
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import evaluate as ev  # noqa: E402
import sheets  # noqa: E402

MATCHED = HERE / "labels_matched.jsonl"


def unlabelled_matches(corpus: str, work: Path) -> list[dict]:
    from pipeline.config import ReportConfig
    from pipeline.report.watched import Thresholds, decide

    data = ev.load(corpus, work)
    found = decide(data["text"], data["cosine"], Thresholds.of(ReportConfig()))
    out = []
    for name, key in ev.KEYS[corpus].items():
        for r in np.flatnonzero(found.on[name].to_numpy() & (data["judged"][key] < 0)):  # in neither file yet
            out.append({"corpus": corpus, "theme": key, "id": data["papers"].at[r, "paper_id"],
                        "title": data["papers"].at[r, "title"], "abstract": data["papers"].at[r, "abstract"]})
    return out


def score(judged: Path) -> None:
    pool, found = sheets.verdicts(judged)
    rows = [{"corpus": p["corpus"], "theme": p["theme"], "id": p["id"], "on": on} for p, on in found]
    missing = set(pool) - {(r["id"], r["theme"]) for r in rows}
    if missing:
        raise SystemExit(f"{len(missing)} matches have no verdict, e.g. {sorted(missing)[:3]}")
    kept = [json.loads(line) for line in MATCHED.read_text().splitlines()] if MATCHED.exists() else []
    MATCHED.write_text("".join(json.dumps(r) + "\n" for r in kept + rows))
    print(f"{len(rows)} new verdicts, {sum(r['on'] for r in rows)} on the subject; {len(kept) + len(rows)} in {MATCHED}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/matched"))
    ap.add_argument("--chunks", type=int, default=5)
    ap.add_argument("--score", type=Path, help="a folder of the readers' JSONL verdicts")
    args = ap.parse_args()
    if args.score:
        score(args.score)
        return
    pool = [p for corpus in ev.KEYS for p in unlabelled_matches(corpus, args.work)]
    sheets.write(pool, args.out, args.chunks, seed=0)
    print(f"{len(pool)} matches in {args.chunks} chunks under {args.out}")


if __name__ == "__main__":
    main()
