"""NIST (Doddington 2002) as mteval-v13a computes it, n = 5.

Information weights come from the references of the whole test set (every reference stream):
``info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))``, with the number of reference words
as ``count()`` of the empty prefix. A hypothesis n-gram is credited ``info × min(hypothesis
count, largest count in any one reference)``; the score is

    sum over n of (credited information / hypothesis n-grams) × BP,
    BP = exp(−β · log²(min(1, hypothesis words / average reference words))),

with β chosen so that BP = 0.5 when the ratio is 1.5 (mteval's ``nist_length_penalty``).

The weights are fixed by the references, so a resample of segments keeps them and the metric
decomposes: per segment, the credited information for n = 1..5, the hypothesis n-gram counts
for n = 1..5 and the average reference length.

nltk's ``corpus_nist`` equals this with one reference; with several it scores each hypothesis
against its best reference per order and sums that reference's length, where mteval clips
against all references at once and uses their average length (followed here).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Final

import numpy as np
from numpy.typing import NDArray

from metrics.classic._text import Tokens, ngram_counts

ORDER: Final = 5
N_STATS: Final = 2 * ORDER + 1
SIGNATURE: Final = f"n:{ORDER}|bp:mteval-v13a"
# mteval's nist_length_penalty: BP = 0.5 at a length ratio of 1.5.
_BP_BETA: Final = -math.log(0.5) / math.log(1.5) ** 2


def information_weights(references: list[list[Tokens]]) -> dict[tuple[str, ...], float]:
    """mteval's ``ngram_info`` over every reference of every segment."""
    counts: Counter[tuple[str, ...]] = Counter()
    words = 0
    for refs in references:
        for reference in refs:
            words += len(reference)
            for n in range(1, ORDER + 1):
                counts.update(ngram_counts(reference, n))
    return {
        ngram: math.log2((counts[ngram[:-1]] if len(ngram) > 1 else words) / count)
        for ngram, count in counts.items()
    }


def extract(hypotheses: list[Tokens], references: list[list[Tokens]]) -> NDArray[np.float64]:
    """Per-segment information (n = 1..5), hypothesis n-grams (n = 1..5), average ref length."""
    weights = information_weights(references)
    out = np.zeros((len(hypotheses), N_STATS))
    for row, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
        for n in range(1, ORDER + 1):
            most: Counter[tuple[str, ...]] = Counter()
            for reference in refs:
                most |= ngram_counts(reference, n)
            hyp = ngram_counts(hypothesis, n)
            out[row, n - 1] = sum(weights[g] * min(c, most[g]) for g, c in hyp.items() if g in most)
            out[row, ORDER + n - 1] = max(len(hypothesis) - n + 1, 0)
        out[row, 2 * ORDER] = sum(len(r) for r in refs) / len(refs)
    return out


def score_columns(cols: NDArray[np.floating]) -> NDArray[np.float64]:
    """NIST from column-major summed statistics."""
    cols = cols.astype(np.float64)
    info, ngrams, ref_len = cols[:ORDER], cols[ORDER : 2 * ORDER], cols[2 * ORDER]
    score = (info / np.maximum(ngrams, 1)).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ref_len > 0, ngrams[0] / ref_len, 1.0)
        log_ratio = np.log(np.clip(ratio, 1e-300, 1.0))
    brevity = np.where(ratio >= 1, 1.0, np.where(ratio <= 0, 0.0, np.exp(-_BP_BETA * log_ratio**2)))
    return score * brevity
