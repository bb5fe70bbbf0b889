"""System-level correlation of human rankings with automatic metrics."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import permutations

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Correlation:
    """Pearson, Spearman and Kendall (tau-b) over the systems both scorings share."""

    human: str
    metric: str
    systems: int
    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float
    kendall: float
    kendall_p: float


# Up to this many systems Spearman's p-value is exact, over all orderings (8! = 40,320):
# scipy's t approximation is far off for so few (rho = 1 over 5 systems: p = 1/60, not 0).
EXACT_SPEARMAN_MAX = 8


def spearman_exact_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided p-value of Spearman's rho by enumerating every pairing of x with y, as
    ``scipy.stats.permutation_test(..., permutation_type="pairings")`` with all
    permutations: twice the smaller tail, at most 1."""
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    norm = math.sqrt(float(rx @ rx) * float(ry @ ry))
    orders = np.array(list(permutations(range(len(ry)))))
    null = (ry[orders] @ rx) / norm
    observed = float(rx @ ry) / norm
    tolerance = 1e-12 * max(1.0, abs(observed))  # rounding must not flip a tie into a tail
    greater = float(np.mean(null >= observed - tolerance))
    less = float(np.mean(null <= observed + tolerance))
    return min(1.0, 2 * min(greater, less))


def system_correlations(
    human: Mapping[str, Mapping[str, float]],
    automatic: Mapping[str, Mapping[str, float]],
    *,
    min_systems: int = 3,
) -> list[Correlation]:
    """Correlate every human ranking with every automatic metric at system level.

    ``human`` maps a ranking's name (e.g. "z", "raw", "bradley_terry") to {system: score};
    ``automatic`` maps a metric's name to {system: score}. Only systems scored by both count,
    in sorted order; pairs sharing fewer than ``min_systems`` systems (or with a constant
    side) get NaN. Signs are as given: an error metric such as TER correlates negatively.
    p-values are scipy's, except Spearman's for up to ``EXACT_SPEARMAN_MAX`` systems, which is
    exact (``spearman_exact_p``).
    """
    result = []
    for human_name, human_scores in human.items():
        for metric_name, metric_scores in automatic.items():
            shared = sorted(set(human_scores) & set(metric_scores))
            x = np.array([human_scores[s] for s in shared], dtype=np.float64)
            y = np.array([metric_scores[s] for s in shared], dtype=np.float64)
            values = [math.nan] * 6
            usable = len(shared) >= min_systems and np.ptp(x) > 0 and np.ptp(y) > 0
            if usable:
                pearson = stats.pearsonr(x, y)
                spearman = stats.spearmanr(x, y)
                kendall = stats.kendalltau(x, y)
                values = [
                    float(pearson.statistic),
                    float(pearson.pvalue),
                    float(spearman.statistic),
                    spearman_exact_p(x, y)
                    if len(shared) <= EXACT_SPEARMAN_MAX
                    else float(spearman.pvalue),
                    float(kendall.statistic),
                    float(kendall.pvalue),
                ]
            result.append(Correlation(human_name, metric_name, len(shared), *values))
    return result
