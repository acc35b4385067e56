"""The report's one door to the other stages' outputs: papers joined with their themes, the themes
table, the lineage and the groups still forming; the papers' embeddings and the themes' centroids
(through ``pipeline.topics.fitted``)."""

from __future__ import annotations

from pipeline.config import Config, Paths
from pipeline.io import TableError, read_table
from pipeline.report import data
from pipeline.schemas import DocTopics, Papers, TopicInfo


def require_tables(paths: Paths) -> None:
    """TableError naming the first table a report needs that no stage has written yet."""
    for path, stage in ((paths.papers, "clean"), (paths.doc_topics, "topics"), (paths.topic_info, "topics")):
        if not path.exists():
            raise TableError(f"{paths.display(path)}: not found; run the stage that writes it first ({stage})")


def load_corpus(cfg: Config, columns: list[str] | None = None) -> data.Corpus:
    """Papers joined with their themes, and the themes, lineage and forming groups; ``columns``: the
    paper columns to read (default all; a report that needs few reads faster without the abstracts)."""
    paths = cfg.paths
    require_tables(paths)
    try:
        info = read_table(paths.topic_info, TopicInfo)
    except TableError as exc:
        raise TableError(f"{exc}; themes written by an older paper-trends lack these columns: run "
                         "`paper-trends topics --refit` to write them again") from exc
    from pipeline.topics import fitted, read_lineage  # the topics stage's readers (older lineage tables upgraded)

    try:
        lineage = read_lineage(paths.topic_lineage)
    except TableError:  # damaged: no births to show
        lineage = None
    if columns is not None:
        columns = list(dict.fromkeys([Papers.paper_id, Papers.url, *columns]))  # the join needs these two
    return data.join(read_table(paths.papers, Papers, columns=columns), read_table(paths.doc_topics, DocTopics), info, lineage,
                     fitted.forming(paths))


def load_embeddings(cfg: Config, corpus: data.Corpus):  # noqa: ANN201 - (numpy array, dict)
    """The papers' embeddings (rows of ``corpus.papers``, from the topics stage's cache; any paper
    missing there is embedded now with the same model) and each theme's centroid."""
    from pipeline.topics import fitted

    themes = fitted.load(cfg, corpus.papers)
    return themes.embeddings, themes.centroids
