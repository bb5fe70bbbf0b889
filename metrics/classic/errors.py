"""Word error rates: WER (Levenshtein distance over words) and PER (position-independent).

WER = word edits (substitutions, insertions, deletions) / reference words; PER (Tillmann et al.
1997) = (max(hypothesis words, reference words) − words in common regardless of order) /
reference words. Both on 0-100, lower is better, and both decompose: per segment the errors and
the reference length. The corpus rate is total errors over total reference words (as jiwer's
``wer`` over a list). With several references a segment keeps the reference with the lowest
rate (multi-reference WER, Nießen et al. 2000); an empty reference counts as one word so that
a non-empty hypothesis against it is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
from numpy.typing import NDArray

from metrics.classic._text import Tokens, bag_matches

N_STATS: Final = 2  # errors, reference length
SIGNATURE: Final = "ref:best"


def word_edits(hypothesis: Tokens, reference: Tokens) -> int:
    """Levenshtein distance between two word sequences."""
    if len(hypothesis) < len(reference):
        hypothesis, reference = reference, hypothesis
    previous = list(range(len(reference) + 1))
    for i, word in enumerate(hypothesis, start=1):
        current = [i]
        for j, other in enumerate(reference, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != other))
            )
        previous = current
    return previous[-1]


def position_independent_errors(hypothesis: Tokens, reference: Tokens) -> int:
    return max(len(hypothesis), len(reference)) - bag_matches(hypothesis, reference)


def _extract(
    hypotheses: list[Tokens],
    references: list[list[Tokens]],
    errors: Callable[[Tokens, Tokens], int],
) -> NDArray[np.float64]:
    out = np.zeros((len(hypotheses), N_STATS))
    for row, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
        candidates = [(errors(hypothesis, r), max(len(r), 1)) for r in refs]
        out[row] = min(candidates, key=lambda c: (c[0] / c[1], c[1]))
    return out


def extract_wer(hypotheses: list[Tokens], references: list[list[Tokens]]) -> NDArray[np.float64]:
    return _extract(hypotheses, references, word_edits)


def extract_per(hypotheses: list[Tokens], references: list[list[Tokens]]) -> NDArray[np.float64]:
    return _extract(hypotheses, references, position_independent_errors)


def score_columns(cols: NDArray[np.floating]) -> NDArray[np.floating]:
    """Error rate (0-100) from column-major summed statistics."""
    errors, ref_len = cols[0], cols[1]
    dtype = cols.dtype.type
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ref_len > 0, dtype(100) * errors / ref_len, dtype(0))
