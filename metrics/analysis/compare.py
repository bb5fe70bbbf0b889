"""``compare_systems``: the whole compare-mt style comparison of two systems."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from metrics import automatic
from metrics.analysis.ngrams import NGramDifference, ngram_differences
from metrics.analysis.sentences import (
    LengthBucket,
    SentenceDifference,
    bleu_by_length,
    bleu_statistics,
    largest_differences,
    length_difference_counts,
)
from metrics.analysis.words import WordBucket, reference_frequencies, word_accuracy_by_frequency

Sentence = list[str]


def tokenise(
    lines: Sequence[str], *, tokenize: str = "none", lowercase: bool = False
) -> list[Sentence]:
    """Words of each line: split on whitespace (``tokenize="none"``, for text tokenised
    already, as compare-mt expects), or after a sacrebleu tokeniser such as ``13a``."""
    if tokenize == "none" and not lowercase:
        return [line.split() for line in lines]
    metric = automatic.make_metric("bleu", tokenize=tokenize, lowercase=lowercase)
    # sacrebleu's own preprocessing (case, then tokeniser), so the words are BLEU's words.
    return [metric._preprocess_segment(line).split() for line in lines]


@dataclass(frozen=True)
class Comparison:
    sentences: int
    bleu_1: float
    bleu_2: float
    length_buckets: list[LengthBucket]
    length_differences_1: dict[str, int]  # sentences per (output - reference) length bucket
    length_differences_2: dict[str, int]
    word_buckets_1: list[WordBucket]
    word_buckets_2: list[WordBucket]
    ngrams_better_1: list[NGramDifference]
    ngrams_better_2: list[NGramDifference]
    sentences_better_1: list[SentenceDifference]
    sentences_better_2: list[SentenceDifference]
    options: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "sentences": self.sentences,
            "options": self.options,
            "bleu": {"sys1": self.bleu_1, "sys2": self.bleu_2},
            "bleu_by_reference_length": [bucket.as_dict() for bucket in self.length_buckets],
            "sentences_by_length_difference": [
                {"bucket": label, "sys1": count, "sys2": self.length_differences_2[label]}
                for label, count in self.length_differences_1.items()
            ],
            "word_f_measure_by_reference_frequency": [
                {
                    "bucket": first.label,
                    "sys1": first.as_dict(),
                    "sys2": second.as_dict(),
                }
                for first, second in zip(self.word_buckets_1, self.word_buckets_2, strict=True)
            ],
            "ngrams_sys1_better": [item.as_dict() for item in self.ngrams_better_1],
            "ngrams_sys2_better": [item.as_dict() for item in self.ngrams_better_2],
            "sentences_sys1_better": [item.as_dict() for item in self.sentences_better_1],
            "sentences_sys2_better": [item.as_dict() for item in self.sentences_better_2],
        }


def compare_systems(
    reference: Sequence[Sequence[str]],
    output_1: Sequence[Sequence[str]],
    output_2: Sequence[Sequence[str]],
    *,
    ngram_top: int = 50,
    min_order: int = 1,
    max_order: int = 4,
    alpha: float = 1.0,
    sentence_top: int = 10,
) -> Comparison:
    """Compare two systems' word lists (see ``tokenise``) against one reference."""
    if not reference:
        raise ValueError("the reference is empty")
    for name, output in (("system 1", output_1), ("system 2", output_2)):
        if len(output) != len(reference):
            raise ValueError(f"{name} has {len(output)} lines, the reference {len(reference)}")
    stats_1 = bleu_statistics(reference, output_1)
    stats_2 = bleu_statistics(reference, output_2)
    frequencies = reference_frequencies(reference)
    better_ngrams = ngram_differences(
        reference,
        output_1,
        output_2,
        min_order=min_order,
        max_order=max_order,
        alpha=alpha,
        top=ngram_top,
    )
    better_sentences = largest_differences(
        reference,
        output_1,
        output_2,
        automatic.sentence_scores("bleu", stats_1),
        automatic.sentence_scores("bleu", stats_2),
        top=sentence_top,
    )
    return Comparison(
        sentences=len(reference),
        bleu_1=automatic.corpus_score("bleu", stats_1),
        bleu_2=automatic.corpus_score("bleu", stats_2),
        length_buckets=bleu_by_length(reference, stats_1, stats_2),
        length_differences_1=length_difference_counts(reference, output_1),
        length_differences_2=length_difference_counts(reference, output_2),
        word_buckets_1=word_accuracy_by_frequency(reference, output_1, frequencies=frequencies),
        word_buckets_2=word_accuracy_by_frequency(reference, output_2, frequencies=frequencies),
        ngrams_better_1=better_ngrams[0],
        ngrams_better_2=better_ngrams[1],
        sentences_better_1=better_sentences[0],
        sentences_better_2=better_sentences[1],
        options={
            "min_order": min_order,
            "max_order": max_order,
            "alpha": alpha,
            "bleu": "sacrebleu, tokenize=none on the words given; sentence BLEU is BLEU+1",
        },
    )
