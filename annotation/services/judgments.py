"""Recording judgments: idempotent, guarded by the database, never overwriting another."""

from __future__ import annotations

import unicodedata
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.models import Item, Judgment, SkipReason, Slot, Task
from annotation.protocols import AnswerError, protocol_for
from annotation.services.check_answers import check_result
from annotation.services.checks import (
    CheckResult,
    check_outcome_record,
    check_warns,
    slot_check,
    task_may_plan_checks,
)
from annotation.services.contrastive import contrastive_answer_validated, screen_rows_create
from annotation.services.jobs import task_priorities_request
from annotation.services.judging import ProgressRow, Skipped, slot_judge_and_claim, slot_skip
from annotation.services.slot_rows import slot_shown, task_slot_with_item
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


class CheckWarning(JudgmentError):
    """A loud attention check the answer failed: nothing recorded but the check's outcome;
    the annotator is warned and answers again (``services.checks``)."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid", message)


@dataclass
class Recorded:
    """A judgment recorded now (``created``) or before (a retry). ``batch_closed``: it was the
    last of its batch."""

    judgment_id: int
    duration_ms: int
    hter: float | None
    created: bool
    batch_closed: bool = False

    @property
    def message(self) -> str:
        if self.created:
            return "recorded"
        return "already recorded: this answer was saved before, nothing changed"

    @cached_property
    def judgment(self) -> Judgment:
        """The stored judgment, read when asked for."""
        return Judgment.objects.get(id=self.judgment_id)


def answer_columns(
    *, task_type: str, scale: str, candidates: list[dict[str, Any]], answer: dict[str, Any]
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
    """Spans (checked or stored) as comparable tuples, in order (a retry sends the same
    spans again); a contrastive screen's name their candidate."""
    keys = []
    for entry in spans:
        span = getattr(entry, "span", entry)
        keys.append(
            (
                -1 if entry.candidate is None else entry.candidate,
                span.start is None,
                span.start or 0,
                span.end or 0,
                span.severity,
                span.category or "",
            )
        )
    return sorted(keys)


def _same_answer_or_error(
    existing: Judgment, task: Task, item: Item | None, answer: dict[str, Any]
) -> None:
    """A second answer to a judged item (another tab, a stale form): the same one is a
    harmless retry; a different one is refused and said, never silently dropped."""
    try:
        values, spans = _validated(task, item, answer)
        marks_spans = protocol_for(existing.task_type).spans
        if marks_spans and _span_keys(spans) != _span_keys(existing.spans.all()):
            values = {}  # other spans: a different answer
    except JudgmentError:
        values = {}
    if all(values.get(c) == getattr(existing, c) for c in ANSWER_COLUMNS if c in values) and values:
        return
    saved = {c: getattr(existing, c) for c in ANSWER_COLUMNS}
    raise JudgmentError(
        "conflict",
        f"this item was already recorded as {_answer_text(saved)} (in another tab or window); "
        "your new answer was not saved",
    )


def _validated(
    task: Task, item: Item | None, answer: dict[str, Any]
) -> tuple[dict[str, Any], list[CheckedSpan]]:
    """The answer's columns and spans, or JudgmentError; ``item`` None: the task alone checks
    the answer (``item_needed`` is false). The protocol declares who checks it: the
    contrastive services (every output of the screen), the span services (the spans against
    the item's text), or its own ``answer``."""
    protocol = protocol_for(task.task_type)
    if protocol.contrastive:
        assert item is not None  # item_needed
        try:
            return contrastive_answer_validated(task=task, item=item, answer=answer)
        except (AnswerError, SpanAnswerError) as error:
            raise JudgmentError("invalid", str(error)) from None
    if protocol.spans:
        assert item is not None  # item_needed
        try:
            return span_answer_validated(task=task, item=item, answer=answer)
        except SpanAnswerError as error:
            raise JudgmentError("invalid", str(error)) from None
    candidates = item.candidates if item is not None else []
    return answer_columns(
        task_type=task.task_type, scale=task.scale, candidates=candidates, answer=answer
    ), []


