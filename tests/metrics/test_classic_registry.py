"""Every classic metric on the shared contract: stored statistics give the scores the text
gives, survive serialisation, and feed bootstrap intervals and both paired tests."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.automatic import (
    METRICS,
    corpus_score,
    decomposes,
    extract_statistics,
    extract_statistics_many,
    higher_is_better,
    n_statistics,
    stats_from_bytes,
    stats_to_bytes,
)
from metrics.classic import CLASSIC_METRICS
from metrics.extraction import extract_table
from metrics.resampling import bootstrap_ci, paired_approximate_randomization, paired_bootstrap
from tests.metrics.classic_data import references, system

N = 60
SYSTEMS = ("Online-W", "happypoet", "UEdin")
NEW = (*CLASSIC_METRICS, "ulc")


@pytest.fixture(scope="module")
def stats() -> dict[str, dict[str, np.ndarray]]:
    refs = references(N)[:2]
    out = {}
    for metric in NEW:
        arrays = extract_statistics_many(metric, [system(s, N) for s in SYSTEMS], refs)
        out[metric] = dict(zip(SYSTEMS, arrays, strict=True))
    return out


def test_registry_lists_every_metric_with_its_direction():
    assert set(NEW) <= set(METRICS)
    lower = {m for m in NEW if not higher_is_better(m)}
    assert lower == {"wer", "per"}
    sentence = {m for m in NEW if not decomposes(m)}
    assert sentence == {"ribes", "lepor", "hlepor", "rougel", "ulc"}


@pytest.mark.parametrize("metric", [m for m in NEW if m != "nist"])
def test_summed_rows_equal_scoring_the_subset_text(stats, metric):
    # A resample sums stored rows; scoring those segments' text again gives the same number.
    # (NIST is left out: its information weights come from all references.)
    rows = [3, 17, 17, 42, 5]
    refs = [[stream[i] for i in rows] for stream in references(N)[:2]]
    hyps = [system("UEdin", N)[i] for i in rows]
    again = corpus_score(metric, extract_statistics(metric, hyps, refs))
    assert corpus_score(metric, stats[metric]["UEdin"][rows]) == pytest.approx(again, rel=1e-12)


@pytest.mark.parametrize("metric", NEW)
def test_statistics_round_trip_and_tests_run(stats, metric):
    systems = stats[metric]
    for array in systems.values():
        assert array.shape == (N, n_statistics(metric))
        assert np.array_equal(stats_from_bytes(metric, stats_to_bytes(array)), array)
    estimate = bootstrap_ci(metric, systems["UEdin"], n_samples=200)
    assert estimate.low <= estimate.score <= estimate.high
    assert estimate.low < estimate.high
    for result in (
        paired_bootstrap(metric, systems, n_samples=200),
        paired_approximate_randomization(metric, systems, n_trials=500, n_samples=200),
    ):
        assert len(result.pairs) == 3
        for pair in result.pairs:
            assert 0 < pair.p_value <= 1
            assert pair.win_a + pair.win_b + pair.tie == pytest.approx(1)
            # The system with the better score wins most resamples, whatever the direction.
            sign = 1 if higher_is_better(metric) else -1
            if abs(pair.delta) > 0 and pair.p_value < 0.05:
                assert (pair.win_a > pair.win_b) == (sign * pair.delta > 0)


def test_parallel_extraction_equals_serial():
    refs = references(20)[:2]
    hyps = [system(s, 20) for s in SYSTEMS]
    serial = extract_statistics_many("meteor", hyps, refs)
    parallel = extract_statistics_many("meteor", hyps, refs, jobs=2)
    assert all(np.array_equal(a, b) for a, b in zip(serial, parallel, strict=True))


def test_table_assembles_ulc_from_its_components_in_parallel():
    refs = references(20)[:2]
    hyps = [system(s, 20) for s in SYSTEMS]
    table = extract_table(["wer", "ulc:meteor+wer"], hyps, refs, jobs=2)
    direct = extract_statistics_many("ulc:meteor+wer", hyps, refs)
    assert list(table) == ["wer", "ulc:meteor+wer"]
    assert all(np.array_equal(a, b) for a, b in zip(table["ulc:meteor+wer"], direct, strict=True))
    assert all(np.array_equal(a, b[:, 4:]) for a, b in zip(table["wer"], direct, strict=True))
