"""Write mt-metrics-eval.spa-pdp.expected.json: mt-metrics-eval's own figures (not run by the
tests; no mt-metrics-eval code is in the project).

Usage, with a checkout of google-research/mt-metrics-eval (its stats module needs only NumPy
and SciPy; the figures were made at commit 68a481aea1a787392d55af8f76ac8ef40c5f4664):

    PYTHONPATH=PATH/TO/mt-metrics-eval python mt_metrics_eval_spa_pdp.py COMMIT

Figures: on this folder's MQM TED zh-en files (gold = -MQM, metric = chrF, 13 systems x 529
segments) soft pairwise accuracy (``Correlation.PairwiseConfidenceError``, 1000 permutations,
its default seed 4) with the pairwise p-values behind it (``pce.compute_pairwise_p_values``),
Pairwise Difference Pearson (``Correlation.Pearson(pdp=True)``) by item and by system, and
tie-calibrated acc23 (``KendallWithTiesOpt``, ``sample_rate=1``); and the same statistics on
a small synthetic case whose scores are stored with the figures (continuous scores: no
permutation ties; a few gold scores missing for PDP).
"""

import csv
import json
import sys
from pathlib import Path

import numpy as np
from mt_metrics_eval import pce, stats

HERE = Path(__file__).parent


def matrix(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    scores: dict[tuple[str, str], float] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for system, segment, score in csv.reader(handle, delimiter="\t"):
            scores[(system, segment)] = float(score)
    systems = sorted({system for system, _ in scores})
    segments = sorted({segment for _, segment in scores}, key=int)
    # The order matters to the permutations: each item's swap is drawn by its position.
    return systems, segments, np.array([[scores[(s, g)] for g in segments] for s in systems])


def upper(values: np.ndarray) -> list[float]:
    return values[np.triu_indices(len(values), k=1)].tolist()


def figures(gold: np.ndarray, metric: np.ndarray, gold_with_missing: np.ndarray) -> dict:
    num_sys = len(gold)
    corr = stats.Correlation(num_sys, gold.ravel().tolist(), metric.ravel().tolist())
    missing = [None if np.isnan(v) else float(v) for v in gold_with_missing.ravel()]
    corr_missing = stats.Correlation(num_sys, missing, metric.ravel().tolist())
    acc23, epsilon, _ = stats.KendallWithTiesOpt(
        gold.ravel().tolist(), metric.ravel().tolist(), "acc23", num_sys, "item", 1.0
    )
    return {
        "soft_pairwise_accuracy": corr.PairwiseConfidenceError()[0],
        "human_p_values": upper(pce.compute_pairwise_p_values(gold)),
        "metric_p_values": upper(pce.compute_pairwise_p_values(metric)),
        "human_p_values_seed_7_500": upper(
            pce.compute_pairwise_p_values(gold, num_permutations=500, seed=7)
        ),
        "pdp_item": corr.Pearson(average_by="item", pdp=True)[0],
        "pdp_sys": corr.Pearson(average_by="sys", pdp=True)[0],
        "pdp_item_gold_missing": corr_missing.Pearson(average_by="item", pdp=True)[0],
        "acc23_tie_calibrated_item": acc23,
        "acc23_tie_epsilon": epsilon,
    }


def main(commit: str) -> None:
    systems, segments, mqm = matrix(HERE / "mqm.tsv")
    assert matrix(HERE / "chrf.tsv")[:2] == (systems, segments)
    chrf = matrix(HERE / "chrf.tsv")[2]
    gold = -mqm
    rng = np.random.default_rng(25)
    quality = np.array([1.0, 0.8, 0.5, 0.45, 0.0])
    synthetic_gold = np.round(quality[:, None] + rng.normal(0, 1, (5, 60)), 4)
    synthetic_metric = np.round(synthetic_gold + rng.normal(0, 1, (5, 60)), 4)
    with_missing = synthetic_gold.copy()
    with_missing[rng.random(with_missing.shape) < 0.1] = np.nan
    ted_missing = gold.copy()
    ted_missing[:, ::7] = np.nan  # PDP with missing gold on real data: every 7th segment
    expected = {
        "mt_metrics_eval_commit": commit,
        "mqm_ted_zh_en": {
            "systems": systems,
            "segments": segments,
            **figures(gold, chrf, ted_missing),
        },
        "synthetic": {
            "gold": synthetic_gold.tolist(),
            "metric": synthetic_metric.tolist(),
            "gold_with_missing": [
                [None if np.isnan(v) else v for v in row] for row in with_missing.tolist()
            ],
            "pdp_none": stats.Correlation(
                5, synthetic_gold.ravel().tolist(), synthetic_metric.ravel().tolist()
            ).Pearson(average_by="none", pdp=True)[0],
            **figures(synthetic_gold, synthetic_metric, with_missing),
        },
    }
    out = HERE / "mt-metrics-eval.spa-pdp.expected.json"
    out.write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
