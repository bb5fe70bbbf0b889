"""Reads for a document task's screen: the slots of a page and what the page shows."""

from __future__ import annotations

from typing import Any

from django.db.models import Subquery

from annotation.models import ReferenceSegment, Slot, Task, TaskType
from annotation.selectors.references import references_shown


def page_slots(*, slot: Slot, skipped: bool = False) -> list[Slot]:
    """The slots of the page ``slot`` belongs to, in reading order (its item, segment and
    document along), those skipped left out unless ``skipped``; a slot planned without a
    page (a segment handed on after a skip) is a page of one."""
    slots = Slot.objects.select_related("item__segment__document", "item__campaign")
    if slot.page is None:
        return list(slots.filter(id=slot.id))
    page = slots.filter(batch_id=slot.batch_id, page=slot.page)
    if not skipped:
        page = page.filter(skip__isnull=True)
    return list(page.order_by("position"))


def page_display(*, task: Task, slots: list[Slot]) -> dict[str, Any]:
    """Everything a document page shows: its document, and per segment its slot, source,
    translation, reference (when shown) and pre-filled spans (ESA^AI)."""
    references: dict[int, str] = {}
    if task.shows_reference:
        shown = references_shown(task.campaign_id).values("id")[:1]
        references = dict(
            ReferenceSegment.objects.filter(
                segment_id__in=[slot.item.segment_id for slot in slots],
                reference=Subquery(shown),
            ).values_list("segment_id", "text")
        )
    prefilled = task.task_type == TaskType.ESA_PREFILLED
    segments = [
        {
            "number": number,
            "slot": slot.id,
            "source": slot.item.segment.source,
            "text": slot.item.candidates[0]["text"],
            "reference": references.get(slot.item.segment_id),
            "prefilled_spans": slot.item.prefilled_spans if prefilled else [],
        }
        for number, slot in enumerate(slots, start=1)
    ]
    first = slots[0].item.segment if slots else None
    return {
        "document": first.document.external_id if first is not None else "",
        "segments": segments,
        "page_slot": slots[0].id if slots else None,
    }


PAGE_SEGMENT_KEYS = ("slot", "source", "text", "reference", "prefilled_spans")


def page_body(*, task: Task, slot: Slot) -> dict[str, Any]:
    """The API's view of the page ``slot`` begins (the next item's ``page``): its slots in
    reading order with what each shows; the answer names the first slot."""
    shown = page_display(task=task, slots=page_slots(slot=slot))
    return {
        "unit": task.unit,
        "document": shown["document"],
        "document_score": task.document_score,
        "page": [{key: segment[key] for key in PAGE_SEGMENT_KEYS} for segment in shown["segments"]],
    }
