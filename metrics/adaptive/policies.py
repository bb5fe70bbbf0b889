"""Which system to judge next: the allocation policies the simulator compares.

Every policy sees, per replay (rows), the judgment counts ``count`` (rows, k), each system's
cap ``cap`` (k,) (the judgments the campaign holds for it) and the stopping rule's current
``pairs`` (``metrics.adaptive.status.AdjacentPairs``), and returns the systems of each row's
next draw, (rows, size) system codes, distinct per row, -1 for an empty place; a row of -1
when no system it would choose can still be judged. ``POLICIES`` choose one output a draw
(size 1); ``SCREEN_POLICIES`` the several systems one contrastive screen shows (the
simulator's ``--screen-size``, below). The item (segment) is chosen alike for all policies
(see ``simulate`` and ``screens``).

- ``uniform``: a random balanced order -- the least-judged system, ties broken at random.
- ``pearmut``: Pearmut's dynamic assignment (zouharvi/pearmut, ``server/assignment.py``,
  ``get_next_item_dynamic``): after a cold start of N judgments per system, a system is
  drawn with probability proportional to 1 / rank in the current ranking (best first).
- ``racing``: successive elimination -- the least-judged system among those still in an
  open adjacent pair (systems whose both neighbours are settled drop out).
- ``adaptive`` (ours): the system whose next judgment most reduces the uncertainty of the
  comparisons still open. One more judgment of system i shrinks the variance of the
  difference of an open pair (i, j), v_i / n_i + v_j / n_j, by v_i / (n_i (n_i + 1)); the
  rule adds these reductions, each relative to the pair's current variance (so it is the
  first-order drop in the log of the interval's width), over the open pairs i belongs to,
  and takes the largest. It spends nothing on settled pairs (as racing), balances the two
  sides of a pair by their variances instead of their counts, and prefers a system that
  serves two open pairs at once. Relative rather than absolute reduction: an absolute rule
  would pour judgments into the noisiest systems whatever their pairs need. Under paired
  intervals (``pairs.paired_count``) the same idea in paired judgments: 1/m per open pair,
  in full for the side behind its partner, half when level, nothing when ahead.

- ``finishing`` (an alternative to ``adaptive``, bench/simulate.md): its gains with each
  open pair weighted by how near it is to settling.

All but ``uniform`` start with the same cold start (``_cold_start_first``: every system
judged ``cold_start`` times, least-judged first), so the policies differ only in what they
do afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.status import OPEN, AdjacentPairs

IntArray = NDArray[np.intp]
FloatArray = NDArray[np.float64]
# (count, cap, pairs, cold_start, rng, size) -> (rows, size) system codes.
Policy = Callable[[FloatArray, FloatArray, AdjacentPairs, int, np.random.Generator, int], IntArray]
# A policy's choice after the cold start: (count, cap, pairs, rng, size) -> (rows, size).
Rule = Callable[[FloatArray, FloatArray, AdjacentPairs, np.random.Generator, int], IntArray]

# The live rule's strata (annotation/services/contrastive_adaptive.py imports it): whole sets of
# systems while there are at most this many of them, else pairs filled up to the screen.
MAX_SET_STRATA = 120


def _least_judged(
    count: NDArray[np.float64], eligible: NDArray[np.bool_], rng: np.random.Generator
) -> IntArray:
    """One output: the eligible system judged least, ties at random, as (rows, 1)."""
    key = count + rng.random(count.shape) * 0.5
    key[~eligible] = np.inf
    choice = np.argmin(key, axis=-1)
    return np.where(eligible.any(axis=-1), choice, -1)[:, None]


def _top(key: FloatArray, eligible: NDArray[np.bool_], size: int) -> IntArray:
    """The ``size`` eligible systems with the largest key in each row of (rows, k) (-1 past
    the eligible), ties to the lower code."""
    masked = np.where(eligible, -key, np.inf)
    if size == 1:  # the stable sort's first, without sorting
        order = np.argmin(masked, axis=-1)[..., None]
    else:
        order = np.argsort(masked, axis=-1, kind="stable")[..., :size]
    return np.where(eligible[np.arange(order.shape[0])[:, None], order], order, -1)


def _fewest_first(count: FloatArray, rng: np.random.Generator) -> FloatArray:
    """A key ranking the least-judged systems first, ties at random, within (-1, 0]."""
    return -(count + 0.5 * rng.random(count.shape)) / (count.max(axis=-1, keepdims=True) + 1.0)


def _open_systems(pairs: AdjacentPairs) -> NDArray[np.bool_]:
    is_open = pairs.status == OPEN
    member = np.zeros(pairs.means.shape, dtype=bool)
    np.put_along_axis(member, pairs.order[..., :-1], is_open, axis=-1)
    lower = np.zeros_like(member)
    np.put_along_axis(lower, pairs.order[..., 1:], is_open, axis=-1)
    return member | lower


def _ranks(pairs: AdjacentPairs) -> IntArray:
    """Each system's place in the current ranking, 0 for the best so far."""
    rank = np.empty_like(pairs.order)
    positions = np.broadcast_to(np.arange(pairs.order.shape[-1]), pairs.order.shape)
    np.put_along_axis(rank, pairs.order, positions, axis=-1)
    return rank


