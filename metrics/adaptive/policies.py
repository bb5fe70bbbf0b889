"""Which system to judge next: the allocation policies the simulator compares.

Every policy sees, per replay (rows), the judgment counts ``count`` (rows, k), each system's
cap ``cap`` (k,) (the judgments the campaign holds for it) and the stopping rule's current
``pairs`` (``metrics.adaptive.status.AdjacentPairs``), and returns one system code per row,
or -1 when no system it would choose can still be judged. The item (segment) is chosen
alike for all policies, least-annotated first (see ``simulate``).

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

All but ``uniform`` start with the same cold start (every system judged ``cold_start``
times, least-judged first), so the policies differ only in what they do afterwards.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from metrics.adaptive.status import OPEN, AdjacentPairs

IntArray = NDArray[np.intp]
FloatArray = NDArray[np.float64]
Policy = Callable[[FloatArray, FloatArray, AdjacentPairs, int, np.random.Generator], IntArray]
Rule = Callable[[FloatArray, FloatArray, AdjacentPairs, np.random.Generator], IntArray]


def _least_judged(
    count: NDArray[np.float64], eligible: NDArray[np.bool_], rng: np.random.Generator
) -> IntArray:
    key = count + rng.random(count.shape) * 0.5
    key[~eligible] = np.inf
    choice = np.argmin(key, axis=-1)
    return np.where(eligible.any(axis=-1), choice, -1)


def _cold(
    count: FloatArray, cap: FloatArray, cold_start: int
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Rows still in the cold start, and the systems that still need it."""
    needs = (count < cold_start) & (count < cap)
    return needs.any(axis=-1), needs


def _open_systems(pairs: AdjacentPairs) -> NDArray[np.bool_]:
    is_open = pairs.status == OPEN
    member = np.zeros(pairs.means.shape, dtype=bool)
    np.put_along_axis(member, pairs.order[..., :-1], is_open, axis=-1)
    lower = np.zeros_like(member)
    np.put_along_axis(lower, pairs.order[..., 1:], is_open, axis=-1)
    return member | lower


def uniform(
    count: FloatArray,
    cap: FloatArray,
    pairs: AdjacentPairs,
    cold_start: int,
    rng: np.random.Generator,
) -> IntArray:
    return _least_judged(count, count < cap, rng)


def _with_cold_start(rule: Rule) -> Policy:
    def policy(
        count: FloatArray,
        cap: FloatArray,
        pairs: AdjacentPairs,
        cold_start: int,
        rng: np.random.Generator,
    ) -> IntArray:
        cold, needs = _cold(count, cap, cold_start)
        warm_choice = rule(count, cap, pairs, rng)
        cold_choice = _least_judged(count, needs, rng)
        return np.where(cold, cold_choice, warm_choice)

    policy.__doc__ = rule.__doc__
    return policy


@_with_cold_start
def pearmut(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator
) -> IntArray:
    """P(system) proportional to 1 / rank (rank 1 = best so far), over systems below cap."""
    rank = np.empty_like(pairs.order)
    positions = np.broadcast_to(np.arange(count.shape[-1]), pairs.order.shape)
    np.put_along_axis(rank, pairs.order, positions, axis=-1)
    weight = np.where(count < cap, 1.0 / (rank + 1.0), 0.0)
    total = weight.sum(axis=-1, keepdims=True)
    cumulative = np.cumsum(weight, axis=-1) / np.where(total > 0, total, 1.0)
    draw = rng.random((count.shape[0], 1))
    choice = np.minimum((cumulative < draw).sum(axis=-1), count.shape[-1] - 1)
    return np.where(total[:, 0] > 0, choice, -1)


@_with_cold_start
def racing(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator
) -> IntArray:
    """The least-judged system still in an open adjacent pair."""
    return _least_judged(count, _open_systems(pairs) & (count < cap), rng)


def uncertainty_reduction(count: FloatArray, pairs: AdjacentPairs) -> FloatArray:
    """Per system (..., k): the summed relative drop in the variance of the open adjacent
    pairs it belongs to if it were judged once more (0 for systems in no open pair; paired
    intervals: see below)."""
    is_open = pairs.status == OPEN
    take = np.take_along_axis
    upper, lower = pairs.order[..., :-1], pairs.order[..., 1:]
    if pairs.paired_count is None:
        n = np.maximum(count, 1.0)
        step = pairs.variance / (n * (n + 1.0))  # drop of v/n from one more judgment
        gain_upper = np.where(is_open, take(step, upper, -1) * pairs.information, 0.0)
        gain_lower = np.where(is_open, take(step, lower, -1) * pairs.information, 0.0)
    else:
        # Paired: one more paired judgment adds 1/m of the pair's information, and takes a
        # judgment of each side. The side behind completes one (it meets a segment the other
        # has judged), the side ahead adds nothing yet, sides level start one (half).
        relative = 1.0 / np.maximum(pairs.paired_count, 1.0)
        n_up, n_low = take(count, upper, -1), take(count, lower, -1)
        side_up = np.where(n_up < n_low, 1.0, np.where(n_up == n_low, 0.5, 0.0))
        gain_upper = np.where(is_open, relative * side_up, 0.0)
        gain_lower = np.where(is_open, relative * (1.0 - side_up), 0.0)
    gain = np.zeros(count.shape)
    np.put_along_axis(gain, upper, gain_upper, axis=-1)
    from_lower = np.zeros(count.shape)
    np.put_along_axis(from_lower, lower, gain_lower, axis=-1)
    return gain + from_lower


@_with_cold_start
def adaptive(
    count: FloatArray, cap: FloatArray, pairs: AdjacentPairs, rng: np.random.Generator
) -> IntArray:
    """The largest summed relative variance reduction over the open pairs."""
    gain = uncertainty_reduction(count, pairs)
    eligible = (count < cap) & (gain > 0)
    gain = np.where(eligible, gain * (1.0 + 1e-9 * rng.random(gain.shape)), -np.inf)
    return np.where(eligible.any(axis=-1), np.argmax(gain, axis=-1), -1)


POLICIES: dict[str, Policy] = {
    "uniform": uniform,
    "pearmut": pearmut,
    "adaptive": adaptive,
    "racing": racing,
}
