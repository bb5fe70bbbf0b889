"""RIBES (Isozaki et al. 2010), as RIBES.py 1.03.1 and nltk's ``corpus_ribes``.

Each hypothesis word found in the reference is aligned to a reference position: directly when
it occurs once in each, otherwise by the shortest right- or left-context n-gram that occurs
once in each sentence. With the aligned reference positions (in hypothesis order),

    RIBES = NKT · P1^α · BP^β,  NKT = (Kendall's τ + 1) / 2,
    P1 = aligned words / hypothesis words,  BP = min(1, exp(1 − |reference| / |hypothesis|)),

with α = 0.25, β = 0.10; a segment keeps its best reference, and the corpus score is the mean of
the segment scores (0-100 here).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Final

import numpy as np
from numpy.typing import NDArray

from metrics.classic._text import Tokens
from metrics.classic.sentence import as_statistics

ALPHA: Final = 0.25
BETA: Final = 0.10
SIGNATURE: Final = f"a:{ALPHA:g}|b:{BETA:g}"


def _positions(sentence: Tokens) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for i, word in enumerate(sentence):
        out[word].append(i)
    return out


def _find(ngram: tuple[str, ...], sentence: Tokens, starts: dict[str, list[int]]) -> list[int]:
    """Start positions of ``ngram`` in ``sentence`` (overlapping occurrences included)."""
    n = len(ngram)
    return [i for i in starts.get(ngram[0], ()) if tuple(sentence[i : i + n]) == ngram]


def word_order(reference: Tokens, hypothesis: Tokens) -> list[int]:
    """Reference position of each aligned hypothesis word, in hypothesis order."""
    in_ref, in_hyp = Counter(reference), Counter(hypothesis)
    ref_starts, hyp_starts = _positions(reference), _positions(hypothesis)
    order = []
    n_hyp = len(hypothesis)
    for i, word in enumerate(hypothesis):
        if word not in in_ref:
            continue
        if in_hyp[word] == in_ref[word] == 1:
            order.append(reference.index(word))
            continue
        for window in range(1, min(max(i, n_hyp - i + 1), len(reference))):
            if i + window < n_hyp:
                right = tuple(hypothesis[i : i + window + 1])
                found = _find(right, reference, ref_starts)
                if len(found) == 1 and len(_find(right, hypothesis, hyp_starts)) == 1:
                    order.append(found[0])
                    break
            if window <= i:
                left = tuple(hypothesis[i - window : i + 1])
                found = _find(left, reference, ref_starts)
                if len(found) == 1 and len(_find(left, hypothesis, hyp_starts)) == 1:
                    order.append(found[0] + window)
                    break
    return order


def normalised_kendall_tau(order: list[int]) -> float:
    """(τ + 1) / 2 of the alignment order; 0 with fewer than two aligned words."""
    if len(order) < 2:
        return 0.0
    increasing = sum(a < b for i, a in enumerate(order) for b in order[i + 1 :])
    tau = 2 * increasing / math.comb(len(order), 2) - 1
    return (tau + 1) / 2


def sentence_ribes(hypothesis: Tokens, references: list[Tokens]) -> float:
    """Best RIBES (0-1) of one hypothesis over its references."""
    if not hypothesis:
        return 0.0
    best = 0.0
    for reference in references:
        order = word_order(reference, hypothesis)
        brevity = min(1.0, math.exp(1.0 - len(reference) / len(hypothesis)))
        precision = len(order) / len(hypothesis)
        best = max(best, normalised_kendall_tau(order) * precision**ALPHA * brevity**BETA)
    return best


def extract(hypotheses: list[Tokens], references: list[list[Tokens]]) -> NDArray[np.float64]:
    return as_statistics(
        [sentence_ribes(h, r) for h, r in zip(hypotheses, references, strict=True)]
    )
