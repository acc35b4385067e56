"""Benchmark: how far themes depend on the seed, over several seed pairs, on cached vectors.

Reads the projects ``benchmarks/themes.py`` made in --work (run it first: it ingests the corpora
and caches their vectors), fits ``ThemeModel`` with each seed of --seeds in one process (the model
is deterministic for a seed), and reports per seed the number of themes, the largest theme's share,
label accuracy (labels embedded, nearest centroid), median and lowest label support, NMI against
the primary category (and its parts, ``metrics.information``: mutual information, entropies,
homogeneity, completeness), the number of themes merged while naming, and each theme's label and size;
per consecutive pair of seeds (42/43, 44/45, ...) the ARI of the final themes and of the
clusterings before naming (``ThemeModel.clusters_``); and the medians.

    python benchmarks/stability.py [--corpora csdc,daily4000] [--seeds 42,43,44,45,46,47]
                                   [--set key=value ...]

``--set`` overrides a ``[tool.pipeline.topics]`` field for every fit (e.g. ``--set resolution=6``),
for trying a setting without editing the config. Results: benchmarks/results/stability.json
(keyed by corpus and the overrides).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))


def parse_override(text: str) -> tuple[str, object]:
    """``key=value``: the value as JSON (numbers, true/false, lists), else as a string."""
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def score_corpus(root: Path, seeds: list[int], overrides: dict) -> dict:
    import numpy as np

    from pipeline import config
    from pipeline.io import read_table
    from pipeline.schemas import Papers
    from pipeline.topics import paper_texts
    from pipeline.topics.embedding import embed
    from pipeline.topics.embedding.embed import EmbeddingCache
    from pipeline.topics.quality.metrics import agreement, information, label_measures
    from pipeline.topics.clustering.model import ThemeModel
    from pipeline.topics.naming.vocabulary import stop_words

    cfg = config.load(root)
    topics_cfg = dataclasses.replace(cfg.topics, **overrides)
    papers = read_table(cfg.paths.papers, Papers)
    texts = paper_texts(papers)
    titles = papers[Papers.title].tolist()
    primary = papers[Papers.primary_category].astype(str).to_numpy()
    embedder = embed.make_embedder(topics_cfg)
    vectors, _ = EmbeddingCache(cfg.paths.embeddings, embedder.identity).embed(texts, embedder)
    stop = frozenset(stop_words(topics_cfg.stop_words))
    fits, first, per_seed = {}, {}, {}
    for seed in seeds:
        started = time.perf_counter()
        model = ThemeModel.from_config(topics_cfg).set_params(seed=seed).fit(texts, vectors, titles=titles,
                                                                           embed=embedder.encode)
        seconds = time.perf_counter() - started
        ids = model.topic_ids_.tolist()
        m = label_measures(model.labels_, model.topics_, texts, model.centroids_, ids, embed=embedder.encode, stop=stop)
        fits[seed] = model.topics_
        first[seed] = model.clusters_
        sizes = np.bincount(model.topics_[model.topics_ >= 0])
        per_seed[seed] = {
            "themes": len(ids), "largest_share": round(float(sizes.max() / len(texts)), 4),
            "label_accuracy": m["label_accuracy"], "support_median": round(m["label_support_median"], 3),
            "support_min": round(m["label_support_min"], 3), "duplicates": len(m["duplicate_labels"]),
            "strict_support_median": round(m["label_support_strict_median"], 3),
            "strict_support_min": round(m["label_support_strict_min"], 3),
            "nmi_primary": round(agreement(model.topics_, primary)[0], 4), "merged": len(model.merged_),
            "information": {k: round(v, 4) for k, v in information(model.topics_, primary).items()},
            "fit_s": round(seconds, 1),
            "labels": {model.labels_[t]: [int((model.topics_ == t).sum()), round(m["label_support"][t], 3)] for t in ids},
        }
        print(root.name, seed, {k: v for k, v in per_seed[seed].items() if k != "labels"}, flush=True)
    pairs = {}
    for a, b in zip(seeds[::2], seeds[1::2]):
        pair = {"ari": round(agreement(fits[a], fits[b])[1], 4),
                "ari_before_naming": round(agreement(first[a], first[b])[1], 4)}
        pairs[f"{a}/{b}"] = pair
    aris = [p["ari"] for p in pairs.values()]
    return {"papers": len(texts), "per_seed": per_seed, "pairs": pairs, "ari_median": round(statistics.median(aris), 4),
            "ari_min": min(aris),
            "nmi_median": round(statistics.median(s["nmi_primary"] for s in per_seed.values()), 4),
            "support_min": min(s["support_min"] for s in per_seed.values()),
            "label_accuracy_min": min(s["label_accuracy"] for s in per_seed.values())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default="csdc,daily4000")
    parser.add_argument("--seeds", default="42,43,44,45,46,47")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pt-bench-topics")
    opts = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    seeds = [int(s) for s in opts.seeds.split(",")]
    if len(seeds) % 2:
        raise SystemExit("--seeds: give pairs (an even number of seeds)")
    overrides = dict(parse_override(o) for o in opts.overrides)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "stability.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for name in opts.corpora.split(","):
        root = opts.work / name
        if not (root / "data" / "processed" / "papers.parquet").exists():
            raise SystemExit(f"{root}: no papers; run benchmarks/themes.py --corpora {name} first")
        key = name + "".join(f" {k}={v}" for k, v in sorted(overrides.items()))
        results[key] = score_corpus(root, seeds, overrides)
        summary = {k: v for k, v in results[key].items() if k != "per_seed"}
        print(json.dumps({key: summary}, indent=2), flush=True)
        path.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
