"""Word accuracy by reference frequency, as compare-mt's ``FreqWordBucketer``.

A word's frequency is its number of occurrences in the whole reference (case-sensitive, as
compare-mt by default). In each sentence, an output word matches while the reference still has
an unmatched occurrence of it, so a word matches ``min(output count, reference count)`` times.
Per frequency bucket: recall = matches / reference words, precision = matches / output words,
F-measure their harmonic mean, and all three are 0 when nothing matches (compare-mt's rule).
Output words absent from the reference fall in the ``<1`` bucket.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from metrics.analysis.buckets import FREQUENCY_CUTOFFS, bucket_labels, bucket_of

Sentence = Sequence[str]


@dataclass(frozen=True)
class WordBucket:
    label: str
    reference_words: int
    output_words: int
    matches: int

    @property
    def recall(self) -> float:
        return self.matches / self.reference_words if self.matches else 0.0

    @property
    def precision(self) -> float:
        return self.matches / self.output_words if self.matches else 0.0

    @property
    def f_measure(self) -> float:
        if not self.matches:
            return 0.0
        return 2 * self.precision * self.recall / (self.precision + self.recall)

    def as_dict(self) -> dict[str, object]:
        return {
            "bucket": self.label,
            "reference_words": self.reference_words,
            "output_words": self.output_words,
            "matches": self.matches,
            "recall": self.recall,
            "precision": self.precision,
            "f_measure": self.f_measure,
        }


def reference_frequencies(reference: Sequence[Sentence]) -> Counter[str]:
    return Counter(word for sentence in reference for word in sentence)


def word_accuracy_by_frequency(
    reference: Sequence[Sentence],
    output: Sequence[Sentence],
    *,
    frequencies: Counter[str] | None = None,
    cutoffs: Sequence[int] = FREQUENCY_CUTOFFS,
) -> list[WordBucket]:
    """One ``WordBucket`` per frequency bucket. ``frequencies`` default to the reference's."""
    if len(reference) != len(output):
        raise ValueError(f"{len(output)} output sentences for {len(reference)} references")
    counts = reference_frequencies(reference) if frequencies is None else frequencies
    n_buckets = len(cutoffs) + 1
    reference_words, output_words, matches = [0] * n_buckets, [0] * n_buckets, [0] * n_buckets
    for ref_sentence, out_sentence in zip(reference, output, strict=True):
        ref_counts, out_counts = Counter(ref_sentence), Counter(out_sentence)
        for word, count in ref_counts.items():
            reference_words[bucket_of(counts[word], cutoffs)] += count
        for word, count in out_counts.items():
            bucket = bucket_of(counts[word], cutoffs)
            output_words[bucket] += count
            matches[bucket] += min(count, ref_counts[word])
    return [
        WordBucket(label, reference_words[i], output_words[i], matches[i])
        for i, label in enumerate(bucket_labels(cutoffs))
    ]
