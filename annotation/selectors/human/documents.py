"""Document scores: the score of a whole document page (``PageScore``, a document task with
``document_score``) per system, beside the segment rankings of the results."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, Count

from annotation.models import ItemType, PageScore, Task


@dataclass(frozen=True)
class DocumentScore:
    """A system's mean page score over ``pages`` pages of ``documents`` documents."""

    system: str
    mean: float
    pages: int
    documents: int


def document_scores(task: Task, *, excluded: set[int]) -> list[DocumentScore]:
    """Each system's mean page score, best first (higher is better): first answers to pages
    of system outputs (not repeats, not checks), annotators left out not counted. Empty for
    a task without page scores."""
    if not task.document_score:
        return []
    rows = (
        PageScore.objects.filter(
            task=task, is_repeat=False, item_type=ItemType.TGT, system__isnull=False
        )
        .exclude(annotator_id__in=excluded)
        .values("system__name")
        .annotate(mean=Avg("score"), pages=Count("id"), documents=Count("document", distinct=True))
    )
    scores = [
        DocumentScore(row["system__name"], float(row["mean"]), row["pages"], row["documents"])
        for row in rows
    ]
    return sorted(scores, key=lambda s: (-s.mean, s.system))


def document_score_rows(task: Task, scores: list[DocumentScore]) -> list[dict[str, object]]:
    """The rankings download's rows of the document scores (measure ``document_score``)."""
    return [
        {
            "task_id": task.id,
            "task_type": task.task_type,
            "task_name": task.get_task_type_display(),
            "measure": "document_score",
            "higher_is_better": True,
            "position": position,
            "system": s.system,
            "score": s.mean,
            "judgments": s.pages,
        }
        for position, s in enumerate(scores, start=1)
    ]
