"""The report's tables: how a theme's label is shown."""

from __future__ import annotations

import pandas as pd

from pipeline.report import data


def themes(rows: list[tuple[int, str, str, float, int]]) -> pd.DataFrame:
    return pd.DataFrame([{"topic": t, "label": label, "description": d, "label_support": s, "area": a}
                         for t, label, d, s, a in rows]).set_index("topic", drop=False)


def test_a_label_that_fits_only_part_of_its_theme_is_shown_with_its_next_phrase():
    table = themes([(0, "Imitation learning", "imitation learning · robot · robotic manipulation · VLA", 0.10, 0),
                    (1, "Federated learning", "federated learning · clients · non-IID", 0.90, 1)])
    shown = data.shown_labels(table)
    assert shown[0] == "Imitation learning · robotic manipulation"  # two words before a lone one
    assert shown[1] == "Federated learning"  # fits: as it is
    shown = data.shown_labels(table.assign(label_support=[data.PART_FIT, None]))
    assert shown == {0: "Imitation learning", 1: "Federated learning"}


def test_a_label_with_a_complement_is_shown_with_it_whatever_its_support():
    table = themes([(0, "MRI", "MRI · magnetic resonance · CT", 0.42, 0), (1, "OCR", "OCR · text recognition", 0.10, 1)])
    shown = data.shown_labels(table.assign(label_next=["computed tomography", None]))
    assert shown == {0: "MRI · computed tomography", 1: "OCR · text recognition"}  # else as before


def test_the_next_phrase_says_what_the_label_does_not():
    assert data.next_phrase("KV cache", "KV cache · KV caches · key-value · cache eviction · token pruning") == "token pruning"
    assert data.next_phrase("Vision-language models", "vision-language models · VLMs · grounding") == "grounding"
    assert data.next_phrase("OOD detection", "OOD detection · out-of-distribution · open-set") == "open-set"
    assert data.next_phrase("Social bias", "social bias · biases · stereotypes") == "stereotypes"  # a form of its word
    assert data.next_phrase("LLM agents", "LLM agents · LLMs reasoning · tool use") == "tool use"  # an acronym's plural
    assert data.next_phrase("Consensus", "consensus · consensus protocols") is None
    # another form of the label's word is not a next phrase ("agricultural" beside "agriculture")
    assert data.next_phrase("Precision agriculture", "precision agriculture · agricultural · crop yield") == "crop yield"
    assert data.next_phrase("Precision agriculture", "precision agriculture · agricultural") is None


def test_siblings_that_read_alike_are_told_apart_in_their_area_only():
    table = themes([(0, "AI agents", "AI agents · tool use · planning", 0.5, 0),
                    (1, "LLM agents", "LLM agents · GUI agents · web navigation", 0.5, 0),
                    (2, "Web agents", "web agents · browsing", 0.5, 1),
                    (3, "LLM serving", "LLM serving · SLO scheduling · throughput", 0.5, 2),
                    (4, "LLM inference", "LLM inference · disaggregation", 0.5, 2)])
    shown = data.shown_labels(table)
    assert shown[0] == "AI agents · tool use" and shown[1] == "LLM agents · web navigation"
    assert shown[3] == "LLM serving · SLO scheduling" and shown[4] == "LLM inference · disaggregation"
    assert shown[2] == "Web agents"  # another area: nothing to tell it from


def test_the_reports_corpus_shows_the_labels_as_the_pages_do():
    info = themes([(0, "Imitation learning", "imitation learning · robotic manipulation", 0.1, 0)]).reset_index(drop=True)
    papers = pd.DataFrame({"paper_id": ["a"], "url": ["https://arxiv.org/abs/a"]})
    doc_topics = pd.DataFrame({"paper_id": ["a"], "topic": [0], "probability": [1.0]})
    corpus = data.join(papers, doc_topics, info)
    assert corpus.labels == {0: "Imitation learning · robotic manipulation"}


def test_a_theme_is_found_by_its_label_as_shown_or_as_chosen():
    from pipeline.report.landscape.questions import theme_id

    info = themes([(0, "Imitation learning", "imitation learning · robotic manipulation", 0.1, 0)]).reset_index(drop=True)
    papers = pd.DataFrame({"paper_id": ["a"], "url": ["https://arxiv.org/abs/a"]})
    corpus = data.join(papers, pd.DataFrame({"paper_id": ["a"], "topic": [0], "probability": [1.0]}), info)
    assert theme_id(corpus, "imitation learning") == 0  # as topic_info and the notebooks write it
    assert theme_id(corpus, "Imitation learning · robotic manipulation") == 0  # as the pages show it
