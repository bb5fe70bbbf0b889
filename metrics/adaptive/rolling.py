"""Rolling intervals: each system's always-valid interval as the judgments came in (issue 23,
section 2; the figure WMT26's dynamic-assignment analysis draws with per-look t-intervals).

The judgments are replayed in their recorded order and, at a few dozen looks, each system's
interval is computed from the judgments made so far with ``intervals.interval_bounds``, the
formula of the live table. One mixture precision serves every look, fixed in advance
(``tuned_for``, the live table's default ``DEFAULT_TUNED_FOR``; not the final count, which on
a live page is the count of the moment), so the curves are one confidence sequence per system
and the last look is exactly the table's interval. Scores standardised per annotator (DA's z-scores)
are standardised again on each prefix, as the page would have shown them at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.adaptive.confidence import DEFAULT_TUNED_FOR
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
    tuned_for: float | None = None,
) -> RollingIntervals:
    """Each system's interval at each look. ``system`` holds codes into ``names``, one per
    judgment in recorded order, ``scores`` the judgments' scores; with ``annotator`` the
    scores are z-standardised per annotator on each prefix (as ``metrics.rankings.z_scores``:
    sample SD; an annotator whose scores do not vary yet gives z = 0)."""
    codes = np.asarray(system, dtype=np.int64)
    values = np.asarray(scores, dtype=np.float64)
    k = len(names)
    points = look_points(int(codes.size), looks)
    # Running sums per (annotator, system) cell -- one annotator when not standardising --
    # added slice by slice, so the whole replay is one pass over the judgments.
    if annotator is None:
        who, people = np.zeros(codes.size, dtype=np.int64), 1
    else:
        people_ids, who = np.unique(np.asarray(annotator, dtype=np.int64), return_inverse=True)
        who, people = who.reshape(-1), int(people_ids.size)
    cell = who * k + codes
    n = np.zeros(people * k)
    s1 = np.zeros(people * k)
    s2 = np.zeros(people * k)
    counts = np.zeros((points.size, k))
    totals = np.zeros((points.size, k))
    squares = np.zeros((points.size, k))
    start = 0
    for row, end in enumerate(points):
        part, x = cell[start:end], values[start:end]
        n += np.bincount(part, minlength=people * k)
        s1 += np.bincount(part, weights=x, minlength=people * k)
        s2 += np.bincount(part, weights=x * x, minlength=people * k)
        start = int(end)
        counts[row] = n.reshape(people, k).sum(axis=0)
        if annotator is None:
            totals[row], squares[row] = s1, s2
        else:
            totals[row], squares[row] = _standardised(
                n.reshape(people, k), s1.reshape(people, k), s2.reshape(people, k)
            )
    if tuned_for is None:
        tuned_for = DEFAULT_TUNED_FOR
    means, half = interval_bounds(counts, totals, squares, alpha=alpha, tuned_for=tuned_for)
    return RollingIntervals(
        systems=list(names),
        looks=points,
        counts=counts.astype(np.int64),
        means=means,
        low=means - half,
        high=means + half,
    )


def _standardised(
    n: NDArray[np.float64], s1: NDArray[np.float64], s2: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per system, the sum and the sum of squares of the z-scores, from the raw sums per
    (annotator, system): z = (x - m_a) / sd_a, so sum z = (S1 - n m_a) / sd_a and
    sum z^2 = (S2 - 2 m_a S1 + n m_a^2) / sd_a^2 within each annotator's cells."""
    count, total, square = n.sum(axis=1), s1.sum(axis=1), s2.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1.0), 0.0)
        sd = np.sqrt(np.maximum(square - count * mean * mean, 0.0) / (count - 1.0))
    # The rule of ``z_scores``: no spread (or a single score) carries no information.
    flat = ~(sd > 1e-12 * np.maximum(np.abs(mean), 1.0))
    sd = np.where(flat, 1.0, sd)[:, None]
    m = mean[:, None]
    totals = np.where(flat[:, None], 0.0, (s1 - n * m) / sd).sum(axis=0)
    squares = np.where(flat[:, None], 0.0, (s2 - 2.0 * m * s1 + n * m * m) / sd**2).sum(axis=0)
    return totals, squares
