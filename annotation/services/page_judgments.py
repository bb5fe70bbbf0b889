"""Recording a document page: every segment's answer validated whole, then stored as one
judgment per segment (and the page's score) in one transaction, idempotently.

Each segment is recorded by the loop's one writer (``judging.slot_judge_and_claim``, one
statement per segment, in reading order; the page's slots were served together by the
claim), so the refusals, the batch's counters and closing are the loop's own. Only the
last segment's call claims the next screen. A resubmit finds every segment judged
("mine_judged"): the same answers are a harmless retry, other answers a conflict, and
nothing is recorded twice.

A contrastive page (cESA, contrastive MQM, contrastive DA) is recorded the same way: each
segment's judgment then gets its rows per output (``contrastive.output_judgments_create``, as
a contrastive screen's), and its page score is one score per output, in the page's order.
A page that is an attention check (a repeat, a bad reference, a HOTW or WMT26's
shuffled-translation page) is judged whole (``page_check_answers``), loud or silent as a
screen, its outcome on its first slot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from annotation.models import Judgment, PageScore, Slot, System, Task, Unit
from annotation.protocols import protocol_for
from annotation.selectors.pages import output_labels, page_outputs, page_slots
from annotation.services.checks import CheckResult, check_outcome_record, task_may_plan_checks
from annotation.services.contrastive import output_judgments_create
from annotation.services.jobs import task_priorities_request
from annotation.services.judging import ProgressRow, Skipped, slot_judge_and_claim
from annotation.services.judgments import (
    CLAIM_NEXT,
    CLAIM_NONE,
    JudgmentError,
    _same_answer_or_error,
    _validated,
    check_warning_raise,
    judgment_refusal,
    skip_record,
)
from annotation.services.page_check_answers import page_check_result
from annotation.services.slot_rows import slot_shown
from annotation.services.spans import CheckedSpan, error_spans_create

# The time a page measures per segment counts an idle gap (no key, click or focus change)
# as this much at most (WMT26 caps idle time at 60 s). The page's script reads it from the
# page; the server keeps each segment's time within the page's own.
IDLE_CAP_MS = 60_000
MAX_PAGE_ANSWERS = 200


@dataclass(frozen=True)
class PageRecorded:
    """A page recorded now (``created``) or before (a retry: nothing changed)."""

    judgment_ids: list[int]
    created: bool
    batch_closed: bool

    @property
    def message(self) -> str:
        if self.created:
            return "recorded"
        return "already recorded: this page was saved before, nothing changed"


def page_score_range(*, task: Task) -> tuple[int, int]:
    """The page score's range: the protocol's scores' (0-100 for ESA, MQM and the
    contrastive protocols), else the task's scale."""
    return protocol_for(task.task_type).scores(task.scale)


def _answers_by_slot(answers: Any, slots: list[Slot]) -> dict[int, dict[str, Any]]:
    """Each of the page's slots with its answer; every segment must have exactly one."""
    if not isinstance(answers, list) or len(answers) > MAX_PAGE_ANSWERS:
        raise JudgmentError("invalid", "answers must be a list, one answer per segment")
    wanted = {slot.id: number for number, slot in enumerate(slots, start=1)}
    by_slot: dict[int, dict[str, Any]] = {}
    for answer in answers:
        if not isinstance(answer, dict):
            raise JudgmentError("invalid", "each answer must be an object with its slot")
        slot_id = answer.get("slot")
        if isinstance(slot_id, bool) or not isinstance(slot_id, int) or slot_id not in wanted:
            raise JudgmentError("invalid", f"slot {slot_id!r} is not a segment of this page")
        if slot_id in by_slot:
            raise JudgmentError("invalid", f"segment {wanted[slot_id]} is answered twice")
        by_slot[slot_id] = answer
    missing = [str(number) for slot_id, number in wanted.items() if slot_id not in by_slot]
    if missing:
        raise JudgmentError(
            "invalid",
            f"every segment of the page needs its answer; missing: segment {', '.join(missing)}",
        )
    return by_slot


def _page_scores(task: Task, given: Any, given_each: Any, outputs: int) -> list[int] | None:
    """The page's score (``given``), or a contrastive page's score per output in the page's
    order (``given_each``: one for each of its ``outputs``); None when the task asks for
    none."""
    contrastive = protocol_for(task.task_type).contrastive
    if not task.document_score:
        if given not in (None, "") or given_each not in (None, []):
            raise JudgmentError("invalid", "this task asks for no page score")
        return None
    if contrastive and given not in (None, ""):
        raise JudgmentError(
            "invalid", "this page is scored per translation: send one score for each, in order"
        )
    if not contrastive:
        if given_each not in (None, []):
            raise JudgmentError("invalid", "this page has one page score, not one per output")
        return [_page_score(task, given, "the page score")]
    labels = output_labels(outputs)
    if not isinstance(given_each, list) or len(given_each) != outputs:
        raise JudgmentError(
            "invalid",
            f"the page needs a score for each of its {outputs} translations "
            f"({', '.join(labels)}), in that order",
        )
    return [
        _page_score(task, value, f"the page score of translation {label}")
        for label, value in zip(labels, given_each, strict=True)
    ]


