"""System-level correlation of human rankings with automatic metrics."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

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
                    float(spearman.pvalue),
                    float(kendall.statistic),
                    float(kendall.pvalue),
                ]
            result.append(Correlation(human_name, metric_name, len(shared), *values))
    return result
