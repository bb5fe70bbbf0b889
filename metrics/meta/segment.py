"""Segment-level meta-evaluation with item-wise grouping, and its bootstrap over items.

Scores come as two ``(n_systems, n_items)`` matrices, human and metric, NaN where a system's
translation of an item was not scored. Only translations of the same source item are compared
("item-wise grouping", mt-metrics-eval's ``average_by="item"``): for each item, every pair of
systems scored by both sides.

Confidence intervals are percentile bootstraps over items: items are drawn with replacement and
every statistic (the tie threshold included) is recomputed on the draw, so an item's pairs stay
together.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.meta import DA_THRESHOLD
from metrics.meta.kendall import FloatArray

IntArray = NDArray[np.int64]

_ROUNDING = 1e-12


@dataclass(frozen=True)
class Estimate:
    """A statistic with its percentile bootstrap interval (NaN bounds without resamples)."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | None]:
        return {key: (None if math.isnan(v) else v) for key, v in asdict(self).items()}


@dataclass(frozen=True)
class ItemPairs:
    """Every pair of translations of the same item, scored by both sides."""

    item: IntArray  # dense index (0..n_items_with_pairs-1) of the pair's item
    human: FloatArray  # human score difference of the pair
    metric: FloatArray  # metric score difference of the pair
    pairs_per_item: IntArray

    @property
    def n_items(self) -> int:
        return len(self.pairs_per_item)


