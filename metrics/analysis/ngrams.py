"""The n-grams one system matches in the reference more often than the other (compare-mt's
n-gram difference analysis, ``compare_type="match"``).

An output n-gram matches while the reference sentence still holds an unmatched copy of it, so
per sentence it matches ``min(output count, reference count)`` times; counts are summed over the
corpus. Each n-gram seen matched by either system gets compare-mt's smoothed score
``(m1 + alpha) / (m1 + m2 + 2 alpha)``: near 1 when only system 1 gets it right, near 0 when only
system 2 does. compare-mt leaves the order of equal scores to hashing; here they are ordered by
the larger total count, then the n-gram's text, so the report is reproducible.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

Sentence = Sequence[str]
NGram = tuple[str, ...]


@dataclass(frozen=True)
class NGramDifference:
    ngram: NGram
    score: float
    matches_1: int
    matches_2: int

    def as_dict(self) -> dict[str, object]:
        return {
            "ngram": " ".join(self.ngram),
            "score": self.score,
            "sys1": self.matches_1,
            "sys2": self.matches_2,
        }


def sentence_ngrams(sentence: Sentence, min_order: int, max_order: int) -> Counter[NGram]:
    return Counter(
        tuple(sentence[start : start + n])
        for n in range(min_order, max_order + 1)
        for start in range(len(sentence) - n + 1)
    )


def matched_ngrams(
    reference: Sequence[Sentence], output: Sequence[Sentence], min_order: int, max_order: int
) -> Counter[NGram]:
    """Corpus count of each output n-gram's matches in its reference sentence."""
    if len(reference) != len(output):
        raise ValueError(f"{len(output)} output sentences for {len(reference)} references")
    total: Counter[NGram] = Counter()
    for ref_sentence, out_sentence in zip(reference, output, strict=True):
        ref_ngrams = sentence_ngrams(ref_sentence, min_order, max_order)
        out_ngrams = sentence_ngrams(out_sentence, min_order, max_order)
        total.update(out_ngrams & ref_ngrams)  # & keeps the minimum of the two counts
    return total


def ngram_differences(
    reference: Sequence[Sentence],
    output_1: Sequence[Sentence],
    output_2: Sequence[Sentence],
    *,
    min_order: int = 1,
    max_order: int = 4,
    alpha: float = 1.0,
    top: int = 50,
) -> tuple[list[NGramDifference], list[NGramDifference]]:
    """``(better_1, better_2)``: the ``top`` n-grams with the highest score (system 1 matches
    them more) and with the lowest (system 2 does), each list best first."""
    if not 1 <= min_order <= max_order:
        raise ValueError("n-gram orders must satisfy 1 <= min_order <= max_order")
    if alpha <= 0:
        raise ValueError("alpha must be positive")
    matches_1 = matched_ngrams(reference, output_1, min_order, max_order)
    matches_2 = matched_ngrams(reference, output_2, min_order, max_order)
    scored = [
        NGramDifference(
            ngram,
            (matches_1[ngram] + alpha) / (matches_1[ngram] + matches_2[ngram] + 2 * alpha),
            matches_1[ngram],
            matches_2[ngram],
        )
        for ngram in matches_1.keys() | matches_2.keys()
    ]

    def strength(item: NGramDifference) -> int:
        return item.matches_1 + item.matches_2

    better_1 = sorted(scored, key=lambda d: (-d.score, -strength(d), d.ngram))[:top]
    better_2 = sorted(scored, key=lambda d: (d.score, -strength(d), d.ngram))[:top]
    return better_1, better_2
