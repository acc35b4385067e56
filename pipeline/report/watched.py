"""Watched themes: subjects the user names in the configuration, each by a name and a sentence
(``[report.watch]``: ``"MoE serving" = "serving mixture-of-experts models for inference"``), matched
to every paper without any training, whatever the clustering made of the subject.

A paper is on a watched theme when

- it writes the name as a phrase (``MoE serving``, ``MoE-serving``; any case), or
- its embedding lies far out in the tail of the store's cosines to the sentence's embedding (same
  model as the themes): ``z >= watch_z`` where ``z`` is the paper's cosine minus the store's mean
  cosine to that sentence, over their standard deviation (calibrated per sentence, so a broad
  sentence and a narrow one are held to the same rarity), or
- it lies in the nearer tail (``z >= watch_z_words``) and writes at least two thirds of the
  sentence's content words (by their stems: "offloading" finds "offload").

So matching depends on the papers and the sentence alone: it holds across splits, merges and refits
of the themes. The thresholds were chosen on the hand-labelled cs.DC set of June-September 2025
(``benchmarks/watched/``) and measured on October-December (``docs/design/weekly-report.md``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

STOP = frozenset("a an and as among across by for from in into of on or such the their to with without many "
                 "model models".split())  # words a sentence says about any subject
_WORD = re.compile(r"\w+")  # words in any script ("Über-scale", "量子计算")


@dataclass(frozen=True)
class Matches:
    """Each paper (rows, in the order given) against each watched theme (columns, by name)."""

    on: pd.DataFrame  # bool: the paper is on the theme
    z: pd.DataFrame  # its calibrated cosine to the theme's sentence (how far out in the store's tail)

    @property
    def names(self) -> list[str]:
        return list(self.on.columns)


def stems(text: str) -> list[str]:
    """The content words of ``text``, each cut to a stem that also finds its other forms
    ("offloading" -> "offload", "servers" -> "serv"); short words are kept whole."""
    return [w[:max(3, len(w) - 3)] for w in _WORD.findall(text.lower()) if w not in STOP]


def phrase_pattern(name: str) -> str:
    """A regular expression finding ``name`` as written: its words in order, joined by spaces or hyphens."""
    words = _WORD.findall(name.lower())
    return r"\b" + r"[\s\-]+".join(re.escape(w) for w in words) + r"s?\b"


def match(texts: pd.Series, vectors: np.ndarray, watch: dict[str, str], sentence_vectors: np.ndarray, *,
          z_alone: float = 3.0, z_words: float = 1.5) -> Matches:
    """For each paper (rows of ``texts``/``vectors``) and watched theme (by name): whether it is on
    the theme, and its calibrated cosine ``z`` to the theme's sentence."""
    lowered = texts.fillna("").str.lower()
    on, scores = {}, {}
    for (name, sentence), vector in zip(watch.items(), sentence_vectors):
        cosine = vectors @ vector if len(vectors) else np.zeros(0)
        spread = float(cosine.std()) if len(cosine) > 1 else 0.0
        z = (cosine - cosine.mean()) / spread if spread > 0 else np.zeros(len(cosine))
        written = lowered.str.contains(phrase_pattern(name), regex=True).to_numpy()
        words = stems(sentence)
        if words:
            share = np.mean([lowered.str.contains(r"\b" + re.escape(w), regex=True).to_numpy() for w in words], axis=0)
        else:
            share = np.zeros(len(lowered))
        on[name] = written | (z >= z_alone) | ((z >= z_words) & (share >= 2 / 3))
        scores[name] = z
    return Matches(pd.DataFrame(on, index=texts.index, columns=list(watch)),
                   pd.DataFrame(scores, index=texts.index, columns=list(watch)))


def weekly_counts(on: pd.DataFrame, weeks: pd.Series, names: list[str], mondays: list) -> pd.DataFrame:  # noqa: ANN001
    """Matched papers per week (rows: ``mondays``) and watched theme (columns: ``names``); ``on``:
    ``Matches.on`` of papers whose weeks (Mondays) are ``weeks``."""
    frame = on[names].astype(int).assign(_week=weeks.to_numpy())
    return frame.groupby("_week")[names].sum().reindex(mondays, fill_value=0)
