"""Sentence-level views: BLEU per reference-length bucket, and the sentences on which two
systems differ most.

BLEU here is the project's (sacrebleu's, ``metrics.automatic``) on words already split on
whitespace (sacrebleu's ``tokenize="none"``). Deliberate differences from compare-mt:

* Corpus BLEU. compare-mt's own BLEU floors each sentence's n-gram count at 1 (a two-word
  output counts one 3-gram and one 4-gram) and skips an order with no match instead of
  scoring 0. Both only matter for outputs shorter than four words: on compare-mt's TED
  example, the length buckets without such outputs agree to the fourth decimal; the others
  read 23.4568 / 26.4456 (``<10``) and 22.0624 (``[10,20)``, system 1) here against
  compare-mt's 23.3613 / 26.3236 and 22.0618, and the corpus 22.4364 / 24.0389 against
  22.4309 / 24.0322.
* Sentence BLEU is BLEU+1 (Lin and Och 2004, sacrebleu's ``add-k`` smoothing), as elsewhere in
  evalsite; compare-mt uses nltk's ``method2``, the same smoothing but with nltk's count floor,
  so the two differ only for outputs shorter than four words (36 and 37 of the 2,445 TED sentences).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics import automatic
from metrics.analysis.buckets import (
    LENGTH_CUTOFFS,
    LENGTH_DIFFERENCE_CUTOFFS,
    bucket_labels,
    bucket_of,
)

Sentence = Sequence[str]


def bleu_statistics(
    reference: Sequence[Sentence], output: Sequence[Sentence]
) -> NDArray[np.float64]:
    """sacrebleu's per-sentence BLEU statistics of word lists, one row per sentence."""
    if len(reference) != len(output):
        raise ValueError(f"{len(output)} output sentences for {len(reference)} references")
    # The words are tokenised on purpose: silence sacrebleu's "forgot to detokenize" advice.
    sacrebleu_log = logging.getLogger("sacrebleu")
    level = sacrebleu_log.level
    sacrebleu_log.setLevel(logging.ERROR)
    try:
        return automatic.extract_statistics(
            "bleu",
            [" ".join(s) for s in output],
            [[" ".join(s) for s in reference]],
            tokenize="none",
        )
    finally:
        sacrebleu_log.setLevel(level)


@dataclass(frozen=True)
class LengthBucket:
    label: str
    sentences: int
    bleu_1: float
    bleu_2: float

    def as_dict(self) -> dict[str, object]:
        return {
            "bucket": self.label,
            "sentences": self.sentences,
            "sys1": None if self.sentences == 0 else self.bleu_1,
            "sys2": None if self.sentences == 0 else self.bleu_2,
        }


def bleu_by_length(
    reference: Sequence[Sentence],
    stats_1: NDArray[np.float64],
    stats_2: NDArray[np.float64],
    *,
    cutoffs: Sequence[int] = LENGTH_CUTOFFS,
) -> list[LengthBucket]:
    """Corpus BLEU of each system over the sentences of each reference-length bucket (words);
    NaN for an empty bucket."""
    buckets = np.array([bucket_of(len(sentence), cutoffs) for sentence in reference])
    result = []
    for index, label in enumerate(bucket_labels(cutoffs)):
        chosen = buckets == index
        scores = [
            automatic.corpus_score("bleu", stats[chosen]) if chosen.any() else float("nan")
            for stats in (stats_1, stats_2)
        ]
        result.append(LengthBucket(label, int(chosen.sum()), *scores))
    return result


def length_difference_counts(
    reference: Sequence[Sentence],
    output: Sequence[Sentence],
    *,
    cutoffs: Sequence[int] = LENGTH_DIFFERENCE_CUTOFFS,
) -> dict[str, int]:
    """How many sentences fall in each bucket of output length minus reference length (words),
    compare-mt's ``lengthdiff`` buckets."""
    counts = dict.fromkeys(bucket_labels(cutoffs), 0)
    labels = list(counts)
    for ref_sentence, out_sentence in zip(reference, output, strict=True):
        counts[labels[bucket_of(len(out_sentence) - len(ref_sentence), cutoffs)]] += 1
    return counts


@dataclass(frozen=True)
class SentenceDifference:
    index: int  # 0-based line number
    bleu_1: float
    bleu_2: float

    @property
    def difference(self) -> float:
        """System 1's sentence BLEU minus system 2's."""
        return self.bleu_1 - self.bleu_2

    def as_dict(self) -> dict[str, object]:
        return {
            "line": self.index + 1,
            "sys1": self.bleu_1,
            "sys2": self.bleu_2,
            "sys1_minus_sys2": self.difference,
        }


def largest_differences(
    reference: Sequence[Sentence],
    output_1: Sequence[Sentence],
    output_2: Sequence[Sentence],
    sentence_bleu_1: NDArray[np.float64],
    sentence_bleu_2: NDArray[np.float64],
    *,
    top: int = 10,
) -> tuple[list[SentenceDifference], list[SentenceDifference]]:
    """``(better_1, better_2)``: the ``top`` sentences where system 1's sentence BLEU most
    exceeds system 2's, and the reverse, largest first. As compare-mt, a repeated (output 1,
    output 2, reference) triple is shown once (its first line), and equal differences are
    ordered by the sentence scores, then the line. Unlike compare-mt, which prints the two ends
    of one sorted list, a sentence appears only where its system is strictly better, and the
    second list is largest first too."""
    seen: set[tuple[tuple[str, ...], ...]] = set()
    rows = []
    for index, triple in enumerate(zip(output_1, output_2, reference, strict=True)):
        key = tuple(tuple(sentence) for sentence in triple)
        if key in seen:
            continue
        seen.add(key)
        score_1, score_2 = float(sentence_bleu_1[index]), float(sentence_bleu_2[index])
        rows.append((score_2 - score_1, score_1, score_2, index))
    rows.sort()
    better_1 = [SentenceDifference(i, s1, s2) for _, s1, s2, i in rows[:top] if s1 > s2]
    better_2 = [SentenceDifference(i, s1, s2) for _, s1, s2, i in reversed(rows) if s2 > s1][:top]
    return better_1, better_2
