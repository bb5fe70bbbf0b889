"""The vectorised chrF / chrF++ statistics and the faster BLEU ones equal sacrebleu's own,
segment by segment."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF

from metrics.automatic import extract_statistics, extract_statistics_many
from tests.metrics.classic_data import references, system


def sacrebleu_statistics(word_order, lowercase, hypotheses, refs):
    metric = CHRF(word_order=word_order, lowercase=lowercase, references=refs)
    return np.array(metric._extract_corpus_statistics(hypotheses, None), dtype=np.float64)


@pytest.mark.parametrize(("metric", "word_order"), [("chrf", 0), ("chrf++", 2)])
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("n_refs", [1, 3])
def test_equal_sacrebleu_on_wmt21(metric, word_order, lowercase, n_refs):
    refs = references(400)[:n_refs]
    systems = [system(name, 400) for name in ("Online-W", "Facebook-AI")]
    ours = extract_statistics_many(metric, systems, refs, lowercase=lowercase or None)
    for hypotheses, stats in zip(systems, ours, strict=True):
        expected = sacrebleu_statistics(word_order, lowercase, hypotheses, refs)
        assert np.array_equal(stats, expected)


def test_edge_segments_equal_sacrebleu():
    # Empty and one-character segments, a reference shorter than the n-gram orders, repeated
    # n-grams clipped, non-Latin characters, and whitespace only.
    hypotheses = ["", "a", "aaaa aaaa", "Straße über", "   ", "ab", "日本語のテキスト", "x y z"]
    refs = [["abc", "", "aa", "Strasse über", "a", "ab", "日本のテキスト", "   "]]
    for metric, word_order in (("chrf", 0), ("chrf++", 2)):
        stats = extract_statistics(metric, hypotheses, refs)
        assert np.array_equal(stats, sacrebleu_statistics(word_order, False, hypotheses, refs))


@pytest.mark.parametrize("n_refs", [1, 3])
@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_bleu_statistics_equal_sacrebleu(n_refs, tokenize):
    refs = references(400)[:n_refs]
    hypotheses = system("Online-W", 400)
    metric = BLEU(references=refs, tokenize=tokenize)
    expected = np.array(metric._extract_corpus_statistics(hypotheses, None), dtype=np.float64)
    assert np.array_equal(extract_statistics("bleu", hypotheses, refs, tokenize=tokenize), expected)
