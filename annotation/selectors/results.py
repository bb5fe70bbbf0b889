"""Automatic-metric results of a campaign: scores with intervals and the pairwise tests."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Q

from annotation.models import Campaign, PairSignificance, RunScore
from annotation.selectors.references import UPLOADED_SCORES_KEY, current_reference_set
from metrics import external
from metrics.automatic import METRICS as REGISTRY
from metrics.automatic import decomposes, higher_is_better, metric_label

METRICS = REGISTRY  # the job computes each of them (metrics.automatic's registry)


# A stored score no page can draw or JSON can carry (infinite, NaN, or so large that its
# interval overflows) is left out of every result rather than answered with a 500. Uploads
# refuse such scores; this guards rows written before they did, or by hand. PostgreSQL orders
# NaN above every number, so the range leaves it out too.
def _within_limit(*columns: str) -> Q:
    limit = external.SCORE_LIMIT
    return Q(*(Q(**{f"{c}__gte": -limit, f"{c}__lte": limit}) for c in columns))


PLAUSIBLE_SCORE = _within_limit("score", "ci_low", "ci_high")
PLAUSIBLE_TEST = _within_limit("p_value", "win_a", "win_b", "tie")


def better(metric: str) -> str:
    """Which way a metric improves, as the pages, the API and the downloads say it."""
    try:
        return "higher" if higher_is_better(metric) else "lower"
    except ValueError:  # a row of a metric no longer in the registry
        return "higher"


def statistics_kind(metric: str) -> str:
    """What resampling sums: ``sufficient`` statistics, or stored ``sentence`` scores."""
    try:
        return "sufficient" if decomposes(metric) else "sentence"
    except ValueError:
        return "sentence"


def metric_order(metrics: set[str]) -> list[str]:
    """The registry's order, then the external metrics by name."""
    built_in = [m for m in METRICS if m in metrics]
    return built_in + sorted(metrics - set(built_in), key=str.lower)


@dataclass(frozen=True)
class MetricInfo:
    key: str
    label: str
    better: str
    statistics: str
    signature: str
    uploaded: bool


@dataclass
class MetricScore:
    score: float  # one run: its score; several: the mean of the runs' scores
    ci_low: float
    ci_high: float
    runs: int
    run_std: float | None
    signature: str
    references: str  # the reference set, or "" for uploaded scores


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
    metrics: list[MetricInfo] = field(default_factory=list)  # those with scores, in order

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
    current = RunScore.objects.filter(
        PLAUSIBLE_SCORE,
        run__campaign=campaign,
        references__in=[reference_set, UPLOADED_SCORES_KEY],
    )
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
            references=scores[0].references,
        )
    sign = 1 if better(sort_by) == "higher" else -1
    systems = sorted(
        by_system.values(),
        key=lambda s: (-sign * s.scores[sort_by].score if sort_by in s.scores else 0, s.name),
    )
    tests: dict[tuple[str, str], dict[tuple[int, int], PairSignificance]] = defaultdict(dict)
    for test in PairSignificance.objects.filter(PLAUSIBLE_TEST, campaign=campaign):
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
    signatures = {m: score.signature for (_, m), scores in per_metric.items() for score in scores}
    metrics = [
        MetricInfo(
            key=m,
            label=metric_label(m),
            better=better(m),
            statistics=statistics_kind(m),
            signature=signatures[m],
            uploaded="origin:uploaded" in signatures[m],
        )
        for m in metric_order(set(signatures))
    ]
    return AutomaticResults(systems, reference_set, dict(tests), metrics)


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
                    "statistics": statistics_kind(metric),
                    "references": score.references,
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
    rows: list[dict[str, object]] = []
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
