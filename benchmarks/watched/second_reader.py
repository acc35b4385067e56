"""A second, blind reading of one watched theme's labelled papers: how far two readers agree on
what is on the theme, and the theme's precision and recall against each reading and against both.

The papers: every positive of the theme in ``labels_<corpus>.jsonl``, every paper judged on it in
``labels_matched.jsonl``, and up to ``--negatives`` of the pool's negatives that write its subject at
all (``pool.BROAD``), drawn with seed 0; shuffled into one JSONL sheet for a reader who is not told
the first verdicts, the matching rule, or which group a paper came from (the listings' text, so
outside the repository). ``--score`` reads the reader's verdicts back, writes the ids and verdicts
to ``labels_second_<theme>.jsonl`` here and prints agreement (Cohen's kappa) and precision and recall
per half against the first reading, the second, and the papers both call on the theme.

    python benchmarks/watched/second_reader.py --corpus csdc --theme edge_offloading --out /tmp/second
    python benchmarks/watched/second_reader.py --corpus csdc --theme edge_offloading --score /tmp/second/judged
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import evaluate as ev  # noqa: E402
import pool as pools  # noqa: E402
import sheets  # noqa: E402


def sheet(corpus: str, key: str, work: Path, negatives: int) -> list[dict]:
    data = ev.load(corpus, work)
    name = {v: k for k, v in ev.KEYS[corpus].items()}[key]
    papers, labels = data["papers"], data["labels"]
    first = data["judged"][key]  # -1: judged nowhere
    rows = set(np.flatnonzero(first >= 0)) - set(data["rows"][labels[key].to_numpy() == 0])  # matched verdicts, pool positives
    text = papers["title"] + " " + papers["abstract"]
    broad = text.str.contains(pools.BROAD[corpus][name], case=False, regex=True, flags=re.I).to_numpy()
    pool_neg = [r for r in data["rows"][labels[key].to_numpy() == 0] if broad[r] and r not in rows]
    rng = np.random.default_rng(0)
    rows |= set(rng.choice(pool_neg, size=min(negatives, len(pool_neg)), replace=False).tolist())
    return [{"id": papers.at[r, "paper_id"], "theme": key, "title": papers.at[r, "title"],
             "abstract": papers.at[r, "abstract"], "first": int(first[r])} for r in sorted(rows)]


def kappa(a: np.ndarray, b: np.ndarray) -> float:
    po = float(np.mean(a == b))
    pe = float(np.mean(a) * np.mean(b) + np.mean(1 - a) * np.mean(1 - b))
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def score(corpus: str, key: str, judged: Path, work: Path) -> None:
    from pipeline.config import ReportConfig
    from pipeline.report.watched import Thresholds, decide

    pool, found = sheets.verdicts(judged)
    second = {p["id"]: on for p, on in found}
    if set(second) != {i for i, _ in pool}:
        raise SystemExit(f"{len(pool) - len(second)} papers have no verdict")
    (HERE / f"labels_second_{key}.jsonl").write_text(
        "".join(json.dumps({"corpus": corpus, "theme": key, "id": i, "on": second[i]}) + "\n" for i in sorted(second)))
    first = np.array([pool[(i, key)]["first"] for i in sorted(second)])
    again = np.array([second[i] for i in sorted(second)])
    print(f"{len(again)} papers; first reading {first.sum()} on, second {again.sum()} on; "
          f"both on {(first & again).sum()}; agreement {np.mean(first == again):.2f}, kappa {kappa(first, again):.2f}")
    data = ev.load(corpus, work)
    name = {v: k for k, v in ev.KEYS[corpus].items()}[key]
    on = decide(data["text"], data["cosine"], Thresholds.of(ReportConfig())).on[name].to_numpy()
    row = {pid: r for r, pid in enumerate(data["papers"]["paper_id"])}
    rows = np.array([row[i] for i in sorted(second)])
    for part in ("tune", "report"):
        half = data["split_all"][rows] == part
        for label, truth in (("first", first), ("second", again), ("both", first & again)):
            t, m = truth[half] == 1, on[rows][half]
            p = (t & m).sum() / max(m.sum(), 1)
            r = (t & m).sum() / max(t.sum(), 1)
            print(f"{part:6} truth={label:6} positives {t.sum():3} matched (read) {m.sum():3} precision {p:.2f} recall {r:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(ev.KEYS), default="csdc")
    ap.add_argument("--theme", default="edge_offloading", help="the theme's key in the labels")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/second"))
    ap.add_argument("--negatives", type=int, default=40)
    ap.add_argument("--score", type=Path, help="a folder of the reader's JSONL verdicts")
    args = ap.parse_args()
    if args.score:
        score(args.corpus, args.theme, args.score, args.work)
        return
    rows = sheet(args.corpus, args.theme, args.work, args.negatives)
    sheets.write(rows, args.out, 1, seed=0)
    print(f"{len(rows)} papers ({sum(r['first'] for r in rows)} on in the first reading) under {args.out}")


if __name__ == "__main__":
    main()
