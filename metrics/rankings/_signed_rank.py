"""One-sided Wilcoxon signed-rank test ("the first sample is greater"), as scipy 1.13+
computes it with its defaults (``zero_method="wilcox"``, no continuity correction,
``method="auto"``), written out so that the WMT25 ranking needs no scipy.stats import.

How it differs from the textbook test (and why the choices are scipy's):
- Zero differences are dropped before ranking (Wilcoxon's own rule), but they still count
  towards the sample size that picks the method below.
- ``method="auto"``: the exact null distribution when there are at most 50 differences, none
  zero and no tied magnitudes; with ties or zeros and at most 13 differences, the exact
  permutation distribution over all 2^n sign flips; otherwise the normal approximation with
  the tie correction and without continuity correction.
- The exact test rounds a statistic down before reading the upper tail (it is an integer there).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

_EXACT_LIMIT = 50  # at most this many differences: exact distribution (no ties, no zeros)
_PERMUTATION_LIMIT = 13  # at most this many (with ties or zeros): all 2^n sign flips
# A permuted statistic this close (relatively) to the observed one counts as equal to it.
_RELATIVE_TOLERANCE = 100 * float(np.finfo(np.float64).eps)


def signed_rank_greater(differences: ArrayLike) -> float:
    """p-value of "the differences are shifted above 0"; NaN with no (non-zero) difference."""
    d = np.asarray(differences, dtype=np.float64).reshape(-1)
    if d.size == 0:
        return math.nan
    nonzero = d[d != 0]
    ranks, tie_sizes = _average_ranks(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    has_zeros = nonzero.size < d.size
    has_ties = bool((tie_sizes > 1).any())
    if d.size <= _EXACT_LIMIT and not (has_ties or has_zeros):
        return _exact_upper_tail(nonzero.size, math.floor(r_plus))
    if d.size <= _PERMUTATION_LIMIT:
        return _sign_flip_upper_tail(ranks, d.size, r_plus)
    return _normal_upper_tail(nonzero.size, r_plus, tie_sizes)


def _average_ranks(values: FloatArray) -> tuple[FloatArray, NDArray[np.int64]]:
    """Ranks 1..n (ties share their mean rank) and the size of every group of equal values."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    sizes = np.diff(np.r_[starts, values.size])
    mean_rank = starts + (sizes + 1) / 2.0
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(mean_rank, sizes)
    return ranks, sizes


def _exact_upper_tail(n: int, statistic: int) -> float:
    """P(W+ >= statistic) for n differences without ties: subset sums of 1..n, counted."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return int(counts[max(statistic, 0) :].sum()) / 2.0**n


def _sign_flip_upper_tail(ranks: FloatArray, n_all: int, r_plus: float) -> float:
    """Share of the 2^n_all sign patterns whose W+ reaches the observed one (a zero
    difference stays zero when flipped, so it only repeats patterns)."""
    flips = (np.arange(2**ranks.size)[:, None] >> np.arange(ranks.size)) & 1
    null = flips @ ranks
    reached = np.count_nonzero(null >= r_plus - _RELATIVE_TOLERANCE * abs(r_plus))
    # Each pattern of the non-zero differences stands for 2^zeros patterns of all of them.
    return reached * 2.0 ** (n_all - ranks.size) / 2.0**n_all


def _normal_upper_tail(n: int, r_plus: float, tie_sizes: NDArray[np.int64]) -> float:
    from scipy.special import ndtr

    mean = n * (n + 1.0) * 0.25
    ties = float((tie_sizes.astype(np.float64) ** 3 - tie_sizes).sum())
    variance = (n * (n + 1.0) * (2.0 * n + 1.0) - ties / 2) / 24
    if variance <= 0:
        return math.nan
    return float(ndtr(-(r_plus - mean) / math.sqrt(variance)))
