"""Replays of a finished campaign under each allocation policy, with the shared stopping rule.

A campaign is its judgments of one language pair: a score per (system, segment, judgment).
Each replay judges one system at a time, chosen by the policy; the segment is that system's
least-annotated one (ties in a random order fixed per replay), and the score is one of the
real judgments of that (system, segment), drawn at random. Items are chosen alike for every
policy on purpose: choosing segments by their scores would bias the system means, which are
means over the test set. A system is judged at most as often as the campaign judged it, so
the budget is the campaign's own count, and a system judged that often has its full-data
mean.

Paired (``Settings.paired``): every system visits the segments in one order per replay
(each its own cells, least-annotated first), so two systems judged equally often were judged
on the same segments; each pair's interval is then the paired one (``status.PairSums``: a
judgment of system i on segment s, in its r-th pass over its segments, pairs with j's r-th
judgment of s if j has made it). Every policy runs under the same rule.

After every judgment the stopping rule (``metrics.adaptive.status``) looks at the adjacent
pairs; a replay stops when none is open (``resolved``), or when the budget is spent or no
system the policy would choose can be judged any more (``budget``; counted at the full
budget). It errs when a pair it declared resolved, upper above lower, has the lower system
above the upper one by the full data's means.

All replays of a policy run in lock step as arrays (replays x systems), so a step costs a
few NumPy operations whatever the number of replays.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.adaptive.confidence import budget_tuning
from metrics.adaptive.policies import POLICIES
from metrics.adaptive.status import (
    DEFAULT_ALPHA,
    DEFAULT_MIN_JUDGMENTS,
    RESOLVED,
    AdjacentPairs,
    PairSums,
    adjacent_pairs,
)

DEFAULT_REPLAYS = 200


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


@dataclass(frozen=True)
class Settings:
    alpha: float = DEFAULT_ALPHA
    delta: float = 0.0
    min_judgments: int = DEFAULT_MIN_JUDGMENTS
    cold_start: int = DEFAULT_MIN_JUDGMENTS
    tuned_for: float | None = None  # judgments per system; default: half the budget's share
    paired: bool = False  # paired intervals on a shared segment order (module docstring)

    def tuning(self, campaign: Campaign) -> float:
        if self.tuned_for is not None:
            return self.tuned_for
        return budget_tuning(campaign.budget, len(campaign.systems))


@dataclass(frozen=True)
class Replays:
    judgments_at_stop: NDArray[np.float64]  # per replay
    resolved: NDArray[np.bool_]  # stopped because no pair was open
    wrong: NDArray[np.bool_]  # declared at least one pair in the wrong order
    ordered: NDArray[np.intp]  # pairs declared resolved at the stop
    screens_at_stop: NDArray[np.float64] | None = None  # per replay, screens of several systems


def full_ranking(campaign: Campaign, settings: Settings) -> tuple[list[str], list[list[str]]]:
    """The full data's order (best first) and clusters: runs of systems between resolved
    adjacent pairs, by the same rule with every judgment seen."""
    count = campaign.cap
    total = campaign.full_means * count
    # Scores are stored sorted by system, so each system's judgments form one block.
    squares = np.bincount(
        np.repeat(np.arange(len(campaign.systems)), campaign.cap.astype(np.intp)),
        weights=campaign.scores**2,
        minlength=len(campaign.systems),
    )
    pairs = adjacent_pairs(
        count,
        total,
        squares,
        tuned_for=float(count.mean()),
        alpha=settings.alpha,
        delta=settings.delta,
        min_judgments=settings.min_judgments,
    )
    order = [campaign.systems[i] for i in pairs.order]
    clusters: list[list[str]] = [[order[0]]]
    for position, status in enumerate(pairs.status):
        if status == RESOLVED:
            clusters.append([])
        clusters[-1].append(order[position + 1])
    return order, clusters


def replay(
    campaign: Campaign,
    policy: str,
    *,
    replays: int = DEFAULT_REPLAYS,
    settings: Settings | None = None,
    seed: int = 0,
) -> Replays:
    """``replays`` runs of ``policy`` (a name in ``POLICIES``) on ``campaign``."""
    settings = settings or Settings()
    choose = POLICIES[policy]
    rng = np.random.default_rng([seed, zlib.crc32(policy.encode())])
    k = len(campaign.systems)
    budget = campaign.budget
    tuned_for = settings.tuning(campaign)
    cold_start = max(settings.cold_start, settings.min_judgments)

    # Each replay's order of each system's cells: least-annotated first, ties at random
    # (paired: the segments in one random order for every system).
    padding = campaign.system_cells < 0
    if settings.paired:
        order_of_segment = rng.random((replays, campaign.segments))
        keys = order_of_segment[
            :, campaign.cell_segment[np.where(padding, 0, campaign.system_cells)]
        ]
    else:
        keys = rng.random((replays, k, campaign.system_cells.shape[1]))
    keys[:, padding] = np.inf
    visit = np.argsort(keys, axis=-1)
    matcher = _PairMatcher(campaign, visit) if settings.paired else None

    count = np.zeros((replays, k))
    total = np.zeros((replays, k))
    squares = np.zeros((replays, k))
    stop_at = np.full(replays, float(budget))
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
            paired=matcher.sums(rows) if matcher is not None else None,
        )

    def errs(pairs: AdjacentPairs) -> NDArray[np.bool_]:
        upper = campaign.full_means[pairs.order[:, :-1]]
        lower = campaign.full_means[pairs.order[:, 1:]]
        return ((pairs.status == RESOLVED) & (lower > upper)).any(axis=-1)

    pairs = status(active)
    for step in range(1, budget + 1):
        choice = choose(count[active], campaign.cap, pairs, cold_start, rng)
        stuck = choice < 0
        if stuck.any():
            # Nothing the policy would judge is left: the data cannot settle this replay.
            wrong[active[stuck]] = errs(_rows(pairs, stuck))
            ordered[active[stuck]] = (_rows(pairs, stuck).status == RESOLVED).sum(axis=-1)
            keep = ~stuck
            active, choice, pairs = active[keep], choice[keep], _rows(pairs, keep)
            if active.size == 0:
                break
        done = count[active, choice].astype(np.intp)
        local = visit[active, choice, done % campaign.cells_per_system[choice]]
        cell = campaign.system_cells[choice, local]
        pick = (rng.random(active.size) * campaign.cell_count[cell]).astype(np.intp)
        score = campaign.scores[campaign.cell_start[cell] + pick]
        if matcher is not None:
            matcher.add(active, choice, done, campaign.cell_segment[cell], score, count)
        count[active, choice] += 1.0
        total[active, choice] += score
        squares[active, choice] += score * score
        pairs = status(active)
        settled = (pairs.status != 0).all(axis=-1)
        if settled.any() or step == budget:
            finished = settled | (step == budget)
            rows = active[finished]
            wrong[rows] = errs(_rows(pairs, finished))
            ordered[rows] = (_rows(pairs, finished).status == RESOLVED).sum(axis=-1)
            stop_at[active[settled]] = step
            resolved[active[settled]] = True
            keep = ~finished
            active, pairs = active[keep], _rows(pairs, keep)
            if active.size == 0:
                break
    return Replays(judgments_at_stop=stop_at, resolved=resolved, wrong=wrong, ordered=ordered)


def _rows(pairs: AdjacentPairs, rows: NDArray[np.bool_]) -> AdjacentPairs:
    """The AdjacentPairs of a subset of replays."""
    return AdjacentPairs(
        order=pairs.order[rows],
        status=pairs.status[rows],
        difference=pairs.difference[rows],
        half_width=pairs.half_width[rows],
        means=pairs.means[rows],
        variance=pairs.variance[rows],
        information=pairs.information[rows],
        rho=pairs.rho[rows],
        level=pairs.level,
        paired_count=None if pairs.paired_count is None else pairs.paired_count[rows],
        delta=pairs.delta,
    )


class _PairMatcher:
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


def _spread(values: NDArray[np.float64]) -> dict[str, float]:
    p10, median, p90 = (float(v) for v in np.percentile(values, [10, 50, 90]))
    return {"median": median, "p10": p10, "p90": p90}


def summary(result: Replays) -> dict[str, object]:
    """The issue's per-policy JSON: judgments at stop (median, p10, p90; with screens of
    several systems, outputs, and the screens too), how replays stopped, and the share of
    replays that ordered some pair wrongly."""
    figures: dict[str, object] = {"judgments_at_stop": _spread(result.judgments_at_stop)}
    if result.screens_at_stop is not None:
        figures["screens_at_stop"] = _spread(result.screens_at_stop)
    return {
        **figures,
        "stopped": {
            "resolved": int(result.resolved.sum()),
            "budget": int((~result.resolved).sum()),
        },
        "wrong_order_rate": float(result.wrong.mean()),
    }
