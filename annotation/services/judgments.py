"""Recording judgments: idempotent, guarded by the database, never overwriting another."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.models import (
    SPAN_TYPES,
    Judgment,
    Skip,
    SkipReason,
    Slot,
    Task,
)
from annotation.protocols import AnswerError, protocol_for
from annotation.services.assignment import (
    batch_after_judgment,
    batch_lock,
    slot_skip,
)
from annotation.services.spans import (
    CheckedSpan,
    SpanAnswerError,
    error_spans_create,
    span_answer_validated,
)


class JudgmentError(ApplicationError):
    """Why a judgment was not recorded; its kind (``code``): invalid, not_found or conflict."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, kind=code)

    @property
    def code(self) -> str:
        return self.kind


@dataclass
class Recorded:
    judgment: Judgment
    created: bool

    @property
    def message(self) -> str:
        if self.created:
            return "recorded"
        return "already recorded: this answer was saved before, nothing changed"


def answer_columns(
    task_type: str, scale: str, candidates: list[dict[str, Any]], answer: dict[str, Any]
) -> dict[str, Any]:
    """The typed columns of a judgment from the submitted answer, or a clear error: the
    task type's protocol checks it (annotation/protocols)."""
    try:
        return protocol_for(task_type).answer(scale, candidates, answer)
    except AnswerError as error:
        raise JudgmentError("invalid", str(error)) from None


# Columns that hold the answer itself (the others are derived from it, like HTER).
ANSWER_COLUMNS = ("score", "fluency", "preference", "ranks", "candidate_scores", "post_edit")


def _answer_text(values: dict[str, Any]) -> str:
    shown = [values[c] for c in ANSWER_COLUMNS if values.get(c) is not None]
    return ", ".join(str(value) for value in shown)


def _span_keys(spans: Any) -> list[tuple[Any, ...]]:
    """Spans as comparable tuples, in order (a retry sends the same spans again)."""
    return sorted(
        (span.start is None, span.start or 0, span.end or 0, span.severity, span.category or "")
        for span in spans
    )


def _same_answer_or_error(existing: Judgment, slot: Slot, answer: dict[str, Any]) -> None:
    """A second answer to a judged item (another tab, a stale form): the same one is a
    harmless retry; a different one is refused and said, never silently dropped."""
    try:
        if existing.task_type in SPAN_TYPES:
            values, spans = span_answer_validated(task=slot.task, item=slot.item, answer=answer)
            if _span_keys(s.span for s in spans) != _span_keys(existing.spans.all()):
                values = {}  # other spans: a different answer
        else:
            candidates = slot.item.candidates
            values = answer_columns(existing.task_type, slot.task.scale, candidates, answer)
    except (JudgmentError, SpanAnswerError):
        values = {}
    if all(values.get(c) == getattr(existing, c) for c in ANSWER_COLUMNS if c in values) and values:
        return
    saved = {c: getattr(existing, c) for c in ANSWER_COLUMNS}
    raise JudgmentError(
        "conflict",
        f"this item was already recorded as {_answer_text(saved)} (in another tab or window); "
        "your new answer was not saved",
    )


def _task_open_or_error(task: Task) -> None:
    if task.state != Task.State.LAUNCHED:
        raise _task_closed(task.state)


def _task_closed(state: str) -> JudgmentError:
    label = Task.State(state).label.lower()
    return JudgmentError("conflict", f"the task is {label}: your answer was not recorded")


# Why a judgment is refused, by the reason's name (evalsite_judge_and_claim answers with
# it; judgment_record_in_transaction raises the same), each said once.
_REFUSALS = {
    "not_found": ("not_found", "no such item in this task"),
    "taken": (
        "conflict",
        "another annotator judged this item after it was released; your answer was not needed",
    ),
    "skipped": ("conflict", "you skipped this item; it went to someone else"),
    "not_assigned": (
        "conflict",
        "this item is no longer assigned to you (it was "
        "released after a long pause); take the next item",
    ),
    "not_served": ("conflict", "this item was not shown to you yet; take the next item"),
    "judged_already": ("conflict", "you have judged this item already"),
}


def judgment_refusal(reason: str) -> JudgmentError:
    if reason.startswith("task_"):
        return _task_closed(reason.removeprefix("task_"))
    return JudgmentError(*_REFUSALS[reason])


@transaction.atomic
def judgment_record(
    *,
    task_id: int,
    slot_id: int,
    annotator_id: int,
    answer: dict[str, Any],
    now: datetime | None = None,
) -> Recorded:
    """Records the answer to a slot leased to this annotator.

    Submitting again (a double click, a retry, a stale form) returns the judgment already
    recorded and changes nothing. A slot taken over by someone else after its lease expired
    is a conflict; the answer is not recorded and the response says so.
    """
    return judgment_record_in_transaction(
        task_id=task_id, slot_id=slot_id, annotator_id=annotator_id, answer=answer, now=now
    )


