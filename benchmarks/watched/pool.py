"""Which papers were read for a hand-labelled set of watched themes (see README.md here).

The pool is the union, for each watched theme, of: up to ``broad`` papers drawn (seed 0) from those
whose title or abstract matches a broad pattern of its subject (any mention, not the phrase), the
``nearest`` papers nearest to its sentence by embedding, and ``random`` papers drawn (seed 0) from the
whole listing (cs.DC: 60, 40, 80; daily: 50, 30, 80). Writes the papers to read (outside the
repository: they are the listings' text) as JSONL chunks.

    python benchmarks/watched/pool.py --corpus csdc|daily --work /tmp/pt-bench-trends --out /tmp/labelling --chunks 3
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

BROAD = {"csdc": {
    "MoE serving": r"mixture[- ]of[- ]experts|\bMoE\b|\bexperts?\b",
    "Edge offloading": r"offload|\bedge\b|\bMEC\b",
    "Federated learning": r"federated|\bclients?\b",
    "Collective communication": r"collective|all[- ]?reduce|\bNCCL\b|all[- ]to[- ]all|all[- ]?gather",
}, "daily": {
    "KV cache": r"\bKV\b|key[- ]value|\bcach(?:e|es|ing)\b",
    "Diffusion language models": r"\bdLLMs?\b|masked diffusion|discrete diffusion|diffusion[- ]based (?:large )?language"
                                 r"|diffusion (?:large )?language|(?:language|text).{0,40}diffusion|diffusion.{0,40}(?:language|text generation)",
    "Agent memory": r"memory.{0,80}agent|agent.{0,80}memory",
    "Speculative decoding": r"speculative|draft|parallel decoding|decoding (speed|accelerat)",
    "Quantum error correction": r"quantum",
}}
SIZES = {"csdc": (60, 40, 80), "daily": (50, 30, 80)}  # broad, nearest, random


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=sorted(BROAD), default="csdc")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/labelling"))
    ap.add_argument("--chunks", type=int, default=3)
    args = ap.parse_args()
    import numpy as np

    from pipeline import config
    from pipeline.topics.embedding.embed import EmbeddingCache, make_embedder, paper_texts
    from trends_stream import corpus_papers

    watch = tomllib.loads((Path(__file__).parent / f"{args.corpus}.toml").read_text())["report"]["watch"]
    papers = corpus_papers(args.corpus, args.work).reset_index(drop=True)
    cfg = config.load(args.work / f"stream-{args.corpus}")
    broad, nearest, random = SIZES[args.corpus]
    embedder = make_embedder(cfg.topics)
    cache = EmbeddingCache(cfg.paths.embeddings, embedder.identity)
    vectors, _ = cache.embed(paper_texts(papers), embedder)
    text = papers["title"] + " " + papers["abstract"]
    rng = np.random.default_rng(0)
    chosen: set[int] = set()
    for name, sentence in watch.items():
        hits = np.flatnonzero(text.str.contains(BROAD[args.corpus][name], case=False, regex=True).to_numpy())
        chosen |= set(rng.choice(hits, size=min(broad, len(hits)), replace=False).tolist())
        sentence_vec, _ = cache.embed([sentence], embedder)
        chosen |= set(np.argsort(-(vectors @ sentence_vec[0]))[:nearest].tolist())
    chosen |= set(rng.choice(len(papers), size=random, replace=False).tolist())
    rows = sorted(chosen)
    rng.shuffle(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.chunks):
        with (args.out / f"chunk_{i}.jsonl").open("w") as fh:
            for r in rows[i::args.chunks]:
                fh.write(json.dumps({"id": papers.at[r, "paper_id"], "title": papers.at[r, "title"],
                                     "abstract": papers.at[r, "abstract"]}) + "\n")
    print(f"{len(rows)} papers in {args.chunks} chunks under {args.out}")


if __name__ == "__main__":
    main()
