"""Topics stage: ``papers.parquet`` -> themes with stable ids.

Tables written (``data/processed/``): ``doc_topics.parquet`` (paper -> theme, -1 unassigned),
``topic_info.parquet`` (label, description, label support, area, keywords, size, representative
papers, first week), ``topic_tree.parquet`` (themes, areas and the joins between them) and
``topic_lineage.parquet`` (what each fit, refit or update did to each theme). The fitted state lives in
``data/models/topics/`` (replaced whole by each run): ``state.safetensors`` (theme centroids),
``state.json`` (labels, keywords, descriptions, areas, the tree, births), ``assignment.parquet``
(every paper's theme: ``doc_topics`` can be recovered from it), ``bertopic/`` (the BERTopic model
of a fit of ``bertopic_min_papers`` papers or more, safetensors, loadable offline with
``BERTopic.load(path, embedding_model=...)``). The run record,
``data/runs/topics.json`` (versions, seed, model hash, config, timings), is written after everything
else.

Three modes:

- **fit**, when there is no state: cluster every paper.
- **update** (the default once a state exists): papers already placed keep their theme; a new
  paper joins the theme that explains it; the others wait in a pool of recent weeks, where dense
  groups far from every theme, among recent papers rather than the fit's, are born as new themes
  (``weekly/emerge.py``). Only new papers are embedded, and neither UMAP nor HDBSCAN runs.
- **refit** (``--refit``, automatically every ``refit_every_weeks``, or when the embedding model
  changed): cluster everything again,
  then match new themes to old ones (``clustering/align.py``) so that a theme that persists keeps its id and
  label; with ``refit_keeps_placed`` every theme that holds papers persists and placed papers move
  only into new or split themes, where the part that leaves lies as far from the rest of its theme
  as neighbouring themes lie (a mere re-cut moves nobody). The lineage says what stayed, split, merged, was born or retired.

Where things are, room by room (each sub-package's docstring says what it holds):

- at the top, the stage and what it keeps: ``stage.py`` runs a run and writes everything,
  ``policy.py`` decides fit, update or refit, ``state.py`` is what is kept between runs (and the
  requests that cross rooms), ``store.py`` the model folder, ``tables.py`` the four tables,
  ``fitted.py`` what other stages read;
- ``embedding/``: the papers' vectors and their cache;
- ``clustering/``: the theme model, fit and refit, placement, alignment across refits, areas;
- ``naming/``: words, phrases, label candidates and labels, naming once per run, one author's series;
- ``weekly/``: the update between refits and the birth of new themes;
- ``quality/``: the quality measures and ``paper-trends evaluate``.
"""

from __future__ import annotations

import importlib

# what the package offers, and the module each comes from: imported when first asked for, so that
# importing one module (the embedder on a cluster's worker, say) does not import the clustering
_FROM = {"make_embedder": "embedding.embed", "paper_texts": "embedding.embed", "fit": "clustering.fitting",
         "update": "weekly.incremental", "name_run": "naming.names", "run": "stage", "RunResult": "state",
         "State": "state", "distinct": "naming.lifecycle", "read_lineage": "tables"}
__all__ = sorted(_FROM)


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM})


def __getattr__(name: str):  # noqa: ANN202 - whatever _FROM names
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
    globals()[name] = value
    return value
