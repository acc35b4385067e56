"""Benchmark: does a fit on a sample, with the rest placed, keep the quality of a fit of every paper?

Above ``fit_sample_size`` papers the themes are fitted on a seeded sample and every other paper joins
its nearest theme (``topics.fitting.place_rest``). On a project whose embeddings are cached (the
2025 year that ``benchmarks/topics.py --phases scale`` embeds), this fits the themes twice: on every
paper, and on a ``--sample`` of them with the rest placed. For each: themes, the unassigned share,
homogeneity and NMI against the papers' primary arXiv categories, and the labels used as search
queries (``metrics.reader_measures``: lexical F1, R-precision); for the sampled fit, homogeneity
and the unassigned share apart for the fitted papers and for the held-out ones it placed.

    python benchmarks/sampled_fit.py --project /tmp/pt-bench-topics/scale --sample 20000

Results: benchmarks/results/sampled_fit.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline import config  # noqa: E402
from pipeline.io import read_table  # noqa: E402
from pipeline.schemas import Papers  # noqa: E402
from pipeline.topics.embedding.embed import make_embedder, paper_inputs  # noqa: E402
from pipeline.topics.clustering.fitting import fit, sample_rows  # noqa: E402
from pipeline.topics.quality.metrics import agreement, information, reader_measures  # noqa: E402
from pipeline.topics.naming.vocabulary import stop_words  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "sampled_fit.json"


def scores(topics: np.ndarray, rows: np.ndarray, categories: np.ndarray) -> dict:
    part, cats = topics[rows], categories[rows]
    return {"papers": int(len(rows)), "unassigned": round(float((part == -1).mean()), 4),
            "homogeneity": round(information(part, cats)["homogeneity"], 4),
            "nmi": round(agreement(part, cats)[0], 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=20000, help="papers the sampled fit clusters")
    args = parser.parse_args()
    cfg = config.load(args.project)
    papers = read_table(cfg.paths.papers, Papers)
    if not 0 < args.sample < len(papers):
        raise SystemExit(f"--sample {args.sample}: must be between 1 and the project's {len(papers):,} papers, "
                         "so that some are held out")
    x = paper_inputs(papers, cfg.paths.embeddings, make_embedder(cfg.topics))
    if x.embedded:
        print(f"note: {x.embedded} papers were not in the cache and were embedded now", flush=True)
    categories = papers[Papers.primary_category].fillna("none").to_numpy()
    everything = np.arange(len(papers))
    stop = frozenset(stop_words(cfg.topics.stop_words))
    out = {"project": str(args.project), "papers": len(papers), "sample": args.sample}
    for name, size in (("whole", 0), ("sampled", args.sample)):
        settings = dataclasses.replace(cfg.topics, fit_sample_size=size)
        started = time.perf_counter()
        result = fit(x.texts, x.embeddings, x.paper_ids, settings, "benchmark", None, {}, titles=x.titles,
                     embed=x.encode, week=x.newest)
        seconds = time.perf_counter() - started
        reader = reader_measures(result.state.labels, result.topics, x.texts, x.embeddings, result.state.ids,
                                 embed=x.encode, stop=stop)
        entry = {"seconds": round(seconds, 1), "themes": int(len(result.state.ids)),
                 "all": scores(result.topics, everything, categories),
                 "lexical_f1_median": round(reader["lexical_f1_median"], 3),
                 "r_precision_median": round(reader["r_precision_median"], 3),
                 "r_precision_under_0.25": round(reader["r_precision_under_0.25"], 3),
                 "largest_theme_share": round(float(np.bincount(result.topics[result.topics >= 0]).max() / len(papers)), 4)}
        if size:
            fitted = sample_rows(x.paper_ids, size, settings.seed)
            held_out = np.setdiff1d(everything, fitted)
            entry["fitted_papers"] = scores(result.topics, fitted, categories)
            entry["held_out_papers"] = scores(result.topics, held_out, categories)
        out[name] = entry
        print(name, json.dumps(entry), flush=True)
    RESULTS.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
