"""Each system's own always-valid interval for its mean score, beside the pairs' (status.py).

The same normal-mixture confidence sequence as the pairs (``confidence``), for one mean:
information n / v (v the system's variance shrunk toward the pooled one), the mixture tuned
for ``tuned_for`` judgments (fixed in advance: ``DEFAULT_TUNED_FOR`` unless the task declares
its size; never the count so far, see confidence.py), level alpha / k (Bonferroni over the k
systems), so every system's interval holds at every look together with probability
>= 1 - alpha. What a live page draws as the rolling intervals; the stopping rule itself
reads the pairs' intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.confidence import (
    DEFAULT_TUNED_FOR,
    _best_ratio,
    mixture_half_width,
    pooled_variance,
    shrunk_variance,
)
from metrics.adaptive.status import DEFAULT_ALPHA


@dataclass(frozen=True)
class SystemInterval:
    system: str
    judgments: int
    mean: float
    interval: tuple[float, float]  # (-inf, inf) before a system has any judgment


def interval_bounds(
    count: NDArray[np.float64],
    total: NDArray[np.float64],
    squares: NDArray[np.float64],
    *,
    alpha: float,
    tuned_for: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Means and half-widths from running sums (last axis = systems, any leading axes, e.g.
    looks): the one formula behind ``system_intervals`` and ``rolling.rolling_intervals``.
    A system without judgments has mean NaN and half-width infinity."""
    pooled = pooled_variance(count, total, squares)
    variance = shrunk_variance(count, total, squares, np.asarray(pooled)[..., None])
    level = alpha / max(1, count.shape[-1])
    rho = (tuned_for / pooled * _best_ratio(level))[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        half = mixture_half_width(np.where(count > 0, count / variance, 0.0), rho, level)
        means = np.where(count > 0, total / np.maximum(count, 1.0), np.nan)
    return means, half


def system_intervals(
    scores: Mapping[str, Sequence[float]],
    *,
    alpha: float = DEFAULT_ALPHA,
    tuned_for: float | None = None,
) -> dict[str, SystemInterval]:
    """Each system's mean and always-valid interval; ``tuned_for`` (judgments per system)
    defaults to ``DEFAULT_TUNED_FOR``, as ``ranking_status``."""
    names = sorted(scores)
    values = [np.asarray(scores[name], dtype=np.float64) for name in names]
    count = np.array([v.size for v in values], dtype=np.float64)
    total = np.array([v.sum() for v in values])
    squares = np.array([(v * v).sum() for v in values])
    if tuned_for is None:
        tuned_for = DEFAULT_TUNED_FOR
    means, half = interval_bounds(count, total, squares, alpha=alpha, tuned_for=tuned_for)
    return {
        name: SystemInterval(
            system=name,
            judgments=int(count[i]),
            mean=float(means[i]),
            interval=(float(means[i] - half[i]), float(means[i] + half[i]))
            if count[i] > 0
            else (-np.inf, np.inf),
        )
        for i, name in enumerate(names)
    }
