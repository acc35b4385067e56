"""The topics stage's wiring: open the model folder (``store.py``), read the papers and their
vectors, ask ``policy.decide`` whether to fit, update or refit, run that one path, name what it left
to be named (``names.name_run``, once, with the series rule in it),
and write the tables, the model folder (the commit point) and the run record (last, so a run
killed part-way is never taken for a finished one)."""

from __future__ import annotations

import contextlib
import logging
import time

from pipeline.config import Config, as_dict
from pipeline.io import TableError, read_table
from pipeline.schemas import Papers
from pipeline.stage import StageResult, Step, code_version, fingerprint
from pipeline.topics import store, tables
from pipeline.topics.embedding import embed
from pipeline.topics.clustering.areas import cut
from pipeline.topics.clustering.fitting import fit
from pipeline.topics.weekly.incremental import update
from pipeline.topics.naming.names import name_run
from pipeline.topics.policy import decide

log = logging.getLogger(__name__)


def run(cfg: Config, *, force: bool = False, refit: bool = False, embedder: embed.Embedder | None = None,
        ) -> StageResult:
    """Fit, update or refit the themes (``policy.py`` says which; the package docstring says what
    each does)."""
    paths = cfg.paths
    folder = paths.topic_model
    settings = cfg.topics
    if not paths.papers.exists():
        raise TableError(f"{paths.display(paths.papers)}: not found; run the stage that writes it first (clean)")
    outputs = [paths.doc_topics, paths.topic_info, paths.topic_lineage, paths.topic_tree]
    held = store.open_folder(folder, outputs)
    embedder = embedder or embed.make_embedder(settings)
    with contextlib.ExitStack() as connected:
        nearest_themes = None
        if settings.cluster:  # a Dask cluster's workers embed and place the papers
            from pipeline.topics.embedding.distributed import Cluster, ClusterEmbedder

            cluster = connected.enter_context(Cluster(settings.cluster))
            embedder, nearest_themes = ClusterEmbedder(embedder, cluster), cluster.nearest
        # where it runs changes nothing: the cluster's workers and any device use the same model
        kept = {k: v for k, v in as_dict(settings).items() if k not in ("cluster", "device")}
        fp = fingerprint(code_version("pipeline.topics", "pipeline.schemas"), {**kept, "embedder": embedder.identity},
                         [paths.papers])
        # the tables and the run record name the fit they came from (fp@fitted_at): a refit of the
        # same papers is never taken for the run before it
        if held is not None and not refit:
            step = Step("topics", f"{fp}@{held.fitted_at}", outputs, paths.run_record("topics"),
                        {"fitted_at": held.fitted_at})
            step.recover(folder / store.RECORD)  # a run killed right after committing its folder
            if (skipped := step.skipped(force)) is not None:  # nothing embedded or born this time
                skipped.counts.update({k: 0 for k in ("embedded now", "born") if k in skipped.counts})
                return skipped

        started = time.perf_counter()
        papers = read_table(paths.papers, Papers)
        if papers.empty:  # nothing to cluster: every record was filtered out or quarantined
            raise TableError(f"{paths.openable(paths.papers)} holds no papers: the ingest and clean summaries say "
                             f"where the records went ({paths.openable(paths.quarantine)} gives each one's reason)")
        x = embed.paper_inputs(papers, paths.embeddings, embedder)
        embed_s = time.perf_counter() - started
        previous, past_lineage = store.history(folder, paths.doc_topics, paths.topic_lineage, held)
        result = themes(x, papers, held, previous, settings, embedder.identity, refit=refit,
                        nearest_themes=nearest_themes)
        fit_s = time.perf_counter() - started - embed_s

        stamp = f"{fp}@{result.state.fitted_at}"
        lineage = tables.lineage_table(past_lineage, result, x.newest)
        tables.write_tables(paths, papers, result, lineage, settings.n_keywords, settings.n_representatives, stamp)
        total_s = time.perf_counter() - started
        counts = _counts(result, papers, x, settings)
        step = Step("topics", stamp, outputs, paths.run_record("topics"), {"fitted_at": result.state.fitted_at})
        record = dict(mode=result.mode, seed=settings.seed,
                      embedder=embedder.identity, config=as_dict(settings), versions=store.versions(),
                      timings_s={"embed": round(embed_s, 2), "cluster": round(fit_s, 2), "total": round(total_s, 2)})
        store.save_model(folder, result, x.paper_ids, lineage, step.record_of(counts, total_s, **record))
        return step.done(counts, total_s, label=f"topics ({result.mode})", **record)


def themes(x: embed.PaperInputs, papers, held, previous: dict[str, int], settings, embedder: str, *,  # noqa: ANN001
           refit: bool = False, nearest_themes=None):  # noqa: ANN001, ANN201 - state.RunResult
    """One run's themes, named: the mode ``policy.decide`` chooses (an update of ``held``, or a fit or
    refit of every paper), then naming, with one author's series taken out of the labels."""
    plan = decide(held, settings, embedder=embedder, newest=x.newest, refit=refit)
    if plan.automatic:
        log.info("topics: %s; refitting", plan.why)
    if plan.mode == "update":
        if plan.count_from:
            held.fitted_week = plan.count_from
        result = update(x.embeddings, x.paper_ids, settings, held, previous, weeks=x.weeks)
        if not held.tree:  # themes fitted before areas existed
            result.to_name.append(cut(held, result.topics, x.embeddings, x.paper_ids))
    else:
        result = fit(x.texts, x.embeddings, x.paper_ids, settings, embedder, held, previous,
                     titles=x.titles, embed=x.encode, nearest_themes=nearest_themes, week=x.newest)
    name_run(result, x.texts, x.titles, settings, embed=x.encode, papers=papers)  # once, the series rule in it
    return result


def _counts(result, papers, x: embed.PaperInputs, settings) -> dict[str, int]:  # noqa: ANN001
    counts = {"papers": len(papers), "embedded now": x.embedded, "themes": len(result.state.ids),
              "areas": len(result.state.area_labels), "unassigned": int((result.topics == -1).sum())}
    if result.mode == "update" and settings.emerge:
        counts["born"] = sum(change.relation in ("new", "split") for change in result.lineage)
        counts["forming"] = len(result.forming)
    return counts
