"""Themes a reader finds by their labels: a label that finds another theme's papers merges its theme
there (``astray``, ``consolidate``), and a paper on a border goes to the theme whose label describes
it (``bordered``)."""

from __future__ import annotations

import numpy as np

from pipeline.topics.model import BORDER, BORDER_NAME, Naming, Placement, Texts, ThemeModel, astray, bordered, consolidate
from pipeline.topics.vocabulary import stop_words
from pipeline.topics.words import Corpus
from tests.topics.test_model import CFG, corpus

STOP = frozenset(stop_words())


def _unit(rows) -> np.ndarray:  # noqa: ANN001
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _setting(docs: list[str], vectors: np.ndarray, topics: list[int], labels: dict[int, str],
             label_vectors: dict[str, list[float]] | None = None) -> tuple[Placement, Naming, Texts]:
    """Themes ``topics`` of the papers (every one clustered), centroids their mean vectors, named
    ``labels``; with ``label_vectors`` an embedding model that knows each label's vector."""
    topics = np.asarray(topics)
    ids = np.array(sorted(set(topics.tolist())))
    centroids = _unit([vectors[topics == t].mean(axis=0) for t in ids])
    placement = Placement(topics.copy(), topics, ids, centroids, np.ones(len(topics)),
                          {int(t): int((topics == t).sum()) for t in ids}, {})
    naming = Naming(labels, dict.fromkeys(labels, ""), dict.fromkeys(labels, 0.5), dict.fromkeys(labels, True))
    embed = None if label_vectors is None else (lambda texts: np.asarray([label_vectors[t] for t in texts]))
    return placement, naming, Texts(docs, [d.split(". ")[0] for d in docs], Corpus(docs, docs, STOP), embed)


def test_a_label_that_finds_another_themes_papers_is_astray_with_the_themes_it_finds():
    vectors = _unit([[1, 0, 0]] * 4 + [[0, 1, 0]] * 4 + [[0, 0.2, 1]] * 2)
    docs = ["Graph partitioning."] * 4 + ["Stream processing."] * 4 + ["Query engines."] * 2
    labels = {0: "Graph partitioning", 1: "Stream processing", 2: "Query engines"}
    # "Query engines" lies among the stream papers: its 2 nearest papers are theme 1's
    where = {"Graph partitioning": [1, 0, 0], "Stream processing": [0, 1, 0.1], "Query engines": [0, 1, 0]}
    placement, naming, texts = _setting(docs, vectors, [0] * 4 + [1] * 4 + [2] * 2, labels, where)
    assert astray(placement, naming, texts, vectors) == {2: [1]}
    where["Query engines"] = [0, 0.2, 1]  # now it finds its own papers
    placement, naming, texts = _setting(docs, vectors, [0] * 4 + [1] * 4 + [2] * 2, labels, where)
    assert astray(placement, naming, texts, vectors) == {}
    placement, naming, texts = _setting(docs, vectors, [0] * 4 + [1] * 4 + [2] * 2, labels)
    assert astray(placement, naming, texts, vectors) == {}  # without the papers' model: not measured


def test_a_theme_astray_joins_the_theme_its_label_finds_within_the_bound_else_stays():
    vectors = _unit([[1, 0]] * 5 + [[0, 1]] * 3 + [[0.6, 0.8]] * 2)
    placement, naming, _ = _setting(["x"] * 10, vectors, [0] * 5 + [1] * 3 + [2] * 2,
                                    {0: "a b", 1: "c d", 2: "e f"})
    core, merged = consolidate(placement, naming, bound=10, floor=0.10, found={2: [0, 1]})
    assert core.tolist() == [0] * 5 + [1] * 3 + [0] * 2 and merged == [(2, 0)]  # its label's papers, not its nearest
    core, merged = consolidate(placement, naming, bound=6, floor=0.10, found={2: [0, 1]})
    assert core.tolist() == [0] * 5 + [1] * 5 and merged == [(2, 1)]  # the next one with room
    assert consolidate(placement, naming, bound=4, floor=0.10, found={2: [0, 1]}) is None  # no room: it stays
    unnamed = Naming(naming.labels, naming.descriptions, {0: 0.5, 1: 0.5, 2: 0.01}, naming.faithful)
    core, merged = consolidate(placement, unnamed, bound=4, floor=0.10, found={2: [0, 1]})
    assert merged == [(2, -1)] and (core[8:] == -1).all()  # nor can it be named: it dissolves


