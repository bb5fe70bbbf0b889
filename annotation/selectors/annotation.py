"""Reads for annotators: progress, and what an item shows."""

from __future__ import annotations

from django.db import connection

from annotation.models import Document, Item, Judgment, Segment, Slot, Task


def annotator_progress(*, task: Task, annotator_id: int) -> tuple[int, int]:
    """(judged, total) for the progress bar, in one query of three indexed counts.

    The total is what this annotator may judge: the task's items (or their quota) plus the
    repeats planned for them. With several judgments per item the pool may run dry before
    that; the done page then says so.
    """
    sql = f"""
        SELECT (SELECT count(*) FROM {Judgment._meta.db_table}
                WHERE task_id = %(task)s AND annotator_id = %(user)s),
               (SELECT count(*) FROM {Item._meta.db_table} WHERE task_id = %(task)s),
               (SELECT count(*) FROM {Slot._meta.db_table}
                WHERE task_id = %(task)s AND annotator_id = %(user)s AND is_repeat)
    """  # noqa: S608 (table names from the models; values are parameters)
    with connection.cursor() as cursor:
        cursor.execute(sql, {"task": task.id, "user": annotator_id})
        judged, items, repeats = cursor.fetchone()
    if task.items_per_annotator:
        items = min(items, task.items_per_annotator)
    return judged, items + repeats


def tasks_for_annotator(user) -> list[Task]:
    """Launched tasks of the campaigns where this user is an annotator."""
    return list(
        Task.objects.filter(
            state=Task.State.LAUNCHED,
            campaign__memberships__user=user,
            campaign__memberships__role="annotator",
        )
        .select_related("campaign")
        .order_by("campaign__name", "id")
    )


def item_display(slot: Slot) -> dict[str, object]:
    """Everything the item's screen shows: the reference and the context in a few queries."""
    from annotation.models import ReferenceSegment, TaskType
    from annotation.scales import scale_points

    task, item = slot.task, slot.item
    segment = item.segment
    show_source = not (task.task_type == TaskType.FLUENCY or (task.monolingual and task.is_likert))
    show_reference = task.task_type != TaskType.FLUENCY and (
        task.show_reference or (task.monolingual and task.is_likert)
    )
    reference = None
    if show_reference:
        reference = (
            ReferenceSegment.objects.filter(segment=segment)
            .order_by("reference__name")
            .values_list("text", flat=True)
            .first()
        )
    before: list[str] = []
    after: list[str] = []
    if task.context_size and show_source:
        before, after = segment_context(segment, task.context_size)
    labels = "AB" if task.task_type == TaskType.PAIRWISE else None
    candidates = [
        {"label": labels[i] if labels else str(i + 1), "text": candidate["text"], "index": i}
        for i, candidate in enumerate(item.candidates)
    ]
    return {
        "source": segment.source if show_source else None,
        "reference": reference,
        "context_before": before,
        "context_after": after,
        "candidates": candidates,
        "adequacy_points": scale_points(task.scale, "adequacy"),
        "fluency_points": scale_points(task.scale, "fluency"),
    }


def segment_context(segment, size: int) -> tuple[list[str], list[str]]:
    """The sources of up to ``size`` segments before and after this one, in reading order,
    from its own document only (never across a document boundary, nor from the implicit
    document of a source without ids)."""
    if segment.document.implicit:
        return [], []
    same_document = Segment.objects.filter(document_id=segment.document_id)
    before = same_document.filter(index__lt=segment.index).order_by("-index")[:size]
    after = same_document.filter(index__gt=segment.index).order_by("index")[:size]
    previous = list(before.values_list("source", flat=True))[::-1]
    return previous, list(after.values_list("source", flat=True))


def campaign_has_documents(campaign) -> bool:
    """Whether the campaign's source came with document ids (context needs them)."""
    return Document.objects.filter(campaign=campaign, implicit=False).exists()
