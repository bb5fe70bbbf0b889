"""Human rankings against automatic metrics, at system level."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from annotation.models import Campaign, RunScore
from annotation.selectors.references import UPLOADED_SCORES_KEY, current_reference_set
from annotation.selectors.results import PLAUSIBLE_SCORE, metric_order
from annotation.selectors.systems import first_runs
from metrics.correlation import Correlation, system_correlations

# Two system-level Pearson r of one metric are shown, and they differ: the metric's system
# score is its corpus-level score (corpus BLEU) in the correlations table, and the mean of its
# sentence scores in the meta-evaluation. The pages and the API name which one each is.
CORPUS_SCORE = "corpus"
SENTENCE_MEAN = "sentence_mean"
METRIC_SYSTEM_SCORES = {
    CORPUS_SCORE: "the metric's corpus-level score",
    SENTENCE_MEAN: "the mean of the metric's sentence scores",
}


def automatic_scores(campaign: Campaign) -> dict[str, dict[str, float]]:
    """metric → {system: score} from each system's first run, against the current reference
    set (a system not yet scored against it is left out), and the uploaded metric scores."""
    rows = (
        RunScore.objects.filter(
            PLAUSIBLE_SCORE,
            run__in=first_runs(campaign),
            references__in=[current_reference_set(campaign), UPLOADED_SCORES_KEY],
        )
        .order_by("run__system__name")
        .values_list("run__system__name", "metric", "score")
    )
    found: dict[str, dict[str, float]] = {}
    for system, metric, score in rows:
        found.setdefault(metric, {})[system] = score
    return {metric: found[metric] for metric in metric_order(set(found))}


@dataclass(frozen=True)
class ScatterPoint:
    system: str
    human: float
    metric: float


def correlations(
    human: Mapping[str, Mapping[str, float]], automatic: Mapping[str, Mapping[str, float]]
) -> list[Correlation]:
    """Pearson, Spearman and Kendall of every human ranking with every metric (3+ systems)."""
    return system_correlations(human, automatic)


def scatter_points(human: Mapping[str, float], metric: Mapping[str, float]) -> list[ScatterPoint]:
    return [ScatterPoint(s, human[s], metric[s]) for s in sorted(set(human) & set(metric))]
