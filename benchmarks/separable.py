"""Benchmark: do two sub-areas a reader tracks apart also lie apart in the papers' vectors?

#10 asks that themes a field reader would track separately (MoE training vs MoE serving, blockchain
vs BFT consensus) "come apart where the papers support it". This measures the support: each side is
the papers whose *title* matches its pattern (both sides inside a shared subject pattern), and for
each pair it reports

- the sides' sizes, against the smallest theme the corpus gets (``scaled(n).min_cluster_size``);
- the mean cosine of papers within a side and across the sides (a side that is a sub-area of its
  own is closer to itself than to the other side);
- neighbour purity: the share of each paper's ``k`` nearest papers of the pair that are of its own
  side, against the share its side makes up of the pair (chance);
- where the default fit (seed 42, ``ThemeModel`` on the cached vectors) puts each side: the themes
  holding most of its papers.

Reads the projects ``benchmarks/themes.py`` made in --work (run it first: it ingests the corpora and
caches their vectors).

    python benchmarks/separable.py [--corpora csdc] [--k 5]

Results: benchmarks/results/separable.json and benchmarks/results/separable.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))

# (name, subject both sides share, side A, side B, a pattern side B must not match)
PAIRS = [
    ("MoE training / MoE serving", r"\bMoE|mixture[- ]of[- ]experts|\bexperts?\b",
     r"\btrain", r"\binfer|\bserv|\bdeploy|\bdecod", r"\btrain"),
    ("blockchain / BFT consensus", r"",
     r"blockchain|smart contract|ledger", r"byzantine|\bBFT\b|consensus", r"blockchain|smart contract|ledger"),
]


def sides(titles: list[str], subject: str, a: str, b: str, not_b: str) -> tuple[list[int], list[int]]:
    """Row numbers of side A and side B (a title matching A is never B)."""
    inside = [i for i, t in enumerate(titles) if not subject or re.search(subject, t, re.I)]
    side_a = [i for i in inside if re.search(a, titles[i], re.I)]
    side_b = [i for i in inside if re.search(b, titles[i], re.I) and not re.search(not_b, titles[i], re.I)]
    return side_a, side_b


def measure(vectors, topics, labels: dict, side_a: list[int], side_b: list[int], k: int) -> dict:  # noqa: ANN001
    import numpy as np

    rows = np.asarray(side_a + side_b)
    kind = np.array([0] * len(side_a) + [1] * len(side_b))
    unit = vectors[rows] / np.linalg.norm(vectors[rows], axis=1, keepdims=True)
    sims = unit @ unit.T
    np.fill_diagonal(sims, -np.inf)
    nearest = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    np.fill_diagonal(sims, np.nan)
    out = {}
    for side, name in ((0, "a"), (1, "b")):
        mine = kind == side
        others = mine.sum() - 1
        out[name] = {
            "papers": int(mine.sum()),
            "cosine_within": round(float(np.nanmean(sims[np.ix_(mine, mine)])), 3),
            "cosine_across": round(float(np.nanmean(sims[np.ix_(mine, ~mine)])), 3),
            "neighbour_purity": round(float((kind[nearest[mine]] == side).mean()), 2),
            "chance": round(float(others / (len(rows) - 1)), 2),
            "themes": [(labels[t], n) for t, n in Counter(topics[rows[mine]].tolist()).most_common(3)],
        }
    return out


def run_corpus(root: Path, k: int) -> dict:
    from pipeline import config
    from pipeline.io import read_table
    from pipeline.schemas import Papers
    from pipeline.topics import paper_texts
    from pipeline.topics.embedding import embed
    from pipeline.topics.embedding.embed import EmbeddingCache
    from pipeline.topics.clustering.components import scaled
    from pipeline.topics.clustering.model import ThemeModel

    cfg = config.load(root)
    papers = read_table(cfg.paths.papers, Papers)
    texts, titles = paper_texts(papers), papers[Papers.title].tolist()
    embedder = embed.make_embedder(cfg.topics)
    vectors, _ = EmbeddingCache(cfg.paths.embeddings, embedder.identity).embed(texts, embedder)
    model = ThemeModel.from_config(cfg.topics).fit(texts, vectors, titles=titles, embed=embedder.encode)
    labels = {**model.labels_, -1: "(unassigned)"}
    pairs = {}
    for name, subject, a, b, not_b in PAIRS:
        side_a, side_b = sides(titles, subject, a, b, not_b)
        if len(side_a) < 2 or len(side_b) < 2:
            continue
        pairs[name] = measure(vectors, model.topics_, labels, side_a, side_b, k)
    return {"papers": len(texts), "smallest_theme": scaled(len(texts), cfg.topics).min_cluster_size, "k": k,
            "pairs": pairs}


def markdown(results: dict) -> str:
    lines = ["| corpus | pair | side | papers | cosine within / across | neighbour purity (chance) | themes holding most |",
             "|---|---|---|---:|---|---|---|"]
    for corpus, r in results.items():
        for name, pair in r["pairs"].items():
            for side, label in zip(("a", "b"), name.split(" / ")):
                s = pair[side]
                themes = ", ".join(f"{t} ({n})" for t, n in s["themes"])
                lines.append(f"| {corpus} ({r['papers']}, smallest theme {r['smallest_theme']}) | {name} | {label} | "
                             f"{s['papers']} | {s['cosine_within']} / {s['cosine_across']} | "
                             f"{s['neighbour_purity']} ({s['chance']}) | {themes} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default="csdc")
    parser.add_argument("--k", type=int, default=5, help="nearest papers of the pair per paper")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pt-bench-topics")
    args = parser.parse_args()
    results = {}
    for corpus in args.corpora.split(","):
        root = args.work / corpus
        if not (root / "data" / "processed" / "papers.parquet").exists():
            sys.exit(f"separable: no project at {root}; run benchmarks/themes.py --corpora {corpus} first")
        results[corpus] = run_corpus(root, args.k)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "separable.json").write_text(json.dumps(results, indent=2) + "\n")
    table = markdown(results)
    (RESULTS / "separable.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
