"""The reader's pass over a field's names (issue #50): sheets a reader judges without seeing the rules.

For a field of the 2025 daily corpus that no labelling setting was tuned on (papers whose primary
category is ``--field``; cs.CL and cs.AI by default), ``paper-trends topics`` fits the themes once
(the embeddings of ``--embeddings``, a cache of the same model, are copied in so nothing is embedded
twice), then for the ``--themes`` largest themes and every area, ``--papers`` papers are drawn at
random (seed 0, by paper id, so the same theme of another run draws the same papers) and written as a
sheet: the name as the report shows it, then each paper's title and the head of its abstract.

    python benchmarks/names/draw.py --field cs.CL [--work /tmp/pt-bench-names] [--tag before]

Writes ``<work>/<field>/sheet-<tag>.md`` (for the reader) and ``sheet-<tag>.json`` (ids, names,
papers drawn). A reader fills ``verdicts-<tag>.jsonl``: one line per unit, ``{"unit": "theme:12",
"verdict": "FIT" | "PART" | "MISLEAD", "better": "a better name"}``; ``score.py`` counts them.
The guide the readers get is ``guide.md`` here.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
HEAD = 420  # characters of an abstract a reader sees


def field_root(field: str, work: Path, embeddings: Path) -> Path:
    """A project of the field's papers with the themes fitted (made once)."""
    from pipeline.io import read_table, write_table
    from pipeline.schemas import Papers

    root = work / field
    if (root / "data" / "processed" / "topic_info.parquet").exists():
        return root
    corpus = read_table(work.parent / "pt-bench-trends" / "corpus" / "data" / "processed" / "papers.parquet", Papers) \
        if not (work / "corpus.parquet").exists() else read_table(work / "corpus.parquet", Papers)
    primary = corpus[Papers.categories].map(lambda c: c[0] if len(c) else None)
    write_table(corpus[primary == field].reset_index(drop=True), root / "data" / "processed" / "papers.parquet", Papers)
    if embeddings.exists() and not (root / "data" / "interim" / "embeddings").exists():
        shutil.copytree(embeddings, root / "data" / "interim" / "embeddings")
    subprocess.run([sys.executable, "-m", "pipeline", "--root", str(root), "-q", "topics"], check=True)
    return root


def shown(info) -> dict[int, str]:  # noqa: ANN001 - the topic_info table, indexed by topic
    """Each theme's name as the reports show it (``report.data.shown_labels``, where the code has it)."""
    from pipeline.report import data

    if hasattr(data, "shown_labels"):
        return data.shown_labels(info.assign(topic=info.index))
    return {int(t): str(v) for t, v in info["label"].items()}


def fitted_field(root: Path):  # noqa: ANN201 - (topic_info by topic, papers with their topic)
    """A fitted field's themes (``topic_info``, indexed by topic) and its papers with their
    ``doc_topics`` columns."""
    from pipeline.io import read_table
    from pipeline.schemas import DocTopics, Papers, TopicInfo

    info = read_table(root / "data" / "processed" / "topic_info.parquet", TopicInfo).set_index("topic")
    docs = read_table(root / "data" / "processed" / "doc_topics.parquet", DocTopics)
    return info, read_table(root / "data" / "processed" / "papers.parquet", Papers).merge(docs, on="paper_id")


def drawn(rows, papers: int, rng: np.random.Generator) -> list[dict]:  # noqa: ANN001 - a frame of papers
    """``papers`` of ``rows`` drawn at random by ``rng`` (in their order), as the sheet shows them."""
    pick = rows.iloc[np.sort(rng.choice(len(rows), size=min(papers, len(rows)), replace=False))]
    return [{"id": r.paper_id, "title": r.title, "abstract": (r.abstract or "")[:HEAD]} for r in pick.itertuples()]


def draw(root: Path, themes: int, papers: int) -> list[dict]:
    """The units of the sheet: the largest themes, then every area, each with its drawn papers."""
    info, table = fitted_field(root)
    table["area"] = table["topic"].map(info["area"])
    total = int((table["topic"] >= 0).sum())
    units = []
    largest = info.sort_values("size", ascending=False).head(themes)
    names = shown(info)
    for t, row in largest.iterrows():
        units.append({"unit": f"theme:{t}", "name": names[int(t)], "size": int(row["size"]),
                      "rows": table[table["topic"] == t]})
    for a, group in info.groupby("area"):
        units.append({"unit": f"area:{a}", "name": str(group["area_label"].iloc[0]), "size": int(group["size"].sum()),
                      "share": round(int(group["size"].sum()) / max(total, 1), 3), "themes": int(len(group)),
                      "rows": table[table["area"] == a]})
    for u in units:
        u["papers"] = drawn(u.pop("rows").sort_values("paper_id"), papers, np.random.default_rng(0))
    return units


def sheet(units: list[dict], field: str) -> str:
    lines = [f"# Names of {field}: {len(units)} names to judge", "",
             "For each name: read its papers, then write one line in your verdicts file (see the guide).", ""]
    for u in units:
        kind = "Theme" if u["unit"].startswith("theme") else "Area"
        extra = f", {u['themes']} themes, {100 * u['share']:.0f} % of the field" if "share" in u else ""
        lines += [f"## {u['unit']} — {kind}: \"{u['name']}\" ({u['size']} papers{extra})", ""]
        for i, p in enumerate(u["papers"], 1):
            lines.append(f"{i}. **{p['title']}** — {p['abstract']}…")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--field", default="cs.CL")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-names"))
    ap.add_argument("--embeddings", type=Path, default=Path("/tmp/pt-bench-trends/stream-daily/data/interim/embeddings"))
    ap.add_argument("--tag", default="before")
    ap.add_argument("--themes", type=int, default=25)
    ap.add_argument("--papers", type=int, default=8)
    ap.add_argument("--refit", action="store_true", help="fit the themes again (after a change to naming)")
    args = ap.parse_args()
    if args.refit and (args.work / args.field / "data" / "processed").exists():
        for name in ("topic_info", "doc_topics", "topic_tree", "topic_lineage"):
            (args.work / args.field / "data" / "processed" / f"{name}.parquet").unlink(missing_ok=True)
        shutil.rmtree(args.work / args.field / "data" / "models", ignore_errors=True)
        shutil.rmtree(args.work / args.field / "data" / "runs", ignore_errors=True)
    root = field_root(args.field, args.work, args.embeddings)
    units = draw(root, args.themes, args.papers)
    (root / f"sheet-{args.tag}.md").write_text(sheet(units, args.field))
    (root / f"sheet-{args.tag}.json").write_text(json.dumps(units, indent=1))
    print(f"{root / f'sheet-{args.tag}.md'}: {sum(u['unit'].startswith('theme') for u in units)} themes, "
          f"{sum(u['unit'].startswith('area') for u in units)} areas")


if __name__ == "__main__":
    main()
