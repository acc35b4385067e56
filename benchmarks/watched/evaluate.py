"""Precision and recall of the watched-theme matching on the two hand-labelled sets (README.md here).

Each set is split by weeks: the tune half (cs.DC: 2025-W23..W39; daily: 2025-W12..W35), where the
thresholds are chosen (``--choose``), and the report half (cs.DC: W40 on; daily: W36 on), where they
are measured. Per theme, and pooled. Recall counts the labelled pool's positives; precision counts
every paper the rule matches in the half, judged in the pool or in ``labels_matched.jsonl`` (every
match of the shipped rule outside the pools, ``matched.py``); a match judged nowhere (a looser
setting of the grid) counts as wrong, and the table says how many there were. The daily set's fifth
theme has no paper in the corpus: every paper it matches, in the whole corpus, is a false match
(``absent``).

Embeddings come from the stream's cache (``benchmarks/trends_stream.py --corpus csdc|daily`` made it).

    python benchmarks/watched/evaluate.py [--work /tmp/pt-bench-trends] [--choose]

``--choose``: every combination of the grid below on the tune halves of both sets; the chosen one
matches no paper of the absent theme in the tune weeks, then has the most themes at precision >= 0.8
and recall >= 0.6, then the most at precision >= 0.8, then the highest lowest per-theme F1, then the highest mean F1. Results: benchmarks/results/watched.json and .md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tomllib
from dataclasses import asdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
KEYS = {
    "csdc": {"MoE serving": "moe_serving", "Edge offloading": "edge_offloading",
             "Federated learning": "federated_learning", "Collective communication": "collective_communication"},
    "daily": {"KV cache": "kv_cache", "Diffusion language models": "diffusion_lm", "Agent memory": "agent_memory",
              "Speculative decoding": "speculative_decoding", "Quantum error correction": "quantum_ec"},
}
SPLIT = {"csdc": "2025-W40", "daily": "2025-W36"}
MATCHED = HERE / "labels_matched.jsonl"  # verdicts on every match of the shipped rule outside the pools (matched.py)
ABSENT = {"daily": "Quantum error correction"}
GRID = {"floor": [0.2, 0.25, 0.3, 0.35], "z_name": [0.0, 0.5, 1.0, 1.5, 2.0], "z_alone": [2.0, 2.5, 3.0],
        "z_words": [1.0, 1.5, 2.0], "z_far": [3.5, 4.0, 5.0], "share": [0.67, 0.75, 0.8], "named": [0.0, 0.5, 0.67]}


def load(corpus: str, work: Path) -> dict:
    """The papers, their text matches (cached under ``work``), cosines to each sentence, labels."""
    import pandas as pd

    from pipeline import config
    from pipeline.report.watched import TextCache, theme
    from pipeline.topics.embedding.embed import EmbeddingCache, make_embedder, paper_texts
    from trends_stream import corpus_papers

    settings = tomllib.loads((HERE / f"{corpus}.toml").read_text())["report"]
    watch, also = settings["watch"], settings.get("watch_also", {})
    papers = corpus_papers(corpus, work).reset_index(drop=True)
    cfg = config.load(work / f"stream-{corpus}")
    embedder = make_embedder(cfg.topics)
    cache = EmbeddingCache(cfg.paths.embeddings, embedder.identity)
    vectors, _ = cache.embed(paper_texts(papers), embedder)
    sentences, _ = cache.embed(list(watch.values()), embedder)
    themes = [theme(n, s, also.get(n, ())) for n, s in watch.items()]
    text, _ = TextCache(work / f"watched-text-{corpus}").read(papers["title"] + "\n" + papers["abstract"], themes)
    labels = pd.DataFrame([json.loads(line) for line in (HERE / f"labels_{corpus}.jsonl").read_text().splitlines()])
    at = papers.reset_index().set_index("paper_id").loc[labels["id"]]
    # every paper's verdict on each theme where a reader gave one (the pool, or matched.py's), else -1
    row_of = {pid: i for i, pid in enumerate(papers["paper_id"])}
    judged = {key: np.full(len(papers), -1) for key in KEYS[corpus].values()}
    if MATCHED.exists():
        for line in MATCHED.read_text().splitlines():
            v = json.loads(line)
            if v["corpus"] == corpus:
                judged[v["theme"]][row_of[v["id"]]] = v["on"]
    for key in judged:
        judged[key][at["index"].to_numpy()] = labels[key].to_numpy()
    return {"watch": watch, "papers": papers, "text": text, "cosine": vectors @ sentences.T, "labels": labels,
            "rows": at["index"].to_numpy(), "split": np.where(at["week"] >= SPLIT[corpus], "report", "tune"),
            "judged": judged, "split_all": np.where(papers["week"] >= SPLIT[corpus], "report", "tune")}


def scores(data: dict, corpus: str, limits) -> dict:  # noqa: ANN001
    """Per split and theme: positives, matched, precision, recall, F1; and the absent theme's matches."""
    from pipeline.report.watched import decide

    found = decide(data["text"], data["cosine"], limits)
    out: dict = {}
    for part in ("tune", "report"):
        mask = data["split"] == part
        everywhere = data["split_all"] == part
        tp = fp = fn = hit = unjudged_all = 0
        for name, key in KEYS[corpus].items():
            if name == ABSENT.get(corpus):
                continue
            # recall: of the pool's positives; precision: over every match of the half (an unjudged match counts as wrong)
            truth = data["labels"][key].to_numpy()[mask] == 1
            pred = found.on[name].to_numpy()[data["rows"]][mask]
            a, c = int((pred & truth).sum()), int((~pred & truth).sum())
            on = found.on[name].to_numpy() & everywhere
            verdict = data["judged"][key][on]
            right, wrong, unjudged = int((verdict == 1).sum()), int((verdict == 0).sum()), int((verdict < 0).sum())
            tp, fn, hit, fp, unjudged_all = tp + a, fn + c, hit + right, fp + wrong + unjudged, unjudged_all + unjudged
            p, r = right / max(int(on.sum()), 1), a / max(a + c, 1)
            out.setdefault(part, {})[name] = {"positives": int(truth.sum()), "matched": int(on.sum()),
                                              "unjudged": unjudged, "precision": round(p, 3),
                                              "recall": round(r, 3), "f1": round(2 * p * r / max(p + r, 1e-9), 3)}
        p, r = hit / max(hit + fp, 1), tp / max(tp + fn, 1)
        out[part]["all (pooled)"] = {"positives": tp + fn, "matched": hit + fp, "unjudged": unjudged_all,
                                     "precision": round(p, 3), "recall": round(r, 3),
                                     "f1": round(2 * p * r / max(p + r, 1e-9), 3)}
    if corpus in ABSENT:
        on = found.on[ABSENT[corpus]].to_numpy()
        out["absent_tune"] = int((on & (data["papers"]["week"] < SPLIT[corpus]).to_numpy()).sum())
        out["absent"] = {"theme": ABSENT[corpus], "matched_in_corpus": int(on.sum()),
                         "weeks_with_a_match": int(data["papers"].loc[on, "week"].nunique())}
    return out


