"""Replays of contrastive screens: each draw shows ``size`` systems' outputs of one segment
to one annotator, who scores them all (``python -m metrics simulate --screen-size N``).

The policy chooses the screen's systems (``policies.SCREEN_POLICIES``); the segment is the
one those systems have been judged on least, summed over them, among the segments every one
of them has (ties in a random order fixed per replay), as a launch rotates screens over the
segments; each system's score is one of the real judgments of its (system, segment), drawn
at random. A system is judged at most as often as the campaign judged it. When the chosen
systems share no segment, the first chosen system's least-judged segment is taken and
the others shown only if they have it.

The budget and every count are in outputs (judgments of systems, what the rankings count),
so a table at screen size 3 compares with one at size 1; a replay also reports its screens.
The stopping rule is the one-output replay's (unpaired: a contrastive task's adaptive status
is, see annotation/selectors/tuning.py), looked at after every screen, since a screen's
outputs are recorded together: the replays run in ``simulate.replay_draws``, a screen being
one draw of several outputs.
"""

from __future__ import annotations

import zlib

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.campaign import Campaign
from metrics.adaptive.policies import SCREEN_POLICIES, IntArray, Policy
from metrics.adaptive.simulate import (
    DEFAULT_REPLAYS,
    Draw,
    Observations,
    Replays,
    Settings,
    replay_draws,
)


def _cell_of(campaign: Campaign) -> NDArray[np.intp]:
    """(systems, segments): the cell of each system's segment, -1 where it has none."""
    k = len(campaign.systems)
    cell_of = np.full((k, campaign.segments), -1, dtype=np.intp)
    for i in range(k):
        cells = campaign.system_cells[i, : campaign.cells_per_system[i]]
        cell_of[i, campaign.cell_segment[cells]] = cells
    return cell_of


class _Screen(Draw):
    """A screen a draw: the segment the chosen systems were judged on least (module
    docstring), and one of each shown system's judgments of it at random."""

    def __init__(
        self,
        campaign: Campaign,
        policy: Policy,
        size: int,
        settings: Settings,
        rng: np.random.Generator,
        replays: int,
    ) -> None:
        super().__init__(campaign, policy, size, settings, rng)
        self.cell_of = _cell_of(campaign)
        self.missing = np.where(self.cell_of < 0, np.inf, 0.0)
        self.seen = np.zeros((replays, len(campaign.systems), campaign.segments))
        self.tie = rng.random((replays, campaign.segments)) * 0.5

    def observe(
        self, active: IntArray, chosen: IntArray, count: NDArray[np.float64]
    ) -> Observations:
        campaign, seen, missing, tie = self.campaign, self.seen, self.missing, self.tie
        shown = chosen >= 0
        place = np.maximum(chosen, 0)
        rows = active[:, None]
        # The segment the screen's systems were judged on least, among those all of them have.
        load = np.where(shown[..., None], seen[rows, place] + missing[place], 0.0).sum(axis=1)
        load += tie[active]
        lone = ~np.isfinite(load.min(axis=-1))
        if lone.any():
            first = place[lone, 0]
            load[lone] = seen[active[lone], first] + missing[first] + tie[active[lone]]
        segment = np.argmin(load, axis=-1)
        cell = self.cell_of[place, segment[:, None]]
        shown &= cell >= 0
        cell = np.maximum(cell, 0)
        pick = (self.rng.random(cell.shape) * campaign.cell_count[cell]).astype(np.intp)
        replay, system = np.broadcast_to(rows, place.shape)[shown], place[shown]
        seen[replay, system, np.broadcast_to(segment[:, None], place.shape)[shown]] += 1.0
        score = campaign.scores[campaign.cell_start[cell] + pick][shown]
        return Observations(replay, system, score, shown.sum(axis=-1))


def replay_screens(
    campaign: Campaign,
    policy: str,
    *,
    size: int,
    replays: int = DEFAULT_REPLAYS,
    settings: Settings | None = None,
    seed: int = 0,
) -> Replays:
    """``replays`` runs of ``policy`` with screens of ``size`` systems; ``judgments_at_stop``
    counts outputs, ``screens_at_stop`` screens."""
    settings = settings or Settings()
    if settings.paired:
        raise ValueError("paired intervals are not built for screens of several systems")
    if size < 1:
        raise ValueError("a screen shows at least one system")
    choose = SCREEN_POLICIES[policy]
    rng = np.random.default_rng([seed, zlib.crc32(policy.encode()), size])
    size = min(size, len(campaign.systems))
    draw = _Screen(campaign, choose, size, settings, rng, replays)
    return replay_draws(campaign, draw, replays=replays, settings=settings)
