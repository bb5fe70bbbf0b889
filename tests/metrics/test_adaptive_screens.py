"""Paired sums from screens (``metrics.adaptive.status.screen_pair_sums``), the live
status's paired intervals for contrastive screens, against sums made by a loop over the
screens."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.adaptive import ranking_status
from metrics.adaptive.status import PairSums, adjacent_pairs, screen_pair_sums


def _by_loop(values, screens) -> PairSums:
    k = len(values)
    per = [{} for _ in range(k)]
    for i in range(k):
        for value, screen in zip(values[i], screens[i], strict=True):
            per[i].setdefault(int(screen), []).append(value)
    count, total, squares = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            for screen in set(per[i]) & set(per[j]) if i != j else ():
                gap = np.mean(per[i][screen]) - np.mean(per[j][screen])
                count[i, j] += 1
                total[i, j] += gap
                squares[i, j] += gap * gap
    return PairSums(count, total, squares)


def _campaign(seed: int = 3):
    """Four systems, each on its own 40 of 50 screens, one scored twice on a screen."""
    rng = np.random.default_rng(seed)
    values, screens = [], []
    for i in range(4):
        shown = rng.choice(50, size=40, replace=False)
        shown = np.append(shown, shown[0])
        screens.append(shown)
        values.append(rng.normal(i, 1.0, shown.size))
    return values, screens


def test_screen_sums_equal_a_loop_over_the_screens():
    values, screens = _campaign()
    fast, slow = screen_pair_sums(values, screens), _by_loop(values, screens)
    for name in ("count", "total", "squares"):
        assert getattr(fast, name) == pytest.approx(getattr(slow, name), abs=1e-9), name
    assert np.all(np.diag(fast.count) == 0)


def test_the_status_with_screens_is_the_paired_rule():
    values, screens = _campaign()
    names = ["a", "b", "c", "d"]
    status = ranking_status(
        {n: v for n, v in zip(names, values, strict=True)},
        screens={n: s for n, s in zip(names, screens, strict=True)},
        tuned_for=30.0,
    )
    count = np.array([v.size for v in values], dtype=float)
    total = np.array([v.sum() for v in values])
    squares = np.array([(v * v).sum() for v in values])
    pairs = adjacent_pairs(count, total, squares, tuned_for=30.0, paired=_by_loop(values, screens))
    unpaired = adjacent_pairs(count, total, squares, tuned_for=30.0)
    assert pairs.half_width != pytest.approx(unpaired.half_width)
    assert np.all(pairs.paired_count >= 10)  # every pair past the minimum
    for k, pair in enumerate(status.pairs):
        assert pair.upper == names[pairs.order[k]]
        assert pair.difference == pytest.approx(pairs.difference[k], abs=1e-12)
        low, high = pair.interval
        assert high - low == pytest.approx(2 * pairs.half_width[k], rel=1e-12)