def check_matrices(human: ArrayLike, metric: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Both matrices as float arrays of one ``(n_systems, n_items)`` shape."""
    human_matrix = np.asarray(human, dtype=np.float64)
    metric_matrix = np.asarray(metric, dtype=np.float64)
    if human_matrix.ndim != 2 or human_matrix.shape != metric_matrix.shape:
        raise ValueError(
            "human and metric scores must be (systems, items) matrices of one shape, got "
            f"{human_matrix.shape} and {metric_matrix.shape}"
        )
    if np.isinf(human_matrix).any() or np.isinf(metric_matrix).any():
        raise ValueError("scores must be finite (NaN marks a missing score)")
    return human_matrix, metric_matrix


def item_pairs(human: ArrayLike, metric: ArrayLike) -> ItemPairs:
    """The pairs of systems within each item (column) where both sides have scores."""
    human_matrix, metric_matrix = check_matrices(human, metric)
    present = ~np.isnan(human_matrix) & ~np.isnan(metric_matrix)
    n_systems = human_matrix.shape[0]
    first, second = np.triu_indices(n_systems, k=1)
    both = present[first] & present[second]  # (n_pairs_of_systems, n_items)
    pair_index, item_index = np.nonzero(both.T)  # grouped by item
    counts = np.bincount(pair_index, minlength=human_matrix.shape[1])
    kept = counts > 0
    dense = np.cumsum(kept) - 1
    rows_a, rows_b = first[item_index], second[item_index]
    return ItemPairs(
        item=dense[pair_index].astype(np.int64),
        human=human_matrix[rows_b, pair_index] - human_matrix[rows_a, pair_index],
        metric=metric_matrix[rows_b, pair_index] - metric_matrix[rows_a, pair_index],
        pairs_per_item=counts[kept].astype(np.int64),
    )


def _pair_correct(pairs: ItemPairs, epsilon: float) -> NDArray[np.bool_]:
    """acc23 correctness of each pair when metric differences up to ``epsilon`` are ties."""
    human_tie = pairs.human == 0
    metric_tie = np.abs(pairs.metric) <= epsilon
    ordered = np.sign(pairs.human) == np.sign(pairs.metric)
    return np.where(metric_tie, human_tie, ~human_tie & ordered)


def _dot(first: FloatArray, second: FloatArray) -> float:
    # Not ``@``: BLAS's threaded dot product is a hundred times slower on a busy machine.
    return float(np.sum(first * second))


def _item_sums(pairs: ItemPairs, values: NDArray[np.generic]) -> FloatArray:
    return np.bincount(pairs.item, weights=values.astype(np.float64), minlength=pairs.n_items)


def _item_acc23(pairs: ItemPairs, epsilon: float) -> FloatArray:
    """acc23 of each item."""
    return _item_sums(pairs, _pair_correct(pairs, epsilon)) / pairs.pairs_per_item


class _TieCurve:
    """Item-weighted acc23 as a function of the tie threshold, for any item weights.

    Candidates are 0 and every pair's absolute metric difference (mt-metrics-eval's
    ``tau_optimization``); at threshold t, pairs with ``|metric difference| <= t`` are ties.
    Raising t past a pair's difference changes its correctness from "ordered the same" to
    "tied in the human scores", so the whole curve is one cumulative sum. The sort is done
    once; each set of weights (a bootstrap draw) costs a few passes over the pairs.
    """

    def __init__(self, pairs: ItemPairs) -> None:
        order = np.argsort(np.abs(pairs.metric), kind="stable")
        distance = np.abs(pairs.metric)[order]
        human_tie = (pairs.human == 0)[order]
        ordered = (np.sign(pairs.human) == np.sign(pairs.metric))[order]
        untied_correct = ~human_tie & ordered & (distance > 0)
        self.pairs = pairs
        self.item = pairs.item[order]
        self.correct_at_zero = np.where(distance == 0, human_tie, untied_correct).astype(float)
        self.gain = np.where(distance == 0, 0.0, human_tie.astype(float) - untied_correct)
        # A threshold flips every pair at its distance: keep the last pair of each distance.
        self.last = np.r_[distance[1:] != distance[:-1], True] if len(distance) else distance
        self.thresholds = np.r_[0.0, distance[self.last]]

    def best(self, item_weights: FloatArray) -> tuple[float, float]:
        """The highest weighted acc23 and the smallest threshold reaching it."""
        per_pair = item_weights / self.pairs.pairs_per_item / item_weights.sum()
        weight = per_pair[self.item]
        base = _dot(weight, self.correct_at_zero)
        values = np.r_[base, base + np.cumsum(weight * self.gain)[self.last]]
        # The smallest threshold reaching the maximum, up to the cumulative sum's rounding.
        best = int(np.flatnonzero(values >= values.max() - _ROUNDING)[0])
        return float(values[best]), float(self.thresholds[best])


def _kendall_like_terms(pairs: ItemPairs, threshold: float) -> tuple[FloatArray, FloatArray]:
    """Per item: concordant minus discordant, and counted pairs (WMT's Kendall-like tau)."""
    counted = np.abs(pairs.human) >= threshold
    concordant = counted & (np.sign(pairs.human) == np.sign(pairs.metric)) & (pairs.metric != 0)
    signed = concordant.astype(float) - (counted & ~concordant)
    return _item_sums(pairs, signed), _item_sums(pairs, counted)


def _ratio(weights: FloatArray, numerator: FloatArray, denominator: FloatArray) -> float:
    total = _dot(weights, denominator)
    return _dot(weights, numerator) / total if total else math.nan


def acc23(human: ArrayLike, metric: ArrayLike, *, epsilon: float = 0.0) -> float:
    """Item-grouped acc23 (Deutsch et al. 2023): the mean over items of the share of pairs
    that are concordant or tied on both sides; metric differences up to ``epsilon`` are ties.
    NaN when no item has two scored translations."""
    pairs = item_pairs(human, metric)
    if not pairs.n_items:
        return math.nan
    return float(np.mean(_item_acc23(pairs, epsilon)))


def acc23_tie_optimised(human: ArrayLike, metric: ArrayLike) -> tuple[float, float]:
    """Item-grouped acc23 at the tie threshold that maximises it: ``(acc23, epsilon)``.

    Exhaustive over every candidate threshold (mt-metrics-eval with ``sample_rate=1``).
    """
    pairs = item_pairs(human, metric)
    if not pairs.n_items:
        return math.nan, 0.0
    epsilon = _TieCurve(pairs).best(np.ones(pairs.n_items))[1]
    return float(np.mean(_item_acc23(pairs, epsilon))), epsilon


def kendall_like(human: ArrayLike, metric: ArrayLike, *, threshold: float = DA_THRESHOLD) -> float:
    """WMT's segment-level Kendall-like tau (DARR): over pairs of translations of the same item
    whose human scores differ by at least ``threshold``, (concordant - discordant) / pairs,
    pooled over items; a metric tie is discordant. NaN without such pairs."""
    pairs = item_pairs(human, metric)
    if not pairs.n_items:
        return math.nan
    return _ratio(np.ones(pairs.n_items), *_kendall_like_terms(pairs, threshold))


@dataclass(frozen=True)
class SegmentMeta:
    """Segment-level meta-evaluation of one metric against one human scoring."""

    items: int  # items with at least one pair
    pairs: int
    kendall_like: Estimate
    kendall_like_threshold: float
    acc23: Estimate
    acc23_tie_optimised: Estimate
    tie_epsilon: float  # the threshold chosen on the full data

    def as_dict(self) -> dict[str, object]:
        return {
            "items": self.items,
            "pairs": self.pairs,
            "kendall_like": self.kendall_like.as_dict(),
            "kendall_like_threshold": self.kendall_like_threshold,
            "acc23": self.acc23.as_dict(),
            "acc23_tie_optimised": self.acc23_tie_optimised.as_dict(),
            "tie_epsilon": self.tie_epsilon,
        }


def percentile_interval(values: FloatArray, value: float, confidence: float) -> Estimate:
    finite = values[np.isfinite(values)]
    if not len(finite):
        return Estimate(value, math.nan, math.nan)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return Estimate(value, float(low), float(high))


def segment_meta(
    human: ArrayLike,
    metric: ArrayLike,
    *,
    threshold: float = DA_THRESHOLD,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> SegmentMeta:
    """Kendall-like tau, acc23 and tie-optimised acc23 with bootstrap intervals over items.

    Both matrices must say higher is better (negate an error metric or MQM first).
    ``n_resamples=0`` gives point estimates only.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    if n_resamples < 0:
        raise ValueError("n_resamples must be non-negative")
    pairs = item_pairs(human, metric)
    if not pairs.n_items:
        raise ValueError("no item has two systems scored by both the human and the metric")
    ones = np.ones(pairs.n_items)
    like_terms = _kendall_like_terms(pairs, threshold)
    item_accuracy = _item_acc23(pairs, 0.0)
    curve = _TieCurve(pairs)
    like = _ratio(ones, *like_terms)
    accuracy = float(np.mean(item_accuracy))
    epsilon = curve.best(ones)[1]
    optimised = float(np.mean(_item_acc23(pairs, epsilon)))  # exact, not the running sum
    rng = np.random.default_rng(seed)
    draws = np.empty((n_resamples, 3))
    for index in range(n_resamples):
        weights = np.bincount(
            rng.integers(0, pairs.n_items, pairs.n_items), minlength=pairs.n_items
        ).astype(np.float64)
        draws[index] = (
            _ratio(weights, *like_terms),
            _dot(weights, item_accuracy) / weights.sum(),
            curve.best(weights)[0],
        )
    return SegmentMeta(
        items=pairs.n_items,
        pairs=len(pairs.item),
        kendall_like=percentile_interval(draws[:, 0], like, confidence),
        kendall_like_threshold=threshold,
        acc23=percentile_interval(draws[:, 1], accuracy, confidence),
        acc23_tie_optimised=percentile_interval(draws[:, 2], optimised, confidence),
        tie_epsilon=epsilon,
    )
