"""ROUGE-L against Google's rouge-score (checked by its authors against ROUGE-1.5.5)."""

from __future__ import annotations

import statistics

import pytest
from rouge_score import rouge_scorer

from metrics.automatic import corpus_score, extract_statistics
from metrics.classic._text import tokenize
from tests.metrics.classic_data import references, system

N = 200


class _Tokens:
    """rouge-score's tokenizer interface over our tokeniser, to compare the LCS F itself."""

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text, tokenizer="13a", lowercase=True)


@pytest.mark.parametrize("n_refs", [1, 3])
def test_corpus_equals_mean_of_rouge_score(n_refs):
    refs, hyps = references(N)[:n_refs], system("UEdin", N)
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tokens())
    expected = statistics.fmean(
        scorer.score_multi([stream[i] for stream in refs], hyps[i])["rougeL"].fmeasure
        for i in range(N)
    )
    stats = extract_statistics("rougel", hyps, refs)
    assert corpus_score("rougel", stats) == pytest.approx(100 * expected, rel=1e-12)


def test_default_tokenizer_agrees_on_plain_words():
    hyp, ref = "the cat was found under the bed", "the cat was under the bed"
    expected = rouge_scorer.RougeScorer(["rougeL"]).score(ref, hyp)["rougeL"].fmeasure
    stats = extract_statistics("rougel", [hyp], [[ref]])
    assert corpus_score("rougel", stats) == pytest.approx(100 * expected)
    # LCS 6 of 7 and 6 words: F = 2 * 6/7 * 1 / (6/7 + 1) = 12/13.
    assert expected == pytest.approx(12 / 13)
