"""NIST against nltk's corpus_nist (which nltk checks against mteval-v13a) and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from nltk.translate.nist_score import corpus_nist

from metrics.automatic import corpus_score, extract_statistics
from metrics.classic._text import by_segment, tokenize_all
from metrics.signatures import signature
from tests.metrics.classic_data import references, system

N = 300


@pytest.mark.parametrize("name", ["Online-W", "VolcTrans-GLAT"])
def test_single_reference_equals_nltk(name):
    refs, hyps = references(N)[:1], system(name, N)
    stats = extract_statistics("nist", hyps, refs)
    tokens = tokenize_all(hyps, tokenizer="13a", lowercase=True)
    ref_tokens = by_segment(refs, tokenizer="13a", lowercase=True)
    expected = corpus_nist(ref_tokens, tokens, n=5)
    assert corpus_score("nist", stats) == pytest.approx(expected, rel=1e-12)
    assert 4 < expected < 12  # a plausible NIST for a WMT system (not a vacuous comparison)


def test_several_references_by_hand():
    # Two segments, two reference streams: segment 1 has references "a b c" and "a b d",
    # segment 2 has "c a" twice. Over all references (10 words): a 4, b 2, c 3, d 1;
    # "a b" 2, "b c" 1, "b d" 1, "c a" 2; "a b c" 1, "a b d" 1.
    hyps = ["a b c", "a"]
    refs = [["a b c", "c a"], ["a b d", "c a"]]
    stats = extract_statistics("nist", hyps, refs)
    info = {"a": math.log2(10 / 4), "b": math.log2(10 / 2), "c": math.log2(10 / 3)}
    info |= {"a b": math.log2(4 / 2), "b c": math.log2(2 / 1), "a b c": math.log2(2 / 1)}
    # Segment 1 matches a, b, c, "a b", "b c", "a b c"; segment 2 matches "a". The
    # hypotheses have 4 unigrams, 2 bigrams and 1 trigram.
    unigram = (info["a"] + info["b"] + info["c"] + info["a"]) / 4
    bigram = (info["a b"] + info["b c"]) / 2
    trigram = info["a b c"] / 1
    # 4 hypothesis words against average reference lengths 3 + 2: ratio 0.8, and mteval's
    # penalty exp(-beta log^2 0.8) with beta making the penalty 0.5 at a ratio of 1.5.
    beta = -math.log(0.5) / math.log(1.5) ** 2
    penalty = math.exp(-beta * math.log(0.8) ** 2)
    expected = (unigram + bigram + trigram) * penalty
    assert corpus_score("nist", stats) == pytest.approx(expected, rel=1e-12)


def test_case_insensitive_by_default_as_mteval():
    assert extract_statistics("nist", ["The Cat"], [["the cat"]]).tolist() == (
        extract_statistics("nist", ["the cat"], [["the cat"]]).tolist()
    )
    assert "case:lc" in signature("nist", n_refs=1)
    stats = extract_statistics("nist", ["The Cat"], [["the cat"]], lowercase=False)
    assert np.all(stats[0, :5] == 0)
