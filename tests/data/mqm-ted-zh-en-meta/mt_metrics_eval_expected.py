"""Recompute mt-metrics-eval.expected.json with google-research/mt-metrics-eval's own code
(not run by the tests; no mt-metrics-eval code is in this project).

    git clone https://github.com/google-research/mt-metrics-eval /tmp/mt-metrics-eval
    git -C /tmp/mt-metrics-eval checkout 68a481a
    cd tests/data/mqm-ted-zh-en-meta
    PYTHONPATH=/tmp/mt-metrics-eval python mt_metrics_eval_expected.py \
        > mt-metrics-eval.expected.json

It imports only ``mt_metrics_eval.stats`` (NumPy and SciPy). Gold is -MQM (higher is better,
as the metric); the vectors are grouped by system (systems and segments in sorted order), as
mt-metrics-eval's ``Correlation`` expects. Run again (mt-metrics-eval @ 68a481a, NumPy 2.5.5,
SciPy 1.18.1) it gives the stored figures but for the last digit of ``segment_acc23_item``
(0.40267073820949034 for ...023: float summation order; the tests compare within 1e-12).
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from mt_metrics_eval import stats

HERE = Path(__file__).parent


def read(name: str) -> dict[str, dict[str, float]]:
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    for line in (HERE / name).read_text(encoding="utf-8").splitlines():
        system, segment, score = line.split("\t")
        scores[system][segment] = float(score)
    return scores


def main() -> None:
    mqm, chrf = read("mqm.tsv"), read("chrf.tsv")
    systems = sorted(mqm)
    segments = sorted(mqm[systems[0]], key=int)
    gold = [-mqm[system][segment] for system in systems for segment in segments]
    metric = [chrf[system][segment] for system in systems for segment in segments]
    n = len(systems)
    correlation = stats.Correlation(n, gold, metric)
    acc23 = correlation.KendallVariants(average_by="item", variant="acc23")[0]
    tau, epsilon, _ = stats.KendallWithTiesOpt(
        gold, metric, variant="acc23", num_sys=n, average_by="item", sample_rate=1.0
    )
    concordant = discordant = 0
    for column in range(len(segments)):
        _, _, _, c, d = stats.KendallLike(
            gold[column :: len(segments)], metric[column :: len(segments)], thresh=1.0
        )
        concordant += c
        discordant += d
    system_gold = [
        float(np.mean(gold[i * len(segments) : (i + 1) * len(segments)])) for i in range(n)
    ]
    system_metric = [
        float(np.mean(metric[i * len(segments) : (i + 1) * len(segments)])) for i in range(n)
    ]
    agree, pairs = stats.Agreement(system_gold, system_metric)
    json.dump(
        {
            "systems": n,
            "segments": len(segments),
            "segment_acc23_item": float(acc23),
            "segment_acc23_tie_optimised_item": float(tau),
            "tie_epsilon": float(epsilon),
            "kendall_like_threshold": 1.0,
            "kendall_like_concordant": concordant,
            "kendall_like_discordant": discordant,
            "system_pairwise_accuracy": float(agree) / pairs,
            "system_pairs": pairs,
        },
        sys.stdout,
        indent=2,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
