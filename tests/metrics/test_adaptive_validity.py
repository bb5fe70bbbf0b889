"""The stopping rule is valid under continuous monitoring (issue 23, section 2): its
confidence sequence is tuned in advance, so looking after every judgment does not inflate
the error; and its boundary is the normal-mixture formula, written out here by hand.

The live status once tuned the mixture to the mean count of the moment. Each look was then
valid alone, but the boundary became a constant in z units (about 3.0 at alpha 0.05), which
a random walk watched after every judgment crosses more and more often as the looks go on;
the simulation below measures that too, so the test shows what it guards against."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import binom

from metrics.adaptive import ranking_status, system_priorities
from metrics.adaptive.confidence import VARIANCE_PRIOR_WEIGHT
from metrics.adaptive.intervals import system_intervals
from metrics.adaptive.rolling import rolling_intervals
from metrics.adaptive.status import RESOLVED, PairSums, adjacent_pairs

# The documented default of ranking_status / system_intervals / system_priorities
# (confidence.DEFAULT_TUNED_FOR), written out: judgments per system.
DOCUMENTED_DEFAULT = 100.0


def _best_ratio_by_hand(level: float) -> float:
    """rho / I minimising the boundary's width (scipy, not the module's grid)."""

    def width(ratio: float) -> float:
        return math.sqrt((1 + ratio) * (math.log((1 + ratio) / ratio) - 2 * math.log(level)))

    return float(minimize_scalar(width, bounds=(1e-5, 10.0), method="bounded").x)


def _mixture_half_width(information: float, rho: float, level: float) -> float:
    """Howard et al. (2021) eq. (3.7), two-sided: the boundary on the sum's scale
    sqrt((I + rho) log((I + rho) / (rho alpha^2))), over I for the mean's scale."""
    return math.sqrt((information + rho) * math.log((information + rho) / (rho * level**2))) / (
        information
    )


def test_a_pair_interval_is_the_normal_mixture_tuned_in_advance() -> None:
    rng = np.random.default_rng(2)
    scores = {"a": list(rng.normal(3.0, 2.0, 37)), "b": list(rng.normal(2.0, 1.5, 53))}
    level = 0.05  # two systems: one pair
    means = {s: statistics.fmean(v) for s, v in scores.items()}
    squares = {s: sum((x - means[s]) ** 2 for x in v) for s, v in scores.items()}
    pooled = sum(squares.values()) / sum(len(v) - 1 for v in scores.values())
    shrunk = {
        s: (squares[s] + VARIANCE_PRIOR_WEIGHT * pooled) / (len(v) - 1 + VARIANCE_PRIOR_WEIGHT)
        for s, v in scores.items()
    }
    information = 1.0 / (shrunk["a"] / 37 + shrunk["b"] / 53)
    ratio = _best_ratio_by_hand(level)
    for tuned_for, kwargs in ((DOCUMENTED_DEFAULT, {}), (400.0, {"tuned_for": 400.0})):
        # rho: the information of two systems judged tuned_for times each, times the ratio.
        rho = tuned_for / (2.0 * pooled) * ratio
        half = _mixture_half_width(information, rho, level)
        (pair,) = ranking_status(scores, **kwargs).pairs
        difference = means["a"] - means["b"]
        assert pair.difference == pytest.approx(difference, rel=1e-12)
        # (the module finds the ratio on a grid: within 1e-3 of scipy's optimum's width)
        assert pair.interval[1] - difference == pytest.approx(half, rel=1e-3)
        assert difference - pair.interval[0] == pytest.approx(half, rel=1e-3)


def test_every_live_figure_is_tuned_to_the_documented_default_not_the_count() -> None:
    """The live table, status, priorities and rolling figure read at 40 judgments per
    system use the mixture tuned for the default (the old default was the count so far, 40,
    or for the rolling figure the final count)."""
    rng = np.random.default_rng(3)
    scores = {"a": list(rng.normal(0.0, 1.0, 40)), "b": list(rng.normal(0.4, 1.0, 40))}
    tuned = {"tuned_for": DOCUMENTED_DEFAULT}
    assert system_intervals(scores) == system_intervals(scores, **tuned)
    assert system_intervals(scores) != system_intervals(scores, tuned_for=40.0)
    assert ranking_status(scores) == ranking_status(scores, **tuned)
    assert system_priorities(scores) == system_priorities(scores, **tuned)
    system = np.repeat([0, 1], 40)
    rolling = rolling_intervals(system, scores["a"] + scores["b"], ["a", "b"], looks=4)
    table = system_intervals(scores)
    assert (rolling.low[-1, 0], rolling.high[-1, 0]) == pytest.approx(
        table["a"].interval, rel=1e-12
    )


