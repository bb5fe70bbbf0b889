"""LEPOR and hLEPOR: hand-computed cases from the papers' formulas, and nltk's LEPOR where the
two alignments must agree."""

from __future__ import annotations

import math
import random

import pytest
from nltk.translate.lepor import sentence_lepor as nltk_sentence_lepor

from metrics.automatic import corpus_score, extract_statistics, sentence_scores
from metrics.classic._text import tokenize
from metrics.classic.lepor import align, factors
from tests.metrics.classic_data import references


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
