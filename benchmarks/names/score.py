"""Count a reader's pass (``draw.py`` made the sheets, readers filled ``verdicts-<tag>.jsonl``).

    python benchmarks/names/score.py --fields cs.CL,cs.AI \
        --runs before=/tmp/pt-bench-names,after1=/tmp/pt-bench-names-after:after,after2=/tmp/pt-bench-names-after2:after

Each run is ``name=folder`` or ``name=folder:tag`` (the sheets' and verdicts' tag, by default the name).

Prints, per field and run, FIT / PART / MISLEAD among the themes and the areas (a run whose reader
was asked for the areas only has no theme count), and writes the
Markdown table to stdout; the verdict sheets themselves are copied into ``benchmarks/names/verdicts/``
(names, verdicts and the readers' better names: no paper text).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def read(root: Path, field: str, tag: str) -> tuple[list[dict], dict[str, dict]]:
    units = json.loads((root / field / f"sheet-{tag}.json").read_text())
    verdicts = [json.loads(line) for line in (root / field / f"verdicts-{tag}.jsonl").read_text().splitlines() if line.strip()]
    return units, {v["unit"]: v for v in verdicts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fields", default="cs.CL,cs.AI")
    ap.add_argument("--runs", default="before=/tmp/pt-bench-names,after=/tmp/pt-bench-names-after")
    args = ap.parse_args()
    runs = {}
    for item in args.runs.split(","):
        name, _, where = item.partition("=")
        folder, _, tag = where.partition(":")
        runs[name] = (folder, tag or name)
    out = HERE / "verdicts"
    out.mkdir(exist_ok=True)
    lines = ["| field | run | themes FIT / PART / MISLEAD (of 25) | areas FIT / PART / MISLEAD | areas FIT |",
             "|---|---|---|---|---|"]
    for field in args.fields.split(","):
        for run, (root, tag) in runs.items():
            units, verdicts = read(Path(root), field, tag)
            missing = [u["unit"] for u in units if u["unit"] not in verdicts]
            areas_only = bool(missing) and all(m.startswith("theme") for m in missing)  # a reader asked for the areas
            if missing and not areas_only:
                raise SystemExit(f"{root}/{field}/verdicts-{tag}.jsonl: no verdict for {', '.join(missing)}")
            rows = []
            for u in (u for u in units if u["unit"] in verdicts):
                v = verdicts[u["unit"]]
                rows.append({"unit": u["unit"], "name": u["name"], "size": u["size"], "share": u.get("share"),
                             "papers": [p["id"] for p in u["papers"]], "verdict": v["verdict"], "better": v.get("better"),
                             "why": v.get("why")})
            (out / f"{field}-{run}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
            themes = Counter(r["verdict"] for r in rows if r["unit"].startswith("theme"))
            areas = Counter(r["verdict"] for r in rows if r["unit"].startswith("area"))
            n_areas = sum(areas.values())
            said = "areas only" if areas_only else f"{themes['FIT']} / {themes['PART']} / {themes['MISLEAD']}"
            lines.append(f"| {field} | {run} | {said} | "
                         f"{areas['FIT']} / {areas['PART']} / {areas['MISLEAD']} | {100 * areas['FIT'] / max(n_areas, 1):.0f} % |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
