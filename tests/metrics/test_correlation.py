"""System-level human-automatic correlation against scipy on aligned vectors."""

from __future__ import annotations

import csv
import math
from pathlib import Path

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