def choose(data: dict) -> tuple:
    from pipeline.report.watched import Thresholds

    best = None
    for values in itertools.product(*GRID.values()):
        limits = Thresholds(**dict(zip(GRID, values)))
        found = {c: scores(data[c], c, limits) for c in data}
        themes = [v for c in data for name, v in found[c]["tune"].items() if name != "all (pooled)"]
        key = (all(found[c].get("absent_tune", 0) == 0 for c in data),
               sum(v["precision"] >= 0.8 and v["recall"] >= 0.6 for v in themes),
               sum(v["precision"] >= 0.8 for v in themes), min(v["f1"] for v in themes),
               float(np.mean([v["f1"] for v in themes])))
        if best is None or key > best[0]:
            best = (key, limits)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/pt-bench-trends"))
    ap.add_argument("--choose", action="store_true", help="choose the thresholds on the tune halves first")
    args = ap.parse_args()
    from pipeline.config import ReportConfig
    from pipeline.report.watched import Thresholds

    data = {corpus: load(corpus, args.work) for corpus in KEYS}
    limits = Thresholds.of(ReportConfig())
    result: dict = {}
    if args.choose:
        key, limits = choose(data)
        result["chosen"] = {"on_tune": {"absent_none": key[0], "themes_meeting_both": key[1],
                                        "themes_precision_held": key[2], "lowest_f1": key[3],
                                        "mean_f1": round(key[4], 3)},
                            "grid": GRID}
    result["thresholds"] = asdict(limits)
    lines = [f"Thresholds: {', '.join(f'{k} {v}' for k, v in asdict(limits).items())}", "",
             "| set | split | watched theme | labelled positive | matched (unjudged) | precision | recall |",
             "|---|---|---|---|---|---|---|"]
    for corpus in KEYS:
        found = scores(data[corpus], corpus, limits)
        result[corpus] = found
        for part in ("tune", "report"):
            for name, v in found[part].items():
                bold = "**" if name == "all (pooled)" else ""
                lines.append(f"| {corpus} | {part} | {bold}{name}{bold} | {v['positives']} | {v['matched']} ({v['unjudged']}) | "
                             f"{v['precision']:.2f} | {v['recall']:.2f} |")
        if "absent" in found:
            a = found["absent"]
            lines.append(f"\n{corpus}: \"{a['theme']}\" (no paper in the corpus) matches {a['matched_in_corpus']} of "
                         f"{len(data[corpus]['papers']):,} papers, in {a['weeks_with_a_match']} weeks.\n")
    out = REPO / "benchmarks" / "results"
    (out / "watched.json").write_text(json.dumps(result, indent=1))
    (out / "watched.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
