"""PERM-BOTH permutation test between two metrics, against scipy.stats.permutation_test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.meta.segment import acc23, kendall_like
from metrics.meta.significance import permutation_test, zscore_present

HUMAN = np.array([[10, 60, 30, 80], [40, 20, 90, 50], [70, 90, 10, 20]], dtype=float)
METRIC_A = np.array([[0.3, 0.2, 0.9, 0.1], [0.5, 0.6, 0.4, 0.8], [0.2, 0.7, 0.3, 0.6]])
METRIC_B = np.array([[0.1, 0.7, 0.3, 0.9], [0.5, 0.2, 0.8, 0.4], [0.8, 0.9, 0.2, 0.3]])


@pytest.mark.parametrize(
    ("name", "function"),
    [("acc23", acc23), ("kendall_like", lambda h, m: kendall_like(h, m, threshold=25))],
)
def test_p_value_matches_scipy_s_exact_paired_permutation_test(name: str, function) -> None:
    ours = permutation_test(
        HUMAN, METRIC_A, METRIC_B, statistic=name, threshold=25, n_permutations=4000, seed=3
    )
    first, second = zscore_present(METRIC_A), zscore_present(METRIC_B)

    def difference(a: np.ndarray, b: np.ndarray) -> float:
        return function(HUMAN, b.reshape(3, 4)) - function(HUMAN, a.reshape(3, 4))

    exact = stats.permutation_test(
        (first.ravel(), second.ravel()),
        difference,
        permutation_type="samples",
        alternative="greater",
        n_resamples=10_000,  # more than the 2**12 swaps: scipy enumerates them all
        vectorized=False,
    )
    assert ours.difference == pytest.approx(exact.statistic)
    assert ours.difference > 0
    assert ours.p_value == pytest.approx(exact.pvalue, abs=0.01)


def test_a_metric_against_itself_is_never_significant() -> None:
    result = permutation_test(HUMAN, METRIC_A, METRIC_A, n_permutations=50)
    assert result.difference == 0
    assert result.p_value == 1.0


def test_the_human_scores_beat_noise() -> None:
    rng = np.random.default_rng(0)
    human = rng.integers(0, 100, (6, 40)).astype(float)
    noise = rng.normal(size=human.shape)
    result = permutation_test(
        human, noise, human + rng.normal(size=human.shape), statistic="acc23_tie_optimised",
        n_permutations=100,
    )  # fmt: skip
    assert result.value_b > result.value_a
    assert result.p_value < 0.05


def test_refusals() -> None:
    with pytest.raises(ValueError, match="statistic"):
        permutation_test(HUMAN, METRIC_A, METRIC_B, statistic="pearson")
    partial = METRIC_B.copy()
    partial[0, 0] = np.nan
    with pytest.raises(ValueError, match="same"):
        permutation_test(HUMAN, METRIC_A, partial)
