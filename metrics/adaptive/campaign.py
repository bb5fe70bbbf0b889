"""A finished campaign's judgments as arrays for the simulator: a score per (system, segment,
judgment), grouped in (system, segment) cells (``simulate``, ``screens``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class Campaign:
    """Judgments of one language pair, scores oriented so that higher is better.

    ``cell_start``/``cell_count`` index ``scores`` per (system, segment) cell;
    ``system_cells`` (k, max cells) lists each system's cells (-1 pads), ``cell_segment``
    each cell's segment code (0 .. segments - 1)."""

    systems: list[str]
    scores: NDArray[np.float64]
    cell_start: NDArray[np.intp]
    cell_count: NDArray[np.intp]
    system_cells: NDArray[np.intp]
    cells_per_system: NDArray[np.intp]
    cap: NDArray[np.float64]  # judgments per system in the campaign
    full_means: NDArray[np.float64]
    cell_segment: NDArray[np.intp]
    segments: int

    @property
    def budget(self) -> int:
        return int(self.cap.sum())


def build_campaign(systems: ArrayLike, segments: ArrayLike, scores: ArrayLike) -> Campaign:
    """A campaign from parallel lists (higher scores better: negate others first)."""
    values = np.asarray(scores, dtype=np.float64)
    system_names = np.asarray(systems, dtype=str)
    segment_names = np.asarray(segments, dtype=str)
    if not (len(system_names) == len(segment_names) == len(values)):
        raise ValueError("systems, segments and scores must have the same length")
    names, system_codes = np.unique(system_names, return_inverse=True)
    if len(names) < 2:
        raise ValueError("at least two systems are needed")
    _, segment_codes = np.unique(segment_names, return_inverse=True)
    keys = system_codes.astype(np.int64) * (int(segment_codes.max()) + 1) + segment_codes
    order = np.argsort(keys, kind="stable")
    cell_keys, cell_start, cell_count = np.unique(
        keys[order], return_index=True, return_counts=True
    )
    cell_system = (cell_keys // (int(segment_codes.max()) + 1)).astype(np.intp)
    cell_segment = (cell_keys % (int(segment_codes.max()) + 1)).astype(np.intp)
    k = len(names)
    cells_per_system = np.bincount(cell_system, minlength=k).astype(np.intp)
    system_cells = np.full((k, int(cells_per_system.max())), -1, dtype=np.intp)
    first = np.concatenate([[0], np.cumsum(cells_per_system)[:-1]])
    for i in range(k):
        system_cells[i, : cells_per_system[i]] = np.arange(first[i], first[i] + cells_per_system[i])
    cap = np.bincount(system_codes, minlength=k).astype(np.float64)
    full_means = np.bincount(system_codes, weights=values, minlength=k) / cap
    return Campaign(
        systems=[str(n) for n in names],
        scores=values[order],
        cell_start=cell_start.astype(np.intp),
        cell_count=cell_count.astype(np.intp),
        system_cells=system_cells,
        cells_per_system=cells_per_system,
        cap=cap,
        full_means=full_means,
        cell_segment=cell_segment,
        segments=int(segment_codes.max()) + 1,
    )