def _cold_start_first(*, rule_draws_first: bool) -> Callable[[Rule], Policy]:
    """The cold start before ``rule``: a row where some system has fewer than ``cold_start``
    judgments (and can have more) shows those systems, least judged first, the rest of a
    screen filled with the least judged others; every other row shows the rule's choice.

    Both choices are drawn for every row, so the random numbers a row uses do not depend on
    which rows are cold. ``rule_draws_first``: the rule's numbers are drawn before the cold
    start's (the one-output policies) or after them (the screens), the orders the recorded
    tables of bench/simulate.md were made with; the other order changes every replay."""

    def wrap(rule: Rule) -> Policy:
        def policy(
            count: FloatArray,
            cap: FloatArray,
            pairs: AdjacentPairs,
            cold_start: int,
            rng: np.random.Generator,
            size: int,
        ) -> IntArray:
            needs = (count < cold_start) & (count < cap)

            def cold_choice() -> IntArray:
                return _top(needs + _fewest_first(count, rng), count < cap, size)

            if rule_draws_first:
                warm = rule(count, cap, pairs, rng, size)
                cold = cold_choice()
            else:
                cold = cold_choice()
                warm = rule(count, cap, pairs, rng, size)
            return np.where(needs.any(axis=-1)[:, None], cold, warm)

        policy.__doc__ = rule.__doc__
        return policy

    return wrap


# -- one output a draw (size 1) ---------------------------------------------------------------


def uniform(
    count: FloatArray,
    cap: FloatArray,
    pairs: AdjacentPairs,
    cold_start: int,
    rng: np.random.Generator,
    size: int,
) -> IntArray:
    """The least-judged system, ties at random."""
    return _least_judged(count, count < cap, rng)


