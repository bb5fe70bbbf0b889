"""Soft pairwise accuracy and Pairwise Difference Pearson (mt-metrics-eval's newer statistics).

* Soft pairwise accuracy (SPA; Thompson et al. 2024, "Improving Statistical Significance in
  Human Evaluation of Automatic Metrics via Soft Pairwise Accuracy"; mt-metrics-eval's
  ``PairwiseConfidenceError``, which returns 1 - PCE): for every pair of systems, a paired
  permutation test gives the p-value of "system i is better than system j", once from the
  human scores and once from the metric's; SPA is one minus the mean absolute difference of
  the two p-values over the pairs. A metric that is as sure as the humans, no more and no less,
  scores 1.
* Pairwise Difference Pearson (PDP; mt-metrics-eval's ``Pearson(..., pdp=True)``): the
  Pearson correlation of the human and metric score differences of every pair of translations
  within a group (an item, by default).

Scores come as ``(n_systems, n_items)`` matrices, higher is better on both sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.meta.kendall import FloatArray
from metrics.meta.segment import check_matrices

# mt-metrics-eval's defaults for SPA: 1000 permutations drawn from NumPy's default generator
# seeded with 4. The same seed here draws the same permutations (see permutation_signs).
SPA_PERMUTATIONS = 1000
SPA_SEED = 4
PDP_GROUPINGS = ("item", "sys", "none")


def permutation_signs(n_permutations: int, n_items: int, seed: int) -> FloatArray:
    """``(n_permutations, n_items)`` of +1 (keep the pair's scores) and -1 (swap them).

    Drawn as mt-metrics-eval draws them, so that one seed gives the same permutations in
    both: single-precision uniforms from ``np.random.default_rng(seed)``, above one half
    keeping. (Rounding to nearest sends 0.5 itself to 0, hence strictly above.)
    """
    uniforms = np.random.default_rng(seed).random((n_permutations, n_items), dtype=np.float32)
    return np.where(uniforms > 0.5, 1.0, -1.0)


def _complete(matrix: ArrayLike, name: str) -> FloatArray:
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] < 2:
        raise ValueError(f"{name} scores must be a (systems, items) matrix of 2 or more systems")
    if not np.isfinite(array).all():
        raise ValueError(
            f"{name} scores must be complete: the paired permutation test needs every system's "
            "score of every item (drop items with a missing score first)"
        )
    return array


def pairwise_p_values(
    scores: ArrayLike, *, n_permutations: int = SPA_PERMUTATIONS, seed: int = SPA_SEED
) -> FloatArray:
    """Paired permutation p-values of "system i is better than system j" for every i < j.

    Each permutation swaps the two systems' scores of a random half of the items; the p-value
    is the share of permutations whose difference of totals is at least the observed one.
    Returns an ``(n_systems, n_systems)`` matrix with the upper triangle filled, NaN elsewhere.

    Swapping item k changes the difference by ``-2 d_k`` (``d_k`` the pair's score difference
    on k), so a permutation reaches the observed difference exactly when the differences of
    the swapped items sum to at most zero; that sum is what is compared here, in double
    precision with a tolerance for rounding, so that permutations tying the observed
    difference count as reaching it.
    """
    matrix = _complete(scores, "the")
    if n_permutations < 1:
        raise ValueError("n_permutations must be at least 1")
    n_systems, n_items = matrix.shape
    swapped = (permutation_signs(n_permutations, n_items, seed) < 0).astype(np.float64)
    swapped_totals = swapped @ matrix.T  # (n_permutations, n_systems)
    # Far above double rounding of these sums (~1e-16 of the total), far below a real difference.
    tolerance = 1e-12 * max(float(np.abs(matrix).sum()), 1.0)
    p_values = np.full((n_systems, n_systems), np.nan)
    for first in range(n_systems):
        for second in range(first + 1, n_systems):
            swapped_difference = swapped_totals[:, first] - swapped_totals[:, second]
            p_values[first, second] = np.mean(swapped_difference <= tolerance)
    return p_values


@dataclass(frozen=True)
class SoftPairwiseAccuracy:
    value: float
    human_p_values: FloatArray  # upper triangle: p of "system i better than system j"
    metric_p_values: FloatArray
    permutations: int
    seed: int

    @property
    def pairs(self) -> int:
        return int(np.sum(np.isfinite(self.human_p_values)))


def soft_pairwise_accuracy(
    human: ArrayLike,
    metric: ArrayLike,
    *,
    n_permutations: int = SPA_PERMUTATIONS,
    seed: int = SPA_SEED,
) -> SoftPairwiseAccuracy:
    """SPA of two complete ``(n_systems, n_items)`` matrices: 1 - the mean over system pairs
    of |human p-value - metric p-value|. Both sides draw the same permutations (one seed)."""
    human_matrix = _complete(human, "human")
    metric_matrix = _complete(metric, "metric")
    if human_matrix.shape != metric_matrix.shape:
        raise ValueError(
            f"human and metric matrices differ in shape: {human_matrix.shape} and "
            f"{metric_matrix.shape}"
        )
    human_p = pairwise_p_values(human_matrix, n_permutations=n_permutations, seed=seed)
    metric_p = pairwise_p_values(metric_matrix, n_permutations=n_permutations, seed=seed)
    upper = np.triu_indices(len(human_p), k=1)
    value = 1.0 - float(np.mean(np.abs(human_p[upper] - metric_p[upper])))
    return SoftPairwiseAccuracy(value, human_p, metric_p, n_permutations, seed)


def pairwise_difference_pearson(
    human: ArrayLike, metric: ArrayLike, *, average_by: str = "item"
) -> float:
    """Pearson correlation of human and metric score differences over every pair of scores
    in a group, pooled over the groups: items (``"item"``, the pairs of translations of one
    source), systems (``"sys"``) or the whole matrix as one group (``"none"``).

    mt-metrics-eval correlates the differences of both orders of every pair (and of each score
    with itself), a set whose mean is zero, so its Pearson correlation is the uncentred
    ``sum(dh * dm) / sqrt(sum(dh²) * sum(dm²))`` over the unordered pairs; this computes that
    sum from per-group sums: over a group of n scores, ``sum_{i<j} (a_j - a_i)(b_j - b_i) =
    n * sum(a * b) - sum(a) * sum(b)``, so no pair is materialised. A score missing on either
    side (NaN) leaves its pairs out. NaN when every difference is zero on one side.
    """
    if average_by not in PDP_GROUPINGS:
        raise ValueError(f"average_by must be one of {PDP_GROUPINGS}, not {average_by!r}")
    human_matrix, metric_matrix = check_matrices(human, metric)
    if average_by == "item":
        human_matrix, metric_matrix = human_matrix.T, metric_matrix.T
    elif average_by == "none":
        human_matrix, metric_matrix = human_matrix.reshape(1, -1), metric_matrix.reshape(1, -1)
    present = ~np.isnan(human_matrix) & ~np.isnan(metric_matrix)
    n = present.sum(axis=1).astype(np.float64)
    # Centring each group first (differences do not change) keeps the sums free of
    # cancellation.
    h, m = (_centred(matrix, present, n) for matrix in (human_matrix, metric_matrix))
    h_sum, m_sum = h.sum(axis=1), m.sum(axis=1)
    cross = float(np.sum(n * (h * m).sum(axis=1) - h_sum * m_sum))
    human_spread = float(np.sum(n * (h * h).sum(axis=1) - h_sum**2))
    metric_spread = float(np.sum(n * (m * m).sum(axis=1) - m_sum**2))
    if human_spread <= 0 or metric_spread <= 0:
        return math.nan
    return cross / math.sqrt(human_spread * metric_spread)


def _centred(matrix: FloatArray, present: np.ndarray, counts: FloatArray) -> FloatArray:
    """Each row minus the mean of its present scores; 0 where a score is not present."""
    values = np.where(present, matrix, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = values.sum(axis=1) / counts
    return np.where(present, values - np.nan_to_num(means)[:, None], 0.0)