def _page_score(task: Task, given: Any, what: str) -> int:
    low, high = page_score_range(task=task)
    if isinstance(given, bool) or given in (None, ""):
        raise JudgmentError("invalid", f"{what} is required ({low} to {high})")
    wrong = f"{what} must be a whole number from {low} to {high}, not {given!r}"
    try:
        score = int(given)
    except (TypeError, ValueError):
        raise JudgmentError("invalid", wrong) from None
    if str(score) != str(given).strip() or not low <= score <= high:
        raise JudgmentError("invalid", wrong)
    return score


def _active_ms(answer: Mapping[str, Any]) -> int | None:
    """The segment's active time the page measured (idle capped there), if it sent one."""
    value = answer.get("ms")
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return None
    if not math.isfinite(value):
        return None
    return min(int(value), 2**31 - 1)


def page_record_and_claim_next(
    *,
    task: Task,
    slot_id: int,
    annotator_id: int,
    answers: Any,
    document_score: Any = None,
    document_scores: Any = None,
    claim: str = CLAIM_NEXT,
    now: datetime | None = None,
) -> tuple[PageRecorded, Slot | None, ProgressRow]:
    """Records the page whose first slot is ``slot_id``: ``answers`` holds one answer per
    segment (``{"slot", "score", "spans", "ms"}`` as the protocol asks; a contrastive
    page's ``{"slot", "candidates", "ms"}``), validated whole before anything is written;
    then every judgment, its spans (and rows per output) and the page score (a contrastive
    page's: ``document_scores``, one per output in the page's order) commit together, and
    the next screen is claimed (``claim``)."""
    now = now or timezone.now()
    if task.unit != Unit.DOCUMENT:
        raise JudgmentError(
            "invalid", "this task shows one segment per screen: send its judgments one by one"
        )
    slot = Slot.objects.filter(id=slot_id, task_id=task.id).first()
    if slot is None:
        raise judgment_refusal(reason="not_found")
    slots = page_slots(slot=slot)
    if slots[0].id != slot.id:
        raise JudgmentError("invalid", "a page is named by its first slot")
    try:
        by_slot = _answers_by_slot(answers, slots)
        checked: list[tuple[dict[str, Any], list[CheckedSpan]]] = []
        for number, page_slot in enumerate(slots, start=1):
            try:
                checked.append(_validated(task, page_slot.item, by_slot[page_slot.id]))
            except JudgmentError as error:
                raise JudgmentError("invalid", f"segment {number}: {error}") from None
        contrastive = protocol_for(task.task_type).contrastive
        outputs = page_outputs(item=slots[0].item) if contrastive else []
        scores = _page_scores(task, document_score, document_scores, len(outputs))
    except JudgmentError:
        # A released or judged page is said before a bad form (as for one segment).
        done = slot_judge_and_claim(
            task_id=task.id, slot_id=slot.id, annotator_id=annotator_id, values=None, now=now
        )
        if done.outcome == "mine_judged":
            raise JudgmentError(
                "conflict", "this page was already recorded; your new answer was not saved"
            ) from None
        if done.outcome != "valid":
            raise judgment_refusal(reason=done.outcome) from None
        raise
    check = _page_check(task, slots, checked, annotator_id, now)
    with transaction.atomic():
        recorded_ids: list[int] = []
        durations: list[int] = []
        created = False
        for index, (page_slot, (values, spans)) in enumerate(zip(slots, checked, strict=True)):
            last = index == len(slots) - 1
            done = slot_judge_and_claim(
                task_id=task.id,
                slot_id=page_slot.id,
                annotator_id=annotator_id,
                values=values,
                now=now,
                claim=claim if last else CLAIM_NONE,
            )
            if done.outcome == "recorded":
                assert done.judgment_id is not None
                error_spans_create(judgment_id=done.judgment_id, spans=spans)
                if outputs:
                    output_judgments_create(judgment_id=done.judgment_id)
                created = True
                wall = done.duration_ms or 0
                active = _active_ms(by_slot[page_slot.id])
                recorded_ids.append(done.judgment_id)
                durations.append(min(active, wall) if active is not None else wall // len(slots))
            elif done.outcome == "mine_judged":
                assert done.judgment_id is not None
                existing = Judgment.objects.get(id=done.judgment_id)
                _same_answer_or_error(existing, task, page_slot.item, by_slot[page_slot.id])
                recorded_ids.append(done.judgment_id)
            else:
                raise judgment_refusal(reason=done.outcome)
        if created and durations:
            _durations_set(recorded_ids[-len(durations) :], durations)
        if scores is not None:
            _page_scores_record(task, slots, annotator_id, scores, outputs, now)
        if created and check is not None:
            check_outcome_record(
                task=task, slot_id=slot.id, annotator_id=annotator_id, result=check, final=True
            )
    recorded = PageRecorded(recorded_ids, created, done.batch_closed)
    if created and done.batch_closed:
        # dccl: an adaptive task refreshes its priorities and stopping rule every batch (a
        # job), as after a segment's judgment (judgments.judgment_record).
        task_priorities_request(task=task)
    next_slot = done.next_slot_id
    shown = None if next_slot is None else slot_shown(slot_id=next_slot, task=task)
    return recorded, shown, done.progress


def _page_check(
    task: Task,
    slots: list[Slot],
    checked: list[tuple[dict[str, Any], list[CheckedSpan]]],
    annotator_id: int,
    now: datetime,
) -> CheckResult | None:
    """A check page's outcome (a repeat, a bad reference, a HOTW or a shuffled-translation
    page: ``page_check_answers``), or None. Loud and failed the first time: the outcome is
    recorded on the page's first slot and the page refused with the warning
    (``CheckWarning``), nothing else recorded; answered again, the page is recorded whatever
    it is."""
    if not task_may_plan_checks(task=task):
        return None
    result = page_check_result(task=task, slots=slots, answers=checked, annotator_id=annotator_id)
    first = slots[0].id
    # The page's outcome sits on its first slot.
    check_warning_raise(task=task, slot_id=first, annotator_id=annotator_id, result=result, now=now)
    return result


def _durations_set(judgment_ids: list[int], durations: list[int]) -> None:
    """Each new judgment's time: the segment's active time, not the page's (one update)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Judgment._meta.db_table} j SET duration_ms = d.ms"  # noqa: S608 (a constant)
            " FROM unnest(%s::bigint[], %s::integer[]) AS d(id, ms) WHERE j.id = d.id",
            [judgment_ids, durations],
        )


def _page_scores_record(
    task: Task,
    slots: list[Slot],
    annotator_id: int,
    scores: list[int],
    outputs: list[str],
    now: datetime,
) -> None:
    """The page's score (a contrastive page's: one per output, with its system and place),
    once (the slots are locked by the loop's writer meanwhile)."""
    first = slots[0]
    existing = dict(PageScore.objects.filter(slot_id=first.id).values_list("position", "score"))
    if existing:
        if [existing.get(position) for position in range(len(scores))] != scores:
            said = ", ".join(str(existing[position]) for position in sorted(existing))
            raise JudgmentError(
                "conflict", f"this page was already scored {said}; your new answer was not saved"
            )
        return
    systems = {}
    if outputs:
        named = System.objects.filter(campaign_id=task.campaign_id, name__in=outputs)
        systems = {system.name: system for system in named}
    PageScore.objects.bulk_create(
        PageScore(
            slot=first,
            position=position,
            task=task,
            annotator_id=annotator_id,
            document=first.item.segment.document,
            system=systems.get(outputs[position]) if outputs else first.item.system,
            item_type=first.item.item_type,
            is_repeat=first.is_repeat,
            segments=len(slots),
            score=score,
            submitted_at=now,
        )
        for position, score in enumerate(scores)
    )


@transaction.atomic
def page_skip(
    *,
    task: Task,
    slot_id: int,
    annotator_id: int,
    reason: str,
    note: str = "",
    now: datetime | None = None,
) -> Skipped:
    """Skips every segment of the page ``slot_id`` begins, as the loop skips one
    (``skip_record``: each handed on to someone else, its planned repeat and bad reference
    cancelled), all or none; skipping again changes nothing. Returns the last skip."""
    slot = Slot.objects.filter(id=slot_id, task_id=task.id).first()
    if slot is None:
        raise judgment_refusal(reason="not_found")
    skipped = None
    for page_slot in page_slots(slot=slot, skipped=True):
        skipped = skip_record(
            task_id=task.id,
            slot_id=page_slot.id,
            annotator_id=annotator_id,
            reason=reason,
            note=note,
            now=now,
        )
    assert skipped is not None  # a page has a slot
    return skipped
