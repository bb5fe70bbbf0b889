"""Meta-evaluation of every stored metric against the segment-level human scores of each of
a campaign's Likert, DA, ESA, ESA^AI, MQM and contrastive tasks
(``metrics.meta.report.meta_evaluate``).

Human side: each (system, segment)'s mean score (``segment_scores``: MQM negated). Metric side:
each system's first run's sentence scores from the stored statistics, negated for the error
rates, so both say higher is better.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Max, Q, Sum
from redis.exceptions import RedisError

from annotation.models import (
    Campaign,
    ErrorSpan,
    Judgment,
    OutputJudgment,
    RunScore,
    RunStatistics,
)
from annotation.selectors.human.segment_scores import (
    NEGATED_NOTE,
    SegmentScores,
    kendall_threshold,
    meta_tasks,
    task_segment_scores,
)
from annotation.selectors.references import UPLOADED_SCORES_KEY, current_reference_set
from annotation.selectors.results import PLAUSIBLE_SCORE, metric_label, metric_order
from annotation.selectors.systems import first_runs
from metrics import external
from metrics.automatic import higher_is_better, sentence_scores, stats_from_bytes
from metrics.meta.report import MetaEvaluation, meta_evaluate

logger = logging.getLogger(__name__)

# Bootstrap resamples behind the intervals; computed on a page view when not cached, so modest.
META_RESAMPLES = 300
META_SEED = 12345


__all__ = ["NEGATED_NOTE", "MetaRow", "kendall_threshold", "meta_evaluation"]


@dataclass(frozen=True)
class MetaRow:
    human: str  # the task's name (and, for MQM, that its scores are negated)
    metric: str
    label: str
    evaluation: MetaEvaluation
    task_type: str = ""
    human_negated: bool = False  # MQM: the human scores were negated (higher is better)
    kendall_threshold: float = field(default=0.0)


def metric_segment_scores(campaign: Campaign) -> dict[str, dict[str, np.ndarray]]:
    """metric → system → sentence scores of the system's first run (higher is better)."""
    references = current_reference_set(campaign)
    stored = (
        RunStatistics.objects.filter(
            run__in=first_runs(campaign), references__in=[references, UPLOADED_SCORES_KEY]
        )
        .order_by("metric", "run__system__name")
        .values_list("metric", "run__system__name", "data")
    )
    result: dict[str, dict[str, np.ndarray]] = defaultdict(dict)
    for metric, system, data in stored:
        sign = 1.0 if higher_is_better(metric) else -1.0
        values = sign * sentence_scores(metric, stats_from_bytes(metric, bytes(data)))
        # Stored before uploads refused them: an infinite, NaN or absurd score is left out.
        if np.all(np.abs(values) <= external.SCORE_LIMIT):
            result[metric][system] = values
    return dict(result)


def meta_evaluation(
    campaign: Campaign, excluded: set[int], *, n_resamples: int = META_RESAMPLES
) -> list[MetaRow]:
    """Every (direct-assessment task, metric) with at least two systems scored by both.

    About a second on the demo campaign, so cached (Django's cache, in Redis) under a key made
    of everything it is computed from: a new or excluded judgment, a new metric run or score,
    a launched task or another reference set gives a new key. Without Redis it is computed."""
    key = meta_evaluation_key(campaign, excluded, n_resamples)
    try:
        cached = cache.get(key)
    except (RedisError, OSError):
        logger.warning("meta-evaluation cache unavailable", exc_info=True)
        return meta_evaluation_uncached(campaign, excluded, n_resamples)
    if cached is not None:
        return list(cached)
    rows = meta_evaluation_uncached(campaign, excluded, n_resamples)
    try:
        cache.set(key, rows)
    except (RedisError, OSError):
        logger.warning("meta-evaluation cache unavailable", exc_info=True)
    return rows


def meta_evaluation_key(campaign: Campaign, excluded: set[int], n_resamples: int) -> str:
    judgments = Judgment.objects.filter(task__campaign=campaign).aggregate(
        n=Count("id"),
        last=Max("id"),
        out=Count("id", filter=Q(excluded=True)),
        total=Sum("score"),
    )
    statistics = RunStatistics.objects.filter(run__campaign=campaign).aggregate(
        n=Count("id"), last=Max("id")
    )
    scores = RunScore.objects.filter(run__campaign=campaign).aggregate(
        n=Count("id"), last=Max("id"), total=Sum("score", filter=PLAUSIBLE_SCORE)
    )
    # Contrastive scores live in their own rows, and spans (ESA, MQM) may change under a
    # judgment: both are counted too.
    outputs = OutputJudgment.objects.filter(task__campaign=campaign).aggregate(
        n=Count("id"), last=Max("id"), total=Sum("score")
    )
    spans = ErrorSpan.objects.filter(judgment__task__campaign=campaign).aggregate(
        n=Count("id"), last=Max("id")
    )
    tasks = list(meta_tasks(campaign).values_list("id", "scale", "task_type"))
    parts = (
        campaign.id,
        campaign.created_at.isoformat(),
        current_reference_set(campaign),
        sorted(excluded),
        sorted(judgments.items()),
        sorted(statistics.items()),
        sorted(scores.items()),
        sorted(outputs.items()),
        sorted(spans.items()),
        tasks,
        n_resamples,
        META_SEED,
    )
    return "meta-evaluation:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def meta_evaluation_uncached(
    campaign: Campaign, excluded: set[int], n_resamples: int
) -> list[MetaRow]:
    tasks = list(meta_tasks(campaign))
    if not tasks:
        return []  # nothing to meta-evaluate against: the statistics are not even read
    automatic = metric_segment_scores(campaign)
    if not automatic:
        return []  # no metric's sentence scores: the human ones are not even read
    n_segments = campaign.segments.count()
    rows = []
    for task in tasks:
        human = task_segment_scores(task, excluded)
        for metric in metric_order(set(automatic)):
            evaluation = evaluate_metric(human, automatic[metric], n_segments, n_resamples)
            if evaluation is None:
                continue
            rows.append(
                MetaRow(
                    human.label,
                    metric,
                    metric_label(metric),
                    evaluation,
                    task_type=task.task_type,
                    human_negated=human.negated,
                    kendall_threshold=human.threshold,
                )
            )
    return rows


def evaluate_metric(
    human: SegmentScores,
    by_system: dict[str, np.ndarray],
    n_segments: int,
    n_resamples: int,
) -> MetaEvaluation | None:
    """One task's human scores against one metric's sentence scores, over the systems both
    score (None under two): ``(systems, segments)`` matrices, NaN where no human judged."""
    common = [s for s in human.systems() if s in by_system and len(by_system[s]) == n_segments]
    if len(common) < 2:
        return None
    human_matrix = np.full((len(common), n_segments), np.nan)
    for i, system in enumerate(common):
        for segment, score in human.scores[system].items():
            human_matrix[i, segment] = score
    metric_matrix = np.array([by_system[s] for s in common], dtype=np.float64)
    metric_matrix[np.isnan(human_matrix)] = np.nan
    return meta_evaluate(
        human_matrix,
        metric_matrix,
        threshold=human.threshold,
        n_resamples=n_resamples,
        seed=META_SEED,
    )
