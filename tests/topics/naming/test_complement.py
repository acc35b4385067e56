"""The phrase shown beside a label only part of its theme writes (naming/complement.py)."""

from __future__ import annotations

import numpy as np

from pipeline.topics.naming.candidates import candidates_of
from pipeline.topics.naming.complement import complement, complement_of
from pipeline.topics.naming.vocabulary import stop_words
from pipeline.topics.naming.words import LabelCorpus

STOP = frozenset(stop_words())
WORDS = "apples bridges cellos dunes ferns glaciers harbours islands jetties kelp lagoons meadows".split()


def corpus_of(mri: int, ct: int, other: int, noise: int = 200) -> tuple[LabelCorpus, np.ndarray]:
    """A theme of ``mri`` papers writing MRI, ``ct`` writing computed tomography and ``other`` writing
    neither, in a store with ``noise`` papers on something else."""
    theme = ([f"Accelerated MRI scans {i}. We speed up undersampled MRI acquisition with a network." for i in range(mri)]
             + [f"Sparse-view computed tomography {i}. We restore computed tomography images from few views."
                for i in range(ct)]
             + [f"{WORDS[i]} analysis. We examine {WORDS[i]} under noise." for i in range(other)])  # nothing shared
    rest = [f"Graph neural networks {i}. We examine and restore images of molecules with graph neural networks: analysis under noise."
            for i in range(noise)]
    texts = theme + rest
    return LabelCorpus(texts, [t.split(". ")[0] for t in texts], STOP), np.arange(len(theme))


def test_a_mixture_named_by_one_strand_is_shown_with_the_phrase_of_the_other():
    corpus, members = corpus_of(mri=12, ct=10, other=4)
    found = complement_of("MRI", members, corpus)
    assert found.lower() in {"computed", "computed tomography", "sparse-view computed tomography"}  # the other strand
    assert complement("MRI", members, candidates_of(members, corpus), corpus, [corpus.texts[i] for i in members]) == found


def test_no_complement_where_the_label_fits_or_the_rest_is_small():
    corpus, members = corpus_of(mri=20, ct=6, other=4)  # the label: two thirds of the theme
    assert complement_of("MRI", members, corpus) == ""
    corpus, members = corpus_of(mri=12, ct=3, other=11)  # computed tomography: 3 of 26 beyond the label
    assert complement_of("MRI", members, corpus) == ""


def test_the_complement_of_an_acronym_is_not_its_own_words():
    # a third of the theme writes the acronym; the rest write the words it stands for, or "plan"
    theme = ([f"PDDL models {i}. The planning domain definition language (PDDL) encodes tasks." for i in range(8)]
             + [f"Planning domain {i}. A planning domain is learned from traces." for i in range(8)]
             + [f"Plan repair {i}. A broken plan is repaired when the plan fails." for i in range(8)])
    rest = [f"Graph neural networks {i}. Molecules with graph neural networks." for i in range(200)]
    texts = theme + rest
    corpus = LabelCorpus(texts, [t.split(". ")[0] for t in texts], STOP)
    found = complement_of("PDDL", np.arange(len(theme)), corpus).lower()
    assert found == "plan repair"  # not "planning domain" or "plan": what PDDL says, in other words


def test_no_complement_in_a_store_too_small_for_a_word_to_be_distinctive():
    # the same mixture where the theme holds most of the store: "computed tomography" lies in it
    # about as often as any word does, and says nothing that tells it apart
    corpus, members = corpus_of(mri=12, ct=10, other=4, noise=10)
    assert complement_of("MRI", members, corpus) == ""
    corpus, members = corpus_of(mri=12, ct=10, other=4)
    assert complement_of("MRI", members, corpus) != ""
