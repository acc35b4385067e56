"""Report stage: the weekly trend report and the research landscape survey.

``reports/weekly/<YYYY-Www>/`` and ``reports/survey/<since>_<until>/`` each get ``index.html``
(self-contained), ``report.md`` and ``figures/*.png|svg``; surveys also ``map.html``; weekly
reports also ``summary.json``, from which ``reports/weekly/feed.xml`` (Atom) is rebuilt. ``stage.py``
decides and writes, ``load.py`` reads the other stages' outputs, the rest computes.
"""

from __future__ import annotations

from pipeline.report.load import load_corpus, load_embeddings
from pipeline.report.stage import run, write_survey, write_weekly

__all__ = ["load_corpus", "load_embeddings", "run", "write_survey", "write_weekly"]
