"""The stopping rule: status of each adjacent pair of systems in the current ranking.

Systems are ordered by their running mean (higher is better here; callers negate scores
that are better when lower). For each adjacent pair (upper, lower) the confidence sequence
of ``metrics.adaptive.confidence`` for mean(upper) - mean(lower) decides:

- ``resolved``: the interval excludes 0 (the pair is significantly ordered);
- ``equivalent``: the interval lies inside (-delta, delta) but includes 0 (the difference
  is too small to matter, at the organiser's margin ``delta``; never with delta 0);
- ``open``: neither, or a system has fewer than ``min_judgments`` judgments.

The task is settled when no adjacent pair is open. Each interval is at level
alpha / (k (k - 1) / 2) (Bonferroni over every pair: which pairs are adjacent depends on the
data), so all claims made at any time are right together with probability >= 1 - alpha --
provided the mixture is tuned in advance (``tuned_for``, default
``confidence.DEFAULT_TUNED_FOR``), never to the count of the moment.

Paired (``PairSums``): when the two systems of a pair were judged on the same segments, the
pair's interval is the one-sample sequence on the per-segment differences (information
m / v_d over its m paired judgments). The differences of one pair form one i.i.d. sequence
in their own index whatever the allocation, so the sequence is valid under any adaptive
choice of what to judge next, and it removes the segments' shared difficulty from v_d.
Live, ``ranking_status(..., screens=...)`` pairs systems scored side by side on one screen
(``screen_pair_sums``: contrastive screens, where one annotator scores every output of a
segment, so the annotator's leniency cancels too).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.adaptive.confidence import (
    DEFAULT_TUNED_FOR,
    _best_ratio,
    mixture_half_width,
    mixture_rho,
    pooled_variance,
    shrunk_variance,
)

OPEN, RESOLVED, EQUIVALENT = 0, 1, 2
STATUS_NAMES = {OPEN: "open", RESOLVED: "resolved", EQUIVALENT: "equivalent"}
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_JUDGMENTS = 10


def pair_alpha(alpha: float, systems: int) -> float:
    """The level of each pair's interval: alpha shared (Bonferroni) over every pair."""
    return alpha / max(1, systems * (systems - 1) // 2)


@dataclass(frozen=True)
class AdjacentPairs:
    """Arrays over leading axes (replays) and systems: ``order`` (..., k) system codes best
    first; for the k - 1 adjacent pairs ``status`` (OPEN/RESOLVED/EQUIVALENT), ``difference``
    (upper minus lower: of the means, >= 0; or paired, the mean per-segment difference,
    which may be negative when the counts differ) and ``half_width`` of its interval.
    ``paired_count`` (..., k - 1): the pairs' paired judgments, None when unpaired."""

    order: NDArray[np.intp]
    status: NDArray[np.int8]
    difference: NDArray[np.float64]
    half_width: NDArray[np.float64]
    means: NDArray[np.float64]
    variance: NDArray[np.float64]  # (..., k) each system's (shrunk) score variance
    information: NDArray[np.float64]  # (..., k - 1) 1 / variance of each pair's difference
    rho: NDArray[np.float64]  # (..., 1) the mixture precision used
    level: float  # each pair's alpha
    paired_count: NDArray[np.float64] | None = None
    delta: float = 0.0  # the equivalence margin the statuses were decided at


@dataclass(frozen=True)
class PairSums:
    """Running sums over every pair of systems judged on the same segment, (..., k, k):
    ``count`` (symmetric) paired judgments, ``total`` (antisymmetric) sum of row minus
    column, ``squares`` (symmetric) sum of squared differences."""

    count: NDArray[np.float64]
    total: NDArray[np.float64]
    squares: NDArray[np.float64]


def screen_pair_sums(
    values: Sequence[NDArray[np.float64]], screens: Sequence[NDArray[np.int64]]
) -> PairSums:
    """Pair sums (k, k) of systems scored side by side: ``values[i]`` are system i's scores,
    ``screens[i]`` the screen (any integer id) of each. Two systems pair on every screen
    that shows both; a system scored twice on one screen counts with its mean there."""
    k = len(values)
    ids, where = np.unique(np.concatenate(screens), return_inverse=True)
    system = np.repeat(np.arange(k), [len(v) for v in values])
    cell = where.reshape(-1) * k + system
    size = ids.size * k
    seen = np.bincount(cell, minlength=size).reshape(ids.size, k)
    total = np.bincount(cell, weights=np.concatenate(values), minlength=size).reshape(-1, k)
    shown = (seen > 0).astype(np.float64)
    x = np.where(seen > 0, total / np.maximum(seen, 1), 0.0)
    # Over the screens showing both i and j: sum (x_i - x_j) and sum (x_i - x_j)^2.
    x_shown, x2_shown = x.T @ shown, (x * x).T @ shown
    count = shown.T @ shown
    np.fill_diagonal(count, 0.0)  # a system does not pair with itself
    return PairSums(
        count=count,
        total=x_shown - x_shown.T,
        squares=x2_shown + x2_shown.T - 2.0 * (x.T @ x),
    )


def _paired_statistics(
    paired: PairSums, upper: NDArray[np.intp], lower: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """For the adjacent pairs (upper, lower): paired counts, mean differences, their
    variances shrunk toward the pooled difference variance (VARIANCE_PRIOR_WEIGHT
    pseudo-judgments, as the systems' own), and that pooled variance (..., 1)."""
    k = paired.count.shape[-1]
    flat = (*paired.count.shape[:-2], k * k)
    index = upper * k + lower
    m = np.take_along_axis(paired.count.reshape(flat), index, -1)
    s1 = np.take_along_axis(paired.total.reshape(flat), index, -1)
    s2 = np.take_along_axis(paired.squares.reshape(flat), index, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        every = np.maximum(paired.squares - paired.total**2 / np.maximum(paired.count, 1.0), 0.0)
        degrees = np.maximum(paired.count - 1.0, 0.0).sum(axis=(-2, -1))
        pooled = np.maximum(every.sum(axis=(-2, -1)) / np.maximum(degrees, 1.0), 1e-9)[..., None]
        difference = np.where(m > 0, s1 / np.maximum(m, 1.0), np.nan)
    variance = shrunk_variance(m, s1, s2, pooled)
    return m, difference, variance, pooled


def adjacent_pairs(
    count: ArrayLike,
    total: ArrayLike,
    total_squares: ArrayLike,
    *,
    tuned_for: float,
    alpha: float = DEFAULT_ALPHA,
    delta: float = 0.0,
    min_judgments: int = DEFAULT_MIN_JUDGMENTS,
    paired: PairSums | None = None,
) -> AdjacentPairs:
    """Status of the adjacent pairs from running sums per system (last axis = systems):
    judgment counts, sums of scores and sums of squared scores. ``tuned_for`` is the number
    of judgments per system where the intervals should be narrowest (see
    ``confidence.mixture_rho``), fixed in advance. With ``paired`` each pair's interval is
    the paired one (module docstring); the order stays that of the systems' means."""
    n = np.asarray(count, dtype=np.float64)
    s1 = np.asarray(total, dtype=np.float64)
    s2 = np.asarray(total_squares, dtype=np.float64)
    systems = n.shape[-1]
    level = pair_alpha(alpha, systems)
    means = np.where(n > 0, s1 / np.maximum(n, 1.0), -np.inf)
    pooled = pooled_variance(n, s1, s2)
    variance = shrunk_variance(n, s1, s2, pooled[..., None])
    order = np.argsort(-means, axis=-1, kind="stable")
    upper, lower = order[..., :-1], order[..., 1:]
    take = np.take_along_axis
    n_up, n_low = take(n, upper, -1), take(n, lower, -1)
    paired_count = None
    if paired is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            spread = take(variance, upper, -1) / n_up + take(variance, lower, -1) / n_low
            information = np.where(np.isfinite(spread) & (spread > 0), 1.0 / spread, 0.0)
            difference = take(means, upper, -1) - take(means, lower, -1)
        rho = mixture_rho(tuned_for, pooled, level)[..., None]
        enough = (n_up >= min_judgments) & (n_low >= min_judgments) & np.isfinite(difference)
    else:
        paired_count, difference, spread, pooled_difference = _paired_statistics(
            paired, upper, lower
        )
        information = np.where(paired_count > 0, paired_count / spread, 0.0)
        # tuned_for counts paired judgments (one of each system), as it counts judgments
        # per system unpaired: rho / I = tuned_for ratio / m at the pooled variance.
        rho = tuned_for / pooled_difference * _best_ratio(level)
        enough = (paired_count >= min_judgments) & np.isfinite(difference)
    half = mixture_half_width(information, rho, level)
    difference = np.where(enough, difference, np.nan)
    status = np.full(difference.shape, OPEN, dtype=np.int8)
    with np.errstate(invalid="ignore"):
        # A pair both ordered and within the margin is reported ordered: the order is the
        # stronger claim, and the clusters follow it.
        status[enough & (np.abs(difference) + half < delta)] = EQUIVALENT
        status[enough & (difference - half > 0)] = RESOLVED
    return AdjacentPairs(
        order=order,
        status=status,
        difference=difference,
        half_width=half,
        means=means,
        variance=variance,
        information=information,
        rho=rho,
        level=level,
        paired_count=paired_count,
        delta=delta,
    )


def pair_growth(pairs: AdjacentPairs, k: int, delta: float) -> float:
    """The factor by which both systems of open pair ``k`` must grow (their judgments in
    proportion) for its half-width to fall below max(D, delta - D), if the current means and
    variances hold; NaN for a pair with a system below the minimum, infinite when the pair
    cannot settle (equal means, delta 0)."""
    difference = abs(float(pairs.difference[k]))
    if not np.isfinite(difference):
        return math.nan
    target = max(difference, delta - difference)
    if target <= 0:
        return math.inf
    low, high = pairs.information[k], pairs.information[k] * 2.0
    rho = pairs.rho[..., 0]
    while mixture_half_width(high, rho, pairs.level) > target:
        low, high = high, high * 2.0
        if high > 1e15:
            return math.inf
    for _ in range(60):
        middle = math.sqrt(low * high)
        if mixture_half_width(middle, rho, pairs.level) > target:
            low = middle
        else:
            high = middle
    return float(high / pairs.information[k])


def still_needed(pairs: AdjacentPairs, count: ArrayLike, delta: float) -> float:
    """Estimated judgments until no adjacent pair is open, for one task (1-D ``count``), if
    the current means and variances hold: each open pair needs the information at which its
    half-width falls below max(D, delta - D) (``pair_growth``); both systems grow in
    proportion to reach it, and a system shared by two pairs grows for the needier one.
    Infinite when a pair cannot settle (equal means and delta 0)."""
    n = np.asarray(count, dtype=np.float64)
    extra = np.zeros_like(n)
    for k in np.flatnonzero(pairs.status == OPEN):
        growth = pair_growth(pairs, int(k), delta)
        if math.isnan(growth):
            continue  # a system below the minimum: counted by the floor below
        if math.isinf(growth):
            return math.inf
        for system in (pairs.order[k], pairs.order[k + 1]):
            extra[system] = max(extra[system], (growth - 1.0) * n[system])
    return float(np.maximum(extra, 0.0).sum())


@dataclass(frozen=True)
class PairStatus:
    upper: str
    lower: str
    difference: float
    interval: tuple[float, float]
    status: str  # "resolved" (upper above lower), "equivalent" or "open"
    # An open pair's judgments still needed (both systems together) if the current means
    # and variances hold (``pair_growth``); 0 when not open, NaN below the minimum.
    still_needed: float = 0.0


@dataclass(frozen=True)
class RankingStatus:
    order: list[str]
    pairs: list[PairStatus]
    still_needed: float  # estimated judgments until settled (see ``still_needed``)

    @property
    def settled(self) -> bool:
        return all(pair.status != "open" for pair in self.pairs)


def ranking_status(
    scores: Mapping[str, Sequence[float]],
    *,
    lower_is_better: bool = False,
    alpha: float = DEFAULT_ALPHA,
    delta: float = 0.0,
    tuned_for: float | None = None,
    min_judgments: int = DEFAULT_MIN_JUDGMENTS,
    screens: Mapping[str, Sequence[int]] | None = None,
) -> RankingStatus:
    """The stopping rule on one task's judgments: ``scores`` maps each system to its scores
    so far (the protocol's per-judgment score: z-score for DA, ESA score, MQM score).
    ``screens`` (each score's screen, parallel to ``scores``): the pairs' intervals are
    paired on the screens that show both systems (``screen_pair_sums``; module docstring).
    ``tuned_for``: judgments per system the mixture is tuned for, fixed in advance (the
    task's planned size per system; ``DEFAULT_TUNED_FOR`` when None), never the count so far
    (that would void the guarantee across looks: confidence.py). Differences and
    intervals are reported on the score's own scale (for lower-is-better scores, the upper
    system's score minus the lower one's is negative)."""
    names = sorted(scores)
    sign = -1.0 if lower_is_better else 1.0
    values = [np.asarray(scores[name], dtype=np.float64) * sign for name in names]
    count = np.array([len(v) for v in values], dtype=np.float64)
    total = np.array([v.sum() for v in values])
    squares = np.array([(v * v).sum() for v in values])
    if tuned_for is None:
        tuned_for = DEFAULT_TUNED_FOR
    paired = None
    if screens is not None:
        paired = screen_pair_sums(
            values, [np.asarray(screens[name], dtype=np.int64) for name in names]
        )
    pairs = adjacent_pairs(
        count,
        total,
        squares,
        tuned_for=tuned_for,
        alpha=alpha,
        delta=delta,
        min_judgments=min_judgments,
        paired=paired,
    )
    order = [names[i] for i in pairs.order]
    result = []
    for k in range(len(names) - 1):
        diff, half = float(pairs.difference[k]), float(pairs.half_width[k])
        low, high = sorted((sign * (diff - half), sign * (diff + half)))
        need = 0.0
        if pairs.status[k] == OPEN:
            growth = pair_growth(pairs, k, delta)
            share = count[pairs.order[k]] + count[pairs.order[k + 1]]
            need = growth if not math.isfinite(growth) else (growth - 1.0) * float(share)
        result.append(
            PairStatus(
                upper=order[k],
                lower=order[k + 1],
                difference=sign * diff,
                interval=(low, high),
                status=STATUS_NAMES[int(pairs.status[k])],
                still_needed=need,
            )
        )
    floor = np.maximum(min_judgments - count, 0.0).sum()
    remaining = still_needed(pairs, count, delta) + float(floor)
    return RankingStatus(order=order, pairs=result, still_needed=remaining)
