"""Bootstrap resampling of rows within groups (segments within systems)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

# One block of bootstrap draws holds at most this many indices (16 MB as int32).
_BLOCK_ELEMENTS = 4_000_000


def resampled_group_means(
    values: NDArray[np.float64],
    groups: NDArray[np.int64],
    n_groups: int,
    n_boot: int,
    seed: int | None,
) -> NDArray[np.float64]:
    """Means of each group's rows over ``n_boot`` resamples drawn within the group.

    ``values`` is (n, k); returns (n_groups, n_boot, k), NaN for groups without rows. Each
    group draws from its own generator spawned from ``seed``, so a group's replicates do not
    depend on the other groups and the groups can run in parallel threads (NumPy releases
    the GIL while drawing and gathering).
    """
    v = values.reshape(len(values), -1)
    out = np.full((n_groups, max(n_boot, 0), v.shape[1]), np.nan)
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(n_groups + 1))
    streams = np.random.SeedSequence(seed).spawn(n_groups)

    def resample(g: int) -> None:
        # Contiguous columns and int32 draws make the gathers several times faster.
        columns = [np.ascontiguousarray(c) for c in v[order[bounds[g] : bounds[g + 1]]].T]
        n = columns[0].size if columns else 0
        if n == 0:
            return
        rng = np.random.default_rng(streams[g])
        block = max(1, _BLOCK_ELEMENTS // n)
        for done in range(0, n_boot, block):
            size = min(block, n_boot - done)
            draws = rng.integers(0, n, size=(size, n), dtype=np.int32)
            for k, column in enumerate(columns):
                out[g, done : done + size, k] = np.take(column, draws).mean(axis=1)

    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        list(pool.map(resample, range(n_groups)))
    return out


def percentiles(
    replicates: NDArray[np.float64], confidence: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile interval along axis 1 (replicates), NaN where there are none."""
    tail = (1.0 - confidence) / 2.0 * 100.0
    if replicates.shape[1] == 0:
        empty = np.full((replicates.shape[0], *replicates.shape[2:]), np.nan)
        return empty, empty.copy()
    with np.errstate(invalid="ignore"):
        low, high = np.nanpercentile(replicates, [tail, 100.0 - tail], axis=1)
    return low, high
