"""Meta-evaluation of every stored metric against the segment-level human scores of a
campaign's direct-assessment tasks (``metrics.meta.report.meta_evaluate``).

Human side: each (system, segment)'s mean raw score over the task's system-output judgments
(first judgments, annotators not excluded). Metric side: each system's first run's sentence
scores from the stored statistics, negated for the error rates so both say higher is better.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache
from django.db.models import Avg, Count, Max, Q, Sum
from redis.exceptions import RedisError

from annotation.lib.scales import scale_range
from annotation.models import (
    LIKERT_TYPES,
    Campaign,
    ItemType,
    Judgment,
    RunScore,
    RunStatistics,
    Task,
)
from annotation.selectors.references import UPLOADED_SCORES_KEY, current_reference_set
from annotation.selectors.results import PLAUSIBLE_SCORE, metric_label, metric_order
from annotation.selectors.systems import first_runs
from metrics import external
from metrics.automatic import higher_is_better, sentence_scores, stats_from_bytes
from metrics.meta import DA_THRESHOLD
from metrics.meta.report import MetaEvaluation, meta_evaluate

logger = logging.getLogger(__name__)

# Bootstrap resamples behind the intervals; computed on a page view when not cached, so modest.
META_RESAMPLES = 300
META_SEED = 12345


@dataclass(frozen=True)
class MetaRow:
    human: str  # the task's name
    metric: str
    label: str
    evaluation: MetaEvaluation


def kendall_threshold(scale: str) -> float:
    """WMT's 25 points on the 0-100 scale, as the same share of a Likert scale's range
    (1 point on 1-5), so the Kendall-like tau keeps its meaning on every scale."""
    low, high = scale_range(scale)
    return DA_THRESHOLD * (high - low) / 100


def human_segment_matrix(
    task: Task, excluded: set[int]
) -> tuple[list[str], int, dict[str, dict[int, float]]]:
    """(system names, segment count, system → {segment index: mean raw score})."""
    rows = (
        Judgment.objects.filter(
            task=task,
            excluded=False,
            is_repeat=False,
            item__item_type=ItemType.TGT,
            score__isnull=False,
        )
        .exclude(annotator_id__in=excluded)
        .values("item__system__name", "item__segment__index")
        .annotate(mean=Avg("score"))
    )
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    for row in rows:
        scores[row["item__system__name"]][row["item__segment__index"]] = float(row["mean"])
    return sorted(scores), task.campaign.segments.count(), dict(scores)


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
        values = sign * sentence_scores(metric, stats_from_bytes(metric, data))
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
    tasks = list(
        campaign.tasks.filter(state=Task.State.LAUNCHED, task_type__in=LIKERT_TYPES)
        .order_by("id")
        .values_list("id", "scale", "task_type")
    )
    parts = (
        campaign.id,
        campaign.created_at.isoformat(),
        current_reference_set(campaign),
        sorted(excluded),
        sorted(judgments.items()),
        sorted(statistics.items()),
        sorted(scores.items()),
        tasks,
        n_resamples,
        META_SEED,
    )
    return "meta-evaluation:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def meta_evaluation_uncached(
    campaign: Campaign, excluded: set[int], n_resamples: int
) -> list[MetaRow]:
    tasks = campaign.tasks.filter(state=Task.State.LAUNCHED, task_type__in=LIKERT_TYPES)
    if not tasks.exists():
        return []  # nothing to meta-evaluate against: the statistics are not even read
    automatic = metric_segment_scores(campaign)
    rows = []
    for task in tasks.order_by("id"):
        systems, n_segments, human = human_segment_matrix(task, excluded)
        for metric in metric_order(set(automatic)):
            by_system = automatic[metric]
            common = [s for s in systems if s in by_system and len(by_system[s]) == n_segments]
            if len(common) < 2:
                continue
            human_matrix = np.full((len(common), n_segments), np.nan)
            for i, system in enumerate(common):
                for segment, score in human[system].items():
                    human_matrix[i, segment] = score
            metric_matrix = np.array([by_system[s] for s in common], dtype=np.float64)
            metric_matrix[np.isnan(human_matrix)] = np.nan
            evaluation = meta_evaluate(
                human_matrix,
                metric_matrix,
                threshold=kendall_threshold(task.scale),
                n_resamples=n_resamples,
                seed=META_SEED,
            )
            rows.append(
                MetaRow(
                    f"{task.get_task_type_display()} (task {task.id})",
                    metric,
                    metric_label(metric),
                    evaluation,
                )
            )
    return rows
