"""GTM and ULC, hand-computed."""

from __future__ import annotations

import math
import random

import pytest

from metrics.automatic import check_metric, corpus_score, extract_statistics, n_statistics
from metrics.classic.gtm import extract, runs, score_columns


def _f1(size: float, hyp_len: int, ref_len: int) -> float:
    precision, recall = size / hyp_len, size / ref_len
    return 100 * 2 * precision * recall / (precision + recall)


def test_gtm_rewards_runs():
    # "a b c x e f d" against "a b c d e f": runs "a b c", "e f", then "d";
    # with exponent 2, MMS = sqrt(3^2 + 2^2 + 1^2) = sqrt(14).
    hyp, ref = ["a", "b", "c", "x", "e", "f", "d"], ["a", "b", "c", "d", "e", "f"]
    assert runs(hyp, ref) == [3, 2, 1]
    stats = extract([hyp], [[ref]], exponent=2.0)
    assert stats.tolist() == [[14.0, 7.0, 6.0]]
    assert score_columns(stats.T, exponent=2.0)[0] == pytest.approx(_f1(math.sqrt(14), 7, 6))
    # The registry's GTM-1: MMS = the 6 words in common.
    stats = extract_statistics("gtm", ["a b c x e f d"], [["a b c d e f"]])
    assert corpus_score("gtm", stats) == pytest.approx(_f1(6, 7, 6))


def test_gtm_greedy_takes_the_longest_run_first():
    # "a b c d" against "b c d x a b": the longest run "b c d" first, leaving "a" a run of
    # one, rather than "a b" and "c d" (here greedy is also the larger: 3² + 1² > 2² + 2²).
    assert runs(["a", "b", "c", "d"], ["b", "c", "d", "x", "a", "b"]) == [3, 1]


def test_gtm_corpus_is_one_text_without_runs_across_sentences():
    hyp, ref = ["a", "b", "c", "x", "e", "f", "d"], ["a", "b", "c", "d", "e", "f"]
    stats = extract([hyp, ["g", "h"]], [[ref], [["g", "h"]]], exponent=2.0)
    # A second segment "g h" adds a run of 2: MMS = sqrt(14 + 4) over 9 and 8 words.
    total = stats.sum(axis=0)[:, None]
    assert score_columns(total, exponent=2.0)[0] == pytest.approx(_f1(math.sqrt(18), 9, 8))


def test_ulc_is_the_mean_of_normalised_scores():
    # "a b c d" against "a b c e": WER = PER = 25 (one error in four words); METEOR has
    # m = 3, one chunk, P = R = 3/4: 0.75 x (1 - 0.5 (1/3)^3).
    stats = extract_statistics("ulc:wer+per+meteor", ["a b c d"], [["a b c e"]])
    assert n_statistics("ulc:wer+per+meteor") == 2 + 2 + 4 == stats.shape[1]
    meteor = 0.75 * (1 - 0.5 / 27)
    expected = 100 * ((1 - 0.25) + (1 - 0.25) + meteor) / 3
    assert corpus_score("ulc:wer+per+meteor", stats) == pytest.approx(expected)


def test_ulc_keys_are_checked():
    assert check_metric("ULC:BLEU+TER") == "ulc:bleu+ter"
    for bad in ("ulc:nist+bleu", "ulc:bleu+bleu", "ulc:", "ulc:bleu+nope", "ulc:ulc"):
        with pytest.raises(ValueError):
            check_metric(bad)


def _runs_by_whole_grid(hypothesis: list[str], reference: list[str]) -> list[int]:
    """The greedy search over the whole word grid, round after round (slow, plain)."""
    free_h, free_r = [True] * len(hypothesis), [True] * len(reference)
    lengths = []
    while True:
        best, end = 0, (0, 0)
        previous = [0] * (len(reference) + 1)
        for i, word in enumerate(hypothesis):
            current = [0] * (len(reference) + 1)
            for j, other in enumerate(reference):
                if free_h[i] and free_r[j] and word == other:
                    current[j + 1] = previous[j] + 1
                    if current[j + 1] > best:
                        best, end = current[j + 1], (i, j)
            previous = current
        if best == 0:
            return lengths
        for k in range(best):
            free_h[end[0] - k] = free_r[end[1] - k] = False
        lengths.append(best)


def test_gtm_runs_equal_the_whole_grid_search():
    rng = random.Random(5)
    for _ in range(2000):
        hyp = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        ref = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        assert runs(hyp, ref) == _runs_by_whole_grid(hyp, ref)
