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
few NumPy operations whatever the number of replays. One core (``replay_draws``) runs them
for every kind of draw: one output a draw here (``replay``), a contrastive screen of several
outputs in ``screens``; a ``Draw`` chooses the systems of each replay's next draw and returns
their observations, the core keeps the counts and sums, looks at the stopping rule and
records how each replay stopped.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.campaign import Campaign, build_campaign
from metrics.adaptive.confidence import budget_tuning
from metrics.adaptive.pairing import PairMatcher
from metrics.adaptive.policies import POLICIES, IntArray, Policy
from metrics.adaptive.status import (
    DEFAULT_ALPHA,
    DEFAULT_MIN_JUDGMENTS,
    OPEN,
    RESOLVED,
    AdjacentPairs,
    PairSums,
    adjacent_pairs,
)

__all__ = [  # the simulator's entry points (the campaign's arrays live in ``campaign``)
    "DEFAULT_REPLAYS",
    "Campaign",
    "Draw",
    "Observations",
    "Replays",
    "Settings",
    "build_campaign",
    "full_ranking",
    "replay",
    "replay_draws",
    "summary",
]

DEFAULT_REPLAYS = 200


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


class Observations(NamedTuple):
    """One draw of each active replay, an entry an output shown: its replay, system and
    score (each (replay, system) at most once), and the outputs each replay's draw showed."""

    replay: IntArray
    system: IntArray
    score: NDArray[np.float64]
    outputs: NDArray[np.intp] | int


class Draw:
    """One step of every active replay: ``choose`` the systems of each replay's next draw
    (the policy's choice: (rows, places) system codes, -1 for an empty place, a row of -1
    when nothing the policy would choose can be judged), then ``observe`` them, drawing
    their scores before the counts take them. ``paired_sums``: the paired intervals' sums,
    None when unpaired."""

    counts_screens = True  # report the draws made (``Replays.screens_at_stop``)

    def __init__(
        self,
        campaign: Campaign,
        policy: Policy,
        size: int,
        settings: Settings,
        rng: np.random.Generator,
    ) -> None:
        self.campaign = campaign
        self.policy = policy
        self.size = size
        self.cold_start = max(settings.cold_start, settings.min_judgments)
        self.rng = rng

    def choose(self, count: NDArray[np.float64], pairs: AdjacentPairs) -> IntArray:
        return self.policy(count, self.campaign.cap, pairs, self.cold_start, self.rng, self.size)

    def observe(
        self, active: IntArray, chosen: IntArray, count: NDArray[np.float64]
    ) -> Observations:
        raise NotImplementedError

    def paired_sums(self, rows: IntArray) -> PairSums | None:
        return None


