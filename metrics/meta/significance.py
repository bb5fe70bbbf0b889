"""Is one metric's segment-level agreement with the humans better than another's?

PERM-BOTH (Deutsch et al. 2021), as mt-metrics-eval's ``PermutationSigDiff``: each metric's
scores are z-normalised over all its scores, then every (system, item) score is swapped between
the two metrics with probability one half and the statistic recomputed. The p-value is the
share of permutations whose difference (metric B minus metric A) reaches the observed one: a
small p says B agrees with the humans better than A, beyond chance.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.meta import DA_THRESHOLD
from metrics.meta.kendall import FloatArray
from metrics.meta.segment import acc23, acc23_tie_optimised, check_matrices, kendall_like

SEGMENT_STATISTICS = ("kendall_like", "acc23", "acc23_tie_optimised")


@dataclass(frozen=True)
class PermutationResult:
    statistic: str
    value_a: float
    value_b: float
    p_value: float  # for "B agrees better than A"
    permutations: int

    @property
    def difference(self) -> float:
        return self.value_b - self.value_a

    def as_dict(self) -> dict[str, object]:
        return {
            "statistic": self.statistic,
            "a": self.value_a,
            "b": self.value_b,
            "b_minus_a": self.difference,
            "p_value": self.p_value,
            "permutations": self.permutations,
        }


def _statistic(name: str, threshold: float) -> Callable[[FloatArray, FloatArray], float]:
    if name == "kendall_like":
        return lambda human, metric: kendall_like(human, metric, threshold=threshold)
    if name == "acc23":
        return acc23
    if name == "acc23_tie_optimised":
        return lambda human, metric: acc23_tie_optimised(human, metric)[0]
    raise ValueError(f"statistic must be one of {SEGMENT_STATISTICS}, not {name!r}")


def zscore_present(matrix: FloatArray) -> FloatArray:
    """z-scores over the present (non-NaN) scores of a matrix."""
    present = matrix[~np.isnan(matrix)]
    spread = float(present.std())
    return (matrix - present.mean()) / (spread if spread > 0 else 1.0)


def permutation_test(
    human: ArrayLike,
    metric_a: ArrayLike,
    metric_b: ArrayLike,
    *,
    statistic: str = "acc23",
    threshold: float = DA_THRESHOLD,
    n_permutations: int = 1000,
    seed: int = 0,
) -> PermutationResult:
    """PERM-BOTH test of ``statistic`` (one of ``SEGMENT_STATISTICS``) between two metrics'
    ``(n_systems, n_items)`` matrices against the human one (NaN = missing; higher is better
    everywhere). Both metrics must score the same cells."""
    compute = _statistic(statistic, threshold)
    if n_permutations < 1:
        raise ValueError("n_permutations must be at least 1")
    human_matrix, first = check_matrices(human, metric_a)
    _, second = check_matrices(human, metric_b)
    if not np.array_equal(np.isnan(first), np.isnan(second)):
        raise ValueError("the two metrics must score the same (system, item) cells")
    value_a, value_b = compute(human_matrix, first), compute(human_matrix, second)
    observed = value_b - value_a
    if math.isnan(observed):
        raise ValueError(f"{statistic} is undefined on these scores")
    first, second = zscore_present(first), zscore_present(second)
    rng = np.random.default_rng(seed)
    reached = 0
    for _ in range(n_permutations):
        swap = rng.random(first.shape) < 0.5
        permuted_a = np.where(swap, second, first)
        permuted_b = np.where(swap, first, second)
        difference = compute(human_matrix, permuted_b) - compute(human_matrix, permuted_a)
        # Rounding must not turn an equal difference into a smaller one.
        reached += difference >= observed - 1e-12
    return PermutationResult(statistic, value_a, value_b, reached / n_permutations, n_permutations)
