"""Everything meta-evaluation says about one metric against one human scoring."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.meta import DA_THRESHOLD
from metrics.meta.segment import SegmentMeta, check_matrices, segment_meta
from metrics.meta.soft import (
    SoftPairwiseAccuracy,
    pairwise_difference_pearson,
    soft_pairwise_accuracy,
)
from metrics.meta.system import SystemAccuracy, system_pairwise_accuracy, system_scores


@dataclass(frozen=True)
class MetaEvaluation:
    systems: int
    pearson: float
    spearman: float
    kendall: float
    system_accuracy: SystemAccuracy
    # Over the items every system has both scores of (SPA's permutations need them all);
    # None without such an item.
    soft_accuracy: SoftPairwiseAccuracy | None
    soft_accuracy_items: int
    segment: SegmentMeta | None  # None when no item has two systems scored by both sides
    pairwise_difference_pearson: float  # item-wise

    def as_dict(self) -> dict[str, object]:
        def number(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "system": {
                "systems": self.systems,
                "pearson": number(self.pearson),
                "spearman": number(self.spearman),
                "kendall_tau_b": number(self.kendall),
                **self.system_accuracy.as_dict(),
                "soft_pairwise_accuracy": (
                    None if self.soft_accuracy is None else self.soft_accuracy.value
                ),
                "soft_pairwise_accuracy_items": self.soft_accuracy_items,
            },
            "segment": None
            if self.segment is None
            else {
                **self.segment.as_dict(),
                "pairwise_difference_pearson": number(self.pairwise_difference_pearson),
            },
        }


def meta_evaluate(
    human: ArrayLike,
    metric: ArrayLike,
    *,
    threshold: float = DA_THRESHOLD,
    resample: str = "items",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetaEvaluation:
    """System- and segment-level agreement of two ``(n_systems, n_items)`` score matrices
    (NaN = not scored), both oriented so that higher is better.

    System level: Pearson, Spearman and Kendall tau-b of the system means
    (``metrics.correlation``), and pairwise accuracy with a bootstrap interval over
    ``resample`` (``metrics.meta.system``). Segment level, item-wise: WMT's Kendall-like tau
    with ``threshold``, acc23 and tie-optimised acc23, bootstrap intervals over items
    (``metrics.meta.segment``). Soft pairwise accuracy and Pairwise Difference Pearson as
    mt-metrics-eval (``metrics.meta.soft``).
    """
    from metrics.correlation import system_correlations  # imports scipy

    human_matrix, metric_matrix = check_matrices(human, metric)
    human_means, metric_means = system_scores(human_matrix), system_scores(metric_matrix)
    both = np.isfinite(human_means) & np.isfinite(metric_means)
    names = [str(index) for index in np.flatnonzero(both)]
    correlation = system_correlations(
        {"human": dict(zip(names, human_means[both].tolist(), strict=True))},
        {"metric": dict(zip(names, metric_means[both].tolist(), strict=True))},
    )[0]
    accuracy = system_pairwise_accuracy(
        human_matrix,
        metric_matrix,
        resample=resample,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    try:
        segment: SegmentMeta | None = segment_meta(
            human_matrix,
            metric_matrix,
            threshold=threshold,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
    except ValueError:
        segment = None
    complete = np.isfinite(human_matrix).all(axis=0) & np.isfinite(metric_matrix).all(axis=0)
    soft = (
        soft_pairwise_accuracy(human_matrix[:, complete], metric_matrix[:, complete])
        if complete.any() and len(human_matrix) > 1
        else None
    )
    return MetaEvaluation(
        systems=correlation.systems,
        pearson=correlation.pearson,
        spearman=correlation.spearman,
        kendall=correlation.kendall,
        system_accuracy=accuracy,
        soft_accuracy=soft,
        soft_accuracy_items=int(complete.sum()),
        segment=segment,
        pairwise_difference_pearson=pairwise_difference_pearson(human_matrix, metric_matrix),
    )
