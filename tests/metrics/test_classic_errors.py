"""WER against jiwer, PER by hand."""

from __future__ import annotations

import jiwer
import pytest

from metrics.automatic import corpus_score, extract_statistics, higher_is_better, sentence_scores
from tests.metrics.classic_data import references, system

N = 300


@pytest.mark.parametrize("name", ["Online-W", "happypoet"])
def test_wer_equals_jiwer(name):
    # Whitespace tokens: jiwer splits on " " only, str.split (ours) on any space such as the
    # no-break spaces of these references, so the texts are given single spaces.
    refs = [" ".join(line.split()) for line in references(N)[0]]
    hyps = [" ".join(line.split()) for line in system(name, N)]
    stats = extract_statistics("wer", hyps, [refs], tokenize="none")
    assert corpus_score("wer", stats) == pytest.approx(100 * jiwer.wer(refs, hyps), rel=1e-12)
    first = jiwer.process_words(refs[0], hyps[0])
    assert stats[0].tolist() == [
        first.substitutions + first.deletions + first.insertions,
        len(refs[0].split()),
    ]


def test_wer_takes_the_closest_reference():
    stats = extract_statistics("wer", ["a b c d"], [["a x c d"], ["a b c d e f"]])
    # 1 edit of 4 words beats 2 edits of 6.
    assert stats.tolist() == [[1.0, 4.0]]


def test_per_by_hand():
    # "b a c x" against "a b c d e": 3 words in common regardless of order; PER = (max(4, 5)
    # - 3) / 5 = 40 %, where WER needs 3 edits (a/b swap as 2 substitutions, x -> d, insert e).
    hyps, refs = ["b a c x"], [["a b c d e"]]
    assert corpus_score("per", extract_statistics("per", hyps, refs)) == pytest.approx(40.0)
    assert corpus_score("wer", extract_statistics("wer", hyps, refs)) == pytest.approx(80.0)
    # A longer hypothesis: "a a b c d e f" against "a b c": max(7, 3) - 3 = 4 errors of 3 words.
    stats = extract_statistics("per", ["a a b c d e f"], [["a b c"]])
    assert sentence_scores("per", stats).tolist() == pytest.approx([400 / 3])
    assert not higher_is_better("per") and not higher_is_better("wer")