def judgment_record_in_transaction(
    *,
    task_id: int,
    slot_id: int,
    annotator_id: int,
    answer: dict[str, Any],
    now: datetime | None = None,
) -> Recorded:
    """``judgment_record`` inside the caller's transaction (no savepoint of its own)."""
    now = now or timezone.now()
    batch_lock(task_id=task_id, slot_id=slot_id)
    # The slot, locked, with its task, item and any judgment already recorded: one query.
    slot = (
        Slot.objects.select_for_update(of=("self",))
        .select_related("task", "item", "judgment", "skip")
        .filter(id=slot_id, task_id=task_id)
        .first()
    )
    if slot is None:
        raise judgment_refusal("not_found")
    existing = getattr(slot, "judgment", None)
    if existing is not None:
        if existing.annotator_id == annotator_id:
            _same_answer_or_error(existing, slot, answer)
            return Recorded(existing, created=False)
        raise judgment_refusal("taken")
    _task_open_or_error(slot.task)
    if hasattr(slot, "skip"):
        raise judgment_refusal("skipped")
    if slot.annotator_id != annotator_id or slot.state != Slot.State.LEASED:
        raise judgment_refusal("not_assigned")
    if slot.served_at is None:
        # Items of a batch are judged in order: one not shown yet is not answered yet.
        raise judgment_refusal("not_served")
    spans: list[CheckedSpan] = []
    if slot.task.task_type in SPAN_TYPES:
        try:
            values, spans = span_answer_validated(task=slot.task, item=slot.item, answer=answer)
        except SpanAnswerError as error:
            raise JudgmentError("invalid", str(error)) from None
    else:
        values = answer_columns(slot.task.task_type, slot.task.scale, slot.item.candidates, answer)
    served_at = slot.served_at
    try:
        with transaction.atomic():
            judgment = Judgment.objects.create(
                slot=slot,
                task_id=task_id,
                item_id=slot.item_id,
                annotator_id=annotator_id,
                task_type=slot.task.task_type,
                is_repeat=slot.is_repeat,
                served_at=served_at,
                submitted_at=now,
                duration_ms=max(0, int((now - served_at).total_seconds() * 1000)),
                **values,
            )
            # The spans commit with their judgment or not at all.
            error_spans_create(judgment=judgment, spans=spans)
    except IntegrityError:
        raise judgment_refusal("judged_already") from None
    slot.state = Slot.State.DONE
    slot.save(update_fields=["state"])
    batch_after_judgment(slot=slot, now=now)
    return Recorded(judgment, created=True)


MAX_SKIP_NOTE_CHARS = 500


@transaction.atomic
def skip_record(
    *,
    task_id: int,
    slot_id: int,
    annotator_id: int,
    reason: str,
    note: str = "",
    now: datetime | None = None,
) -> Skip:
    """Records that the annotator skipped or flagged the slot's item with a reason; no
    judgment is counted and the item goes to someone else (``assignment.slot_skip``)."""
    now = now or timezone.now()
    if reason not in SkipReason.values:
        raise JudgmentError(
            "invalid", f"the reason must be one of {', '.join(SkipReason.values)}, not {reason!r}"
        )
    note = (note or "").strip()
    if len(note) > MAX_SKIP_NOTE_CHARS:
        raise JudgmentError("invalid", f"the note is over {MAX_SKIP_NOTE_CHARS} characters")
    batch_lock(task_id=task_id, slot_id=slot_id)
    slot = (
        Slot.objects.select_for_update(of=("self",))
        .select_related("task")
        .filter(id=slot_id, task_id=task_id)
        .first()
    )
    if slot is None:
        raise JudgmentError("not_found", "no such item in this task")
    _task_open_or_error(slot.task)
    existing = Skip.objects.filter(slot=slot).first()
    if existing is not None and existing.annotator_id == annotator_id:
        return existing  # a double click
    if hasattr(slot, "judgment"):
        raise JudgmentError("conflict", "this item was judged already; it cannot be skipped")
    if slot.annotator_id != annotator_id or slot.state != Slot.State.LEASED:
        raise JudgmentError("conflict", "this item is no longer assigned to you")
    if slot.served_at is None:
        raise JudgmentError("conflict", "this item was not shown to you yet; take the next item")
    skip = Skip.objects.create(
        slot=slot,
        task_id=task_id,
        item_id=slot.item_id,
        annotator_id=annotator_id,
        reason=reason,
        note=note,
    )
    slot_skip(slot=slot, now=now)
    return skip
