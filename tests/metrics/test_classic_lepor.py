"""LEPOR and hLEPOR: hand-computed cases from the papers' formulas, nltk's LEPOR and the hLepor
port of the authors' code where the alignments must agree, and the port's published example."""

from __future__ import annotations

import importlib
import math
import random
import sys
import types

import numpy as np
import pytest
from nltk.translate.lepor import sentence_lepor as nltk_sentence_lepor

from metrics.automatic import corpus_score, extract_statistics, sentence_scores
from metrics.classic._text import tokenize
from metrics.classic.lepor import align, factors, sentence_hlepor, sentence_lepor
from tests.metrics.classic_data import references, system


def test_lepor_and_hlepor_by_hand():
    # Reference "a b c d", hypothesis "b a c": c = 3, r = 4, all three words aligned.
    # NPD = (|1/3 - 2/4| + |2/3 - 1/4| + |3/3 - 3/4|) / 3 = 5/18; LP = exp(1 - 4/3);
    # R = 3/4, P = 1, Harmonic(9R, P) = 10 / (9/R + 1/P) = 10/13.
    lp, position, harmonic = math.exp(-1 / 3), math.exp(-5 / 18), 10 / 13
    stats = extract_statistics("lepor", ["b a c"], [["a b c d"]])
    assert corpus_score("lepor", stats) == pytest.approx(100 * lp * position * harmonic)
    stats = extract_statistics("hlepor", ["b a c"], [["a b c d"]])
    expected = 10 / (2 / lp + 1 / position + 7 / harmonic)
    assert corpus_score("hlepor", stats) == pytest.approx(100 * expected)


def test_repeated_words_use_context_then_position():
    # The first "the" is followed by "dog" as the second "the" of the reference is (the
    # window stops at the reference's end), and the second by "cat" as the first: the
    # context keeps "the dog" and "the cat" together. NPD = 4 x 0.6 / 5.
    hyp, ref = ["the", "dog", "and", "the", "cat"], ["the", "cat", "and", "the", "dog"]
    assert align(hyp, ref) == [(0, 3), (1, 4), (2, 2), (3, 0), (4, 1)]
    assert factors(hyp, ref) == pytest.approx((1.0, math.exp(-0.48), 1.0))
    # "a" before "y" matches the second "a" of the reference by its right context, where
    # position alone is a tie (|1/2 - 1/5| = |1/2 - 4/5|) that would take the first.
    hyp, ref = ["a", "y"], ["a", "x", "b", "a", "y"]
    assert align(hyp, ref) == [(0, 3), (1, 4)]
    expected = math.exp(1 - 5 / 2) * math.exp(-0.15) * 10 / (9 * 5 / 2 + 1)
    stats = extract_statistics("lepor", ["a y"], [["a x b a y"]])
    assert sentence_scores("lepor", stats)[0] == pytest.approx(100 * expected)


def test_equals_nltk_where_alignment_is_unique():
    # nltk's LEPOR (alpha = beta = 1) numbers positions among the aligned words only, may
    # align two words to one, and inverts the paper's length penalty (exp(1 - c/r) > 1 for a
    # short hypothesis), so the comparison takes shuffles of references without repeated
    # words: same length, every word aligned once; it checks the position penalty NPosPenal.
    rng = random.Random(7)
    compared = 0
    for line in references(200)[0]:
        ref = tokenize(line, tokenizer="13a", lowercase=False)
        if len(set(ref)) != len(ref) or len(ref) < 3:
            continue
        hyp = rng.sample(ref, len(ref))
        lp, position, harmonic = factors(hyp, ref, alpha=1.0, beta=1.0)
        (expected,) = nltk_sentence_lepor([" ".join(ref)], " ".join(hyp), tokenizer=str.split)
        assert lp * position * harmonic == pytest.approx(expected, rel=1e-9)
        compared += 1
    assert compared >= 30


def test_no_match_and_empty_score_zero():
    stats = extract_statistics("hlepor", ["x y", ""], [["a b", "a b"]])
    assert sentence_scores("hlepor", stats).tolist() == [0.0, 0.0]
    stats = extract_statistics("lepor", ["x y", ""], [["a b", "a b"]])
    assert sentence_scores("lepor", stats).tolist() == [0.0, 0.0]


@pytest.fixture
def hlepor_port(monkeypatch):
    """The hLepor PyPI package (a port of the authors' Perl code by their co-authors). Importing
    it calls nltk.download('punkt') (nothing may be downloaded: made a no-op while importing; the
    test splits on spaces, so punkt is never needed) and needs nptyping, which pins numpy < 2,
    for type hints only (never evaluated: the module has ``from __future__ import annotations``)."""
    import nltk

    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)
    monkeypatch.setitem(sys.modules, "nptyping", types.SimpleNamespace(NDArray=None))
    return importlib.import_module("hlepor.hlepor")


def test_defaults_equal_the_hlepor_port_where_alignment_is_unique(hlepor_port):
    # Real system output against reference A; segments where no word repeats on either side,
    # so the two alignments cannot differ: checks α = 9, β = 1, the weights 2:1:7, LP and NPD.
    refs, hyps = references(400)[0], system("Facebook-AI", 400)
    compared = 0
    for hyp_line, ref_line in zip(hyps, refs, strict=True):
        hyp, ref = tokenize(hyp_line), tokenize(ref_line)
        if len(set(hyp)) != len(hyp) or len(set(ref)) != len(ref):
            continue
        expected = hlepor_port.hlepor_score(
            [" ".join(ref)], [" ".join(hyp)], separate_punctuation=False, preprocess=str.strip
        )
        assert sentence_hlepor(hyp, ref) == pytest.approx(expected, rel=1e-12, abs=1e-15)
        # LEPOR from the port's own factors (it has no LEPOR function), default α and β.
        ref_len, hyp_len = np.array([len(ref)]), np.array([len(hyp)])
        common = hlepor_port._get_identical_words(ref, hyp)
        aligned = np.array([sum(common.values())])
        npd = hlepor_port._find_position_difference(ref, hyp, len(ref), len(hyp), common) / len(hyp)
        lepor = (
            hlepor_port.enhanced_length_penalty(ref_len, hyp_len)[0]
            * math.exp(-npd)
            * hlepor_port.calc_harmonic_mean_p_r(aligned, ref_len, hyp_len)[0]
        )
        assert sentence_lepor(hyp, ref) == pytest.approx(lepor, rel=1e-12, abs=1e-15)
        compared += 1
    assert compared >= 50


def test_hlepor_port_published_example(hlepor_port):
    # The port's README and docstring: 0.7842 for this pair (lower-cased, no punctuation), a
    # pair with repeated words ("that", "the") on which the two alignments agree.
    reference = (
        "It is a guide to action that ensures that the military will forever heed Party commands"
    )
    hypothesis = (
        "It is a guide to action which ensures that the military always obeys the commands of "
        "the party"
    )
    ours = sentence_hlepor(hypothesis.lower().split(), reference.lower().split())
    assert round(ours, 4) == 0.7842
    assert ours == pytest.approx(
        hlepor_port.single_hlepor_score(reference, hypothesis, separate_punctuation=False)
    )