def item_needed(*, task: Task) -> bool:
    """Whether checking an answer needs the item (its outputs, its text for spans), as the
    task's protocol declares."""
    return protocol_for(task.task_type).needs_item(task.scale)


# Why a judgment or skip is refused, by the reason evalsite_slot_refusal gives (in SQL, with
# the order of the checks), each said once.
_REFUSALS = {
    "not_found": ("not_found", "no such item in this task"),
    "taken": (
        "conflict",
        "another annotator judged this item after it was released; your answer was not needed",
    ),
    "mine_skipped": ("conflict", "you skipped this item; it went to someone else"),
    "mine_judged": ("conflict", "this item was judged already; it cannot be skipped"),
    "not_assigned": (
        "conflict",
        "this item is no longer assigned to you (it was "
        "released after a long pause); take the next item",
    ),
    "not_served": ("conflict", "this item was not shown to you yet; take the next item"),
    "judged_already": ("conflict", "you have judged this item already"),
}


def check_warning_raise(
    *, task: Task, slot_id: int, annotator_id: int, result: CheckResult | None, now: datetime
) -> None:
    """A loud check's first answer that failed it: when the slot is the annotator's and not
    judged yet, its outcome is recorded (not final) and the answer refused with the warning
    (``CheckWarning``); nothing else is written. Otherwise it returns and the answer goes on
    (a silent check, a passed one, a second answer). Screens and document pages alike."""
    if result is None or not check_warns(task=task, slot_id=slot_id, result=result):
        return
    probe = slot_judge_and_claim(
        task_id=task.id, slot_id=slot_id, annotator_id=annotator_id, values=None, now=now
    )
    if probe.outcome == "valid":
        check_outcome_record(
            task=task, slot_id=slot_id, annotator_id=annotator_id, result=result, final=False
        )
        raise CheckWarning(result.warning)


def judgment_refusal(*, reason: str) -> JudgmentError:
    if reason.startswith("task_"):
        label = Task.State(reason.removeprefix("task_")).label.lower()
        return JudgmentError("conflict", f"the task is {label}: your answer was not recorded")
    return JudgmentError(*_REFUSALS[reason])


# What the loop claims after a judgment (evalsite_judge_and_claim's p_claim).
CLAIM_NEXT = "yes"
CLAIM_IN_BATCH = "in_batch"  # the page: a closed batch stops at the "batch done" screen
CLAIM_NONE = "no"


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
    task = Task.objects.filter(id=task_id).first()
    if task is None:
        raise judgment_refusal(reason="not_found")
    recorded, _, _ = judgment_record_and_claim_next(
        task=task,
        slot_id=slot_id,
        annotator_id=annotator_id,
        answer=answer,
        claim=CLAIM_NONE,
        now=now,
    )
    return recorded


