"""Shared pieces of the agreement statistics: result type, Landis-Koch labels, resampling."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

# Keeps one chunk of bootstrap index draws (replicates x units) around 32 MB.
_CHUNK_ELEMENTS = 4_000_000


def landis_koch(kappa: float | None) -> str:
    """Landis and Koch (1977) reading of a kappa value."""
    if kappa is None or math.isnan(kappa):
        return "undefined"
    if kappa < 0:
        return "poor"
    bands = ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"))
    for bound, label in bands:
        # The scale's bands meet at two decimals (0.20 slight, 0.21 fair): compare rounded.
        if round(kappa, 2) <= bound:
            return label
    return "almost perfect"


@dataclass(frozen=True)
class Kappa:
    """An agreement coefficient with what it rests on.

    ``items`` is the number of items that contributed at least one pair of judgments;
    ``interval`` is a percentile bootstrap interval over resampled items ((nan, nan) when not
    computable); ``p_a`` / ``p_e`` are the observed and chance agreement where defined.
    """

    kappa: float
    items: int
    interval: tuple[float, float]
    p_a: float | None = None
    p_e: float | None = None

    @property
    def label(self) -> str:
        return landis_koch(self.kappa)

    def as_dict(self) -> dict[str, object]:
        return {
            "kappa": _json_float(self.kappa),
            "label": self.label,
            "items": self.items,
            "interval": [_json_float(v) for v in self.interval],
            "p_a": _json_float(self.p_a),
            "p_e": _json_float(self.p_e),
        }


def _json_float(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def encode(values: ArrayLike) -> tuple[IntArray, NDArray[np.generic]]:
    """Integer codes 0..k-1 for ``values`` and the sorted distinct values they stand for."""
    uniques, codes = np.unique(np.asarray(values), return_inverse=True)
    return codes.reshape(-1).astype(np.int64), uniques


def resampled_counts(n_units: int, n_boot: int, seed: int | None) -> Iterator[IntArray]:
    """Yield blocks of bootstrap replicates as unit counts, shape (block, n_units).

    Each replicate draws ``n_units`` units with replacement; the same seed gives the same
    sequence of replicates whatever the block size.
    """
    rng = np.random.default_rng(seed)
    block = max(1, _CHUNK_ELEMENTS // max(n_units, 1))
    done = 0
    while done < n_boot:
        size = min(block, n_boot - done)
        draws = rng.integers(0, n_units, size=(size, n_units))
        offsets = (np.arange(size) * n_units)[:, None]
        counts = np.bincount((draws + offsets).ravel(), minlength=size * n_units)
        yield counts.reshape(size, n_units)
        done += size


def percentile_interval(replicates: FloatArray, confidence: float) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap replicates."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return (math.nan, math.nan)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(finite, [tail, 100.0 - tail])
    return (float(low), float(high))


def bootstrap_weighted(
    statistic: Callable[[FloatArray], float],
    n_units: int,
    n_boot: int,
    seed: int | None,
    confidence: float,
) -> tuple[float, float]:
    """Interval of ``statistic(unit_weights)`` over replicates that resample units.

    ``statistic`` receives how often each unit was drawn, so it can recompute from weighted
    sums instead of copying the data.
    """
    if n_boot <= 0 or n_units == 0:
        return (math.nan, math.nan)
    values = [
        statistic(row.astype(np.float64))
        for block in resampled_counts(n_units, n_boot, seed)
        for row in block
    ]
    return percentile_interval(np.asarray(values, dtype=np.float64), confidence)


def pairs_within_groups(
    order: IntArray, starts: IntArray, sizes: IntArray
) -> tuple[IntArray, IntArray]:
    """All index pairs (i, j), i before j, of rows in the same group.

    ``order`` lists row indices grouped contiguously; group g occupies
    ``order[starts[g]:starts[g] + sizes[g]]``. Vectorised so that large groups cost no Python
    loop.
    """
    n = order.size
    group_of = np.repeat(np.arange(sizes.size), sizes)
    position = np.arange(n) - starts[group_of]
    partners = sizes[group_of] - 1 - position
    total = int(partners.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    first = np.repeat(np.arange(n), partners)
    block_start = np.repeat(np.cumsum(partners) - partners, partners)
    second = first + 1 + (np.arange(total) - block_start)
    return order[first], order[second]


def group_rows(keys: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Stable grouping of rows by integer key: (order, starts, sizes, group id per row)."""
    order = np.argsort(keys, kind="stable")
    _, starts, inverse, sizes = np.unique(
        keys[order], return_index=True, return_inverse=True, return_counts=True
    )
    group = np.empty(keys.size, dtype=np.int64)
    group[order] = inverse.reshape(-1)
    return order.astype(np.int64), starts.astype(np.int64), sizes.astype(np.int64), group
