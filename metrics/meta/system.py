"""System-level pairwise accuracy (Kocmi et al. 2021) with a bootstrap interval.

A system's score is the mean of its scored segments, for the human and the metric side
separately. Pairwise accuracy is the share of system pairs both sides order the same way
(a tie agrees only with a tie), mt-metrics-eval's ``Agreement``.

The interval is a percentile bootstrap over one of two units:

* ``"items"`` (the default): draw items (source segments) with replacement, recompute every
  system's human and metric means on the draw, then the accuracy: the uncertainty due to the
  test set (Deutsch et al. 2021's "bootstrap inputs" resampling).
* ``"systems"``: draw systems with replacement and count the pairs of distinct systems drawn:
  how much the figure depends on which systems took part. This works on the system scores
  alone, the level at which mt-metrics-eval's system-level significance tests
  (``CompareMetrics`` with ``average_by="none"``) permute scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.meta import RESAMPLING_UNITS
from metrics.meta.kendall import FloatArray
from metrics.meta.segment import Estimate, check_matrices, percentile_interval


def _system_means(matrix: FloatArray, item_weights: FloatArray | None = None) -> FloatArray:
    present = ~np.isnan(matrix)
    values = np.where(present, matrix, 0.0)
    weights = present.astype(np.float64)
    if item_weights is not None:
        weights = weights * item_weights
    with np.errstate(invalid="ignore", divide="ignore"):
        return (values * weights).sum(axis=1) / weights.sum(axis=1)


def _agreement(human: FloatArray, metric: FloatArray, system_weights: FloatArray) -> float:
    """Weighted share of agreeing pairs of distinct systems with both scores (a system drawn
    k times counts k times)."""
    usable = np.isfinite(human) & np.isfinite(metric) & (system_weights > 0)
    human, metric, system_weights = human[usable], metric[usable], system_weights[usable]
    first, second = np.triu_indices(len(human), k=1)
    weights = system_weights[first] * system_weights[second]
    if not weights.sum():
        return math.nan
    agree = np.sign(human[second] - human[first]) == np.sign(metric[second] - metric[first])
    return float(np.sum(weights * agree) / weights.sum())


@dataclass(frozen=True)
class SystemAccuracy:
    systems: int
    pairs: int
    accuracy: Estimate
    resampled: str  # "items" or "systems"

    def as_dict(self) -> dict[str, object]:
        return {
            "systems": self.systems,
            "pairs": self.pairs,
            "pairwise_accuracy": self.accuracy.as_dict(),
            "resampled": self.resampled,
        }


def system_scores(matrix: ArrayLike) -> FloatArray:
    """Each system's (row's) mean over its scored items; NaN for a system with none."""
    return _system_means(np.asarray(matrix, dtype=np.float64))


def system_pairwise_accuracy(
    human: ArrayLike,
    metric: ArrayLike,
    *,
    resample: str = "items",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> SystemAccuracy:
    """Pairwise accuracy of system means of two ``(n_systems, n_items)`` matrices (NaN =
    missing), with a percentile bootstrap interval over ``resample`` (see the module)."""
    if resample not in RESAMPLING_UNITS:
        raise ValueError(f"resample must be one of {RESAMPLING_UNITS}, not {resample!r}")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    if n_resamples < 0:
        raise ValueError("n_resamples must be non-negative")
    human_matrix, metric_matrix = check_matrices(human, metric)
    n_systems, n_items = human_matrix.shape
    human_means, metric_means = _system_means(human_matrix), _system_means(metric_matrix)
    scored = int(np.sum(np.isfinite(human_means) & np.isfinite(metric_means)))
    if scored < 2:
        raise ValueError("pairwise accuracy needs at least two systems scored by both sides")
    all_systems = np.ones(n_systems)
    value = _agreement(human_means, metric_means, all_systems)
    rng = np.random.default_rng(seed)
    draws = np.empty(n_resamples)
    for index in range(n_resamples):
        if resample == "items":
            item_weights = np.bincount(rng.integers(0, n_items, n_items), minlength=n_items).astype(
                np.float64
            )
            draws[index] = _agreement(
                _system_means(human_matrix, item_weights),
                _system_means(metric_matrix, item_weights),
                all_systems,
            )
        else:
            system_weights = np.bincount(
                rng.integers(0, n_systems, n_systems), minlength=n_systems
            ).astype(np.float64)
            draws[index] = _agreement(human_means, metric_means, system_weights)
    return SystemAccuracy(
        systems=scored,
        pairs=scored * (scored - 1) // 2,
        accuracy=percentile_interval(draws, value, confidence),
        resampled=resample,
    )
