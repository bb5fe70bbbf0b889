"""Meta-evaluation statistics against mt-metrics-eval's published test vectors and scipy.

The vectors are those of google-research/mt-metrics-eval, ``mt_metrics_eval/stats_test.py``
(``testKendallVariants``, ``testKendallWithTiesOpt``, ``testKendallVariants_23``,
``testKendallVariantsWithPositiveEpsilon``, ``testKendallLike``, ``testAgreement``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from metrics.meta.kendall import kendall_tau, pair_counts, pairwise_agreement, wmt_kendall_like
from metrics.meta.segment import acc23, acc23_tie_optimised, kendall_like, segment_meta
from metrics.meta.system import system_pairwise_accuracy, system_scores

GOLD = [1, 2, 2, 3, 4]
METRIC = [2, 1, 1.5, 5, 3]


def column(values: list[float]) -> np.ndarray:
    """One item translated by len(values) systems: a (systems, 1) matrix."""
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)


def test_kendall_variants_published_vector() -> None:
    assert kendall_tau(GOLD, METRIC, variant="b") == pytest.approx(0.316227766)
    assert kendall_tau(GOLD, METRIC, variant="c") == pytest.approx(0.32)
    assert kendall_tau(GOLD, METRIC, variant="23") == pytest.approx(0.2)
    assert kendall_tau(GOLD, METRIC, variant="acc23") == pytest.approx(0.6)
    assert kendall_tau(GOLD, METRIC, variant="acc23", epsilon=2) == pytest.approx(0.4)


def test_tie_optimised_acc23_published_vector() -> None:
    value, epsilon = acc23_tie_optimised(column(GOLD), column(METRIC))
    assert value == pytest.approx(0.7)
    # The chosen threshold reproduces the optimum through the plain definition.
    assert kendall_tau(GOLD, METRIC, variant="acc23", epsilon=epsilon) == pytest.approx(0.7)


def test_tau23_and_acc23_with_and_without_epsilon() -> None:
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    assert kendall_tau(x, y, variant="23") == pytest.approx(7 / 21)
    assert kendall_tau(x, y, variant="acc23") == pytest.approx(14 / 21)
    assert kendall_tau(x, y, variant="23", epsilon=0.1) == pytest.approx(7 / 21)
    assert kendall_tau(x, y, variant="23", epsilon=1.0) == pytest.approx(-1 / 21)


def test_tau_b_and_c_match_scipy() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        gold = rng.integers(0, 5, 12).astype(float)
        metric = rng.integers(0, 6, 12).astype(float)
        for variant in ("b", "c"):
            expected = stats.kendalltau(gold, metric, variant=variant).statistic
            assert kendall_tau(gold, metric, variant=variant) == pytest.approx(expected)
    assert kendall_tau([7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6], variant="b") == (
        pytest.approx(stats.kendalltau([7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6]).statistic)
    )


def test_correlation_class_vectors_without_grouping() -> None:
    # stats_test.CorrelationTest: Correlation(2, [1..6], [2, 1, 4, 3, 3, 7]), average_by="none"
    gold, metric = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7]
    assert kendall_tau(gold, metric, variant="b") == pytest.approx(0.552, abs=5e-4)
    assert kendall_tau(gold, metric, variant="c") == pytest.approx(0.556, abs=5e-4)
    # average_by="item" over num_sys=2 rows: items (1, 4), (2, 5), (3, 6) each give tau 1.
    human = np.array(gold, dtype=float).reshape(2, 3)
    scores = np.array(metric, dtype=float).reshape(2, 3)
    assert acc23(human, scores) == pytest.approx(1.0)


def test_constant_side_gives_nan_for_tau_b() -> None:
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3], variant="b"))


def test_kendall_like_published_vectors() -> None:
    gold, metric = [10, 11, 100, 150], [2, 1, 4, 3]
    assert wmt_kendall_like(gold, metric) == (pytest.approx(3 / 5), 4, 1)
    assert wmt_kendall_like(gold, metric, threshold=1) == (pytest.approx(2 / 6), 4, 2)


def test_kendall_like_counts_metric_ties_as_discordant() -> None:
    tau, concordant, discordant = wmt_kendall_like([0, 50, 100], [1, 1, 2])
    # (0,50): metric tie -> discordant; (0,100), (50,100): concordant.
    assert (concordant, discordant) == (2, 1)
    assert tau == pytest.approx(1 / 3)


def test_kendall_like_item_grouping() -> None:
    # mt-metrics-eval Correlation(2, [10, 11, 100, 150], [2, 1, 4, 3]).KendallLike('item', 1)
    human = np.array([[10, 11], [100, 150]], dtype=float)
    metric = np.array([[2, 1], [4, 3]], dtype=float)
    assert kendall_like(human, metric, threshold=1) == pytest.approx(1.0)
    # Pairs are only formed within an item: pooled over the two items, not across them.
    human[1, 1] = np.nan
    assert kendall_like(human, metric, threshold=1) == pytest.approx(1.0)


def test_agreement_published_vector() -> None:
    assert pairwise_agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) == (5, 10)


def test_item_grouped_acc23_is_the_mean_over_items() -> None:
    rng = np.random.default_rng(7)
    human = rng.integers(0, 4, (5, 30)).astype(float)
    metric = rng.normal(size=(5, 30)).round(1)
    human[rng.random(human.shape) < 0.2] = np.nan
    per_item = [
        kendall_tau(human[keep, i], metric[keep, i], variant="acc23")
        for i in range(30)
        if (keep := ~np.isnan(human[:, i])).sum() >= 2
    ]
    assert acc23(human, metric) == pytest.approx(np.mean(per_item))


def test_tie_search_beats_every_candidate_threshold_by_brute_force() -> None:
    rng = np.random.default_rng(11)
    human = rng.integers(0, 3, (4, 25)).astype(float)
    metric = rng.integers(0, 8, (4, 25)).astype(float) / 2
    best, epsilon = acc23_tie_optimised(human, metric)

    def grouped(eps: float) -> float:
        return float(
            np.mean(
                [
                    kendall_tau(human[:, i], metric[:, i], variant="acc23", epsilon=eps)
                    for i in range(25)
                ]
            )
        )

    candidates = {0.0} | {
        abs(metric[a, i] - metric[b, i])
        for i in range(25)
        for a, b in itertools.combinations(range(4), 2)
    }
    values = {eps: grouped(eps) for eps in candidates}
    assert best == pytest.approx(max(values.values()))
    assert epsilon == min(eps for eps, v in values.items() if v == pytest.approx(best))


def test_mt_metrics_eval_item_averaged_tie_optimisation() -> None:
    # stats_test.testKendallWithTiesOpt, average_by="item": num_sys=2 rows of 3 items.
    gold = np.array([1, 2, 2, 3, 3, 4], dtype=float).reshape(2, 3)
    metric = np.array([2, 1, 1.5, 5, 3, 2], dtype=float).reshape(2, 3)
    value, eps = acc23_tie_optimised(gold, metric)
    per_item = [
        kendall_tau(gold[:, i], metric[:, i], variant="acc23", epsilon=eps) for i in range(3)
    ]
    assert value == pytest.approx(np.mean(per_item))


def test_system_pairwise_accuracy_without_ties_is_half_of_one_plus_tau() -> None:
    rng = np.random.default_rng(5)
    human = rng.normal(size=(9, 40))
    metric = human + rng.normal(scale=1.5, size=(9, 40))
    result = system_pairwise_accuracy(human, metric, n_resamples=200)
    tau = stats.kendalltau(system_scores(human), system_scores(metric)).statistic
    assert result.accuracy.value == pytest.approx((1 + tau) / 2)
    assert result.pairs == 36
    assert result.accuracy.low <= result.accuracy.value <= result.accuracy.high


def test_system_resampling_units_and_errors() -> None:
    rng = np.random.default_rng(1)
    human = rng.normal(size=(6, 20))
    metric = human + rng.normal(size=(6, 20))
    by_systems = system_pairwise_accuracy(human, metric, resample="systems", n_resamples=200)
    assert by_systems.resampled == "systems"
    assert by_systems.accuracy.low <= by_systems.accuracy.high
    with pytest.raises(ValueError, match="resample"):
        system_pairwise_accuracy(human, metric, resample="segments")
    with pytest.raises(ValueError, match="two systems"):
        system_pairwise_accuracy(human[:1], metric[:1])


def test_segment_bootstrap_agrees_with_scipy_bootstrap_over_items() -> None:
    rng = np.random.default_rng(2)
    human = rng.integers(0, 100, (6, 80)).astype(float)
    metric = human + rng.normal(scale=30, size=(6, 80))
    ours = segment_meta(human, metric, n_resamples=2000, seed=4)
    reference = stats.bootstrap(
        (np.arange(80),),
        lambda items: acc23(human[:, items], metric[:, items]),
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(9),
    ).confidence_interval
    assert ours.acc23.low == pytest.approx(reference.low, abs=0.015)
    assert ours.acc23.high == pytest.approx(reference.high, abs=0.015)
    assert ours.acc23.value == pytest.approx(acc23(human, metric))
    assert ours.kendall_like.value == pytest.approx(kendall_like(human, metric))
    assert ours.acc23_tie_optimised.value >= ours.acc23.value
    assert ours.items == 80 and ours.pairs == 80 * 15


def test_pair_counts_add_up() -> None:
    counts = pair_counts([1, 1, 2, 3], [1, 2, 2, 2])
    assert counts.pairs == 6
    assert (counts.concordant, counts.ties_both) == (2, 0)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="one length"):
        kendall_tau([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="finite"):
        kendall_tau([1, math.nan], [1, 2])
    with pytest.raises(ValueError, match="variant"):
        kendall_tau([1, 2], [1, 2], variant="a")
    with pytest.raises(ValueError, match="no item"):
        segment_meta(column([1.0]), column([2.0]))


def _accuracy_of_draw(human: np.ndarray, metric: np.ndarray, systems: np.ndarray) -> float:
    """Pairwise accuracy over the pairs of distinct systems of a draw, straight from the
    definition (a system drawn twice is not paired with itself)."""
    human_means, metric_means = np.nanmean(human, axis=1), np.nanmean(metric, axis=1)
    agree = total = 0
    for a, b in itertools.combinations(systems, 2):
        if a != b:
            total += 1
            agree += np.sign(human_means[a] - human_means[b]) == np.sign(
                metric_means[a] - metric_means[b]
            )
    return agree / total


@pytest.mark.parametrize("unit", ["items", "systems"])
def test_system_bootstrap_agrees_with_scipy_bootstrap(unit: str) -> None:
    rng = np.random.default_rng(8)
    human = rng.normal(size=(8, 60)) + np.linspace(0, 0.6, 8)[:, None]
    metric = human + rng.normal(scale=2.0, size=human.shape)
    ours = system_pairwise_accuracy(human, metric, resample=unit, n_resamples=2000, seed=1)
    everyone = np.arange(8)
    if unit == "items":
        data = np.arange(60)

        def statistic(items: np.ndarray) -> float:
            return _accuracy_of_draw(human[:, items], metric[:, items], everyone)
    else:
        data = everyone

        def statistic(systems: np.ndarray) -> float:
            return _accuracy_of_draw(human, metric, systems)

    reference = stats.bootstrap(
        (data,),
        statistic,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    assert ours.accuracy.value == pytest.approx(_accuracy_of_draw(human, metric, everyone))
    assert ours.accuracy.low == pytest.approx(reference.low, abs=0.04)
    assert ours.accuracy.high == pytest.approx(reference.high, abs=0.04)
