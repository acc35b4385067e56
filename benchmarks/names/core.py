"""Would purer themes read better? A blind probe of the reader's pass (issue #50).

The reader's pass (``draw.py``) judges each name over 8 papers drawn from all of its theme's papers.
Where a reader says PART, is the name wrong, or are some of the theme's papers off its subject? This
probe draws each of the ``--themes`` largest themes twice:

- **all**: 8 papers from all of the theme's papers, as the reader's pass draws them;
- **core**: 8 papers from the theme's papers at or above its ``--quantile`` of similarity to the
  theme's centroid (``doc_topics.probability``): the theme as it would be if its least similar
  papers were left unassigned.

Both units of a theme carry the same name. They are shuffled into one sheet under neutral ids, so
the reader (``guide.md``, the sheet, nothing else; not the key) does not know which is which.
Nothing in the pipeline changes: this measures how much the verdicts depend on the themes' edges.

    python benchmarks/names/core.py --root /tmp/pt-names-comp/cs.AI --out /tmp/pt-names-s7/core-cs.AI --field cs.AI
    python benchmarks/names/core.py --score /tmp/pt-names-s7/core-cs.AI --field cs.AI

Writes ``<out>/sheet-<tag>.md`` (for the reader), ``<out>/key-<tag>.json`` (which unit is which)
and, with ``--score``, counts ``<out>/verdicts-<tag>.jsonl`` per draw and copies the verdicts (ids,
names, verdicts, reasons; no paper text) to ``verdicts/<field>-<tag>.jsonl``. The first probe
(``core``, 2026-11-29) drew a theme's two units with one seed, so they shared papers; the second
(``--tag core2 --seed 2``) gives every draw its own generator.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
from draw import drawn, fitted_field, shown  # noqa: E402 - draw.py sits beside this script

VERDICTS = ("FIT", "PART", "MISLEAD")


def units_of(root: Path, themes: int, papers: int, quantile: float, seed: int) -> list[dict]:
    """For each of the largest themes, its two draws (all papers, and its core), each drawn by its
    own generator (``SeedSequence(seed)`` spawned per theme and draw), so the two draws of a theme
    are independent and no draw repeats the positions of ``draw.py``'s seed-0 draw."""
    info, table = fitted_field(root)
    names = shown(info)
    out = []
    largest = info.sort_values("size", ascending=False).head(themes)
    streams = iter(np.random.SeedSequence(seed).spawn(2 * len(largest) + 1))
    for t, row in largest.iterrows():
        rows = table[table["topic"] == t].sort_values("paper_id")
        edge = float(rows["probability"].quantile(quantile))
        for draw, pool in (("all", rows), ("core", rows[rows["probability"] >= edge])):
            out.append({"theme": int(t), "draw": draw, "name": names[int(t)], "size": int(row["size"]),
                        "papers": drawn(pool, papers, np.random.default_rng(next(streams)))})
    order = np.random.default_rng(next(streams)).permutation(len(out))
    return [dict(out[i], unit=f"name:{k + 1}") for k, i in enumerate(order)]


def sheet(units: list[dict], field: str) -> str:
    """The reader's sheet: each unit's neutral id, its name and its papers (no size, no draw)."""
    lines = [f"# Names of {field}: {len(units)} names to judge", "",
             "Some names appear more than once, each time with other papers: judge each unit on its own papers.",
             "For each name: read its papers, then write one line in your verdicts file (see the guide).", ""]
    for u in units:
        lines += [f"## {u['unit']} — Theme: \"{u['name']}\"", ""]
        lines += [f"{i}. **{p['title']}** — {p['abstract']}…" for i, p in enumerate(u["papers"], 1)]
        lines.append("")
    return "\n".join(lines)


def read_verdicts(path: Path, key: dict[str, dict]) -> list[dict]:
    """The reader's verdicts, one per unit of the key, each FIT, PART or MISLEAD; anything else is
    refused with the line it is on."""
    verdicts, seen = [], set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except json.JSONDecodeError as err:
            raise SystemExit(f"{path}:{n}: not JSON ({err.msg})") from None
        unit = v.get("unit") if isinstance(v, dict) else None
        if unit not in key:
            raise SystemExit(f"{path}:{n}: unit {unit!r} is not on the sheet")
        if unit in seen:
            raise SystemExit(f"{path}:{n}: a second verdict for {unit}")
        if v.get("verdict") not in VERDICTS:
            raise SystemExit(f"{path}:{n}: verdict {v.get('verdict')!r} is not one of {', '.join(VERDICTS)}")
        seen.add(unit)
        verdicts.append(v)
    missing = sorted(set(key) - seen)
    if missing:
        raise SystemExit(f"{path}: no verdict for {', '.join(missing)}")
    return verdicts


def score(out: Path, field: str, tag: str) -> None:
    """Count the verdicts per draw, and how each theme's verdict moved from all papers to its core;
    copy them (no paper text) to ``verdicts/<field>-<tag>.jsonl``."""
    key = {u["unit"]: u for u in json.loads((out / f"key-{tag}.json").read_text())}
    verdicts = read_verdicts(out / f"verdicts-{tag}.jsonl", key)
    rows = [{"unit": v["unit"], "theme": key[v["unit"]]["theme"], "draw": key[v["unit"]]["draw"],
             "name": key[v["unit"]]["name"], "papers": [p["id"] for p in key[v["unit"]]["papers"]],
             "verdict": v["verdict"], "better": v.get("better"), "why": v.get("why")} for v in verdicts]
    (HERE / "verdicts" / f"{field}-{tag}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for draw in ("all", "core"):
        n = Counter(r["verdict"] for r in rows if r["draw"] == draw)
        print(f"{field} {draw}: FIT {n['FIT']} / PART {n['PART']} / MISLEAD {n['MISLEAD']}")
    core = {r["theme"]: r["verdict"] for r in rows if r["draw"] == "core"}
    pair = Counter((r["verdict"], core[r["theme"]]) for r in rows if r["draw"] == "all")
    print("all -> core:", dict(sorted(pair.items())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, help="a fitted field (draw.py's <work>/<field>)")
    ap.add_argument("--out", type=Path, help="where the sheet and its key go")
    ap.add_argument("--score", type=Path, help="count the verdicts in this folder instead")
    ap.add_argument("--field", help="the field's name (default: the folder's)")
    ap.add_argument("--tag", default="core", help="names the sheet, key and verdict files")
    ap.add_argument("--themes", type=int, default=25)
    ap.add_argument("--papers", type=int, default=8)
    ap.add_argument("--quantile", type=float, default=0.25, help="the core: papers at or above this quantile")
    ap.add_argument("--seed", type=int, default=1, help="the draws' seed (spawned per theme and draw)")
    args = ap.parse_args()
    if args.score:
        score(args.score, args.field or args.score.name, args.tag)
        return
    if not args.root or not args.out:
        raise SystemExit("core.py: give --root and --out (or --score FOLDER)")
    field = args.field or args.root.name
    units = units_of(args.root, args.themes, args.papers, args.quantile, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"sheet-{args.tag}.md").write_text(sheet(units, field))
    (args.out / f"key-{args.tag}.json").write_text(json.dumps(
        [{k: u[k] for k in ("unit", "theme", "draw", "name", "papers")} for u in units], indent=1))
    print(f"{args.out / f'sheet-{args.tag}.md'}: {len(units)} units")


if __name__ == "__main__":
    main()
