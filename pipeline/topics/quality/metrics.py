"""Quality measures of a topic model, computed the same way for ours and for BERTopic's defaults.

- NPMI of each topic's top-10 terms, from document co-occurrence in the clustered papers themselves
  (a pair never seen together scores -1), averaged over pairs, then over topics.
- Topic diversity: share of distinct terms among all topics' top-25 terms.
- NMI and ARI of the topic assignment against the arXiv primary category (outliers count as one
  more cluster, as they do for the user). NMI (arithmetic normalisation, scikit-learn's default) is
  the harmonic mean of two shares of the mutual information I(topic; category): homogeneity,
  I / H(category), how much of the category a paper's topic tells, and completeness, I / H(topic),
  how much of the topic its category tells. Themes finer than the categories are homogeneous and
  incomplete: splitting a category into more pure themes raises H(topic) and lowers NMI, and so can
  assigning the outliers BERTopic leaves in one cluster.
- Stability: ARI between the assignments of two runs with different seeds.

Terms are matched on a common tokenisation (lower case, ``\\b\\w\\w+\\b`` tokens, n-grams of them),
so a hyphenated keyword such as "fine-tuning" counts as the bigram "fine tuning".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

import numpy as np

_WORD = re.compile(r"(?u)\b\w\w+\b")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def npmi(topic_terms: dict[int, Sequence[str]], docs: Sequence[str], top: int = 10) -> float:
    """Mean NPMI over topics of their top terms' pairs (document co-occurrence)."""
    terms = {t: [" ".join(_tokens(w)) for w in words[:top] if _tokens(w)] for t, words in topic_terms.items() if t != -1}
    vocab = sorted({w for words in terms.values() for w in words})
    if not vocab:
        return float("nan")
    index = {w: i for i, w in enumerate(vocab)}
    longest = max(len(w.split()) for w in vocab)
    import scipy.sparse as sp

    rows, cols = [], []
    for d, doc in enumerate(docs):
        tokens = _tokens(doc)
        seen = set()
        for n in range(1, longest + 1):
            for i in range(len(tokens) - n + 1):
                gram = " ".join(tokens[i : i + n]) if n > 1 else tokens[i]
                j = index.get(gram)
                if j is not None and j not in seen:
                    seen.add(j)
                    rows.append(d)
                    cols.append(j)
    presence = sp.csr_matrix((np.ones(len(rows), np.float64), (rows, cols)), shape=(len(docs), len(vocab)))
    together = (presence.T @ presence).toarray()
    p = np.diag(together) / len(docs)
    scores = []
    for words in terms.values():
        pairs = []
        for a, b in combinations([index[w] for w in words], 2):
            joint = together[a, b] / len(docs)
            if joint == 0:
                pairs.append(-1.0)
            elif joint == 1:
                pairs.append(1.0)
            else:
                pairs.append(np.log(joint / (p[a] * p[b])) / -np.log(joint))
        if pairs:
            scores.append(float(np.mean(pairs)))
    return float(np.mean(scores)) if scores else float("nan")


def diversity(topic_terms: dict[int, Sequence[str]], top: int = 25) -> float:
    """Distinct terms / all terms, over every topic's top ``top`` terms."""
    words = [w for t, terms in topic_terms.items() if t != -1 for w in terms[:top]]
    return len(set(words)) / len(words) if words else float("nan")


def information(topics: Sequence, categories: Sequence) -> dict[str, float]:
    """Mutual information (nats) between two labellings of the same papers, the entropy of each,
    homogeneity (I / H(categories)) and completeness (I / H(topics)); see the module docstring."""
    from sklearn.metrics import mutual_info_score

    a, b = np.asarray(topics).astype(str), np.asarray(categories).astype(str)
    if not len(a):
        return dict.fromkeys(("mutual_information", "topic_entropy", "category_entropy", "homogeneity", "completeness"),
                             float("nan"))

    def entropy(x: np.ndarray) -> float:
        p = np.unique(x, return_counts=True)[1] / len(x)
        return float(-(p * np.log(p)).sum()) + 0.0  # never -0.0

    mi, h_topics, h_categories = float(mutual_info_score(a, b)), entropy(a), entropy(b)
    return {"mutual_information": mi, "topic_entropy": h_topics, "category_entropy": h_categories,
            "homogeneity": mi / h_categories if h_categories else 1.0, "completeness": mi / h_topics if h_topics else 1.0}


