"""A task's judgments in the shape Pearmut's results tools read (its ``data/outputs/*.jsonl``):
one JSON line per annotator and document, ``{"annotation": [per item {system: {"score",
"error_spans": [{"start_i", "end_i", "category", "severity"}], "textfield"}}], "actions",
"item": [the document's items], "user_id", "item_i"}``.

Spans are written with Pearmut's inclusive ends (a missing-content marker at the end of the
text, as Pearmut places ``[missing]``). Items imported from Pearmut keep their ids, document
and position (``source_meta["pearmut"]``); other items are grouped by their document, item
ids made of the document and the segment. ``actions`` is empty: evalsite records a judgment's
time, not each click.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from annotation.exports import pseudonym
from annotation.models import ErrorSpan, Item, Judgment, Task
from annotation.protocols import protocol_for


def _place(item: Item) -> tuple[Any, int, str]:
    """(document key, position in it, Pearmut item id) of an item."""
    meta = (item.source_meta or {}).get("pearmut")
    if meta:
        return ("pearmut", meta["document"]), meta["position"], meta["item_id"]
    document = item.segment.document
    return (
        ("document", document.position),
        item.segment.index,
        f"{document.external_id}_#_{item.segment.index}",
    )


def pearmut_output_lines(
    *, task: Task, included_only: bool = False, pseudonymise: bool = False
) -> Iterator[str]:
    """The lines (a generator: the download streams them)."""
    return _lines(task, included_only, pseudonymise)


def _lines(task: Task, included_only: bool, pseudonymise: bool) -> Iterator[str]:
    # A contrastive screen's item holds its outputs; another item, one output.
    contrastive = protocol_for(task.task_type).contrastive
    items = list(Item.objects.filter(task=task).select_related("segment__document", "system"))
    # Every output of every item on one Pearmut screen: (document, position) → item.
    screens: dict[tuple[Any, int], dict[str, Any]] = {}
    place_of: dict[int, tuple[Any, int]] = {}
    index_of: dict[Any, int] = {}
    for item in sorted(items, key=lambda i: i.external_id):
        document, position, item_id = _place(item)
        place_of[item.id] = (document, position)
        meta = (item.source_meta or {}).get("pearmut") or {}
        index_of.setdefault(document, meta.get("document_index", len(index_of)))
        screen = screens.setdefault(
            (document, position), {"item_id": item_id, "src": item.segment.source, "tgt": {}}
        )
        if item.system is not None:
            screen["tgt"][item.system.name] = item.candidates[0]["text"]
        elif contrastive:
            for candidate in item.candidates:
                for system in candidate["systems"]:
                    screen["tgt"][system] = candidate["text"]
    judgments = Judgment.objects.filter(task=task, is_repeat=False).select_related(
        "annotator", "item__system"
    )
    if included_only:
        judgments = judgments.filter(excluded=False)
    spans: dict[int, list[ErrorSpan]] = {}
    for span in ErrorSpan.objects.filter(judgment__task=task).order_by("id"):
        spans.setdefault(span.judgment_id, []).append(span)
    lines: dict[tuple[int, Any], dict[int, dict[str, Any]]] = {}
    users: dict[int, str] = {}
    for judgment in judgments.order_by("annotator_id", "item__external_id"):
        document, position = place_of[judgment.item_id]
        users[judgment.annotator_id] = (
            pseudonym(judgment.annotator_id) if pseudonymise else judgment.annotator.username
        )
        per_item = lines.setdefault((judgment.annotator_id, document), {})
        values = per_item.setdefault(position, {})
        marked = spans.get(judgment.id, [])
        if contrastive:
            scores = judgment.candidate_scores or []
            for number, candidate in enumerate(judgment.item.candidates):
                value = {
                    "score": scores[number] if number < len(scores) else None,
                    "error_spans": [
                        _span(span, candidate["text"])
                        for span in marked
                        if span.candidate == number
                    ],
                    "textfield": None,
                }
                for system in candidate["systems"]:
                    values[system] = value
            continue
        target = judgment.item.candidates[0]["text"]
        system = judgment.item.system.name if judgment.item.system else "reference"
        values[system] = {
            "score": judgment.score,
            "error_spans": [_span(span, target) for span in marked],
            "textfield": None,
        }
    for (annotator, document), per_item in lines.items():
        positions = sorted(p for d, p in screens if d == document)
        yield (
            json.dumps(
                {
                    "annotation": [per_item.get(position, {}) for position in positions],
                    "actions": [],
                    "item": [screens[(document, position)] for position in positions],
                    "user_id": users[annotator],
                    "item_i": index_of[document],
                },
                ensure_ascii=False,
            )
            + "\n"
        )


def _span(span: ErrorSpan, target: str) -> dict[str, Any]:
    if span.start is None or span.end is None:
        start = end = len(target)
    else:
        start, end = span.start, span.end - 1
    return {
        "start_i": start,
        "end_i": end,
        "category": span.category or None,
        "severity": span.severity,
    }
