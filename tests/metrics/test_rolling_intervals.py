"""The confidence sequence behind the live status against independent references, and the
rolling intervals (metrics.adaptive.rolling) against intervals computed here by hand."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from metrics.adaptive.confidence import VARIANCE_PRIOR_WEIGHT, mixture_half_width
from metrics.adaptive.intervals import system_intervals
from metrics.adaptive.rolling import look_points, rolling_intervals
from metrics.rankings import z_scores

# Howard, Ramdas, McAuliffe & Sekhon (2021), the two-sided normal mixture boundary as the
# authors' `confseq` package computes it (uniform_boundaries.h, TwoSidedNormalMixture::bound
# and ::best_rho), worked out by hand with a calculator:
#   rho = v_opt / (2 log(1/alpha) + log(1 + 2 log(1/alpha)))
#   u(v) = sqrt((v + rho) (log(1 + v / rho) + 2 log(1/alpha)))
# (v, v_opt, alpha) -> (rho, u(v)).
REFERENCE = [
    ((100.0, 100.0, 0.05), (12.60056097925634, 30.35208990376253)),
    ((10.0, 100.0, 0.05), (12.60056097925634, 12.1907531463415)),
    ((1000.0, 100.0, 0.01), (8.670213510596973, 118.69258830840943)),
    ((50.0, 500.0, 0.0167), (48.0666098952334, 29.539336556569488)),
]


@pytest.mark.parametrize(("given", "expected"), REFERENCE)
def test_mixture_boundary_equals_the_reference_values(given, expected):
    v, v_opt, alpha = given
    rho, bound = expected
    log_alpha = math.log(1 / alpha)
    assert v_opt / (2 * log_alpha + math.log(1 + 2 * log_alpha)) == pytest.approx(rho, rel=1e-12)
    # Ours is the half-width on the mean's scale: the boundary on the sum's scale over v.
    assert float(mixture_half_width(v, rho, alpha)) * v == pytest.approx(bound, rel=1e-12)


def test_mixture_boundary_equals_confseq_when_installed():
    boundaries = pytest.importorskip("confseq.boundaries")
    for (v, v_opt, alpha), (rho, _) in REFERENCE:
        theirs = boundaries.normal_mixture_bound(v, alpha, v_opt, alpha, is_one_sided=False)
        assert float(mixture_half_width(v, rho, alpha)) * v == pytest.approx(theirs, rel=1e-9)


def _by_hand(scores: dict[str, list[float]], alpha: float, tuned_for: float):
    """Each system's interval written out with the statistics module: variance shrunk toward
    the pooled one by VARIANCE_PRIOR_WEIGHT pseudo-judgments, level alpha / k, the mixture
    precision at the ratio that minimises the width (found here with scipy)."""
    k = len(scores)
    level = alpha / k
    squares = {s: sum((x - statistics.fmean(v)) ** 2 for x in v) for s, v in scores.items()}
    pooled = sum(squares.values()) / sum(len(v) - 1 for v in scores.values())

    def width(ratio: float) -> float:
        return math.sqrt((1 + ratio) * (math.log((1 + ratio) / ratio) - 2 * math.log(level)))

    ratio = minimize_scalar(width, bounds=(1e-4, 10.0), method="bounded").x
    rho = tuned_for / pooled * ratio
    result = {}
    for system, values in scores.items():
        n = len(values)
        variance = (squares[system] + VARIANCE_PRIOR_WEIGHT * pooled) / (
            n - 1 + VARIANCE_PRIOR_WEIGHT
        )
        info = n / variance
        half = math.sqrt((info + rho) * math.log((info + rho) / (rho * level**2))) / info
        mean = statistics.fmean(values)
        result[system] = (mean, mean - half, mean + half)
    return result


def test_system_intervals_equal_the_hand_computation():
    scores = {
        "a": [70.0, 82.0, 65.0, 90.0, 77.0, 71.0, 88.0, 69.0],
        "b": [40.0, 55.0, 61.0, 38.0, 47.0, 52.0],
        "c": [10.0, 30.0, 25.0, 12.0, 27.0, 18.0, 22.0, 15.0, 20.0, 31.0],
    }
    hand = _by_hand(scores, 0.05, 100.0)  # the documented default, not the count so far
    ours = system_intervals(scores, alpha=0.05)
    for system, (mean, low, high) in hand.items():
        assert ours[system].mean == pytest.approx(mean, abs=1e-12)
        # Our grid search of the ratio and scipy's optimum differ by < 0.3%: so may rho.
        assert ours[system].interval[0] == pytest.approx(low, rel=1e-3)
        assert ours[system].interval[1] == pytest.approx(high, rel=1e-3)


def test_rolling_intervals_replay_the_recorded_order():
    rng = np.random.default_rng(3)
    names = ["a", "b", "c"]
    system = rng.integers(0, 3, 300)
    scores = np.array([50.0, 60.0, 40.0])[system] + rng.normal(0, 10, 300)
    rolling = rolling_intervals(system, scores, names, looks=30)
    assert rolling.looks[-1] == 300 and rolling.looks.size == 30
    assert list(rolling.looks) == sorted(set(rolling.looks))
    tuned_for = 100.0  # the documented default, fixed in advance: one precision for every look
    for row in (4, 17, 29):
        end = int(rolling.looks[row])
        prefix = {n: list(scores[:end][system[:end] == i]) for i, n in enumerate(names)}
        hand = _by_hand(prefix, 0.05, tuned_for)
        for i, name in enumerate(names):
            assert rolling.counts[row, i] == len(prefix[name])
            mean, low, high = hand[name]
            assert rolling.means[row, i] == pytest.approx(mean, abs=1e-9)
            assert rolling.low[row, i] == pytest.approx(low, rel=1e-3)
            assert rolling.high[row, i] == pytest.approx(high, rel=1e-3)
    # The last look is the live table's interval (running sums added in another order).
    table = system_intervals({n: scores[system == i] for i, n in enumerate(names)})
    for i, name in enumerate(names):
        assert (rolling.low[-1, i], rolling.high[-1, i]) == pytest.approx(
            table[name].interval, rel=1e-12
        )
    # Intervals of a system narrow as its judgments accumulate (same precision throughout).
    widths = rolling.high[:, 0] - rolling.low[:, 0]
    assert widths[-1] < widths[10] < widths[3]


def test_rolling_intervals_standardise_each_prefix():
    rng = np.random.default_rng(5)
    system = rng.integers(0, 2, 120)
    annotator = rng.integers(0, 4, 120)
    scores = rng.normal(50, 15, 120) + 10 * system + 5 * annotator
    rolling = rolling_intervals(system, scores, ["x", "y"], annotator=annotator, looks=6)
    for row in (0, 2, 5):
        end = int(rolling.looks[row])
        z = z_scores(scores[:end], annotator[:end])
        by_system = {n: z[system[:end] == i] for i, n in enumerate(["x", "y"])}
        hand = _by_hand({n: list(v) for n, v in by_system.items()}, 0.05, 100.0)
        for i, name in enumerate(["x", "y"]):
            assert rolling.means[row, i] == pytest.approx(hand[name][0], abs=1e-9)
            assert rolling.low[row, i] == pytest.approx(hand[name][1], rel=1e-3)
    # An annotator whose scores do not vary yet counts with z = 0 (as z_scores).
    flat = rolling_intervals([0, 1, 0, 1], [5.0, 5.0, 3.0, 9.0], ["x", "y"], annotator=[1, 1, 2, 2])
    assert list(flat.counts[-1]) == [2, 2]
    z = z_scores([5.0, 5.0, 3.0, 9.0], [1, 1, 2, 2])
    assert flat.means[-1] == pytest.approx([(z[0] + z[2]) / 2, (z[1] + z[3]) / 2], abs=1e-12)


def test_look_points_end_at_the_total_and_never_repeat():
    assert list(look_points(5, looks=60)) == [1, 2, 3, 4, 5]
    points = look_points(1000, looks=60)
    assert points[-1] == 1000 and points.size == 60 and points[0] >= 1
    assert look_points(0).size == 0
