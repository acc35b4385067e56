"""Papers never labelled, on which two matching rules disagree: a check of a rule on papers that
neither its idea nor its thresholds saw (README.md here, "The title rule").

For each watched theme of both sets, the papers outside the labelled sets that one rule lists and
the other does not (``changed``), and as many that both list by a single mention of the name in the
abstract with a word of it in the title (``kept``), at most ``--per-theme`` of each (seed 0), are
written shuffled into JSONL chunks for readers who are not told which is which (outside the
repository: they are the listings' text). The old rule is today's with every title counted as
writing a word of the name.

    python benchmarks/watched/fresh.py --work /tmp/pt-bench-trends --out /tmp/fresh --chunks 4
    python benchmarks/watched/fresh.py --score /tmp/fresh/judged   # after the readers: labels_fresh.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import evaluate as ev  # noqa: E402
import sheets  # noqa: E402

FRESH = HERE / "labels_fresh.jsonl"


def disagreements(corpus: str, work: Path, per_theme: int) -> list[dict]:
    from pipeline.config import ReportConfig
    from pipeline.report.watched import Thresholds, decide

    data = ev.load(corpus, work)
    limits = Thresholds.of(ReportConfig())
    new = decide(data["text"], data["cosine"], limits)
    old_text = replace(data["text"], titled=data["text"].titled.map(lambda _: True))
    old = decide(old_text, data["cosine"], limits)
    labelled = np.zeros(len(data["papers"]), dtype=bool)
    labelled[data["rows"]] = True
    rng = np.random.default_rng(0)
    out = []
    for name, key in ev.KEYS[corpus].items():
        if name == ev.ABSENT.get(corpus):
            continue
        a, b = old.on[name].to_numpy(), new.on[name].to_numpy()
        text = data["text"]
        single = (text.count[name].to_numpy() == 1) & ~text.title[name].to_numpy() & text.titled[name].to_numpy()
        groups = {"changed": np.flatnonzero((a != b) & ~labelled),
                  "kept": np.flatnonzero(a & b & new.by_name[name].to_numpy() & single & ~labelled)}
        for group, rows in groups.items():
            for r in rng.choice(rows, size=min(per_theme, len(rows)), replace=False):
                out.append({"corpus": corpus, "theme": key, "group": group, "old": bool(a[r]), "new": bool(b[r]),
                            "id": data["papers"].at[r, "paper_id"], "title": data["papers"].at[r, "title"],
                            "abstract": data["papers"].at[r, "abstract"]})
            print(f"{corpus} {name}: {group} {len(rows)} papers", file=sys.stderr)
    return out


def score(judged: Path) -> None:
    """Join the readers' judgments (``*.jsonl`` under ``judged``: id, theme, on) to the pool kept in
    ``pool.json`` beside them; write the ids and verdicts to labels_fresh.jsonl and print the table."""
    _, found = sheets.verdicts(judged)
    rows = [{k: p[k] for k in ("corpus", "theme", "group", "old", "new", "id")} | {"on": on} for p, on in found]
    FRESH.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print("| set | theme | group | papers | on the subject (readers) | old rule lists | new rule lists |")
    print("|---|---|---|---|---|---|---|")
    keys = sorted({(r["corpus"], r["theme"], r["group"]) for r in rows})
    for corpus, theme, group in keys:
        sel = [r for r in rows if (r["corpus"], r["theme"], r["group"]) == (corpus, theme, group)]
        print(f"| {corpus} | {theme} | {group} | {len(sel)} | {sum(r['on'] for r in sel)} | "
              f"{sum(r['old'] for r in sel)} | {sum(r['new'] for r in sel)} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/fresh"))
    ap.add_argument("--chunks", type=int, default=4)
    ap.add_argument("--per-theme", type=int, default=15)
    ap.add_argument("--score", type=Path, help="a folder of the readers' JSONL judgments")
    args = ap.parse_args()
    if args.score:
        score(args.score)
        return
    pool = [p for corpus in ev.KEYS for p in disagreements(corpus, args.work, args.per_theme)]
    sheets.write(pool, args.out, args.chunks, seed=1)
    print(f"{len(pool)} papers in {args.chunks} chunks under {args.out}")


if __name__ == "__main__":
    main()
