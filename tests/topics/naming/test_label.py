"""The label rules: coverage, distinctiveness, faithfulness, acronyms as written, uniqueness, growth."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.topics.naming.candidates import extend
from pipeline.topics.naming.label import name_groups
from pipeline.topics.quality.metrics import label_measures
from pipeline.topics.naming.vocabulary import stop_words
from pipeline.topics.naming.words import WordIndex, content_words, surface_form, written_case

STOP = frozenset(stop_words())


def groups_of(*sizes: int) -> np.ndarray:
    return np.concatenate([np.full(n, g) for g, n in enumerate(sizes)])


def beside_federated(group: list[str]) -> tuple[list[str], list[str], np.ndarray]:
    """Texts, titles and groups of ``group`` (theme 0) beside as many federated-learning papers (theme 1)."""
    texts = group + [f"Federated learning {i}. Clients train with federated learning." for i in range(len(group))]
    return texts, [t.split(". ")[0] for t in texts], groups_of(len(group), len(group))


def test_label_is_the_phrase_most_papers_contain_not_the_rarest():
    # every paper says "MoE serving"; only two say "token dropping"
    docs = [f"MoE serving study {i}. We build MoE serving for experts, with batching." for i in range(8)]
    docs[0] += " Token dropping helps."
    docs[1] += " Token dropping hurts."
    others = [f"Federated learning {i}. Clients train with federated learning and privacy." for i in range(8)]
    texts = docs + others
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(8, 8), [0, 1], np.eye(2), STOP)
    assert named[0].label == "MoE serving" and named[0].support == 1.0
    assert named[1].label == "Federated learning"
    assert named[0].description.startswith("MoE serving · ")
    parts = named[0].description.split(" · ")
    assert 2 <= len(parts) <= 4 and len(set(p.lower() for p in parts)) == len(parts)


def test_a_phrase_every_theme_writes_is_not_distinctive():
    shared = "Large language models are used. "
    a = [f"{shared}KV cache {'compression' if i % 2 else 'reuse'} {i}. A KV cache for long context." for i in range(6)]
    b = [f"{shared}Speculative decoding {i}. Speculative decoding with draft models." for i in range(6)]
    texts = a + b
    named = name_groups(texts, texts, groups_of(6, 6), [0, 1], np.eye(2), STOP)
    assert named[0].label == "KV cache" and named[1].label == "Speculative decoding"


def test_unfaithful_phrase_is_skipped_for_one_that_lies_nearest_its_own_theme():
    texts = [f"Edge offloading {i}. Edge offloading of inference to servers, mobile devices." for i in range(6)]
    texts += [f"Cloud autoscaling {i}. Cloud autoscaling of microservices." for i in range(6)]
    centroids = np.eye(3)[:2]

    def embed(phrases):  # "edge offloading" embeds next to theme 1, anything else next to theme 0 / 1 by words
        out = []
        for p in phrases:
            if p.lower() == "edge offloading":
                out.append(np.eye(3)[1])
            elif "cloud" in p.lower() or "autoscaling" in p.lower() or "microservice" in p.lower():
                out.append(np.eye(3)[1])
            else:
                out.append(np.eye(3)[0])
        return np.array(out)

    named = name_groups(texts, texts, groups_of(6, 6), [0, 1], centroids, STOP, embed=embed)
    assert named[0].label != "Edge offloading" and named[0].faithful is True
    assert named[1].faithful is True
    measures = label_measures({t: n.label for t, n in named.items()}, groups_of(6, 6), texts, centroids, [0, 1],
                              embed=embed, stop=STOP)
    assert measures["label_accuracy"] == 1.0


def test_labels_are_unique_across_themes():
    texts = [f"Graph neural networks {i}. Graph neural networks for molecules." for i in range(10)]
    named = name_groups(texts, texts, groups_of(5, 5), [0, 1], np.eye(2), STOP)
    assert content_words(named[0].label, STOP) != content_words(named[1].label, STOP)


def test_acronyms_and_names_stay_as_written_other_words_in_lower_case():
    texts = ["KV cache eviction.", "A KV cache for LLM serving.", "Federated Learning Systems",
             "federated learning on devices", "we use federated learning", "3D Gaussian Splatting",
             "Gaussian splatting with LiDAR", "Class-Incremental Learning", "class-incremental learning works"]
    assert written_case("kv cache", texts) == "KV cache"
    assert written_case("federated learning", texts) == "federated learning"
    assert written_case("gaussian splatting", texts) == "Gaussian splatting"  # "Gaussian" is a name
    assert written_case("class-incremental learning", texts) == "class-incremental learning"
    assert written_case("test time scaling", ["Test-time scaling works; test-time scaling helps."]) == "test-time scaling"
    assert surface_form("moe serving", ["MoE serving, MoE-serving and moe serving", "MoE serving"]) == "MoE serving"


def test_labels_grow_by_the_word_papers_nearly_always_add():
    lidar = ["LiDAR point clouds for driving.", "Sparse LiDAR point clouds.", "lidar point clouds again."]
    assert extend("lidar point", lidar, STOP) == "lidar point clouds"
    uav = ["Tracking from unmanned aerial vehicles.", "An unmanned aerial vehicle dataset.",
           "Unmanned aerial vehicles at night.", "Swarms of unmanned aerial vehicles."]
    assert extend("unmanned aerial", uav, STOP) in ("unmanned aerial vehicles", "Unmanned aerial vehicles")
    assert extend("point clouds", ["point clouds. Then a different continuation.", "point clouds are"], STOP) == "point clouds"
    # a stop word that names what the phrase is about closes it, and nothing grows after it
    vlm = ["Vision-language models training at scale.", "Small vision-language models training.",
           "vision-language models training again.", "A vision-language benchmark."]
    assert extend("vision-language", vlm, STOP) == "vision-language models"
    # other stop words do not, nor does a head noun before the phrase
    assert extend("image generation", ["image generation based on x.", "image generation based on y."], STOP) == "image generation"
    assert extend("language processing", ["models language processing.", "models language processing"], STOP) == (
        "language processing")
    # a word that is no stop word comes first: the head noun closes the phrase only where none would
    assert extend("language processing", ["natural language processing tasks."] * 3, STOP) == (
        "natural language processing tasks")
    assert extend("anomaly detection", ["An anomaly detection method.", "Our anomaly detection method works."],
                  STOP) == "anomaly detection method"  # singular or plural


def test_label_measures_support_and_duplicates():
    texts = ["MoE serving systems", "MoE serving", "expert serving", "serving MoE models today",
             "federated learning", "federated learning", "learning", "federated"]
    topics = groups_of(4, 4)
    measures = label_measures({0: "MoE serving", 1: "Federated learning"}, topics, texts, np.eye(2), [0, 1], stop=STOP)
    assert measures["label_support"] == {0: 0.75, 1: 0.5}
    assert measures["label_support_median"] == 0.625 and measures["label_support_min"] == 0.5
    assert measures["label_accuracy"] is None and measures["duplicate_labels"] == []
    same = label_measures({0: "MoE serving", 1: "Serving MoE"}, topics, texts, np.eye(2), [0, 1], stop=STOP)
    assert same["duplicate_labels"] == [["MoE serving", "Serving MoE"]]


def test_a_corpus_reused_across_merges_names_a_changed_group_anew(monkeypatch):
    from pipeline.topics.naming import label
    from pipeline.topics.naming.words import LabelCorpus

    texts = [f"MoE serving {i}. Serving MoE experts with batching." for i in range(6)]
    texts += [f"KV cache reuse {i}. A KV cache shared across requests." for i in range(6)]
    texts += [f"Federated learning {i}. Clients train with federated learning and privacy." for i in range(6)]
    titles = [t.split(". ")[0] for t in texts]
    corpus = LabelCorpus(texts, titles, STOP)
    before = name_groups(texts, titles, groups_of(6, 6, 6), [0, 1, 2], np.eye(3), STOP, corpus=corpus)
    assert before[1].label == "KV cache reuse"
    merged = np.array([0] * 12 + [2] * 6)  # the KV cache papers join the MoE serving theme
    scored = []
    candidates = label.candidates_of
    monkeypatch.setattr(label, "candidates_of", lambda rows, corpus: scored.append(len(rows)) or candidates(rows, corpus))
    again = name_groups(texts, titles, merged, [0, 2], np.eye(3)[[0, 2]], STOP, corpus=corpus)
    assert scored == [12]  # only the changed theme is worked out again
    fresh = name_groups(texts, titles, merged, [0, 2], np.eye(3)[[0, 2]], STOP)
    assert again == fresh
    assert again[0].support == 0.5 and again[2] == before[2]


def test_a_corpus_names_only_the_texts_it_was_prepared_for():
    import pytest

    from pipeline.topics.naming.words import LabelCorpus

    texts = [f"MoE serving {i}. Serving MoE experts." for i in range(6)]
    corpus = LabelCorpus(texts, texts, STOP)
    name_groups(list(texts), texts, groups_of(6), [0], np.eye(1), STOP, corpus=corpus)  # equal texts: fine
    with pytest.raises(ValueError, match="other texts or stop words"):
        name_groups([t.upper() for t in texts], texts, groups_of(6), [0], np.eye(1), STOP, corpus=corpus)
    with pytest.raises(ValueError, match="other texts or stop words"):
        name_groups(texts, texts, groups_of(6), [0], np.eye(1), STOP | {"serving"}, corpus=corpus)


def test_a_word_of_one_letter_and_a_hyphen_stays_whole():
    # "X-ray" was read as "ray", so a theme of chest X-ray papers was labelled "Chest ray"
    assert content_words("Chest X-ray report generation", STOP) == {"chest", "x-ray", "report", "generation"}
    assert content_words("k-means and t-SNE", STOP) == {"k-mean", "t-sne"}  # singular, as every word
    texts = [f"Chest X-ray study {i}. Chest X-ray reports from chest X-ray images, read by radiologists." for i in range(6)]
    texts += [f"Brain MRI study {i}. Brain MRI scans segmented into brain MRI regions." for i in range(6)]
    named = name_groups(texts, texts, groups_of(6, 6), [0, 1], np.eye(2), STOP)
    assert named[0].label == "Chest X-ray" and named[0].support == 1.0


def test_label_support_counts_the_acronym_as_its_words_and_strict_support_does_not():
    moe = [f"Expert routing {i}. Mixture-of-experts (MoE) serving with routing." for i in range(4)]
    moe += [f"Expert routing {i}. Serving mixture-of-experts models with routing." for i in range(4, 8)]
    other = [f"Federated learning {i}. Clients train with federated learning." for i in range(8)]
    texts = moe + other
    m = label_measures({0: "MoE serving", 1: "Federated learning"}, groups_of(8, 8), texts, np.eye(2), [0, 1],
                       stop=STOP)
    assert m["label_support"][0] == 1.0 and m["label_support_strict_median"] == 0.75
    assert m["label_support_strict_min"] == 0.5


def test_a_description_does_not_repeat_the_label_as_its_acronym_or_its_words():
    fl = [f"Federated learning (FL) round {i}. In federated learning (FL), clients train with FL and stragglers."
          for i in range(8)]
    moe = [f"MoE inference {i}. Serving {'mixture-of-experts' if i % 2 else 'Mixture of Experts'} (MoE) models "
           "with MoE inference." for i in range(8)]
    texts = fl + moe
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(8, 8), [0, 1], np.eye(2), STOP)
    assert named[0].label == "Federated learning" and named[1].label == "MoE inference"
    fl_parts = [p.lower() for p in named[0].description.split(" · ")]
    moe_parts = [p.lower() for p in named[1].description.split(" · ")]
    assert "fl" not in fl_parts and "clients" in fl_parts
    assert not {"mixture", "experts", "mixture-of-experts", "moe"} & set(moe_parts[1:])


def test_an_acronym_and_its_words_are_one_label_not_two():
    a = [f"MoE serving {i}. Serving mixture-of-experts (MoE) models." for i in range(6)]
    b = [f"Mixture-of-experts serving {i}. Mixture-of-experts (MoE) serving at scale." for i in range(6)]
    texts = a + b
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(6, 6), [0, 1], np.eye(2), STOP)
    assert content_words(named[0].label, STOP) != content_words(named[1].label, STOP)
    assert {named[0].label.lower(), named[1].label.lower()} != {"moe serving", "mixture-of-experts serving"}
    m = label_measures({0: "MoE serving", 1: "Mixture-of-experts serving"}, groups_of(6, 6), texts, np.eye(2), [0, 1],
                       stop=STOP)
    assert m["duplicate_labels"] == [["MoE serving", "Mixture-of-experts serving"]]


def test_a_description_does_not_repeat_an_acronym_of_the_grown_label():
    from pipeline.topics.naming.candidates import candidates_of
    from pipeline.topics.naming.label import description
    from pipeline.topics.naming.words import LabelCorpus

    texts = [f"Personalized federated learning {i}. Personalized federated learning (PFL) builds on federated "
             f"learning (FL) with clients and personalization." for i in range(8)]
    corpus = LabelCorpus(texts, texts, STOP)
    candidates = candidates_of(np.arange(8), corpus)
    [chosen] = [c for c in candidates if c.phrase == "personalized federated"]  # grown by "learning"
    grown = content_words("personalized federated learning", STOP)
    shown = description(candidates, chosen, texts, "Personalized federated learning", corpus.doc_index.expand, grown)
    assert not {"fl", "pfl", "federated learning"} & {p.lower() for p in shown.split(" · ")[1:]}
    without = description(candidates, chosen, texts, "x", corpus.doc_index.expand)  # the label's words as chosen
    assert {"fl", "federated learning"} & {p.lower() for p in without.split(" · ")}


def test_a_label_takes_the_acronym_where_the_papers_write_it():
    from pipeline.topics.naming.label import abbreviated
    from pipeline.topics.naming.words import LabelCorpus

    gpu = ["Graphics processing units (GPUs) run kernels.", "Graphics processing units (GPUs) again."]
    gpu += [f"Kernels on GPUs {i}. We tune GPUs and GPU memory." for i in range(6)]
    corpus = LabelCorpus(gpu, gpu, STOP)
    rows = set(range(len(gpu)))
    assert abbreviated("graphics processing units", rows, corpus) == "GPUs"  # 8 of 8 write GPU, 2 the words
    mixed = ["Question answering (QA) one.", "Question answering (QA) two.", "Question answering three.",
             "question answering four.", "QA five.", "QA six."]
    corpus = LabelCorpus(mixed, mixed, STOP)
    # 3 of 5 write QA, 4 of 5 the words: the words stay
    assert abbreviated("question answering", set(range(5)), corpus) == "question answering"
    assert abbreviated("question answering", {0, 1, 4}, corpus) == "QA"  # 3 against 2: 1.5 times as many
    assert abbreviated("question answering", {0, 1, 2, 4}, corpus) == "question answering"  # 3 against 3
    assert abbreviated("question answering", {0, 1, 2, 4, 5}, corpus) == "QA"  # 4 against 3: 1.33 times


def test_an_acronym_replaces_all_but_its_first_word_only_where_the_papers_write_that_word_before():
    from pipeline.topics.naming.label import abbreviated
    from pipeline.topics.naming.words import LabelCorpus

    texts = ["Unmanned aerial vehicles (UAVs) fly.", "Unmanned aerial vehicles (UAVs) land."]
    texts += [f"UAVs {i}. The UAVs swarm." for i in range(6)]
    texts += ["Natural language processing (NLP) tasks.", "Natural language processing (NLP) again."]
    texts += [f"NLP {i}. Language interfaces in NLP, and language processing." for i in range(6)]
    texts += ["Deep reinforcement learning (DRL) agents.", "Deep reinforcement learning (DRL) again."]
    texts += [f"DRL {i}. DRL with deep learning and reinforcement learning." for i in range(6)]
    corpus = LabelCorpus(texts, texts, STOP)
    uav, nlp, drl = set(range(8)), set(range(8, 16)), set(range(16, 24))
    assert abbreviated("aerial vehicles", uav, corpus) == "UAVs"  # plural, as the papers write it
    assert abbreviated("unmanned vehicles", uav, corpus) == "unmanned vehicles"  # the middle word left out
    assert abbreviated("natural language", nlp, corpus) == "natural language"  # NLP is about processing
    # "language processing": "natural" before it in 2 of 8 places, under the 60 % asked
    assert abbreviated("language processing", nlp, corpus) == "language processing"
    assert abbreviated("natural language processing", nlp, corpus) == "NLP"  # 8 papers against 2
    # NLP written by all 8, "language processing" by 5, "natural" before it in 2 of those 5: under 60 %
    few = texts[8:10] + [f"NLP {i}. Language processing in NLP." for i in range(3)] + [f"NLP {i}." for i in range(3)]
    assert abbreviated("language processing", set(range(8)), LabelCorpus(few, few, STOP)) == "language processing"
    assert abbreviated("deep learning", drl, corpus) == "deep learning"  # not DRL: "reinforcement" left out
    assert abbreviated("reinforcement learning", drl, corpus) == "reinforcement learning"  # "deep" before in 2 of 8
    small = ["Large language models (LLMs) a.", "Large language models (LLMs) b."]
    small += [f"LLMs {i}. Small language models beat LLMs." for i in range(6)]
    corpus = LabelCorpus(small, small, STOP)
    assert abbreviated("small language models", set(range(8)), corpus) == "small language models"
    # a part of what UAV stands for takes the acronym where more papers write it, the whole where 1.25
    # times as many do: 6 papers write UAV, 5 the words
    both = [f"Unmanned aerial vehicles (UAVs) {i}." for i in range(5)] + ["UAVs fly."]
    corpus = LabelCorpus(both, both, STOP)
    assert abbreviated("aerial vehicles", set(range(6)), corpus) == "UAVs"
    assert abbreviated("unmanned aerial vehicles", set(range(6)), corpus) == "unmanned aerial vehicles"
    assert abbreviated("aerial vehicles", set(range(5)), corpus) == "aerial vehicles"  # 5 against 5


def test_the_acronym_takes_the_number_the_papers_write_and_a_stop_word_is_no_acronym():
    from pipeline.topics.naming.label import abbreviated
    from pipeline.topics.naming.words import LabelCorpus

    moe = ["Mixture-of-experts (MoE) serving.", "Mixture-of-experts (MoE) layers."]
    moe += [f"MoEs {i}. Serving MoEs; MoE serving." for i in range(6)]  # MoEs written more than MoE
    corpus = LabelCorpus(moe, moe, STOP)
    assert abbreviated("mixture-of-experts serving", set(range(8)), corpus) == "MoE serving"  # not "MoEs"
    gpu = ["Graphics processing units (GPUs) a.", "Graphics processing units (GPUs) b."]
    gpu += [f"GPU {i}. A GPU; one GPU." for i in range(6)]  # the singular, more often
    corpus = LabelCorpus(gpu, gpu, STOP)
    assert abbreviated("graphics processing units", set(range(8)), corpus) == "GPU"
    tie = ["Graphics processing units (GPUs) a.", "Graphics processing units (GPUs) b."]
    tie += [f"Board {i}. A GPU." for i in range(2)] + [f"Kernel {i}. GPUs and a GPU." for i in range(4)]
    # GPUs written 6 times, GPU 6 times: as often, so the plural
    assert abbreviated("graphics processing units", set(range(8)), LabelCorpus(tie, tie, STOP)) == "GPUs"
    can = ["Controller area network (CAN) bus.", "Controller area network (CAN) frames."]
    can += [f"CAN bus {i}. The CAN bus." for i in range(6)]
    corpus = LabelCorpus(can, can, STOP)
    assert "can" in STOP and abbreviated("controller area network bus", set(range(8)), corpus) == \
        "controller area network bus"


def test_the_acronym_form_must_name_the_theme_and_no_other_label_may_say_it():
    # theme 0 is chosen as "graphics processing units", and its papers write GPUs; theme 1 says GPU too
    gpu = [f"GPUs at scale {i}. Graphics processing units (GPUs) are fast." for i in range(2)]
    gpu += [f"GPUs at scale {i}. We run jobs on GPUs." for i in range(2, 10)]
    texts, titles, groups = beside_federated(gpu)
    centroids = np.eye(3)[:2]

    def embed(phrases):  # "GPUs" lies nearest theme 1; anything else with "graphics" or "gpu", theme 0
        return np.array([np.eye(3)[1] if p == "GPUs" or "federated" in p.lower()
                         else np.eye(3)[0] if "graphic" in p.lower() or "gpu" in p.lower() else np.eye(3)[2]
                         for p in phrases])

    named = name_groups(texts, titles, groups, [0, 1], centroids, STOP, embed=embed)
    assert named[0].label == "Graphics processing units"  # "GPUs" would name theme 1
    taken = {frozenset({"gpu"})}  # another theme (say, one named before) is labelled "GPU"
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP, taken=taken)
    assert named[0].label.lower() != "gpus" and content_words(named[0].label, STOP) != {"gpu"}


def test_two_themes_never_end_with_the_same_acronym_label():
    a = [f"Unmanned aerial vehicles {i}. Unmanned aerial vehicles (UAVs) map fields." for i in range(8)]
    b = [f"Aerial vehicles {i}. Unmanned aerial vehicles (UAVs): our UAVs and aerial vehicles fly." for i in range(8)]
    texts = a + b
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(8, 8), [0, 1], np.eye(2), STOP)
    index = WordIndex(texts)
    keys = [index.expand(content_words(named[t].label, STOP)) for t in (0, 1)]
    assert keys[0] != keys[1]


def test_labels_that_differ_only_in_number_are_one_label():
    a = [f"Sharing GPUs {i}. We study sharing GPUs between jobs." for i in range(6)]
    b = [f"Sharing GPU {i}. We study sharing GPU between tenants." for i in range(6)]
    texts = a + b
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(6, 6), [0, 1], np.eye(2), STOP)
    m = label_measures({t: n.label for t, n in named.items()}, groups_of(6, 6), texts, np.eye(2), [0, 1], stop=STOP)
    assert m["duplicate_labels"] == [], named


def test_named_groups_use_the_acronym_form():
    gpu = [f"GPUs at scale {i}. Graphics processing units (GPUs) are fast." for i in range(2)]
    gpu += [f"GPUs at scale {i}. We run jobs on GPUs." for i in range(2, 10)]
    fl = [f"Federated learning {i}. Clients train with federated learning." for i in range(10)]
    texts = gpu + fl
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(10, 10), [0, 1], np.eye(2), STOP)
    assert named[0].label == "GPUs" and named[0].support == 1.0  # the words: 2 of 10 papers
    # a floor of 0.3 judges the phrase as it would be written (GPUs: 10 of 10), not as found (2 of 10)
    floored = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(10, 10), [0, 1], np.eye(2), STOP, floor=0.3)
    assert floored[0].label == "GPUs"
    assert named[0].description.startswith("GPUs")
    m = label_measures({t: n.label for t, n in named.items()}, groups_of(10, 10), texts, np.eye(2), [0, 1], stop=STOP)
    assert m["label_support_strict_min"] == 1.0


def test_the_floor_demotes_a_phrase_too_few_papers_write_word_for_word():
    from pipeline.topics.naming.words import LabelCorpus

    # "RL training" scores best: every paper says reinforcement learning (= RL) and training; but only
    # two of ten write "RL" itself, under a floor of 0.3
    rl = [f"RL training {i}. Reinforcement learning (RL) training is studied; RL training scales." for i in range(2)]
    rl += [f"Reinforcement learning {i}. Agents learn by reinforcement learning; training uses rewards."
           for i in range(2, 10)]
    robots = [f"Reinforcement learning for robots {i}. Robots use reinforcement learning for control." for i in range(20)]
    texts = rl + robots
    titles = [t.split(". ")[0] for t in texts]
    corpus = LabelCorpus(texts, titles, STOP)
    plain = name_groups(texts, titles, groups_of(10, 20), [0, 1], np.eye(2), STOP, corpus=corpus)
    floored = name_groups(texts, titles, groups_of(10, 20), [0, 1], np.eye(2), STOP, corpus=corpus, floor=0.3)
    assert plain[0].label == "RL training"
    assert floored[0].label != "RL training"
    m = label_measures({0: floored[0].label, 1: floored[1].label}, groups_of(10, 20), texts, np.eye(2), [0, 1], stop=STOP)
    assert m["label_support_strict_min"] >= 0.3


def test_a_description_does_not_list_the_parts_of_a_hyphenated_label_word():
    texts = [f"Edge-cloud continuum {i}. The edge-cloud continuum spans edge and cloud, with orchestration." for i in range(8)]
    texts += [f"Federated learning {i}. Clients train with federated learning." for i in range(8)]
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(8, 8), [0, 1], np.eye(2), STOP)
    assert named[0].label == "Edge-cloud continuum"
    assert not {"edge", "cloud"} & {p.lower() for p in named[0].description.split(" · ")}


def test_a_label_is_not_written_as_an_acronym_another_label_already_says():
    uav = [f"Study {i}. Unmanned aerial vehicles (UAVs) swarm over fields." for i in range(4)]
    uav += [f"Study {i}. Our UAVs swarm over fields." for i in range(4, 10)]
    texts, titles, groups = beside_federated(uav)
    free = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    assert free[0].label == "UAVs"  # unmanned aerial vehicles: 10 papers write UAV, 4 the words
    # another theme is "UAV": "aerial vehicles", nearly always "unmanned aerial vehicles", is that label
    # cut short (``cut_from_label``), so the theme takes its next phrase
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP, taken={frozenset({"uav"})})
    assert named[0].label == "UAVs swarm"
    # where only 4 of 7 write "unmanned" before it, it is a phrase of its own, but may not become "UAVs"
    texts, titles, groups = beside_federated(uav + [f"Small aerial vehicles {i}. Small aerial vehicles fly." for i in range(3)])
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP, taken={frozenset({"uav"})})
    assert named[0].label == "Aerial vehicles"


def test_a_description_lists_an_acronym_once_whatever_its_number():
    texts = [f"Training systems {i}. Training systems scale on GPU clusters; GPUs and one GPU; the GPUs idle."
             for i in range(8)]
    texts += [f"Federated learning {i}. Clients train with federated learning." for i in range(8)]
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(8, 8), [0, 1], np.eye(2), STOP)
    parts = [p.lower() for p in named[0].description.split(" · ")]
    assert not {"gpu", "gpus"} <= set(parts), named[0].description


def test_under_a_floor_a_label_whose_acronym_form_is_refused_gives_way_to_one_enough_papers_write():
    # "graphics processing units" may not become "GPUs" (another label says GPU); as words, 2 of 10
    # papers write it, under the floor: a phrase that more of them write is taken instead
    gpu = [f"GPUs at scale {i}. Graphics processing units (GPUs) run batch jobs." for i in range(2)]
    gpu += [f"GPUs at scale {i}. We run batch jobs on GPUs." for i in range(2, 10)]
    texts, titles, groups = beside_federated(gpu)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP, taken={frozenset({"gpu"})}, floor=0.3)
    index = WordIndex(texts)
    assert index.share(index.words(named[0].label, STOP), set(range(10)), literal=True) >= 0.3, named[0]


def test_the_support_and_description_of_a_label_are_of_it_as_written():
    uav = [f"Swarms {i}. Unmanned aerial vehicles (UAVs) swarm; unmanned aerial vehicles fly." for i in range(3)]
    uav += [f"Swarms {i}. Our UAVs swarm; UAVs fly." for i in range(3, 8)]
    uav += [f"Swarms {i}. Fixed-wing aerial vehicles swarm." for i in range(8, 10)]
    texts, titles, groups = beside_federated(uav)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    assert named[0].label == "UAVs"
    m = label_measures({t: n.label for t, n in named.items()}, groups, texts, np.eye(2), [0, 1], stop=STOP)
    assert named[0].support == m["label_support"][0] == 0.8  # the two fixed-wing papers never write UAV
    assert "aerial vehicles" not in named[0].description.lower()


def test_a_phrase_that_writes_the_acronym_already_does_not_get_it_twice():
    from pipeline.topics.naming.label import abbreviated
    from pipeline.topics.naming.words import LabelCorpus

    gpu = ["Graphics processing units (GPUs) a.", "Graphics processing units (GPUs) b."]
    gpu += [f"GPU {i}. GPUs and GPUs." for i in range(6)]
    corpus = LabelCorpus(gpu, gpu, STOP)
    assert abbreviated("gpu graphics processing units", set(range(8)), corpus) == "gpu graphics processing units"


def test_a_description_writes_a_phrase_with_of_whole_not_as_its_two_words():
    iot = [f"Edge offloading {i}. Edge offloading serves the Internet of Things; Internet of Things devices offload."
           for i in range(8)]
    texts, titles, groups = beside_federated(iot)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    parts = named[0].description.split(" · ")
    assert "Internet of Things" in parts, named[0].description
    assert not {"internet", "things", "thing"} & {p.lower() for p in parts}


def test_a_word_the_papers_write_in_several_of_phrases_stays_one_word():
    # "quality" comes after "loss of", "measures of", "levels of": no "X of quality" is what they mostly write
    quality = [f"Video streaming {i}. Video streaming adapts bitrate; the {w} of quality varies with video streaming."
               for i, w in enumerate(["loss", "measure", "level", "loss", "measure", "level", "drop", "gain"])]
    texts, titles, groups = beside_federated(quality)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    assert " of " not in named[0].description, named[0].description


def test_a_description_does_not_list_a_part_of_a_hyphenated_phrase_it_lists():
    texts = [f"Image restoration {i}. Image restoration at high-resolution; the resolution of images matters."
             for i in range(8)]
    texts, titles, groups = beside_federated(texts)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    parts = [p.lower() for p in named[0].description.split(" · ")]
    assert "high-resolution" in parts, named[0].description
    assert "resolution" not in parts, named[0].description


@pytest.mark.parametrize("first", ["locks", "lock-free"])
def test_a_free_phrase_and_the_word_it_goes_without_are_both_listed_in_either_order(first):
    # "lock-free" says more than "locks" and does not say it: both are listed, whichever more papers
    # write (every paper writes the first, five the other)
    other = "lock-free" if first == "locks" else "locks"
    texts = [f"Concurrent queues {i}. Concurrent queues use {first}" + (f"; some are {other}." if i < 5 else ".")
             for i in range(8)]
    texts, titles, groups = beside_federated(texts)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    parts = [p.lower() for p in named[0].description.split(" · ")]
    assert {"locks", "lock-free"} <= set(parts), named[0].description


def test_a_quantity_before_of_does_not_make_a_phrase():
    # every "GPUs" is "thousands of GPUs", but "thousands" goes with anything: "GPUs" stays one word
    texts = [f"Expert routing {i}. Expert routing runs on thousands of GPUs; thousands of tokens and thousands of "
             f"experts wait." for i in range(8)]
    texts, titles, groups = beside_federated(texts)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    assert "thousands of" not in named[0].description.lower(), named[0].description


def test_a_free_label_does_not_hide_the_word_it_goes_without():
    texts = [f"Lock-free queues {i}. Lock-free queues beat queues with locks" + (", and locks stall." if i < 6 else ".")
             for i in range(8)]
    texts, titles, groups = beside_federated(texts)
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    assert named[0].label == "Lock-free queues"
    assert "locks" in [p.lower() for p in named[0].description.split(" · ")], named[0].description


def test_an_of_phrase_needs_a_word_that_is_not_a_stop_word_as_written():
    from pipeline.topics.naming.label import of_phrase

    sample = [f"Study {i}. We know perhaps of things here, and perhaps of things there." for i in range(4)]
    assert of_phrase("things", sample) == "perhaps of things"
    # "perhaps" is the stop word; its crude singular "perhap" is not
    assert of_phrase("things", sample, frozenset({"perhaps"})) is None


def mllm_corpus(others: int) -> tuple[list[str], list[str], np.ndarray]:
    mllm = [f"MLLM inference {i}. Serving multimodal large language models (MLLMs) with MLLM inference." for i in range(3)]
    mllm += [f"MLLM inference {i}. We batch MLLM inference requests." for i in range(3, 10)]
    fl = [f"Federated learning {i}. Clients train with federated learning." for i in range(others)]
    texts = mllm + fl
    return texts, [t.split(". ")[0] for t in texts], groups_of(10, others)


def test_a_description_spells_out_an_acronym_of_the_label_few_papers_write():
    texts, titles, groups = mllm_corpus(200)  # MLLM: 10 of 210 papers, under KNOWN_SHARE
    named = name_groups(texts, titles, groups, [0, 1], np.eye(2), STOP)
    assert named[0].label == "MLLM inference"
    assert named[0].description.split(" · ")[:2] == ["MLLM inference", "multimodal large language models"]
    known = name_groups(*mllm_corpus(20), [0, 1], np.eye(2), STOP)  # 10 of 30 papers write it: the field's word
    assert "multimodal" not in known[0].description


def test_spelling_out_counts_the_acronym_as_written_and_reads_it_in_hyphens_and_plurals():
    from pipeline.topics.naming.label import spelled
    from pipeline.topics.naming.words import LabelCorpus

    fillers = [f"Study {i}. We ran experiments on mixture models." for i in range(60)]  # "ran" is no "RAN"
    texts = ["Slicing. The radio access network (RAN) is sliced.", "RAN slicing. A radio access network (RAN) slice.",
             "Unmanned aerial vehicles (UAVs) are drones. UAV-assisted relays help.",
             "Relays. Unmanned aerial vehicles (UAVs) relay traffic for users.",
             "MoE. Serving mixture-of-experts (MoE) models.", "MoE. A mixture-of-experts (MoE) layer.", *fillers]
    corpus = LabelCorpus(texts, [t.split(". ")[0] for t in texts], STOP)
    assert spelled("RAN slicing · slices", "RAN slicing", corpus, texts[:2]) == "RAN slicing · radio access network · slices"
    uav = texts[2:4]  # defined at the start of a sentence: "Unmanned" is no name
    assert spelled("UAV-assisted relays · relays", "UAV-assisted relays", corpus, uav) == \
        "UAV-assisted relays · unmanned aerial vehicles · relays"
    assert spelled("UAVs · drones", "UAVs", corpus, uav) == "UAVs · unmanned aerial vehicles · drones"
    assert spelled("MoE serving · mixture · experts · batching", "MoE serving", corpus, texts[4:6]) == \
        "MoE serving · mixture-of-experts · batching"  # the parts of the hyphenated words are said
    assert spelled("", "MoE serving", corpus, texts[4:6]) == ""
    assert spelled("RAN slicing · radio access networks", "RAN slicing", corpus, texts[:2]) == \
        "RAN slicing · radio access networks"  # said already


@pytest.mark.parametrize("hyphen", [" ", "-"])
def test_a_phrase_cut_from_another_themes_label_is_not_a_label(hyphen):
    # both themes write retrieval augmented generation, the larger one (its label) with or without the
    # hyphen; the smaller one's "augmented generation" is that label cut short, not a phrase of its own
    rag = [f"Retrieval{hyphen}augmented generation {i}. Retrieval{hyphen}augmented generation with dense "
           "retrievers and documents." for i in range(8)]
    hops = [f"Study {i} of answers. Retrieval augmented generation "
            + ("for multi-hop question answering." if i % 2 else "over several hops.") for i in range(6)]
    texts = rag + hops
    named = name_groups(texts, [t.split(". ")[0] for t in texts], groups_of(8, 6), [0, 1], np.eye(2), STOP)
    assert named[0].label == f"Retrieval{hyphen}augmented generation"
    assert named[1].label == "Multi-hop question answering"  # fewer write it, but it is a phrase of its own