def agreement(labels_a: Sequence, labels_b: Sequence) -> tuple[float, float]:
    """(NMI, ARI) between two labellings of the same papers."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    a, b = np.asarray(labels_a).astype(str), np.asarray(labels_b).astype(str)
    return float(normalized_mutual_info_score(a, b)), float(adjusted_rand_score(a, b))


def summary(topics: np.ndarray, topic_terms: dict[int, Sequence[str]], docs: Sequence[str],
            primary: Sequence[str | None]) -> dict[str, float]:
    """The numbers ``paper-trends evaluate`` reports for one assignment."""
    topics = np.asarray(topics)
    known = np.array([p is not None and p == p for p in primary])
    categories = np.asarray(primary, dtype=object)[known]
    nmi, ari = agreement(topics[known], categories) if known.any() else (np.nan, np.nan)
    info = information(topics[known], categories)  # NaN for no papers
    return {
        "papers": int(len(topics)),
        "n_topics": int(len(set(topics.tolist()) - {-1})),
        "outlier_share": float((topics == -1).mean()) if len(topics) else float("nan"),
        "npmi_top10": npmi(topic_terms, docs, 10),
        "diversity_top25": diversity(topic_terms, 25),
        "nmi_primary_category": nmi,
        "ari_primary_category": ari,
        "homogeneity_primary_category": info["homogeneity"],
        "completeness_primary_category": info["completeness"],
    }


def label_measures(
    labels: dict[int, str], topics: np.ndarray, texts: Sequence[str], centroids: np.ndarray, ids: Sequence[int],
    *, embed=None, stop: frozenset[str] = frozenset(), near: float = 0.9, index=None,  # noqa: ANN001
) -> dict:
    """How well the labels name their themes.

    - ``label_accuracy``: share of labels that, embedded with ``embed`` (the papers' model), lie
      nearer their own theme's centroid than any other (None without ``embed``);
    - ``label_support_median`` / ``_min``: per theme, the share of its papers whose title and
      abstract contain every content word of its label (singular and plural count as one word,
      stop words are not content words); ``label_support`` has each theme's value;
      an acronym the papers define and what it stands for count as one word ("MoE" is
      "mixture-of-experts", ``words.acronyms``); ``label_support_strict_median`` / ``_min`` count
      them apart;
    - ``duplicate_labels``: pairs of labels with the same content words (an acronym the same as its
      words), or (with ``embed``) whose
      embeddings have cosine similarity of at least ``near``.
    """
    from pipeline.topics.naming.words import WordIndex

    ids = [int(t) for t in ids]
    topics = np.asarray(topics)
    index = index if index is not None else WordIndex(texts)  # ``index``: a WordIndex of ``texts``, if built
    words = {t: index.words(labels[t], stop) for t in ids}
    per_theme, strict = {}, {}
    for t in ids:
        rows = set(np.flatnonzero(topics == t).tolist())
        per_theme[t] = index.share(words[t], rows)
        strict[t] = index.share(words[t], rows, literal=True)
    keys = [index.expand(words[t]) for t in ids]  # an acronym and its words are one
    pairs = {(a, b) for i, a in enumerate(ids) for j, b in enumerate(ids) if i < j and keys[i] == keys[j]}
    accuracy = None
    if embed is not None and ids:
        vectors = np.asarray(embed([labels[t] for t in ids]), dtype=np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        accuracy = float((np.asarray(ids)[(vectors @ np.asarray(centroids).T).argmax(axis=1)] == np.asarray(ids)).mean())
        close = vectors @ vectors.T
        pairs |= {(ids[i], ids[j]) for i in range(len(ids)) for j in range(i + 1, len(ids)) if close[i, j] >= near}
    values = list(per_theme.values())
    return {
        "label_accuracy": accuracy,
        "label_support_median": float(np.median(values)) if values else float("nan"),
        "label_support_min": float(min(values)) if values else float("nan"),
        "label_support_strict_median": float(np.median(list(strict.values()))) if strict else float("nan"),
        "label_support_strict_min": float(min(strict.values())) if strict else float("nan"),
        "duplicate_labels": sorted([labels[a], labels[b]] for a, b in pairs),
        "label_support": {t: round(v, 3) for t, v in per_theme.items()},
    }


def reader_measures(labels: dict[int, str], topics: np.ndarray, texts: Sequence[str], embeddings: np.ndarray,
                    ids: Sequence[int], *, embed=None, stop: frozenset[str] = frozenset(),  # noqa: ANN001
                    index=None) -> dict:  # noqa: ANN001 - a words.WordIndex of ``texts``
    """How well each label picks out its theme, used the way a reader uses it: as a search query.

    - **lexical**: the label's hits are the papers whose title and abstract hold every content word
      of it (an acronym and its words as one, singular and plural as one); precision is the share of
      the hits that are in the theme, recall the share of the theme's papers that are hits, and F1
      their harmonic mean;
    - **R-precision** (with ``embed``, the papers' model): every paper ranked by the cosine of its
      unit vector (``embeddings``) to the label's; the share of the first |theme| papers that are in
      the theme.

    Returns per-theme values (``lexical_f1``, ``lexical_precision``, ``lexical_recall``,
    ``r_precision``), their medians, and the share of themes with R-precision under 0.25."""
    from pipeline.topics.naming.words import WordIndex

    ids = [int(t) for t in ids]
    topics = np.asarray(topics)
    index = index if index is not None else WordIndex(texts)
    precision, recall, f1 = {}, {}, {}
    for t in ids:
        members = set(np.flatnonzero(topics == t).tolist())
        hits = index.having(index.words(labels[t], stop)) if labels[t] else set()
        inside = len(hits & members)
        precision[t] = inside / len(hits) if hits else 0.0
        recall[t] = inside / len(members) if members else 0.0
        f1[t] = lexical_f1(inside, len(hits), len(members))
    out = {"lexical_f1": f1, "lexical_precision": precision, "lexical_recall": recall,
           "lexical_f1_median": float(np.median(list(f1.values()))) if f1 else float("nan")}
    if embed is not None and ids:
        vectors = np.asarray(embed([labels[t] for t in ids]), dtype=np.float32)
        out["r_precision"] = dict(zip(ids, r_precision(vectors, ids, topics, embeddings)))
        values = list(out["r_precision"].values())
        out["r_precision_median"] = float(np.median(values))
        out["r_precision_under_0.25"] = float(np.mean(np.asarray(values) < 0.25))
    return out


def lexical_f1(inside: int, hits: int, members: int) -> float:
    """F1 of a query with ``hits`` papers, ``inside`` of them among a theme's ``members``: the harmonic
    mean of precision (inside / hits) and recall (inside / members)."""
    return 2 * inside / (hits + members) if inside else 0.0


def r_precision(queries: np.ndarray, ids: Sequence[int], topics: np.ndarray, embeddings: np.ndarray) -> list[float]:
    """For each query vector (rows in ``ids`` order): the share of the |theme| papers nearest it (by
    cosine to the papers' unit ``embeddings``) that are in its theme."""
    from pipeline.topics.clustering.placement import unit

    queries = unit(np.asarray(queries, dtype=np.float32))
    vectors = unit(np.asarray(embeddings, dtype=np.float32))
    topics = np.asarray(topics)
    out = []
    for query, t in zip(queries, ids):
        size = int((topics == t).sum())
        if not size:
            out.append(0.0)
            continue
        sims = vectors @ query
        top = np.argpartition(-sims, size - 1)[:size]
        out.append(float((topics[top] == t).mean()))
    return out


def hindsight(topics: np.ndarray, titles: Sequence[str], ids: Sequence[int], index, stop: frozenset[str],  # noqa: ANN001
              min_titles: int = 2) -> dict[int, tuple[str, float]]:
    """For calibration: each theme's single best 1-3-word phrase of its papers' titles, picked with
    hindsight for its lexical F1 (``reader_measures``), among the phrases at least ``min_titles`` of
    its titles write; theme -> (phrase, F1). What a label chosen from the titles alone could reach."""
    from pipeline.topics.naming.words import phrases

    topics = np.asarray(topics)
    title_phrases = [phrases(title, stop) for title in titles]
    out = {}
    for t in [int(t) for t in ids]:
        rows = np.flatnonzero(topics == t)
        members = set(rows.tolist())
        counts: dict[str, int] = {}
        for i in rows:
            for p in title_phrases[i]:
                counts[p] = counts.get(p, 0) + 1
        best = ("", 0.0)
        for phrase, _, hits in index.distinct(sorted(p for p, n in counts.items() if n >= min_titles), stop):
            inside = len(hits & members)
            if inside:
                f1 = lexical_f1(inside, len(hits), len(members))
                if f1 > best[1]:
                    best = (phrase, f1)
        out[t] = best
    return out


def area_measures(area_labels: dict[int, str], area_of: dict[int, int], labels: dict[int, str], topics: np.ndarray,
                  index, stop: frozenset[str], floor: float) -> list[dict]:  # noqa: ANN001 - a words.WordIndex
    """Whether each area is named for what its themes share: by its themes ("A · B · C", or its one
    theme's label, ``names.by_themes``), or by a phrase, with the share of the area's papers in the themes of which
    at least ``floor`` write every content word of it (``shared``) and how many such themes there are.
    An area named after one of its themes has one theme writing its name."""
    from pipeline.topics.naming.names import by_themes, writing

    topics = np.asarray(topics)
    out = []
    for a, label in sorted(area_labels.items()):
        themes = [t for t, area in area_of.items() if area == a]
        rows = {t: set(np.flatnonzero(topics == t).tolist()) for t in themes}
        papers = sum(map(len, rows.values()))
        row = {"area": a, "label": label, "papers": papers, "themes": len(themes)}
        if by_themes(label, a, area_of, labels):
            out.append({**row, "named_by": "themes"})
            continue
        written = writing(index.having(index.words(label, stop)), list(rows.values()), floor)
        out.append({**row, "named_by": "phrase", "themes_writing": len(written),
                    "shared": round(sum(map(len, written)) / max(papers, 1), 3)})
    return out
