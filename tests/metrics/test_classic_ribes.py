"""RIBES against nltk's corpus_ribes (a port of RIBES.py 1.03.1) and the paper's example."""

from __future__ import annotations

import pytest
from nltk.translate.ribes_score import corpus_ribes, sentence_ribes

from metrics.automatic import corpus_score, extract_statistics, sentence_scores
from metrics.classic._text import by_segment, tokenize_all
from metrics.classic.ribes import word_order
from tests.metrics.classic_data import references, system

N = 200


@pytest.mark.parametrize("n_refs", [1, 3])
def test_corpus_equals_nltk(n_refs):
    refs, hyps = references(N)[:n_refs], system("Online-W", N)
    stats = extract_statistics("ribes", hyps, refs)
    tokens = tokenize_all(hyps, tokenizer="13a", lowercase=False)
    ref_tokens = by_segment(refs, tokenizer="13a", lowercase=False)
    expected = corpus_ribes(ref_tokens, tokens)
    assert corpus_score("ribes", stats) == pytest.approx(100 * expected, rel=1e-12)
    per_segment = [sentence_ribes(r, h) for r, h in zip(ref_tokens, tokens, strict=True)]
    assert sentence_scores("ribes", stats) == pytest.approx([100 * s for s in per_segment])


def test_isozaki_h0_r0_alignment():
    # (H0, R0) of Isozaki et al. (2010), Table 1, 0-based.
    reference = [
        "he",
        "was",
        "interested",
        "in",
        "world",
        "history",
        "because",
        "he",
        "read",
        "the",
        "book",
    ]
    hypothesis = [
        "he",
        "read",
        "the",
        "book",
        "because",
        "he",
        "was",
        "interested",
        "in",
        "world",
        "history",
    ]
    assert word_order(reference, hypothesis) == [7, 8, 9, 10, 6, 0, 1, 2, 3, 4, 5]
    # Kendall's tau over those ranks: 21 increasing pairs of 55 -> (tau + 1) / 2 = 21 / 55;
    # all 11 words aligned and equal lengths, so P1 = BP = 1.
    stats = extract_statistics("ribes", [" ".join(hypothesis)], [[" ".join(reference)]])
    assert corpus_score("ribes", stats) == pytest.approx(100 * 21 / 55)


def test_empty_hypothesis_scores_zero():
    stats = extract_statistics("ribes", ["", "a b"], [["a b", "a b"]])
    assert sentence_scores("ribes", stats).tolist() == [0.0, 100.0]
