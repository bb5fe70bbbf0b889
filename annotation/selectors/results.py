"""Automatic-metric results of a campaign: scores with intervals and the pairwise tests."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from annotation.models import Campaign, PairSignificance, RunScore
from annotation.selectors.references import current_reference_set

METRICS = ("bleu", "chrf", "ter")
METRIC_LABELS = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER"}
HIGHER_IS_BETTER = {"bleu": True, "chrf": True, "ter": False}


def better(metric: str) -> str:
    """Which way a metric improves, as the pages, the API and the downloads say it."""
    return "higher" if HIGHER_IS_BETTER.get(metric, True) else "lower"


@dataclass
class MetricScore:
    score: float  # one run: its score; several: the mean of the runs' scores
    ci_low: float
    ci_high: float
    runs: int
    run_std: float | None
    signature: str


@dataclass
class SystemResult:
    system_id: int
    name: str
    scores: dict[str, MetricScore] = field(default_factory=dict)


@dataclass
class AutomaticResults:
    systems: list[SystemResult]
    reference_set: str  # the key every score here was computed against, e.g. "A+C"
    # (metric, method) -> {(system_a_id, system_b_id): PairSignificance}, both orders.
    tests: dict[tuple[str, str], dict[tuple[int, int], PairSignificance]]

    def matrix(self, metric: str, method: str = "bs") -> list[list[PairSignificance | None]]:
        """Rows and columns in the systems' order; cell (i, j) tests row i against column j."""
        tests = self.tests.get((metric, method), {})
        return [[tests.get((a.system_id, b.system_id)) for b in self.systems] for a in self.systems]


def automatic_results(campaign: Campaign, *, sort_by: str = "bleu") -> AutomaticResults:
    """Scores against the current reference set only: a run whose job has not yet recomputed
    them after a reference upload has none (and no tests) until it has."""
    reference_set = current_reference_set(campaign)
    by_system: dict[int, SystemResult] = {}
    per_metric: dict[tuple[int, str], list[RunScore]] = defaultdict(list)
    current = RunScore.objects.filter(run__campaign=campaign, references=reference_set)
    for score in current.select_related("run__system"):
        system = score.run.system
        by_system.setdefault(system.id, SystemResult(system.id, system.name))
        per_metric[(system.id, score.metric)].append(score)
    for (system_id, metric), scores in per_metric.items():
        values = [score.score for score in scores]
        by_system[system_id].scores[metric] = MetricScore(
            score=statistics.fmean(values),
            ci_low=min(score.ci_low for score in scores),
            ci_high=max(score.ci_high for score in scores),
            runs=len(scores),
            run_std=statistics.stdev(values) if len(values) > 1 else None,
            signature=scores[0].signature,
        )
    sign = 1 if HIGHER_IS_BETTER.get(sort_by, True) else -1
    systems = sorted(
        by_system.values(),
        key=lambda s: (-sign * s.scores[sort_by].score if sort_by in s.scores else 0, s.name),
    )
    tests: dict[tuple[str, str], dict[tuple[int, int], PairSignificance]] = defaultdict(dict)
    for test in PairSignificance.objects.filter(campaign=campaign):
        tests[(test.metric, test.method)][(test.system_a_id, test.system_b_id)] = test
        mirrored = PairSignificance(
            metric=test.metric,
            method=test.method,
            system_a_id=test.system_b_id,
            system_b_id=test.system_a_id,
            p_value=test.p_value,
            win_a=test.win_b,
            win_b=test.win_a,
            tie=test.tie,
        )
        tests[(test.metric, test.method)][(test.system_b_id, test.system_a_id)] = mirrored
    return AutomaticResults(systems, reference_set, dict(tests))


def automatic_results_rows(campaign: Campaign) -> list[dict[str, object]]:
    results = automatic_results(campaign)
    rows = []
    for system in results.systems:
        for metric, score in system.scores.items():
            rows.append(
                {
                    "system": system.name,
                    "metric": metric,
                    "better": better(metric),
                    "references": results.reference_set,
                    "score": round(score.score, 6),
                    "ci_low": round(score.ci_low, 6),
                    "ci_high": round(score.ci_high, 6),
                    "runs": score.runs,
                    "run_std": score.run_std,
                    "signature": score.signature,
                }
            )
    return rows


def significance_rows(campaign: Campaign) -> list[dict[str, object]]:
    results = automatic_results(campaign)
    names = {s.system_id: s.name for s in results.systems}
    rows = []
    for (metric, method), tests in sorted(results.tests.items()):
        for (a, b), test in sorted(tests.items()):
            if a < b:
                rows.append(
                    {
                        "metric": metric,
                        "method": method,
                        "a": names.get(a, a),
                        "b": names.get(b, b),
                        "p_value": test.p_value,
                        "win_a": test.win_a,
                        "win_b": test.win_b,
                        "tie": test.tie,
                    }
                )
    return rows
