"""How a word is counted: tokens, singulars, acronyms the papers define, hyphenated words, the word index."""

from __future__ import annotations

from pipeline.topics.naming.vocabulary import stop_words
from pipeline.topics.naming.words import WordIndex, acronyms, content_words, word_of

STOP = frozenset(stop_words())


def test_an_acronym_the_papers_define_and_its_words_count_as_one_word():
    texts = [
        "Serving mixture-of-experts (MoE) models on GPUs.",
        "Training Mixture of Experts (MoE) layers at scale.",
        "We route tokens in mixture-of-experts layers.",  # the words, no acronym
        "An MoE layer with expert parallelism.",  # the acronym, no words
        "The job ran on a radio access network (RAN) testbed.",
        "A radio access network (RAN) slice.",
        "It ran twice.",  # "ran" is not "RAN"
    ]
    defined = acronyms(texts)
    assert defined["MoE"] == sorted([frozenset({"mixture-of-expert"}), frozenset({"mixture", "of", "expert"})], key=sorted)
    assert set(defined) == {"MoE", "RAN"}
    index = WordIndex(texts)
    assert index.having(frozenset({"moe"})) == {0, 1, 2, 3}
    assert index.having(frozenset({"mixture-of-expert", "layer"})) == {1, 2, 3}
    assert index.having(frozenset({"radio", "access", "network"})) == {4, 5}  # not the paper that "ran"
    strict = WordIndex(texts, aliases=False)
    assert strict.having(frozenset({"moe"})) == {0, 1, 3}
    # the aliased index answers the strict question too, without reading the texts again
    rows = set(range(len(texts)))
    for words in ({"moe"}, {"mixture-of-expert", "layer"}, {"mixture", "expert"}, {"radio", "access", "network"},
                  {"ran"}, {"moe", "layer"}):
        words = frozenset(words)
        assert index.share(words, rows, literal=True) == strict.share(words, rows)
        assert index.having(words, literal=True) == strict.having(words)
    assert index.share(frozenset({"moe"}), rows, literal=True) == 3 / 7 < index.share(frozenset({"moe"}), rows)


def test_an_acronym_defined_once_or_with_two_meanings_is_not_merged():
    texts = ["Key-value (KV) stores.", "Text-to-speech (TTS) voices.", "Text-to-speech (TTS) in noise.",
             "Test-time scaling (TTS) of reasoning.", "Test-time scaling (TTS) with votes.", "Fast TTS here."]
    assert acronyms(texts) == {}  # KV once; TTS half one meaning, half another
    assert acronyms(["Broken line- (BL) here.", "Also broken line - (BL).", "x -  (AB)", "(CD) first"]) == \
        {"BL": [frozenset({"broken", "line"})]}
    assert WordIndex(texts).having(content_words("TTS", STOP)) == {1, 2, 3, 4, 5}  # only where written


def test_acronym_definitions_odd_spacing_one_letter_words_and_compounds():
    texts = ["A broken line - - (BL) here.", "broken line- - (BL).", "line -\t- (BL) x", "k nearest neighbours (KNN)",
             "k nearest neighbours (KNN) again", "of a (OA)", "Of a (OA)",
             "Mixture-of-experts (MoE) models (MoE) twice in one text (MoE)."]
    defined = acronyms(texts)  # no IndexError; "k" and "a" are no words of the index, one text defines MoE
    assert set(defined) == {"BL"}
    index = WordIndex(["A MoE-based router.", "Mixture-of-experts (MoE) layers.", "mixture-of-experts (MoE) again."])
    assert index.having(frozenset({"mixture-of-expert", "router"})) == {0}


def test_which_texts_get_an_acronym_does_not_depend_on_their_order():
    texts = ["large language models (LLMs) a.", "large language models (LLMs) b.", "language models (LMs) c.",
             "language models (LMs) d.", "An LLM only."]
    forward, backward = WordIndex(texts), WordIndex(texts[::-1])
    assert ("lm" in forward.sets[4]) == ("lm" in backward.sets[0])


def test_an_acronym_and_its_plural_are_one_word():
    assert [word_of(w) for w in ("GPUs", "CPUs", "MCUs", "LLMs", "DTs", "VMs", "APIs", "systems")] == \
        ["gpu", "cpu", "mcu", "llm", "dt", "vm", "api", "system"]
    # an acronym in capitals that ends in S is no plural; English words keep their s
    assert [word_of(w) for w in ("GPS", "DNS", "TTS", "corpus", "virus", "bus", "plus")] == \
        ["gps", "dns", "tts", "corpus", "virus", "bus", "plus"]
    index = WordIndex(["Kernels on GPUs.", "A GPU kernel.", "GPS traces.", "GPS maps.",
                       "Gaussian processes (GPs) fit.", "Gaussian processes (GPs) again."], aliases=True)
    assert index.having(content_words("GPU kernels", STOP)) == {0, 1}
    assert index.having(content_words("GPs", STOP)) == {4, 5}  # not the GPS papers
    # as many write GPS as GPs: a lower-case "gps" is not taken for Gaussian processes
    assert index.expand(frozenset({"gps"})) == frozenset({"gps"})
    assert {"gaussian", "gp"} <= index.expand(frozenset({"gp"})) and "gps" not in index.expand(frozenset({"gp"}))


def test_a_lower_case_acronym_plural_is_of_the_acronym():
    texts = ["Digital twins (DTs) of plants.", "Digital twins (DTs) of cities.", "Our DTs are live, not DTS.",
             "Graphics processing units (GPUs) a.", "Graphics processing units (GPUs) b.", "GPS maps.",
             "Sharing GPUs.", "Sharing a GPU."]
    index = WordIndex(texts)
    # candidate phrases are lower case: "dts" and "gpus" say what "DT" and "GPU" say; "gps" stays
    assert index.words("dts", STOP) == {"dt"} and index.expand(frozenset({"dt"})) >= {"digital", "twin"}
    assert index.words("sharing gpus", STOP) == index.words("Sharing GPU", STOP) == {"sharing", "gpu"}
    assert index.words("gps", STOP) == {"gps"}
    assert index.having(index.words("dts", STOP), literal=True) == {0, 1, 2}


def test_a_hyphenated_word_writes_its_parts():
    index = WordIndex(["A KV-cache eviction policy.", "KV cache eviction.", "Cache eviction alone.",
                       "Non-convex optimization.", "Convex optimization.", "X-ray ray tracing.",
                       "A multi-GPU cluster.", "X-ray images."])
    assert index.having(frozenset({"kv", "cache", "eviction"})) == {0, 1}
    assert index.having(frozenset({"kv", "cache"}), literal=True) == {0, 1}
    assert index.having(frozenset({"kv-cache"})) == {0}  # the compound still needs the compound
    assert index.having(content_words("convex optimization", STOP)) == {4}  # non-convex is not convex
    assert index.having(frozenset({"ray"})) == {5}  # "ray" written, not read out of "X-ray"
    assert index.having(frozenset({"x-ray"})) == {5, 7}
    assert index.having(content_words("GPU cluster", STOP)) == {6}


def test_a_free_word_does_not_contain_the_word_it_goes_without():
    index = WordIndex(["Lock-free queues scale.", "Queues with locks stall.", "A KV-cache grows."])
    assert index.having(frozenset({"lock"})) == {1}  # "lock-free" is not "lock"
    assert index.having(frozenset({"kv", "cache"})) == {2}  # "KV-cache" is "KV cache"
