"""A label's life after it is chosen: the one place a theme's label changes.

A theme's label is chosen once, when the theme is named (``candidates.pick``, through
``names.name_run``). After that it changes only through the functions here, each a rule a reader can
name:

1. **kept across a refit** (``carried``): a theme the refit matched to an old one keeps the old label;
2. **restored with a revived theme** (``restore``): an old theme the refit did not match comes back
   with its label, and a new theme holding that label takes another;
3. **made unique** (``distinct``): ``topic_info`` needs one theme per label, so a label a
   smaller-numbered theme already holds gains a keyword, or else the theme number (``unique``);
4. **named again** (``relabel``, from ``names``): a theme one author carries whose label is a phrase
   of that series, or (at a fit or refit) whose label is one author's phrase, is named again from
   its other papers (``series.renames``); a theme born in a weekly update, or still young, is named
   from its papers as they grow (``weekly.incremental``).

``clustering.model.consolidate`` merges themes whose labels fit few of their papers before any label
is kept: it decides how many themes there are, not what an existing theme is called.
"""

from __future__ import annotations

from pipeline.topics.state import State


def unique(label: str, words: list[tuple[str, float]], used: set[str], topic: int) -> str:
    """``label``, or where ``used`` holds it, the label with the theme's first keyword it does not
    already say ("Consensus (raft)"), or else its number ("Consensus (7)")."""
    if label not in used:
        return label
    extra = next((w for w, _ in words if w.lower() not in label.lower()), None)
    candidate = f"{label} ({extra})" if extra else f"{label} ({topic})"
    return candidate if candidate not in used else f"{label} ({topic})"


def carried(chosen: dict[int, str], kept: dict[int, str], words: dict[int, list[tuple[str, float]]],
            ids: dict[int, int]) -> dict[int, str]:
    """Rule 1: the labels of a fit's themes (by the model's theme number ``t``; ``ids[t]``: its id):
    ``kept[t]`` where the theme matched an old one, else the label ``chosen[t]``; kept labels are
    placed first, so a new theme yields to an old one that holds the same label."""
    labels: dict[int, str] = {}
    used: set[str] = set()
    for t in sorted(ids, key=lambda t: t not in kept):
        labels[ids[t]] = unique(kept.get(t, chosen[t]), words[t], used, ids[t])
        used.add(labels[ids[t]])
    return labels


def restore(state: State, theme: int, label: str) -> None:
    """Rule 2: a revived ``theme`` takes back its ``label``; a theme of ``state`` that holds it takes
    another (``unique``)."""
    clash = next((u for u, held in state.labels.items() if held == label), None)
    state.labels[theme] = label
    if clash is not None:
        state.labels[clash] = unique(state.labels[clash], state.words.get(clash, []), set(state.labels.values()), clash)


def distinct(state: State) -> None:
    """Rule 3: the state's theme labels made unique whatever the data, in theme order (an empty label
    is "Theme <n>"); the tree's theme rows follow."""
    used: set[str] = set()
    for t in sorted(state.labels):
        state.labels[t] = unique(state.labels[t] or f"Theme {t}", state.words.get(t, []), used, t)
        used.add(state.labels[t])
    for row in state.tree:
        if row.get("topic") is not None and row["node"].startswith("theme:"):
            row["label"] = state.labels.get(int(row["topic"]), row.get("label"))


def relabel(state: State, theme: int, label: str) -> str | None:
    """Rule 4 for one theme named again (``names``), with rule 3: ``label`` made unique against the
    other themes, set; returns the label it had (None: it had none)."""
    before = state.labels.get(theme)
    state.labels[theme] = unique(label, state.words.get(theme, []),
                                 {v for u, v in state.labels.items() if u != theme}, theme)
    return before
