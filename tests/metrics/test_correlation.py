"""System-level human-automatic correlation against scipy on aligned vectors."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from metrics.correlation import system_correlations

WMT21_SCORES = Path(__file__).parent.parent / "data" / "wmt21-en-de" / "automatic-scores.en-de.tsv"


def wmt21_metric(name: str) -> dict[str, float]:
    with open(WMT21_SCORES, newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {row["system"]: float(row["score"]) for row in rows if row["metric"] == name}


def test_correlations_align_systems_and_match_scipy() -> None:
    bleu = wmt21_metric("bleu-A")
    chrf = wmt21_metric("chrf-A")
    assert len(bleu) >= 5
    systems = sorted(bleu)
    # A "human" ranking covering all but one system, in another order, plus a stray system.
    human = {s: chrf[s] * 0.5 + (i % 3) for i, s in enumerate(reversed(systems[1:]))}
    human["not-in-metrics"] = 99.0
    result = system_correlations({"z": human}, {"bleu": bleu, "chrf": chrf})
    assert [(r.human, r.metric) for r in result] == [("z", "bleu"), ("z", "chrf")]
    for r, metric in zip(result, (bleu, chrf), strict=True):
        shared = sorted(set(human) & set(metric))
        x = [human[s] for s in shared]
        y = [metric[s] for s in shared]
        assert r.systems == len(shared) == len(systems) - 1
        assert r.pearson == pytest.approx(stats.pearsonr(x, y).statistic)
        assert r.pearson_p == pytest.approx(stats.pearsonr(x, y).pvalue)
        assert r.spearman == pytest.approx(stats.spearmanr(x, y).statistic)
        assert r.kendall == pytest.approx(stats.kendalltau(x, y).statistic)
        assert r.kendall_p == pytest.approx(stats.kendalltau(x, y).pvalue)


def test_too_few_shared_systems_give_nan() -> None:
    result = system_correlations({"raw": {"a": 1.0, "b": 2.0}}, {"bleu": {"a": 3.0, "b": 1.0}})
    assert result[0].systems == 2
    assert math.isnan(result[0].pearson) and math.isnan(result[0].kendall)


def scipy_exact_spearman_p(x: list[float], y: list[float]) -> float:
    """scipy's permutation test over every pairing, with Pearson's r of the ranks (rho)."""
    ranked_y = stats.rankdata(y)

    def rho(a: np.ndarray, axis: int = -1) -> np.ndarray:
        ranked = stats.rankdata(a, axis=axis)
        return stats.pearsonr(ranked, np.broadcast_to(ranked_y, ranked.shape), axis=axis).statistic

    test = stats.permutation_test(
        (x,), rho, permutation_type="pairings", n_resamples=math.inf, vectorized=True
    )
    return float(test.pvalue)


@pytest.mark.parametrize(
    "x, y",
    [
        ([1.0, 2.0, 3.0, 4.0, 5.0], [10.0, 20.0, 30.0, 40.0, 50.0]),  # rho = 1: p = 1/60
        ([3.1, 1.2, 5.5, 4.0, 2.2, 6.3], [2.0, 1.0, 6.0, 3.0, 5.0, 4.0]),
        ([1.0, 2.0, 2.0, 3.0, 5.0, 4.0, 7.0], [1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 5.0]),  # ties
        ([8.0, 7.0, 6.0, 5.0, 1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]),
    ],
)
def test_spearman_p_is_exact_for_few_systems(x: list[float], y: list[float]) -> None:
    systems = [f"s{i}" for i in range(len(x))]
    (result,) = system_correlations(
        {"z": dict(zip(systems, x, strict=True))}, {"bleu": dict(zip(systems, y, strict=True))}
    )
    assert result.spearman_p == pytest.approx(scipy_exact_spearman_p(x, y), rel=1e-9)
    if len(x) == 5:
        assert result.spearman_p == pytest.approx(2 / 120)


def test_spearman_p_of_many_systems_is_scipys() -> None:
    bleu = wmt21_metric("bleu-A")
    chrf = wmt21_metric("chrf-A")
    assert len(bleu) > 8
    (result,) = system_correlations({"z": chrf}, {"bleu": bleu})
    shared = sorted(set(bleu) & set(chrf))
    expected = stats.spearmanr([chrf[s] for s in shared], [bleu[s] for s in shared]).pvalue
    assert result.spearman_p == pytest.approx(expected)
