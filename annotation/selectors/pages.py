"""Reads for a document task's screen: the slots of a page and what the page shows."""

from __future__ import annotations

import string
from typing import Any

from django.db.models import Subquery

from annotation.models import Item, ReferenceSegment, Slot, Task
from annotation.protocols import protocol_for, reference_shown
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


def page_outputs(*, item: Item) -> list[str]:
    """A contrastive page's systems in their places on the page (A first), read from one of
    its segments: each candidate's ``columns`` (an Appraise page has none: its candidates'
    order is the page's). A check page's outputs name no system: "" in their places."""
    names: dict[int, str] = {}
    for index, candidate in enumerate(item.candidates):
        columns = candidate.get("columns", [index])
        systems = candidate["systems"] or [""] * len(columns)
        for column, name in zip(columns, systems, strict=True):
            names[column] = name
    return [names[column] for column in sorted(names)]


def output_labels(count: int) -> list[str]:
    """The labels of a page's outputs: A, B... (1, 2... past 26)."""
    if count <= len(string.ascii_uppercase):
        return list(string.ascii_uppercase[:count])
    return [str(number) for number in range(1, count + 1)]


def _candidates_shown(item: Item, labels: list[str]) -> list[dict[str, Any]]:
    """A contrastive segment's candidates in screen order, each labelled by its places on
    the page (identical outputs of B and C: "B = C"); never a system's name."""
    shown = []
    for index, candidate in enumerate(item.candidates):
        columns = candidate.get("columns", [index])
        shown.append(
            {
                "label": " = ".join(labels[c] for c in columns),
                "text": candidate["text"],
                "columns": columns,
            }
        )
    return shown


def page_display(*, task: Task, slots: list[Slot]) -> dict[str, Any]:
    """Everything a document page shows: its document, and per segment its slot, source,
    translation (a contrastive page: its candidates), reference (when shown) and pre-filled
    spans (ESA^AI); a contrastive page also its outputs' labels, in their places."""
    references: dict[int, str] = {}
    if reference_shown(task):
        shown = references_shown(task.campaign_id).values("id")[:1]
        references = dict(
            ReferenceSegment.objects.filter(
                segment_id__in=[slot.item.segment_id for slot in slots],
                reference=Subquery(shown),
            ).values_list("segment_id", "text")
        )
    protocol = protocol_for(task.task_type)
    prefilled, contrastive = protocol.prefilled_spans, protocol.contrastive
    labels = output_labels(len(page_outputs(item=slots[0].item))) if contrastive and slots else []
    segments = [
        {
            "number": number,
            "slot": slot.id,
            "source": slot.item.segment.source,
            "text": slot.item.candidates[0]["text"],
            "reference": references.get(slot.item.segment_id),
            "prefilled_spans": slot.item.prefilled_spans if prefilled else [],
            "candidates": _candidates_shown(slot.item, labels) if contrastive else [],
        }
        for number, slot in enumerate(slots, start=1)
    ]
    first = slots[0].item.segment if slots else None
    return {
        "document": first.document.external_id if first is not None else "",
        "segments": segments,
        "page_slot": slots[0].id if slots else None,
        "outputs": labels,
    }


PAGE_SEGMENT_KEYS = ("slot", "source", "text", "reference", "prefilled_spans", "candidates")


def page_body(*, task: Task, slot: Slot) -> dict[str, Any]:
    """The API's view of the page ``slot`` begins (the next item's ``page``): its slots in
    reading order with what each shows; the answer names the first slot."""
    shown = page_display(task=task, slots=page_slots(slot=slot))
    return {
        "unit": task.unit,
        "document": shown["document"],
        "document_score": task.document_score,
        "outputs": shown["outputs"],
        "page": [{key: segment[key] for key in PAGE_SEGMENT_KEYS} for segment in shown["segments"]],
    }
