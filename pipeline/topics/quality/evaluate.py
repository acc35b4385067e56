"""``paper-trends evaluate``: how good are the current themes?

Scores the assignment in ``doc_topics.parquet`` (see ``metrics``), the labels (each label embedded
with the papers' model: does it lie nearest its own theme's centroid; how many of the theme's papers
contain every content word of it; duplicate or near-duplicate labels), the largest theme's share, the
number of areas and whether each is named for what its themes share, and stability: the themes are
fitted again from the cached embeddings with the configured seed and with ``seed + 1``, and the ARI
between the two fits is reported. Writes ``reports/evaluation/metrics.json``.
"""

from __future__ import annotations

import time

import numpy as np

from pipeline.config import Config
from pipeline.io import read_table, write_json
from pipeline.schemas import DocTopics, Papers
from pipeline.topics import paper_texts
from pipeline.topics.embedding import embed
from pipeline.topics.embedding.embed import Embedder, EmbeddingCache
from pipeline.topics.fitted import load_state
from pipeline.topics.quality.metrics import (agreement, area_measures, hindsight, label_measures, r_precision, reader_measures,
                                     summary)
from pipeline.topics.naming.vocabulary import stop_words
from pipeline.topics.naming.words import WordIndex


def evaluate(cfg: Config, *, stability: bool = True, embedder: Embedder | None = None) -> dict:
    paths = cfg.paths
    papers = read_table(paths.papers, Papers)
    assigned = read_table(paths.doc_topics, DocTopics).set_index(DocTopics.paper_id)
    state = load_state(paths)
    topics = assigned[DocTopics.topic].reindex(papers[Papers.paper_id]).fillna(-1).astype(int).to_numpy()
    texts = paper_texts(papers)
    terms = {t: [w for w, _ in words] for t, words in state.words.items()}
    result = summary(topics, terms, texts, papers[Papers.primary_category].tolist())
    sizes = np.bincount(topics[topics >= 0]) if (topics >= 0).any() else np.zeros(1)
    result["largest_theme_share"] = float(sizes.max() / max(len(topics), 1))
    result["n_areas"] = len(state.area_labels)
    embedder = embedder or embed.make_embedder(cfg.topics)
    stop = stop_words(cfg.topics.stop_words)
    index = WordIndex(texts)  # one index of the papers' words for both kinds of label measure
    labels = label_measures(state.labels, topics, texts, state.centroids, state.ids.tolist(), embed=embedder.encode,
                            stop=stop, index=index)
    result.update({k: v for k, v in labels.items() if k != "label_support"})
    embeddings, _ = EmbeddingCache(paths.embeddings, embedder.identity).embed(texts, embedder)
    result.update(as_reader(state, topics, texts, papers[Papers.title].tolist(), embeddings, embedder.encode, stop,
                            index))
    floor = cfg.topics.min_label_support
    result[f"labels_below_{floor:.2f}_support"] = sorted(state.labels[t] for t, v in labels["label_support"].items() if v < floor)
    from pipeline.topics.naming.names import AREA_FLOOR

    result["areas"] = area_measures(state.area_labels, state.area_of, state.labels, topics, index, stop,
                                    max(floor, AREA_FLOOR))  # the floor an area's phrase is named at
    if stability:
        from pipeline.topics.clustering.model import ThemeModel

        start = time.perf_counter()
        titles = papers[Papers.title].tolist()
        fits = [ThemeModel.from_config(cfg.topics).set_params(seed=s).fit(texts, embeddings, titles=titles,
                                                                         embed=embedder.encode).topics_
                for s in (cfg.topics.seed, cfg.topics.seed + 1)]
        result["stability_ari_two_seeds"] = agreement(fits[0], fits[1])[1]
        result["stability_seeds"] = [cfg.topics.seed, cfg.topics.seed + 1]
        result["stability_fit_seconds"] = round((time.perf_counter() - start) / 2, 1)
    result = {k: (round(v, 4) if isinstance(v, float) and not np.isnan(v) else v) for k, v in result.items()}
    write_json(result, paths.evaluation / "metrics.json")
    return result


def as_reader(state, topics: np.ndarray, texts: list[str], titles: list[str], embeddings: np.ndarray,  # noqa: ANN001
              encode, stop: frozenset[str], index: WordIndex) -> dict:  # noqa: ANN001
    """The labels used as a reader uses them, as search queries (``metrics.reader_measures``), with
    what a label could reach for calibration: the best title phrase picked with hindsight, and the
    theme's own centroid as the query. Per theme too, largest first. ``index``: the papers' words."""
    ids = state.ids.tolist()
    measured = reader_measures(state.labels, topics, texts, embeddings, ids, embed=encode, stop=stop, index=index)
    best = hindsight(topics, titles, ids, index, stop)
    best_r = dict(zip(ids, r_precision(np.asarray(encode([best[t][0] or state.labels[t] for t in ids])), ids, topics,
                                       embeddings)))
    centroid_r = dict(zip(ids, r_precision(state.centroids, ids, topics, embeddings)))
    sizes = {t: int((topics == t).sum()) for t in ids}
    median = lambda values: float(np.median(list(values))) if values else float("nan")  # noqa: E731
    return {
        "lexical_f1_median": measured["lexical_f1_median"],
        "r_precision_median": measured["r_precision_median"],
        "r_precision_under_0.25": measured["r_precision_under_0.25"],
        "calibration": {
            "hindsight_title_phrase": {"lexical_f1_median": median(f for _, f in best.values()),
                                       "r_precision_median": median(best_r.values())},
            "centroid": {"r_precision_median": median(centroid_r.values())},
        },
        "themes": [{"topic": t, "label": state.labels[t], "papers": sizes[t],
                    "lexical_f1": round(measured["lexical_f1"][t], 3),
                    "lexical_precision": round(measured["lexical_precision"][t], 3),
                    "lexical_recall": round(measured["lexical_recall"][t], 3),
                    "r_precision": round(measured["r_precision"][t], 3),
                    "hindsight_phrase": best[t][0], "hindsight_f1": round(best[t][1], 3)}
                   for t in sorted(ids, key=lambda t: (-sizes[t], t))],
    }
