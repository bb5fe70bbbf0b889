"""Pair statistics behind Kendall's tau and its MT variants, over one vector of pairs.

Definitions follow mt-metrics-eval (google-research, ``stats.py`` and ``tau_optimization.py``):
the human (gold) scores are compared with the metric scores pair by pair, and each pair is
concordant, discordant, tied in the human scores only, in the metric scores only, or in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

KENDALL_VARIANTS = ("b", "c", "23", "acc23")


@dataclass(frozen=True)
class PairCounts:
    """How the pairs of one vector (or the pooled pairs of several) compare."""

    concordant: int = 0
    discordant: int = 0
    ties_human: int = 0  # tied in the human scores only
    ties_metric: int = 0  # tied in the metric scores only
    ties_both: int = 0

    @property
    def pairs(self) -> int:
        return (
            self.concordant + self.discordant + self.ties_human + self.ties_metric + self.ties_both
        )

    @property
    def acc23(self) -> float:
        """Pairwise accuracy with ties (Deutsch et al. 2023): concordant or tied in both."""
        return (self.concordant + self.ties_both) / self.pairs if self.pairs else math.nan

    @property
    def tau23(self) -> float:
        """tau_23 of Deutsch et al. 2023: a tie in one side only counts as discordant."""
        if not self.pairs:
            return math.nan
        agree = self.concordant + self.ties_both
        disagree = self.discordant + self.ties_human + self.ties_metric
        return (agree - disagree) / self.pairs


def pair_differences(values: ArrayLike) -> FloatArray:
    """``values[j] - values[i]`` for every pair i < j, in row-major order."""
    array = np.asarray(values, dtype=np.float64)
    first, second = np.triu_indices(len(array), k=1)
    return array[second] - array[first]


def counts_from_differences(
    human_diffs: FloatArray, metric_diffs: FloatArray, *, epsilon: float = 0.0
) -> PairCounts:
    """Classify pairs from their human and metric differences; a metric difference of at
    most ``epsilon`` in absolute value is a tie (human ties are exact)."""
    human_tie = human_diffs == 0
    metric_tie = np.abs(metric_diffs) <= epsilon
    same_sign = np.sign(human_diffs) == np.sign(metric_diffs)
    return PairCounts(
        concordant=int(np.sum(~human_tie & ~metric_tie & same_sign)),
        discordant=int(np.sum(~human_tie & ~metric_tie & ~same_sign)),
        ties_human=int(np.sum(human_tie & ~metric_tie)),
        ties_metric=int(np.sum(~human_tie & metric_tie)),
        ties_both=int(np.sum(human_tie & metric_tie)),
    )


def pair_counts(human: ArrayLike, metric: ArrayLike, *, epsilon: float = 0.0) -> PairCounts:
    """Pair counts of two equally long vectors (O(n²) memory: meant for groups, not corpora)."""
    human_array, metric_array = _checked_pair(human, metric)
    if epsilon < 0:
        raise ValueError("epsilon must be non-negative")
    return counts_from_differences(
        pair_differences(human_array), pair_differences(metric_array), epsilon=epsilon
    )


def kendall_tau(
    human: ArrayLike, metric: ArrayLike, *, variant: str = "b", epsilon: float = 0.0
) -> float:
    """Kendall's tau between human and metric scores, as mt-metrics-eval's ``KendallVariants``.

    ``variant`` is ``b`` or ``c`` (as ``scipy.stats.kendalltau``), ``23`` or ``acc23``
    (Deutsch et al. 2023). ``epsilon`` turns metric differences up to it into ties (not with
    tau-c). NaN when tau-b or tau-c is undefined (one side constant) or there are no pairs.
    """
    if variant not in KENDALL_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {KENDALL_VARIANTS}")
    if epsilon > 0 and variant == "c":
        raise ValueError("tau-c has no tie threshold")
    human_array, metric_array = _checked_pair(human, metric)
    counts = pair_counts(human_array, metric_array, epsilon=epsilon)
    if variant == "acc23":
        return counts.acc23
    if variant == "23":
        return counts.tau23
    metric_ties = counts.ties_metric + counts.ties_both
    human_ties = counts.ties_human + counts.ties_both
    if not counts.pairs or metric_ties == counts.pairs or human_ties == counts.pairs:
        return math.nan
    difference = counts.concordant - counts.discordant
    if variant == "b":
        return difference / math.sqrt((counts.pairs - metric_ties) * (counts.pairs - human_ties))
    size = len(human_array)
    classes = min(len(np.unique(human_array)), len(np.unique(metric_array)))
    return 2 * difference / (size**2 * (classes - 1) / classes)


def wmt_kendall_like(
    human: ArrayLike, metric: ArrayLike, *, threshold: float = 25.0
) -> tuple[float, int, int]:
    """WMT's Kendall-like tau (WMT17-20 DARR) over one group of translations.

    Only pairs whose human scores differ by at least ``threshold`` count; a pair is concordant
    when the metric orders it the same strict way, otherwise (a metric tie included)
    discordant. Returns ``(tau, concordant, discordant)``; tau is 0 without pairs, as in
    mt-metrics-eval's ``KendallLike``.
    """
    human_array, metric_array = _checked_pair(human, metric)
    concordant, discordant = _kendall_like_counts(
        pair_differences(human_array), pair_differences(metric_array), threshold
    )
    total = concordant + discordant
    return ((concordant - discordant) / total if total else 0.0), concordant, discordant


def _kendall_like_counts(
    human_diffs: FloatArray, metric_diffs: FloatArray, threshold: float
) -> tuple[int, int]:
    counted = np.abs(human_diffs) >= threshold
    agree = np.sign(human_diffs) == np.sign(metric_diffs)
    concordant = int(np.sum(counted & agree & (metric_diffs != 0)))
    return concordant, int(np.sum(counted)) - concordant


def pairwise_agreement(human: ArrayLike, metric: ArrayLike) -> tuple[int, int]:
    """Pairs both order the same way (ties agree with ties only), and the number of pairs:
    mt-metrics-eval's ``Agreement``, the system-level pairwise accuracy of Kocmi et al. 2021."""
    human_array, metric_array = _checked_pair(human, metric)
    human_diffs = pair_differences(human_array)
    agree = np.sign(human_diffs) == np.sign(pair_differences(metric_array))
    return int(np.sum(agree)), len(human_diffs)


def _checked_pair(human: ArrayLike, metric: ArrayLike) -> tuple[FloatArray, FloatArray]:
    human_array = np.asarray(human, dtype=np.float64)
    metric_array = np.asarray(metric, dtype=np.float64)
    if human_array.ndim != 1 or human_array.shape != metric_array.shape:
        raise ValueError(
            f"human and metric scores must be vectors of one length, got shapes "
            f"{human_array.shape} and {metric_array.shape}"
        )
    if not (np.isfinite(human_array).all() and np.isfinite(metric_array).all()):
        raise ValueError("scores must be finite numbers (drop missing ones first)")
    return human_array, metric_array