def judgment_record_and_claim_next(
    *,
    task: Task,
    slot_id: int,
    annotator_id: int,
    answer: dict[str, Any],
    claim: str = CLAIM_NEXT,
    now: datetime | None = None,
) -> tuple[Recorded, Slot | None, ProgressRow]:
    """Records the answer and claims the annotator's next slot (``claim``) in one statement
    (``judging.slot_judge_and_claim``): the judgment, the claim and the progress after them
    commit together. The answer is validated first (its item read when the check needs it); a
    refused answer is still checked against the slot, so a released or judged slot is said
    before a bad form. A span task's spans are written in the same transaction, and so is the
    outcome of an attention check (``services.checks``); a loud check the answer fails is
    refused with a warning (``CheckWarning``), nothing recorded but the outcome."""
    now = now or timezone.now()
    item, refused, slot = None, None, None
    values: dict[str, Any] = {}
    spans: list[CheckedSpan] = []
    # The slot with its item: the answer's check needs the item, an attention check both.
    if item_needed(task=task) or task_may_plan_checks(task=task):
        slot = task_slot_with_item(task=task, slot_id=slot_id)
    if item_needed(task=task) and slot is not None:
        item = slot.item
    if item is None and item_needed(task=task):
        refused = judgment_refusal(reason="not_found")  # the check below says so (the slot is not)
    else:
        try:
            values, spans = _validated(task, item, answer)
        except JudgmentError as error:
            refused = error
    contrastive = protocol_for(task.task_type).contrastive  # a row per output too
    check = None if refused or slot is None else slot_check(slot=slot)
    result = None
    if check is not None:
        result = check_result(
            task=task, check=check, annotator_id=annotator_id, values=values, spans=spans
        )
    check_warning_raise(
        task=task, slot_id=slot_id, annotator_id=annotator_id, result=result, now=now
    )
    with transaction.atomic() if spans or contrastive or result else nullcontext():
        done = slot_judge_and_claim(
            task_id=task.id,
            slot_id=slot_id,
            annotator_id=annotator_id,
            values=None if refused else values,
            now=now,
            claim=claim,
        )
        # The spans (and a screen's rows per output) commit with their judgment or not at all.
        if done.outcome == "recorded" and contrastive:
            assert done.judgment_id is not None
            screen_rows_create(judgment_id=done.judgment_id, spans=spans)  # one statement
        elif done.outcome == "recorded" and spans:
            assert done.judgment_id is not None
            error_spans_create(judgment_id=done.judgment_id, spans=spans)
        if done.outcome == "recorded" and result is not None:
            check_outcome_record(
                task=task, slot_id=slot_id, annotator_id=annotator_id, result=result, final=True
            )
        if done.outcome == "valid" and refused is not None:
            raise refused
        if done.outcome == "mine_judged":
            assert done.judgment_id is not None
            existing = Judgment.objects.get(id=done.judgment_id)
            _same_answer_or_error(existing, task, item, answer)
            recorded = Recorded(
                existing.id, existing.duration_ms, existing.hter, False, done.batch_closed
            )
        elif done.outcome == "recorded":
            assert done.judgment_id is not None
            recorded = Recorded(
                done.judgment_id, done.duration_ms or 0, values.get("hter"), True, done.batch_closed
            )
        else:
            raise judgment_refusal(reason=done.outcome)
    if done.outcome == "recorded" and done.batch_closed:
        # An adaptive task refreshes its priorities and stopping rule every batch (a job).
        task_priorities_request(task=task)
    next_slot = done.next_slot_id
    shown = None if next_slot is None else slot_shown(slot_id=next_slot, task=task)
    return recorded, shown, done.progress


MAX_SKIP_NOTE_CHARS = 500


def _text_or_error(text: str, what: str) -> str:
    """Free text as it is stored: NUL, other control characters and lone surrogates (which
    PostgreSQL cannot store, or a page cannot show) are refused."""
    if any(
        (unicodedata.category(c) == "Cc" and c not in "\t\n") or unicodedata.category(c) == "Cs"
        for c in text
    ):
        raise JudgmentError("invalid", f"the {what} contains control characters or broken Unicode")
    return text


def skip_record(
    *,
    task_id: int,
    slot_id: int,
    annotator_id: int,
    reason: str,
    note: str = "",
    now: datetime | None = None,
) -> Skipped:
    """Records that the annotator skipped or flagged the slot's item with a reason; no
    judgment is counted, the item's repeat and bad references in the batch are cancelled and
    the item goes to someone else (``judging.slot_skip``: one statement)."""
    if reason not in SkipReason.values:
        raise JudgmentError(
            "invalid", f"the reason must be one of {', '.join(SkipReason.values)}, not {reason!r}"
        )
    note = _text_or_error((note or "").strip(), "note")
    if len(note) > MAX_SKIP_NOTE_CHARS:
        raise JudgmentError("invalid", f"the note is over {MAX_SKIP_NOTE_CHARS} characters")
    done = slot_skip(
        task_id=task_id,
        slot_id=slot_id,
        annotator_id=annotator_id,
        reason=reason,
        note=note,
        now=now or timezone.now(),
    )
    if done.outcome not in ("recorded", "mine_skipped"):
        raise judgment_refusal(reason=done.outcome)
    return done