def replay_draws(campaign: Campaign, draw: Draw, *, replays: int, settings: Settings) -> Replays:
    """``replays`` runs of ``draw`` on ``campaign``, in lock step, each until the stopping
    rule settles it, the budget (in outputs) is spent or nothing can be drawn."""
    k = len(campaign.systems)
    budget = campaign.budget
    tuned_for = settings.tuning(campaign)
    count = np.zeros((replays, k))
    total = np.zeros((replays, k))
    squares = np.zeros((replays, k))
    spent = np.zeros(replays)  # outputs judged
    draws = 0  # made by every active replay: a stuck one stops before its draw
    stop_at = np.full(replays, float(budget))
    draws_at = np.zeros(replays)
    resolved = np.zeros(replays, dtype=bool)
    wrong = np.zeros(replays, dtype=bool)
    ordered = np.zeros(replays, dtype=np.intp)
    active = np.arange(replays)

    def status(rows: IntArray) -> AdjacentPairs:
        return adjacent_pairs(
            count[rows],
            total[rows],
            squares[rows],
            tuned_for=tuned_for,
            alpha=settings.alpha,
            delta=settings.delta,
            min_judgments=settings.min_judgments,
            paired=draw.paired_sums(rows),
        )

    def finish(rows: IntArray, pairs: AdjacentPairs, settled: NDArray[np.bool_]) -> None:
        upper = campaign.full_means[pairs.order[:, :-1]]
        lower = campaign.full_means[pairs.order[:, 1:]]
        wrong[rows] = ((pairs.status == RESOLVED) & (lower > upper)).any(axis=-1)
        ordered[rows] = (pairs.status == RESOLVED).sum(axis=-1)
        stop_at[rows] = np.where(settled, spent[rows], budget)
        draws_at[rows] = draws
        resolved[rows] = settled

    pairs = status(active)
    while active.size:
        chosen = draw.choose(count[active], pairs)
        stuck = (chosen < 0).all(axis=-1)
        if stuck.any():
            # Nothing the policy would judge is left: the data cannot settle this replay.
            finish(active[stuck], _rows(pairs, stuck), np.zeros(int(stuck.sum()), dtype=bool))
            keep = ~stuck
            active, chosen, pairs = active[keep], chosen[keep], _rows(pairs, keep)
            if active.size == 0:
                break
        observed = draw.observe(active, chosen, count)
        count[observed.replay, observed.system] += 1.0
        total[observed.replay, observed.system] += observed.score
        squares[observed.replay, observed.system] += observed.score**2
        spent[active] += observed.outputs
        draws += 1
        pairs = status(active)
        settled = (pairs.status != OPEN).all(axis=-1)
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
        screens_at_stop=draws_at if draw.counts_screens else None,
    )


class _OneOutput(Draw):
    """One output a draw: the chosen system's least-annotated cell, in the replay's order of
    its cells (least-annotated first, ties at random; paired: the segments in one random
    order for every system), and one of that cell's judgments at random."""

    counts_screens = False

    def __init__(
        self,
        campaign: Campaign,
        policy: Policy,
        settings: Settings,
        rng: np.random.Generator,
        replays: int,
    ) -> None:
        super().__init__(campaign, policy, 1, settings, rng)
        padding = campaign.system_cells < 0
        if settings.paired:
            order_of_segment = rng.random((replays, campaign.segments))
            keys = order_of_segment[
                :, campaign.cell_segment[np.where(padding, 0, campaign.system_cells)]
            ]
        else:
            keys = rng.random((replays, len(campaign.systems), campaign.system_cells.shape[1]))
        keys[:, padding] = np.inf
        self.visit = np.argsort(keys, axis=-1)
        self.matcher = PairMatcher(campaign, self.visit) if settings.paired else None

    def observe(
        self, active: IntArray, chosen: IntArray, count: NDArray[np.float64]
    ) -> Observations:
        campaign = self.campaign
        choice = chosen[:, 0]
        done = count[active, choice].astype(np.intp)
        local = self.visit[active, choice, done % campaign.cells_per_system[choice]]
        cell = campaign.system_cells[choice, local]
        pick = (self.rng.random(active.size) * campaign.cell_count[cell]).astype(np.intp)
        score = campaign.scores[campaign.cell_start[cell] + pick]
        if self.matcher is not None:
            self.matcher.add(active, choice, done, campaign.cell_segment[cell], score, count)
        return Observations(active, choice, score, 1)

    def paired_sums(self, rows: IntArray) -> PairSums | None:
        return None if self.matcher is None else self.matcher.sums(rows)


def replay(
    campaign: Campaign,
    policy: str,
    *,
    replays: int = DEFAULT_REPLAYS,
    settings: Settings | None = None,
    seed: int = 0,
) -> Replays:
    """``replays`` runs of ``policy`` (a name in ``POLICIES``) on ``campaign``, one output a
    draw."""
    settings = settings or Settings()
    choose = POLICIES[policy]
    rng = np.random.default_rng([seed, zlib.crc32(policy.encode())])
    draw = _OneOutput(campaign, choose, settings, rng, replays)
    return replay_draws(campaign, draw, replays=replays, settings=settings)


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
