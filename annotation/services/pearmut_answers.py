"""Pearmut annotations (``data/outputs/<campaign>.jsonl``) stored as judgments of an imported
Pearmut task (``pearmut_imports``): every line checked against the campaign file before the
first write; each annotator (an account that cannot log in, named by Pearmut's user id) gets
a finished batch of their own, so the task's planned batches still ask for fresh judgments.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import Max
from django.utils import timezone

from annotation.lib import json_limits
from annotation.lib.pearmut import PearmutCampaign
from annotation.lib.pearmut_items import PearmutError, pearmut_span
from annotation.models import Batch, ErrorSpan, Item, Judgment, Slot, Task
from annotation.protocols import protocol_for
from annotation.services.contrastive import output_judgments_create
from annotation.services.pearmut_media import PearmutImportError
from annotation.services.span_imports import SpanImportError, rater_accounts
from annotation.services.spans import error_span_row
from metrics.spans import Span

# The keys a line of the annotations file, and an annotation of one output, may have.
LINE_KEYS = {"annotation", "actions", "item", "user_id", "item_i"}
VALUE_KEYS = {"score", "error_spans", "textfield"}


@dataclass
class _Answer:
    user: str
    item: Item
    score: int | None
    spans: list[Span]
    served_at: datetime
    submitted_at: datetime
    duration_ms: int
    system: str = ""
    # Contrastive screens: every candidate's score in screen order, spans by candidate.
    candidate_scores: list[int] | None = None
    candidate_spans: list[tuple[int, Span]] | None = None


def pearmut_annotation_lines(*, text: str, name: str) -> list[dict[str, Any]]:
    """The JSON objects of an annotations file (Pearmut's ``data/outputs/<campaign>.jsonl``)."""
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json_limits.loads(line)
        except json.JSONDecodeError as error:
            raise PearmutImportError(f"{name}, line {number}: invalid JSON: {error.msg}") from None
        if not isinstance(value, dict):
            raise PearmutImportError(f"{name}, line {number}: expected a JSON object")
        value["_line"] = number
        lines.append(value)
    return lines


def pearmut_answers_store(
    *,
    task: Task,
    parsed: PearmutCampaign,
    items: list[dict[str, Item]],
    lines: Sequence[dict[str, Any]],
    name: str = "annotations",
) -> None:
    """Checks every annotation of ``lines`` (the file ``name``) against the campaign and
    stores them as judgments; ``items``: one dict per Pearmut item (system → evalsite item),
    documents in the file's order."""
    _store_answers(task, _answers(task, parsed, items, lines, name), name)


def _answers(
    task: Task,
    parsed: PearmutCampaign,
    items: list[dict[str, Item]],
    lines: Sequence[dict[str, Any]],
    name: str,
) -> list[_Answer]:
    """Every annotation of every line, checked; a line's document is found by its items."""
    # A document is known by its items' ids, sources and outputs: Pearmut gives the same
    # document to several tasks, each with other systems.
    by_items: dict[tuple[tuple[str, str, str], ...], list[int]] = {}
    first_row = []
    row = 0
    for number, parsed_document in enumerate(parsed.documents):
        signature = tuple(
            (item.item_id, item.source, _outputs_key(item.outputs))
            for item in parsed_document.items
        )
        by_items.setdefault(signature, []).append(number)
        first_row.append(row)
        row += len(parsed_document.items)
    answers: list[_Answer] = []
    seen: set[tuple[str, int, str]] = set()
    for line in lines:
        where = f"{name}, line {line['_line']}"
        unknown = sorted(set(line) - LINE_KEYS - {"_line"})
        if unknown:
            raise PearmutImportError(f"{where}: unknown key {', '.join(map(repr, unknown))}")
        for key in ("annotation", "item", "user_id"):
            if key not in line:
                raise PearmutImportError(f"{where}: missing {key!r}")
        document_items = line["item"]
        if not isinstance(document_items, list) or not all(
            isinstance(i, dict) for i in document_items
        ):
            raise PearmutImportError(f"{where}: 'item' must list the document's items")
        signature = tuple(
            (str(i.get("item_id")), i.get("src"), _outputs_key(i.get("tgt")))
            for i in document_items
        )
        matches = by_items.get(signature)
        if not matches:
            raise PearmutImportError(f"{where}: its document is not in the campaign file")
        user = str(line["user_id"])
        users = [m for m in matches if parsed.documents[m].user == user]
        document = (users or matches)[0]
        annotation = line["annotation"]
        if not isinstance(annotation, list) or len(annotation) != len(document_items):
            raise PearmutImportError(f"{where}: 'annotation' needs one entry per item")
        served, submitted = _times(line.get("actions"), where)
        judged = []
        for position, given in enumerate(annotation):
            if not isinstance(given, dict):
                raise PearmutImportError(f"{where}, item {position + 1}: expected an object")
            row_items = items[first_row[document] + position]
            for system, value in given.items():
                at = f"{where}, item {position + 1}, system {system!r}"
                if system not in row_items:
                    raise PearmutImportError(f"{at}: no such output in the campaign")
                answer = _answer(
                    task, user, row_items[system], system, value, at, served, submitted
                )
                if answer is None:
                    continue
                judged_key = (user, answer.item.external_id, system)
                if judged_key in seen:
                    raise PearmutImportError(f"{at}: {user!r} annotates this output twice")
                seen.add(judged_key)
                judged.append(answer)
        for answer in judged:
            answer.duration_ms = int((submitted - served).total_seconds() * 1000 / len(judged))
        answers += judged
    return answers


def _outputs_key(outputs: Any) -> str:
    return json.dumps(outputs, sort_keys=True, ensure_ascii=False)


def _times(actions: Any, where: str) -> tuple[datetime, datetime]:
    """The first and the last action's time (Unix seconds), or now when none is given."""
    if not actions:
        now = timezone.now()
        return now, now
    if not isinstance(actions, list):
        raise PearmutImportError(f"{where}: 'actions' must be a list")
    try:
        times = [float(action["time"]) for action in actions]
    except (KeyError, TypeError, ValueError):
        raise PearmutImportError(f"{where}: every action needs a time (Unix seconds)") from None
    return (
        datetime.fromtimestamp(min(times), tz=UTC),
        datetime.fromtimestamp(max(times), tz=UTC),
    )


def _answer(
    task: Task,
    user: str,
    item: Item,
    system: str,
    value: Any,
    where: str,
    served: datetime,
    submitted: datetime,
) -> _Answer | None:
    if not isinstance(value, dict):
        raise PearmutImportError(f"{where}: expected an object")
    unknown = sorted(set(value) - VALUE_KEYS)
    if unknown:
        raise PearmutImportError(f"{where}: unknown key {', '.join(map(repr, unknown))}")
    if value.get("textfield"):
        raise PearmutImportError(f"{where}: evalsite keeps no free text beside a judgment")
    score, raw_spans = value.get("score"), value.get("error_spans") or []
    if score is None and not raw_spans:
        return None  # not annotated
    target = next(c["text"] for c in item.candidates if system in c["systems"])
    if not isinstance(raw_spans, list):
        raise PearmutImportError(f"{where}: error_spans must be a list")
    protocol = protocol_for(task.task_type)
    if raw_spans and not protocol.spans:
        raise PearmutImportError(f"{where}: error spans on a {task.task_type} task")
    try:
        spans = [pearmut_span(span, target, where) for span in raw_spans]
    except PearmutError as error:
        raise PearmutImportError(str(error)) from None
    # 0-100 (DA, ESA), or the Likert scale the task's slider matched.
    low, high = protocol.scores(task.scale)
    if protocol.penalty_scored:
        score = None  # computed from the spans
    elif "fluency" in protocol.export_columns:  # a second score, of a second slider
        raise PearmutImportError(f"{where}: annotations of two sliders are not read yet")
    elif not isinstance(score, int | float) or not low <= score <= high:
        raise PearmutImportError(f"{where}: score must be a number from {low} to {high}")
    else:
        score = round(score)
    return _Answer(user, item, score, spans, served, submitted, 0, system)


def _screens(answers: list[_Answer], where: str) -> list[_Answer]:
    """Contrastive: the answers of one annotator on one screen joined into one, with every
    candidate's score and spans (a candidate of several identical outputs must have been
    given the same score and spans for each)."""
    joined: dict[tuple[str, int], list[_Answer]] = {}
    for answer in answers:
        joined.setdefault((answer.user, answer.item.external_id), []).append(answer)
    screens = []
    for (user, number), parts in joined.items():
        by_system = {part.system: part for part in parts}
        scores: list[int] = []
        spans: list[tuple[int, Span]] = []
        for position, candidate in enumerate(parts[0].item.candidates):
            given = [by_system.get(system) for system in candidate["systems"]]
            if any(part is None for part in given):
                raise PearmutImportError(
                    f"{where}: {user!r} leaves a translation of screen {number} unjudged"
                )
            first = given[0]
            assert first is not None
            if any(
                part is not None and (part.score, part.spans) != (first.score, first.spans)
                for part in given
            ):
                raise PearmutImportError(
                    f"{where}: {user!r} judges identical outputs of screen {number} differently"
                )
            scores.append(first.score if first.score is not None else 0)
            spans += [(position, span) for span in first.spans]
        screen = parts[0]
        screen.score, screen.spans = None, []
        screen.candidate_scores, screen.candidate_spans = scores, spans
        screen.duration_ms = sum(part.duration_ms for part in parts)
        screens.append(screen)
    return screens


def _store_answers(task: Task, answers: list[_Answer], where: str = "annotations") -> None:
    if not answers:
        return
    protocol = protocol_for(task.task_type)
    contrastive = protocol.contrastive
    if contrastive:
        answers = _screens(answers, where)
    try:
        accounts = rater_accounts(usernames=sorted({answer.user for answer in answers}))
    except SpanImportError as error:
        raise PearmutImportError(str(error)) from None
    top = Batch.objects.filter(task=task).aggregate(number=Max("number"), group=Max("group"))
    replicas = dict(
        Slot.objects.filter(task=task, is_repeat=False)
        .values("item_id")
        .annotate(top=Max("replica"))
        .values_list("item_id", "top")
    )
    batches: dict[str, Batch] = {}
    for offset, user in enumerate(accounts):
        size = sum(1 for answer in answers if answer.user == user)
        batches[user] = Batch(
            task=task,
            number=(top["number"] or 0) + 1 + offset,
            group=(top["group"] or 0) + 1 + offset,
            size=size,
            judged=size,
            next_position=size,
            state=Batch.State.DONE,
            annotator=accounts[user],
        )
    Batch.objects.bulk_create(batches.values())
    positions: dict[str, int] = {}
    slots, judgments = [], []
    for answer in answers:
        replica = replicas[answer.item.id] = replicas.get(answer.item.id, -1) + 1
        position = positions[answer.user] = positions.get(answer.user, -1) + 1
        slot = Slot(
            task=task,
            item=answer.item,
            batch=batches[answer.user],
            position=position,
            replica=replica,
            state=Slot.State.DONE,
            annotator=accounts[answer.user],
            served_at=answer.served_at,
        )
        slots.append(slot)
        judgments.append(
            Judgment(
                slot=slot,
                task=task,
                item=answer.item,
                annotator=accounts[answer.user],
                task_type=task.task_type,
                score=answer.score,
                candidate_scores=answer.candidate_scores if protocol.scored else None,
                served_at=answer.served_at,
                submitted_at=answer.submitted_at,
                duration_ms=answer.duration_ms,
            )
        )
    Slot.objects.bulk_create(slots)
    Judgment.objects.bulk_create(judgments)
    ErrorSpan.objects.bulk_create(
        error_span_row(judgment=judgment, span=span)
        for judgment, answer in zip(judgments, answers, strict=True)
        for span in answer.spans
    )
    if contrastive:
        ErrorSpan.objects.bulk_create(
            error_span_row(judgment=judgment, span=span, candidate=position)
            for judgment, answer in zip(judgments, answers, strict=True)
            for position, span in answer.candidate_spans or []
        )
        for judgment in judgments:
            output_judgments_create(judgment_id=judgment.id)
