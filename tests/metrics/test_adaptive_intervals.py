"""Each system's always-valid interval (metrics.adaptive.intervals)."""

from __future__ import annotations

import math

import numpy as np

from metrics.adaptive.intervals import system_intervals


def test_intervals_contain_the_mean_and_narrow_with_judgments():
    rng = np.random.default_rng(3)
    few = system_intervals({"a": rng.normal(0, 1, 50), "b": rng.normal(1, 1, 50)})
    many = system_intervals({"a": rng.normal(0, 1, 2000), "b": rng.normal(1, 1, 2000)})
    for result in (few, many):
        for system in result.values():
            assert system.interval[0] < system.mean < system.interval[1]
    width = {name: s.interval[1] - s.interval[0] for name, s in few.items()}
    assert all(many[name].interval[1] - many[name].interval[0] < width[name] / 3 for name in width)


def test_intervals_cover_the_true_means_at_every_look_in_most_runs():
    """Time-uniform: over 200 runs of 400 judgments per system, looked at after every 10,
    the runs where some interval ever misses its true mean stay below alpha (0.05)."""
    rng = np.random.default_rng(11)
    truth = {"a": 0.0, "b": 0.3, "c": 0.35}
    misses = 0
    for _ in range(200):
        draws = {name: rng.normal(mean, 1.0, 400) for name, mean in truth.items()}
        missed = False
        for n in range(10, 401, 10):
            looked = system_intervals({k: v[:n] for k, v in draws.items()}, tuned_for=200)
            missed = missed or any(
                not s.interval[0] <= truth[name] <= s.interval[1] for name, s in looked.items()
            )
        misses += missed
    assert misses / 200 <= 0.05


def test_a_system_without_judgments_has_an_unbounded_interval():
    result = system_intervals({"a": [1.0, 2.0, 3.0], "b": []})
    assert result["b"].judgments == 0
    assert result["b"].interval == (-math.inf, math.inf)
    assert math.isnan(result["b"].mean)
