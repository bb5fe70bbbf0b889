"""External metrics (uploaded scores, neural scorers) on the registry's contract."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import external
from metrics.automatic import check_metric, corpus_score, decomposes, higher_is_better
from metrics.resampling import bootstrap_ci, paired_bootstrap


def test_keys_keep_case_and_direction():
    assert external.key_for("COMET-22", higher_is_better=True) == "ext:COMET-22"
    assert external.key_for("MetricX", higher_is_better=False) == "ext-lower:MetricX"
    assert check_metric("ext:COMET-22") == "ext:COMET-22"
    assert higher_is_better("ext:COMET-22") and not higher_is_better("ext-lower:MetricX")
    assert not decomposes("ext:COMET-22")
    for bad in ("", "a b", "<b>", "x" * 61, "-lead"):
        with pytest.raises(ValueError, match="metric name"):
            external.key_for(bad, higher_is_better=True)
    with pytest.raises(ValueError, match="ULC combines"):
        check_metric("ulc:bleu+ext:COMET")


def test_corpus_score_is_the_mean_on_the_metrics_own_scale():
    scores = [0.25, 0.5, 1.0, -0.25]
    stats = external.as_statistics(scores)
    assert corpus_score("ext:X", stats) == pytest.approx(0.375)  # by hand: 1.5 / 4
    estimate = bootstrap_ci("ext:X", stats, n_samples=200, seed=1)
    assert min(scores) <= estimate.low <= 0.375 <= estimate.high <= max(scores)
    with pytest.raises(ValueError, match="finite"):
        external.as_statistics([0.1, float("nan")])


def test_paired_tests_follow_the_direction():
    rng = np.random.default_rng(0)
    base = rng.uniform(0, 1, 50)
    systems = {"a": external.as_statistics(base), "b": external.as_statistics(base + 0.1)}
    lower = paired_bootstrap("ext-lower:E", systems, n_samples=200, seed=1).pairs[0]
    higher = paired_bootstrap("ext:E", systems, n_samples=200, seed=1).pairs[0]
    assert (lower.a, lower.b) == ("a", "b")
    assert lower.win_a == 1.0 and higher.win_b == 1.0  # b is higher on every segment
