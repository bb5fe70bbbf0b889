"""Reads of contrastive judgments: one row per (annotator, screen, system, score)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, Count, F, QuerySet

from annotation.models import ErrorSpan, OutputJudgment, Task
from annotation.protocols import protocol_for
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
    if protocol_for(task.task_type).penalty_scored:
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
    if not protocol_for(task.task_type).penalty_scored:
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


@dataclass(frozen=True)
class ScoredOutput:
    """One output of a contrastive MQM screen as judged: its MQM penalty (the task's weights
    over the spans naming its candidate) and errors, with the screen's judgment."""

    judgment_id: int
    annotator_id: int
    screen: int  # the slot
    item_id: int
    item_type: str  # of the screen: TGT, or CHK for an attention check
    is_repeat: bool
    system: str | None
    position: int
    segment: int  # the segment's index
    seconds: float
    excluded: bool  # one by one, or their annotator left out
    penalty: float
    errors: tuple[tuple[str, str], ...]  # (severity, category)


def contrastive_mqm_outputs(task: Task) -> list[ScoredOutput]:
    """Every output judged on the task's screens (excluded ones flagged), in judgment order."""
    weights = task_mqm_weights(task=task)
    errors: dict[tuple[int, int | None], list[tuple[str, str]]] = {}
    for judgment_id, candidate, severity, category in (
        ErrorSpan.objects.filter(judgment__task=task)
        .order_by("id")
        .values_list("judgment_id", "candidate", "severity", "category")
    ):
        errors.setdefault((judgment_id, candidate), []).append((severity, category or ""))
    left_out = exclusions(task.campaign_id).for_task(task.id)
    rows = OutputJudgment.objects.filter(task=task).order_by("judgment_id", "position", "id")
    result = []
    for row in rows.values(
        "judgment_id",
        "annotator_id",
        "slot_id",
        "item_id",
        "is_repeat",
        "position",
        "item__item_type",
        "item__segment__index",
        "system__name",
        "judgment__duration_ms",
        "judgment__excluded",
    ):
        found = errors.get((row["judgment_id"], row["position"]), [])
        result.append(
            ScoredOutput(
                judgment_id=row["judgment_id"],
                annotator_id=row["annotator_id"],
                screen=row["slot_id"],
                item_id=row["item_id"],
                item_type=row["item__item_type"],
                is_repeat=row["is_repeat"],
                system=row["system__name"],
                position=row["position"],
                segment=row["item__segment__index"],
                seconds=(row["judgment__duration_ms"] or 0) / 1000.0,
                excluded=row["judgment__excluded"] or row["annotator_id"] in left_out,
                penalty=sum(
                    weights.weight(severity, category or None) for severity, category in found
                ),
                errors=tuple(found),
            )
        )
    return result