def test_a_paired_interval_is_the_one_sample_mixture_on_the_differences() -> None:
    rng = np.random.default_rng(4)
    difficulty = rng.normal(0.0, 3.0, 60)
    x = 1.0 + difficulty + rng.normal(0.0, 1.0, 60)
    y = difficulty + rng.normal(0.0, 1.0, 60)
    d = x - y
    count = np.array([60.0, 60.0])
    total = np.array([x.sum(), y.sum()])
    squares = np.array([(x * x).sum(), (y * y).sum()])
    paired = PairSums(
        count=np.array([[0.0, 60.0], [60.0, 0.0]]),
        total=np.array([[0.0, d.sum()], [-d.sum(), 0.0]]),
        squares=np.array([[0.0, (d * d).sum()], [(d * d).sum(), 0.0]]),
    )
    pairs = adjacent_pairs(count, total, squares, tuned_for=50.0, paired=paired)
    upper_is_x = int(pairs.order[0]) == 0
    sign = 1.0 if upper_is_x else -1.0
    v_d = statistics.variance(d)  # one pair: the pooled difference variance is its own
    rho = 50.0 / v_d * _best_ratio_by_hand(0.05)
    half = _mixture_half_width(60.0 / v_d, rho, 0.05)
    assert float(pairs.difference[0]) == pytest.approx(sign * statistics.fmean(d), rel=1e-12)
    assert float(pairs.half_width[0]) == pytest.approx(half, rel=1e-3)
    # The segments' difficulty cancels: far narrower than the unpaired interval.
    unpaired = adjacent_pairs(count, total, squares, tuned_for=50.0)
    assert pairs.half_width[0] < 0.5 * unpaired.half_width[0]


def _null_error_rate(runs: int, per_system: int, alpha: float, seed: int, *, retune: bool) -> float:
    """Two identical systems judged alternately up to ``per_system`` judgments each, the
    rule looked at after every judgment: the share of runs that ever resolve the pair.
    ``retune``: the old behaviour, the mixture tuned to the mean count at each look."""
    rng = np.random.default_rng(seed)
    ever = np.zeros(runs, dtype=bool)
    before = np.zeros((2, 2, runs))  # (sum, sum of squares), system, run
    chunk = 100  # judgments per system per block of looks (memory)
    for start in range(0, per_system, chunk):
        block = rng.standard_normal((2, runs, chunk))
        sums = before[0][..., None] + np.cumsum(block, axis=-1)  # (system, run, t)
        squares = before[1][..., None] + np.cumsum(block * block, axis=-1)
        # b one judgment behind: its sums before its t-th judgment.
        b_sums = np.concatenate([before[0][1][:, None], sums[1][:, :-1]], axis=-1)
        b_squares = np.concatenate([before[1][1][:, None], squares[1][:, :-1]], axis=-1)
        before = np.stack([sums[..., -1], squares[..., -1]])
        t = np.arange(start + 1, start + chunk + 1, dtype=np.float64)[:, None]
        # Looks after a's t-th judgment (b at t - 1), then after b's (both at t).
        for lag, b_total, b_square in ((1.0, b_sums, b_squares), (0.0, sums[1], squares[1])):
            count = np.stack(np.broadcast_arrays(t, t - lag), axis=-1)  # (t, 1, 2)
            count = np.broadcast_to(count, (chunk, runs, 2))
            total = np.stack([sums[0].T, b_total.T], axis=-1)
            square = np.stack([squares[0].T, b_square.T], axis=-1)
            tuned = count.mean(axis=-1)[..., :1] if retune else DOCUMENTED_DEFAULT
            pairs = adjacent_pairs(count, total, square, tuned_for=tuned, alpha=alpha)
            ever |= (pairs.status[..., 0] == RESOLVED).any(axis=0)
    return float(ever.mean())


def _upper_tolerance(rate: float, runs: int) -> float:
    """The largest share of ``runs`` that a true rate ``rate`` gives with probability 0.999."""
    return float(binom.ppf(0.999, runs, rate)) / runs


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_looking_after_every_judgment_keeps_the_null_error_below_alpha(alpha: float) -> None:
    runs, per_system = 4000, 2000
    fixed = _null_error_rate(runs, per_system, alpha, seed=1, retune=False)
    assert fixed <= _upper_tolerance(alpha, runs)
    # What the test guards against: the old tuning to the count of the moment.
    retuned = _null_error_rate(runs, per_system, alpha, seed=1, retune=True)
    assert retuned > _upper_tolerance(alpha, runs)
