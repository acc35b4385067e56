"""What other stages and notebooks read of the fitted themes, through one door: each paper's
embedding, each theme's centroid, the groups of papers still forming. The report never opens the
model folder or the embedding cache itself."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pipeline.config import Config, Paths
from pipeline.io import TableError, read_json
from pipeline.topics.embedding import embed
from pipeline.topics.embedding.embed import EmbeddingCache, paper_texts
from pipeline.topics.state import State


@dataclass
class Fitted:
    """The fitted themes as the report sees them."""

    state: State
    embeddings: np.ndarray  # rows of the papers asked about, in order
    centroids: dict[int, np.ndarray] = field(default_factory=dict)


def load_state(paths: Paths) -> State:
    """The fitted state; TableError naming the folder when there is none."""
    state = State.load(paths.topic_model)
    if state is None:
        raise TableError(f"{paths.display(paths.topic_model)}: no fitted themes; run `paper-trends topics` first")
    return state


def load(cfg: Config, papers: pd.DataFrame) -> Fitted:
    """The fitted themes and the embeddings of ``papers`` (from the topics stage's cache; a paper
    missing there is embedded now with the model the themes were fitted with)."""
    state = load_state(cfg.paths)
    embedder = embed.make_embedder(cfg.topics)
    identity = state.embedder if state.embedder else embedder.identity
    vectors, _ = EmbeddingCache(cfg.paths.embeddings, identity).embed(paper_texts(papers), embedder)
    return Fitted(state, vectors, {int(t): c for t, c in zip(state.ids, state.centroids)})


def identity(cfg: Config) -> str:
    """The embedding model the themes were fitted with, which must be the one the configuration
    embeds with (TableError otherwise: the vectors of the two would not be comparable)."""
    state = load_state(cfg.paths)
    configured = embed.make_embedder(cfg.topics).identity
    if state.embedder and state.embedder != configured:
        raise TableError(f"the themes were fitted with {state.embedder}, the configuration embeds with "
                         f"{configured}: run `paper-trends topics` so that both are the same")
    return configured


def embed_texts(cfg: Config, texts: list[str]) -> np.ndarray:
    """Vectors of any ``texts`` (a watched theme's sentence) by the model the themes were fitted with,
    through the same cache: comparable with the papers' embeddings."""
    embedder = embed.make_embedder(cfg.topics)
    vectors, _ = EmbeddingCache(cfg.paths.embeddings, identity(cfg)).embed(texts, embedder)
    return vectors


def forming(paths: Paths) -> list[dict]:
    """Groups of the pool still too small to be themes (papers, nearest theme, label, week); none
    when there is no fitted state."""
    return (read_json(paths.topic_model / "state.json") or {}).get("forming", [])