@_cold_start_first(rule_draws_first=True)
def pearmut(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """P(system) proportional to 1 / rank (rank 1 = best so far), over systems below cap."""
    weight = np.where(count < cap, 1.0 / (_ranks(pairs) + 1.0), 0.0)
    total = weight.sum(axis=-1, keepdims=True)
    cumulative = np.cumsum(weight, axis=-1) / np.where(total > 0, total, 1.0)
    draw = rng.random((count.shape[0], 1))
    choice = np.minimum((cumulative < draw).sum(axis=-1), count.shape[-1] - 1)
    return np.where(total[:, 0] > 0, choice, -1)[:, None]


@_cold_start_first(rule_draws_first=True)
def racing(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """The least-judged system still in an open adjacent pair."""
    return _least_judged(count, _open_systems(pairs) & (count < cap), rng)


def uncertainty_reduction(
    count: FloatArray, pairs: AdjacentPairs, weight: FloatArray | None = None
) -> FloatArray:
    """Per system (..., k): the summed relative drop in the variance of the open adjacent
    pairs it belongs to if it were judged once more (0 for systems in no open pair; paired
    intervals: see below), each pair's drop times its ``weight`` (..., k - 1) if given."""
    is_open = pairs.status == OPEN
    # Each pair's share: 1 when open (times its weight), 0 when settled.
    share = np.where(is_open, 1.0 if weight is None else weight, 0.0)
    take = np.take_along_axis
    upper, lower = pairs.order[..., :-1], pairs.order[..., 1:]
    if pairs.paired_count is None:
        n = np.maximum(count, 1.0)
        step = pairs.variance / (n * (n + 1.0))  # drop of v/n from one more judgment
        gain_upper = np.where(is_open, take(step, upper, -1) * pairs.information * share, 0.0)
        gain_lower = np.where(is_open, take(step, lower, -1) * pairs.information * share, 0.0)
    else:
        # Paired: one more paired judgment adds 1/m of the pair's information, and takes a
        # judgment of each side. The side behind completes one (it meets a segment the other
        # has judged), the side ahead adds nothing yet, sides level start one (half).
        relative = share / np.maximum(pairs.paired_count, 1.0)
        n_up, n_low = take(count, upper, -1), take(count, lower, -1)
        side_up = np.where(n_up < n_low, 1.0, np.where(n_up == n_low, 0.5, 0.0))
        gain_upper = np.where(is_open, relative * side_up, 0.0)
        gain_lower = np.where(is_open, relative * (1.0 - side_up), 0.0)
    gain = np.zeros(count.shape)
    np.put_along_axis(gain, upper, gain_upper, axis=-1)
    from_lower = np.zeros(count.shape)
    np.put_along_axis(from_lower, lower, gain_lower, axis=-1)
    return gain + from_lower


def _largest_gain(
    gain: FloatArray, count: FloatArray, cap: FloatArray, rng: np.random.Generator
) -> IntArray:
    """One output: the system below its cap with the largest positive gain, ties at random."""
    eligible = (count < cap) & (gain > 0)
    gain = np.where(eligible, gain * (1.0 + 1e-9 * rng.random(gain.shape)), -np.inf)
    return np.where(eligible.any(axis=-1), np.argmax(gain, axis=-1), -1)[:, None]


@_cold_start_first(rule_draws_first=True)
def adaptive(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """The largest summed relative variance reduction over the open pairs."""
    return _largest_gain(uncertainty_reduction(count, pairs), count, cap, rng)


def nearness(pairs: AdjacentPairs) -> FloatArray:
    """Per adjacent pair (..., k - 1): how near it is to settling, (target / half-width)^2
    at most 1, about 1 / the factor its judgments must still grow by (the interval narrows
    as 1 / sqrt(information)); target max(D, delta - D) as ``status.pair_growth``. 1 for a
    pair below the minimum judgments."""
    gap = np.abs(pairs.difference)
    target = np.maximum(gap, pairs.delta - gap)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.minimum((target / pairs.half_width) ** 2, 1.0)
    return np.where(np.isfinite(gap) & np.isfinite(near), near, 1.0)


@_cold_start_first(rule_draws_first=True)
def finishing(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """``adaptive``'s relative variance reduction, each open pair's weighted by how near it
    is to settling (``nearness``): pairs about to settle are finished first, so that their
    systems stop being needed sooner (bench/simulate.md: tried for tr-en's room)."""
    return _largest_gain(uncertainty_reduction(count, pairs, nearness(pairs)), count, cap, rng)


POLICIES: dict[str, Policy] = {
    "uniform": uniform,
    "pearmut": pearmut,
    "adaptive": adaptive,
    "racing": racing,
    "finishing": finishing,
}


# -- screens: several systems on one segment, scored by one annotator (contrastive) ---------
#
# Every screen shows ``size`` systems while that many can still be judged: a contrastive
# task's screens always show their N outputs, whether or not each serves an open pair.


def uniform_screen(
    count: FloatArray,
    cap: FloatArray,
    pairs: AdjacentPairs,
    cold_start: int,
    rng: np.random.Generator,
    size: int,
) -> IntArray:
    """Balanced sets: the ``size`` least-judged systems, ties at random."""
    return _top(_fewest_first(count, rng), count < cap, size)


@_cold_start_first(rule_draws_first=False)
def pearmut_screen(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """Pearmut's dynamic rule for ``dynamic_models`` systems an item: drawn without
    replacement with probability proportional to 1 / rank (Gumbel top-k)."""
    gumbel = -np.log(-np.log(rng.random(count.shape)))
    return _top(-np.log(_ranks(pairs) + 1.0) + gumbel, count < cap, size)


@_cold_start_first(rule_draws_first=False)
def racing_screen(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """The least-judged systems still in an open pair, the screen filled with the least
    judged others."""
    eligible = count < cap
    racing_ones = _open_systems(pairs) & eligible
    choice = _top(racing_ones + _fewest_first(count, rng), eligible, size)
    return np.where(racing_ones.any(axis=-1)[:, None], choice, -1)


@_cold_start_first(rule_draws_first=False)
def adaptive_screen(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator, size: int
) -> IntArray:
    """The live rule's screen: with few sets of ``size`` systems, the set whose systems'
    gains (``uncertainty_reduction``) sum highest, i.e. the ``size`` largest gains; with
    many, the pair of the two largest gains, the screen filled with others at random (the
    launch fills a pair's screens with the systems that met it least, blind to the data)."""
    eligible = count < cap
    gain = uncertainty_reduction(count, pairs)
    serving = eligible & (gain > 0)
    # Systems that serve an open pair by their gain, above the rest (least judged first).
    key = np.where(serving, 2.0 + gain / (1.0 + gain), 1.0 + _fewest_first(count, rng))
    k = count.shape[-1]
    if math.comb(k, min(size, k)) <= MAX_SET_STRATA:
        choice = _top(key, eligible, size)
    else:
        pair = _top(key, eligible, 2)
        chosen = np.zeros(count.shape, dtype=bool)
        np.put_along_axis(chosen, np.maximum(pair, 0), pair >= 0, axis=-1)
        choice = _top(chosen + rng.random(count.shape) * 0.5, eligible, size)
    return np.where(serving.any(axis=-1)[:, None], choice, -1)


SCREEN_POLICIES: dict[str, Policy] = {
    "uniform": uniform_screen,
    "pearmut": pearmut_screen,
    "adaptive": adaptive_screen,
    "racing": racing_screen,
}