def _border(tilt: float) -> np.ndarray:
    """Two themes of 4 papers each along two axes, and a fifth paper of theme 0 tilted towards theme 1."""
    return _unit([[1, 0]] * 4 + [[0, 1]] * 4 + [[1, tilt]])


def test_a_border_paper_goes_to_the_theme_whose_label_it_writes():
    labels = {0: "Graph partitioning", 1: "Stream processing"}
    docs = ["Graph partitioning of meshes."] * 4 + ["Stream processing engines."] * 4 + ["Windowed stream processing."]
    topics = [0] * 4 + [1] * 4 + [0]
    placement, naming, texts = _setting(docs, _border(1.1), topics, labels)
    assert bordered(placement, naming, texts, _border(1.1), bound=10).tolist() == [0] * 4 + [1] * 5
    assert bordered(placement, naming, texts, _border(1.1), bound=4) is None  # theme 1 is full
    placement, naming, texts = _setting(docs, _border(0.5), topics, labels)
    assert bordered(placement, naming, texts, _border(0.5), bound=10) is None  # not on the border
    docs[-1] = "Graph partitioning for stream processing."  # it writes its own label too: it stays
    placement, naming, texts = _setting(docs, _border(1.1), topics, labels)
    assert bordered(placement, naming, texts, _border(1.1), bound=10) is None


def test_a_border_paper_writing_neither_label_goes_to_the_label_that_lies_nearer_it():
    labels = {0: "Graph partitioning", 1: "Stream processing"}
    docs = ["Graph partitioning of meshes."] * 4 + ["Stream processing engines."] * 4 + ["Windowed joins."]
    topics = [0] * 4 + [1] * 4 + [0]
    paper = _border(1.1)[-1]
    for gap, moves in ((BORDER_NAME + 0.01, True), (BORDER_NAME / 2, False)):
        # label 1 is the paper's own direction; label 0 lies at a cosine of 1 - gap from it
        turn, base = np.arccos(1 - gap), np.arctan2(paper[1], paper[0])
        where = {"Stream processing": list(paper), "Graph partitioning": [np.cos(base - turn), np.sin(base - turn)]}
        placement, naming, texts = _setting(docs, _border(1.1), topics, labels, where)
        out = bordered(placement, naming, texts, _border(1.1), bound=10)
        assert (out is not None and out[-1] == 1) == moves
    placement, naming, texts = _setting(docs, _border(1.1), topics, labels)  # without the model it stays
    assert bordered(placement, naming, texts, _border(1.1), bound=10) is None


def test_the_fit_puts_a_border_paper_in_the_theme_whose_label_it_writes():
    docs, vectors, truth = corpus()
    federated, offloading = vectors[truth == 0].mean(axis=0), vectors[truth == 2].mean(axis=0)
    # nearer the federated-learning papers, within BORDER of the offloading ones, writing "edge offloading"
    between = federated / np.linalg.norm(federated) + 0.97 * offloading / np.linalg.norm(offloading)
    between /= np.linalg.norm(between)
    own, other = between @ _unit([federated])[0], between @ _unit([offloading])[0]
    assert 0 < own - other < BORDER
    docs = [*docs, "Edge offloading of split models. Offloading layers to edge servers under energy limits."]
    model = ThemeModel(CFG).fit(docs, np.vstack([vectors, between]).astype(np.float32))
    theme_of = {model.labels_[t]: t for t in model.topic_ids_}
    assert model.topics_[-1] == theme_of["Edge offloading"]
    assert (model.topics_[:-1][truth == 0] == theme_of["Federated learning"]).all()


def test_the_fit_hands_the_themes_astray_to_the_consolidation(monkeypatch):
    import pipeline.topics.model as model_module
    from tests.helpers import keyword_spy

    found = keyword_spy(monkeypatch, model_module, "consolidate", "found")
    measured, real = [], model_module.astray

    def spy(*args):  # noqa: ANN002, ANN202 - astray's
        measured.append(real(*args))
        return measured[-1]

    monkeypatch.setattr(model_module, "astray", spy)
    docs, vectors, _ = corpus()
    ThemeModel(CFG).fit(docs, vectors, embed=lambda texts: np.ones((len(texts), vectors.shape[1])))
    assert measured and found == measured and all(f is m for f, m in zip(found, measured))
