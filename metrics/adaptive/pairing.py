"""Paired sums of the one-output replays (``simulate.replay`` with ``Settings.paired``): every
system visits the segments in one order per replay, and a judgment of system i on segment s
in its r-th pass over its segments pairs with j's r-th judgment of s if j has made it."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.campaign import Campaign
from metrics.adaptive.status import PairSums


class PairMatcher:
    """Paired sums for every pair of systems in every replay: each judgment is stored by its
    visit index, and a new judgment of system c on segment s in pass r meets the judgment
    of s in pass r of every system that has already made it."""

    def __init__(self, campaign: Campaign, visit: NDArray[np.intp]) -> None:
        replays, k, _ = visit.shape
        self.cells = campaign.cells_per_system
        # position[replay, system, segment]: where the segment comes in the system's visits
        # (-1 when the system has no judgment of it); the padding writes to a spare column.
        position = np.full((replays, k, campaign.segments + 1), -1, dtype=np.intp)
        cells = np.take_along_axis(
            np.broadcast_to(campaign.system_cells, visit.shape), visit, axis=-1
        )
        segment = np.where(
            cells >= 0, campaign.cell_segment[np.maximum(cells, 0)], campaign.segments
        )
        ranks = np.broadcast_to(np.arange(visit.shape[-1]), visit.shape)
        np.put_along_axis(position, segment, ranks, axis=-1)
        self.position = position[..., :-1]
        self.stored = np.zeros((replays, k, int(campaign.cap.max())))
        self.count = np.zeros((replays, k, k))
        self.total = np.zeros((replays, k, k))
        self.squares = np.zeros((replays, k, k))

    def add(
        self,
        rows: NDArray[np.intp],
        system: NDArray[np.intp],
        done: NDArray[np.intp],
        segment: NDArray[np.intp],
        score: NDArray[np.float64],
        count: NDArray[np.float64],
    ) -> None:
        """Record judgment number ``done`` (0-based) of ``system`` in each of ``rows``, made
        before ``count`` is incremented."""
        k = self.cells.size
        every = np.arange(k)
        place = self.position[rows[:, None], every[None, :], segment[:, None]]
        visit = (done // self.cells[system])[:, None] * self.cells[None, :] + place
        meets = (place >= 0) & (visit < count[rows]) & (every[None, :] != system[:, None])
        other = self.stored[rows[:, None], every[None, :], np.where(meets, visit, 0)]
        gap = np.where(meets, score[:, None] - other, 0.0)
        self.count[rows, system, :] += meets
        self.count[rows, :, system] += meets
        self.total[rows, system, :] += gap
        self.total[rows, :, system] -= gap
        self.squares[rows, system, :] += gap * gap
        self.squares[rows, :, system] += gap * gap
        self.stored[rows, system, done] = score

    def sums(self, rows: NDArray[np.intp]) -> PairSums:
        return PairSums(count=self.count[rows], total=self.total[rows], squares=self.squares[rows])
