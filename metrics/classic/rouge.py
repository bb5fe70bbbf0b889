"""ROUGE-L (Lin 2004): F-measure of the longest common subsequence, per sentence.

P = LCS / |hypothesis|, R = LCS / |reference|, F = 2PR / (P + R) (rouge-score's and
ROUGE-1.5.5's default F1). A segment keeps its best reference (rouge-score's ``score_multi``),
and the corpus score is the mean sentence F on 0-100. Words come from the chosen tokeniser and
are lower-cased by default; rouge-score instead keeps only [a-z0-9] runs, so the two agree on
text made of such words.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from metrics.classic._text import Tokens
from metrics.classic.sentence import as_statistics

SIGNATURE: Final = "f:1"


def lcs_length(a: Tokens, b: Tokens) -> int:
    """Length of the longest common subsequence of two word sequences."""
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for word in a:
        current = [0]
        for j, other in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if word == other else max(previous[j], current[-1]))
        previous = current
    return previous[-1]


def sentence_rouge_l(hypothesis: Tokens, reference: Tokens) -> float:
    lcs = lcs_length(hypothesis, reference)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(hypothesis), lcs / len(reference)
    return 2 * precision * recall / (precision + recall)


def extract(hypotheses: list[Tokens], references: list[list[Tokens]]) -> NDArray[np.float64]:
    return as_statistics(
        [
            max(sentence_rouge_l(h, r) for r in refs)
            for h, refs in zip(hypotheses, references, strict=True)
        ]
    )
