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
outputs are recorded together.
"""

from __future__ import annotations

import zlib

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.policies import SCREEN_POLICIES
from metrics.adaptive.simulate import DEFAULT_REPLAYS, Campaign, Replays, Settings, _rows
from metrics.adaptive.status import RESOLVED, AdjacentPairs, adjacent_pairs


def _cell_of(campaign: Campaign) -> NDArray[np.intp]:
    """(systems, segments): the cell of each system's segment, -1 where it has none."""
    k = len(campaign.systems)
    cell_of = np.full((k, campaign.segments), -1, dtype=np.intp)
    for i in range(k):
        cells = campaign.system_cells[i, : campaign.cells_per_system[i]]
        cell_of[i, campaign.cell_segment[cells]] = cells
    return cell_of


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
    k = len(campaign.systems)
    size = min(size, k)
    budget = campaign.budget
    tuned_for = settings.tuning(campaign)
    cold_start = max(settings.cold_start, settings.min_judgments)
    cell_of = _cell_of(campaign)
    missing = np.where(cell_of < 0, np.inf, 0.0)

    seen = np.zeros((replays, k, campaign.segments))
    tie = rng.random((replays, campaign.segments)) * 0.5
    count = np.zeros((replays, k))
    total = np.zeros((replays, k))
    squares = np.zeros((replays, k))
    spent = np.zeros(replays)
    screens = np.zeros(replays)
    stop_at = np.full(replays, float(budget))
    screens_at = np.zeros(replays)
    resolved = np.zeros(replays, dtype=bool)
    wrong = np.zeros(replays, dtype=bool)
    ordered = np.zeros(replays, dtype=np.intp)
    active = np.arange(replays)

    def status(rows: NDArray[np.intp]) -> AdjacentPairs:
        return adjacent_pairs(
            count[rows],
            total[rows],
            squares[rows],
            tuned_for=tuned_for,
            alpha=settings.alpha,
            delta=settings.delta,
            min_judgments=settings.min_judgments,
        )

    def finish(rows: NDArray[np.intp], pairs: AdjacentPairs, settled: NDArray[np.bool_]) -> None:
        upper = campaign.full_means[pairs.order[:, :-1]]
        lower = campaign.full_means[pairs.order[:, 1:]]
        wrong[rows] = ((pairs.status == RESOLVED) & (lower > upper)).any(axis=-1)
        ordered[rows] = (pairs.status == RESOLVED).sum(axis=-1)
        stop_at[rows] = np.where(settled, spent[rows], budget)
        screens_at[rows] = screens[rows]
        resolved[rows] = settled

    pairs = status(active)
    while active.size:
        chosen = choose(count[active], campaign.cap, pairs, cold_start, rng, size)
        shown = chosen >= 0
        stuck = ~shown.any(axis=-1)
        if stuck.any():
            finish(active[stuck], _rows(pairs, stuck), np.zeros(int(stuck.sum()), dtype=bool))
            keep = ~stuck
            active, chosen, shown, pairs = (
                active[keep],
                chosen[keep],
                shown[keep],
                _rows(pairs, keep),
            )
            if active.size == 0:
                break
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
        cell = cell_of[place, segment[:, None]]
        shown &= cell >= 0
        cell = np.maximum(cell, 0)
        pick = (rng.random(cell.shape) * campaign.cell_count[cell]).astype(np.intp)
        score = np.where(shown, campaign.scores[campaign.cell_start[cell] + pick], 0.0)
        # Distinct systems per screen: each (row, system) is written once.
        where = (np.broadcast_to(rows, place.shape)[shown], place[shown])
        count[where] += 1.0
        total[where] += score[shown]
        squares[where] += score[shown] ** 2
        seen[(*where, np.broadcast_to(segment[:, None], place.shape)[shown])] += 1.0
        spent[active] += shown.sum(axis=-1)
        screens[active] += 1.0
        pairs = status(active)
        settled = (pairs.status != 0).all(axis=-1)
        finished = settled | (spent[active] >= budget)
        if finished.any():
            finish(active[finished], _rows(pairs, finished), settled[finished])
            keep = ~finished
            active, pairs = active[keep], _rows(pairs, keep)
    return Replays(
        judgments_at_stop=stop_at,
        resolved=resolved,
        wrong=wrong,
        ordered=ordered,
        screens_at_stop=screens_at,
    )
