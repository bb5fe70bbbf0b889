"""Reads of contrastive judgments: one row per (annotator, screen, system, score)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, Count, F, QuerySet

from annotation.models import ErrorSpan, OutputJudgment, Task
from annotation.selectors.human.loading import exclusions
from annotation.services.spans import task_mqm_weights


def contrastive_scores(task: Task, *, include_excluded: bool = False) -> QuerySet:
    """The task's per-output judgments as rows of ``annotator`` (id), ``screen`` (the slot:
    one annotator's one screen), ``item`` (the screen's content, shared by its repeats and
    replicas), ``system`` (name; None for a candidate no system produced), ``position``
    (0 = first on the screen), ``score`` (None for MQM: see ``contrastive_mqm_scores``) and
    ``is_repeat``. Pairs of systems judged by the same annotator on the same screen share
    ``screen``. Judgments an organiser excluded (one by one, or their annotator) are left
    out unless asked for."""
    rows = OutputJudgment.objects.filter(task=task)
    if not include_excluded:
        rows = _counted(rows, task)
    return rows.order_by("judgment_id", "position", "system__name").values(
        "annotator_id",
        "item_id",
        "position",
        "score",
        "is_repeat",
        screen=F("slot_id"),
        system_name=F("system__name"),
    )


def _counted(rows: QuerySet, task: Task) -> QuerySet:
    """Rows that count: not excluded one by one, their annotator not left out."""
    left_out = exclusions(task.campaign_id).for_task(task.id)
    return rows.filter(judgment__excluded=False).exclude(annotator_id__in=left_out)


@dataclass(frozen=True)
class SystemMean:
    system: str
    mean: float
    judgments: int


def contrastive_system_means(task: Task) -> list[SystemMean]:
    """Each system's raw mean score over its outputs' first judgments (repeats and
    excluded judgments left out), best first. MQM: the mean MQM score (lower is better),
    computed from the spans with the task's weights."""
    if task.task_type == "contrastive_mqm":
        return _mqm_means(task)
    rows = (
        _counted(OutputJudgment.objects.filter(task=task, is_repeat=False), task)
        .filter(system__isnull=False)
        .values("system__name")
        .annotate(mean=Avg("score"), n=Count("id"))
    )
    means = [SystemMean(r["system__name"], float(r["mean"]), r["n"]) for r in rows]
    return sorted(means, key=lambda m: (-m.mean, m.system))


def contrastive_output_scores(task: Task) -> list[tuple[str, int, int, float]]:
    """(system, segment index, annotator id, score) of every system output's first judgment
    (repeats and excluded judgments left out), in judgment order. ESA and DA: the 0-100
    score; MQM: the output's MQM score from its spans with the task's weights (lower is
    better)."""
    counted = _counted(OutputJudgment.objects.filter(task=task, is_repeat=False), task)
    rows = counted.filter(system__isnull=False).order_by("judgment_id", "position", "id")
    if task.task_type != "contrastive_mqm":
        return [
            (name, segment, annotator, float(score))
            for name, segment, annotator, score in rows.filter(score__isnull=False).values_list(
                "system__name", "item__segment__index", "annotator_id", "score"
            )
        ]
    weights = task_mqm_weights(task=task)
    penalty: dict[tuple[int, int | None], float] = {}
    for judgment_id, candidate, severity, category in ErrorSpan.objects.filter(
        judgment__task=task
    ).values_list("judgment_id", "candidate", "severity", "category"):
        key = (judgment_id, candidate)
        penalty[key] = penalty.get(key, 0.0) + weights.weight(severity, category)
    return [
        (name, segment, annotator, penalty.get((judgment_id, position), 0.0))
        for judgment_id, position, name, segment, annotator in rows.values_list(
            "judgment_id", "position", "system__name", "item__segment__index", "annotator_id"
        )
    ]


def _mqm_means(task: Task) -> list[SystemMean]:
    totals: dict[str, list[float]] = {}
    for name, _, _, score in contrastive_output_scores(task):
        totals.setdefault(name, []).append(score)
    means = [SystemMean(name, sum(v) / len(v), len(v)) for name, v in totals.items()]
    return sorted(means, key=lambda m: (m.mean, m.system))
