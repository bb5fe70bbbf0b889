"""The per-system rows of a span ranking (ESA, MQM): one helper for both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

Row = TypeVar("Row")


def ranked_rows(
    row: Callable[..., Row],
    names: ArrayLike,
    means: ArrayLike,
    interval: tuple[ArrayLike, ArrayLike],
    segments: ArrayLike,
    units: ArrayLike,
    clusters: Any,
    *,
    lower_is_better: bool,
) -> list[Row]:
    """A ``row(system, score, interval, segments, units, wins, cluster, rank_range)`` per
    system (the field order of ``EsaSystemScore`` and ``MqmSystemScore``; ``units`` are the
    judgments or ratings counted), best first, ties by name. ``clusters`` is a
    ``metrics.rankings.likert.Clusters`` of the same systems."""
    labels = [str(name) for name in np.asarray(names)]
    score = np.asarray(means, dtype=np.float64)
    low, high = (np.asarray(bound, dtype=np.float64) for bound in interval)
    segment_counts, unit_counts = np.asarray(segments), np.asarray(units)
    sign = 1.0 if lower_is_better else -1.0
    order = sorted(range(len(labels)), key=lambda s: (sign * score[s], labels[s]))
    return [
        row(
            labels[s],
            float(score[s]),
            (float(low[s]), float(high[s])),
            int(segment_counts[s]),
            int(unit_counts[s]),
            int(clusters.wins[s]),
            int(clusters.cluster[s]),
            (int(clusters.rank_low[s]), int(clusters.rank_high[s])),
        )
        for s in order
    ]
