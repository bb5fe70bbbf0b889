"""Soft pairwise accuracy, its permutation p-values, Pairwise Difference Pearson and
tie-calibrated acc23, each against google-research/mt-metrics-eval on identical input.

Two ways: the figures mt-metrics-eval printed at commit 68a481a (stored with the script that
made them, tests/data/mqm-ted-zh-en-meta/mt_metrics_eval_spa_pdp.py), always; and, when the
environment variable MT_METRICS_EVAL names a checkout of it, mt-metrics-eval's own functions
run here beside ours (its stats module needs only NumPy and SciPy).

One known difference, by design: mt-metrics-eval sums the scores in single precision, so a
permutation whose difference ties the observed one exactly may land on either side of it; here
such a permutation always counts as reaching it (as the test's definition says). On MQM's
discrete scores a few permutations tie exactly: the p-values then differ by exactly the tied
permutations, which an integer recount of the tie shows; on continuous scores they are equal.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from metrics.meta.segment import acc23_tie_optimised
from metrics.meta.soft import (
    pairwise_difference_pearson,
    pairwise_p_values,
    permutation_signs,
    soft_pairwise_accuracy,
)
from metrics.meta.tsv import read_scores

DATA = Path(__file__).resolve().parents[1] / "data" / "mqm-ted-zh-en-meta"
EXPECTED = json.loads((DATA / "mt-metrics-eval.spa-pdp.expected.json").read_text())
TED = EXPECTED["mqm_ted_zh_en"]
SYNTHETIC = EXPECTED["synthetic"]


def ted_matrices() -> tuple[np.ndarray, np.ndarray]:
    """Gold (-MQM) and chrF in the order mt-metrics-eval saw them (the permutations depend on
    the items' order)."""
    mqm, chrf = read_scores(DATA / "mqm.tsv").scores, read_scores(DATA / "chrf.tsv").scores

    def matrix(scores: dict[tuple[str, str], float]) -> np.ndarray:
        return np.array([[scores[(s, g)] for g in TED["segments"]] for s in TED["systems"]])

    return -matrix(mqm), matrix(chrf)


def synthetic() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    missing = np.array(SYNTHETIC["gold_with_missing"], dtype=np.float64)  # None -> NaN
    return np.array(SYNTHETIC["gold"]), np.array(SYNTHETIC["metric"]), missing


def upper(matrix: np.ndarray) -> np.ndarray:
    return matrix[np.triu_indices(len(matrix), k=1)]


def exact_p_values(scores: np.ndarray, scale: int, n_permutations: int, seed: int) -> np.ndarray:
    """The permutation p-values in integer arithmetic, for scores on a grid of 1/scale."""
    grid = np.rint(scores * scale).astype(np.int64)
    assert np.abs(scores * scale - grid).max() < 1e-6
    swapped = (permutation_signs(n_permutations, scores.shape[1], seed) < 0).astype(np.int64)
    first, second = np.triu_indices(len(scores), k=1)
    sums = swapped @ (grid[first] - grid[second]).T  # swapped items' differences per pair
    return np.mean(sums <= 0, axis=0)


def test_spa_on_continuous_scores_equals_mt_metrics_eval() -> None:
    gold, metric, _ = synthetic()
    result = soft_pairwise_accuracy(gold, metric)
    assert upper(result.human_p_values).tolist() == SYNTHETIC["human_p_values"]
    assert upper(result.metric_p_values).tolist() == SYNTHETIC["metric_p_values"]
    assert result.value == pytest.approx(SYNTHETIC["soft_pairwise_accuracy"], abs=1e-12)
    assert result.pairs == 10
    other = pairwise_p_values(gold, n_permutations=500, seed=7)
    assert upper(other).tolist() == SYNTHETIC["human_p_values_seed_7_500"]


def test_spa_on_mqm_ted_equals_mt_metrics_eval_up_to_exact_ties() -> None:
    gold, chrf = ted_matrices()
    result = soft_pairwise_accuracy(gold, chrf)
    ours_human, theirs_human = upper(result.human_p_values), np.array(TED["human_p_values"])
    # chrF is continuous: the metric's p-values are mt-metrics-eval's, all 78 of them.
    assert upper(result.metric_p_values).tolist() == TED["metric_p_values"]
    # MQM scores are multiples of 1/60 (weights of 0.1, averaged over up to three raters):
    # ours are the exact counts, and mt-metrics-eval's are at most the exact ties below them.
    exact = exact_p_values(gold, 60, 1000, 4)
    assert ours_human.tolist() == exact.tolist()
    below = np.round((ours_human - theirs_human) * 1000).astype(int)
    assert below.min() >= 0 and 0 < below.sum() <= 10
    assert int(np.sum(below > 0)) <= 5  # of 78 pairs
    assert result.value == pytest.approx(TED["soft_pairwise_accuracy"], abs=1e-4)
    assert result.value == pytest.approx(
        1 - np.mean(np.abs(ours_human - upper(result.metric_p_values)))
    )


def test_p_values_are_one_sided_and_seeded() -> None:
    rng = np.random.default_rng(0)
    scores = np.vstack([rng.normal(1.0, 1, 200), rng.normal(0.0, 1, 200), rng.normal(0, 1, 200)])
    p = pairwise_p_values(scores)
    assert p[0, 1] < 0.01 and p[0, 2] < 0.01 and 0.05 < p[1, 2] < 0.95
    assert np.isnan(p[1, 0]) and np.isnan(p[0, 0])
    assert pairwise_p_values(scores[::-1])[0, 2] > 0.99  # the worse one is not better
    assert np.array_equal(pairwise_p_values(scores, seed=4), p, equal_nan=True)
    assert not np.array_equal(pairwise_p_values(scores, seed=5), p, equal_nan=True)
    assert soft_pairwise_accuracy(scores, scores).value == 1.0


def test_spa_refuses_missing_scores() -> None:
    gold, metric, missing = synthetic()
    with pytest.raises(ValueError, match="complete"):
        soft_pairwise_accuracy(missing, metric)
    with pytest.raises(ValueError, match="shape"):
        soft_pairwise_accuracy(gold, metric[:, :10])


def test_pdp_equals_mt_metrics_eval() -> None:
    gold, metric, missing = synthetic()
    for name, human, figures in (("ted", None, TED), ("synthetic", gold, SYNTHETIC)):
        if human is None:
            human, metric_scores = ted_matrices()
            ted_missing = human.copy()
            ted_missing[:, ::7] = np.nan
            with_missing = ted_missing
        else:
            metric_scores, with_missing = metric, missing
        for average_by in ("item", "sys"):
            assert pairwise_difference_pearson(
                human, metric_scores, average_by=average_by
            ) == pytest.approx(figures[f"pdp_{average_by}"], abs=1e-12), (name, average_by)
        assert pairwise_difference_pearson(with_missing, metric_scores) == pytest.approx(
            figures["pdp_item_gold_missing"], abs=1e-12
        ), name
    assert pairwise_difference_pearson(gold, metric, average_by="none") == pytest.approx(
        SYNTHETIC["pdp_none"], abs=1e-12
    )


def test_pdp_is_not_plain_pearson_of_unordered_differences() -> None:
    """The definition's zero-mean set: correlating one order of the pairs differs."""
    gold, metric, _ = synthetic()
    first, second = np.triu_indices(len(gold), k=1)
    human_diffs = (gold[second] - gold[first]).ravel()
    metric_diffs = (metric[second] - metric[first]).ravel()
    plain = float(np.corrcoef(human_diffs, metric_diffs)[0, 1])
    pdp = pairwise_difference_pearson(gold, metric)
    assert abs(plain - pdp) > 1e-4
    both = np.corrcoef(np.r_[human_diffs, -human_diffs], np.r_[metric_diffs, -metric_diffs])
    assert pdp == pytest.approx(float(both[0, 1]), abs=1e-12)
    assert math.isnan(pairwise_difference_pearson(np.ones((3, 4)), metric[:3, :4]))


def test_tie_calibrated_acc23_equals_mt_metrics_eval() -> None:
    gold, metric, _ = synthetic()
    for (human, scores), figures in (((gold, metric), SYNTHETIC), (ted_matrices(), TED)):
        value, epsilon = acc23_tie_optimised(human, scores)
        assert value == pytest.approx(figures["acc23_tie_calibrated_item"], abs=1e-12)
        assert epsilon == pytest.approx(figures["acc23_tie_epsilon"], abs=1e-9)


def _mt_metrics_eval() -> tuple[ModuleType, ModuleType]:
    checkout = os.environ.get("MT_METRICS_EVAL")
    if not checkout:
        pytest.skip("MT_METRICS_EVAL names no mt-metrics-eval checkout; the stored figures ran")
    sys.path.insert(0, checkout)
    try:
        return (
            importlib.import_module("mt_metrics_eval.stats"),
            importlib.import_module("mt_metrics_eval.pce"),
        )
    finally:
        sys.path.remove(checkout)


@pytest.mark.parametrize("seed", range(5))
def test_live_against_mt_metrics_eval(seed: int) -> None:
    """Both implementations on inputs neither was written for: continuous scores of 3-8
    systems, some metric ties for acc23."""
    stats, pce = _mt_metrics_eval()
    rng = np.random.default_rng(seed)
    systems, items = int(rng.integers(3, 9)), int(rng.integers(20, 120))
    gold = rng.normal(0, 1, (systems, items)) + rng.normal(0, 0.5, (systems, 1))
    metric = gold + rng.normal(0, 1, gold.shape)
    metric[:, :3] = np.round(metric[:, :3])  # some metric ties for acc23
    corr = stats.Correlation(systems, gold.ravel().tolist(), metric.ravel().tolist())
    result = soft_pairwise_accuracy(gold, metric)
    assert (
        upper(result.human_p_values).tolist() == upper(pce.compute_pairwise_p_values(gold)).tolist()
    )
    assert result.value == pytest.approx(corr.PairwiseConfidenceError()[0], abs=1e-12)
    for average_by in ("item", "sys", "none"):
        assert pairwise_difference_pearson(gold, metric, average_by=average_by) == pytest.approx(
            corr.Pearson(average_by=average_by, pdp=True)[0], abs=1e-10
        )
    value, epsilon, _ = stats.KendallWithTiesOpt(
        gold.ravel().tolist(), metric.ravel().tolist(), "acc23", systems, "item", 1.0
    )
    assert acc23_tie_optimised(gold, metric) == pytest.approx((value, epsilon), abs=1e-12)


def test_meta_cli_reports_spa_and_pdp(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m metrics meta` on the MQM TED files: SPA over the complete items, PDP."""
    from metrics.cli import main

    arguments = ["meta", "--human", str(DATA / "mqm.tsv"), "--human-lower-better"]
    arguments += ["--metric", f"chrF={DATA / 'chrf.tsv'}", "--bootstrap", "20", "--json"]
    assert main(arguments) == 0
    report = json.loads(capsys.readouterr().out)["metrics"]["chrF"]
    gold, chrf = ted_matrices()
    assert report["segment"]["pairwise_difference_pearson"] == pytest.approx(TED["pdp_item"])
    assert report["system"]["soft_pairwise_accuracy_items"] == 529
    # The command orders segments as strings: other permutations than mt-metrics-eval's run.
    order = np.argsort(np.array(TED["segments"]), kind="stable")
    expected = soft_pairwise_accuracy(gold[:, order], chrf[:, order]).value
    assert report["system"]["soft_pairwise_accuracy"] == pytest.approx(expected, abs=1e-12)
    assert report["system"]["soft_pairwise_accuracy"] == pytest.approx(
        TED["soft_pairwise_accuracy"], abs=0.01
    )
