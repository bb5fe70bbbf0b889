"""Rolling intervals: each system's always-valid interval as the judgments came in (issue 23,
section 2; the figure WMT26's dynamic-assignment analysis draws with per-look t-intervals).

The judgments are replayed in their recorded order and, at a few dozen looks, each system's
interval is computed from the judgments made so far with ``intervals.interval_bounds``, the
formula of the live table. One mixture precision serves every look (tuned for the final mean
number of judgments per system), so the curves are one confidence sequence per system and the
last look is exactly the table's interval. Scores standardised per annotator (DA's z-scores)
are standardised again on each prefix, as the page would have shown them at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.adaptive.intervals import interval_bounds
from metrics.adaptive.status import DEFAULT_ALPHA

DEFAULT_LOOKS = 60


@dataclass(frozen=True)
class RollingIntervals:
    """Arrays over looks (rows) and systems (columns): ``looks`` the number of judgments so
    far (all systems together) at each look; a system's mean is NaN and its bounds infinite
    before its first judgment."""

    systems: list[str]
    looks: NDArray[np.int64]
    counts: NDArray[np.int64]
    means: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]


def look_points(total: int, looks: int = DEFAULT_LOOKS) -> NDArray[np.int64]:
    """About ``looks`` evenly spread prefix lengths from 1 to ``total`` (always ``total``)."""
    if total <= 0:
        return np.zeros(0, dtype=np.int64)
    points = np.unique(np.ceil(np.linspace(0, total, looks + 1)[1:]).astype(np.int64))
    return points[points >= 1]


def rolling_intervals(
    system: ArrayLike,
    scores: ArrayLike,
    names: Sequence[str],
    *,
    annotator: ArrayLike | None = None,
    alpha: float = DEFAULT_ALPHA,
    looks: int = DEFAULT_LOOKS,
) -> RollingIntervals:
    """Each system's interval at each look. ``system`` holds codes into ``names``, one per
    judgment in recorded order, ``scores`` the judgments' scores; with ``annotator`` the
    scores are z-standardised per annotator on each prefix (``metrics.rankings.z_scores``)."""
    codes = np.asarray(system, dtype=np.int64)
    values = np.asarray(scores, dtype=np.float64)
    k = len(names)
    points = look_points(int(codes.size), looks)
    counts = np.zeros((points.size, k))
    totals = np.zeros((points.size, k))
    squares = np.zeros((points.size, k))
    if annotator is None:
        # Running sums: each judgment is added once, between the look before it and its own.
        start, count, total, square = 0, np.zeros(k), np.zeros(k), np.zeros(k)
        for row, end in enumerate(points):
            part, x = codes[start:end], values[start:end]
            count += np.bincount(part, minlength=k)
            total += np.bincount(part, weights=x, minlength=k)
            square += np.bincount(part, weights=x * x, minlength=k)
            counts[row], totals[row], squares[row] = count, total, square
            start = int(end)
    else:
        from metrics.rankings import z_scores  # loads scipy: only when standardising

        who = np.asarray(annotator, dtype=np.int64)
        for row, end in enumerate(points):
            part, x = codes[:end], z_scores(values[:end], who[:end])
            counts[row] = np.bincount(part, minlength=k)
            totals[row] = np.bincount(part, weights=x, minlength=k)
            squares[row] = np.bincount(part, weights=x * x, minlength=k)
    tuned_for = max(float(counts[-1].mean()), 1.0) if points.size else 1.0
    means, half = interval_bounds(counts, totals, squares, alpha=alpha, tuned_for=tuned_for)
    return RollingIntervals(
        systems=list(names),
        looks=points,
        counts=counts.astype(np.int64),
        means=means,
        low=means - half,
        high=means + half,
    )
