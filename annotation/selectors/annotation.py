"""Reads for annotators: progress, and what an item shows."""

from __future__ import annotations

import string
from typing import NamedTuple

from django.db import connection
from django.db.models import Subquery

from annotation.models import Document, Segment, Slot, Task
from annotation.protocols import protocol_for, reference_shown
from annotation.selectors.references import references_shown


class AnnotatorProgress(NamedTuple):
    """Progress in the batch an annotator holds (or held last): ``judged`` and ``skipped``
    (counted apart: a skip is no judgment) of ``total``.

    The total is the batch's size, quality control included, fixed when they take it (a
    skip cancels the skipped item's companions: it shrinks by them), so the bar never moves
    backwards or past its end. ``batches``: how many they have had; ``quota``: how many they
    may have (0: no limit; a crowd participant's is one).
    """

    judged: int
    total: int
    batches: int
    quota: int
    skipped: int = 0

    @property
    def answered(self) -> int:
        """Slots of the batch done: judged or skipped."""
        return self.judged + self.skipped

    @property
    def finished(self) -> bool:
        """Known to be done: their last batch is complete and their quota is full."""
        return bool(self.quota) and self.batches >= self.quota and self.answered >= self.total

    @property
    def percent(self) -> int:
        return round(100 * self.answered / self.total) if self.total else 0

    @property
    def judged_enough(self) -> bool:
        """Whether enough of the batch was judged, not skipped, to earn a crowd completion
        (``judged_enough``)."""
        return judged_enough(judged=self.judged, skipped=self.skipped)


# A crowd participant earns the completion code and approval by judging at least this share
# of the items they answered (a batch of skips earns nothing).
MIN_JUDGED_SHARE = 0.5


def judged_enough(*, judged: int, skipped: int) -> bool:
    """The one rule for a crowd participant's batch: judged items at least
    ``MIN_JUDGED_SHARE`` of those judged or skipped, and at least one."""
    return judged > 0 and judged >= MIN_JUDGED_SHARE * (judged + skipped)


def annotator_progress(*, task: Task, annotator_id: int) -> AnnotatorProgress:
    """The annotator's progress in one query of indexed lookups (the SQL function
    ``evalsite_annotator_progress``, annotation/migrations/sql/0028_assignment.sql,
    which the judgment-and-claim function returns too). Slots judged or skipped by whoever
    held the batch before (abandoned half-way) count as done: the batch is what is left."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM evalsite_annotator_progress(%s, %s)", [task.id, annotator_id])
        row = cursor.fetchone()
    return progress_from_row(row)


def progress_from_row(row: tuple[int | None, ...] | None) -> AnnotatorProgress:
    """``AnnotatorProgress`` from ``evalsite_annotator_progress``'s (size, judged, skipped,
    batches, quota); None: no batch yet (their quota is not known then, nor needed)."""
    if row is None or row[0] is None:
        return AnnotatorProgress(0, 0, 0, 0, 0)
    size, judged, skipped, batches, quota = (value or 0 for value in row)
    return AnnotatorProgress(judged, size, batches, quota, skipped)


def annotator_has_begun(*, task: Task, user_id: int) -> bool:
    """Whether the annotator was shown an item of the task (then instructions are one key
    away, not a page of their own)."""
    return Slot.objects.filter(task=task, annotator_id=user_id, served_at__isnull=False).exists()


def tasks_for_annotator(user) -> list[Task]:
    """Launched and paused tasks of the campaigns where this user is an annotator (a crowd
    participant: their own task only)."""
    tasks = Task.objects.all()
    participant = getattr(user, "crowd_participant", None)
    if participant is not None:
        tasks = tasks.filter(id=participant.task_id)
    return list(
        tasks.filter(
            state__in=[Task.State.LAUNCHED, Task.State.PAUSED],
            campaign__memberships__user=user,
            campaign__memberships__role="annotator",
        )
        .select_related("campaign")
        .order_by("campaign__name", "id")
    )


def item_display(slot: Slot) -> dict[str, object]:
    """Everything the item's screen shows: the reference and the context in a few queries."""
    from annotation.lib.scales import scale_points
    from annotation.models import ReferenceSegment
    from annotation.selectors.media import source_media_of
    from metrics.spans.mqm import GOOGLE_MQM_CATEGORIES

    task, item = slot.task, slot.item
    segment = item.segment
    protocol = protocol_for(task.task_type)
    # A monolingual task reads the reference in place of the source.
    monolingual = task.monolingual and protocol.applies("monolingual")
    show_source = protocol.source_shown and not monolingual
    reference = None
    if reference_shown(task):
        shown = references_shown(segment.campaign_id).values("id")[:1]
        reference = (
            ReferenceSegment.objects.filter(segment=segment, reference=Subquery(shown))
            .values_list("text", flat=True)
            .first()
        )
    before: list[str] = []
    after: list[str] = []
    if task.context_size and show_source:
        before, after = segment_context(segment, task.context_size)
    lettered = protocol.lettered and len(item.candidates) <= 26
    labels = string.ascii_uppercase if lettered else None
    candidates = [
        {"label": labels[i] if labels else str(i + 1), "text": candidate["text"], "index": i}
        for i, candidate in enumerate(item.candidates)
    ]
    return {
        "source": segment.source if show_source else None,
        "source_media": source_media_of(segment) if show_source else None,
        "reference": reference,
        "context_before": before,
        "context_after": after,
        "candidates": candidates,
        "prefilled_spans": item.prefilled_spans if protocol.prefilled_spans else [],
        "mqm_categories": list(task.mqm_categories or GOOGLE_MQM_CATEGORIES)
        if protocol.span_categories
        else [],
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
