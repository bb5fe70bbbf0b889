"""Tutorials, the annotator's side: answers graded and their attempts closed (passed or
failed), and a new attempt when the rules allow one. The manager's side (uploads, rules) is
``annotation.services.tutorial_uploads``.

The gate itself is the loop's (``evalsite_tutorial_passed`` in
``sql/0050_cperf2_assignment.sql``): while a task has tutorial items, the claim gives no new
batch to an annotator without a passed attempt, whichever page or API asks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.lib.tutorials import (
    CandidateAnswer,
    expected_said,
    tutorial_grade,
)
from annotation.models import (
    Task,
    TutorialAnswer,
    TutorialAttempt,
    TutorialItem,
)
from annotation.models.tutorials import SKIPPED
from annotation.protocols import protocol_for
from annotation.selectors.tutorials import (
    tutorial_attempts_used,
    tutorial_items,
    tutorial_language,
    tutorial_rules,
)
from annotation.services.spans import spans_checked
from metrics.spans import Span
from metrics.spans.jsonl import span_from_dict


class TutorialError(ApplicationError):
    """A tutorial upload, setting or answer that is refused, with the reason."""


@dataclass(frozen=True)
class TutorialFeedback:
    """What the annotator sees after an answer: whether it was as expected (None: a practice
    screen), what was missed, what was expected and why; and the attempt's end, if it
    ended (``attempt_passed``)."""

    answer_id: int
    item_id: int
    position: int
    total: int
    passed: bool | None
    failures: list[str]
    expected: list[str]
    explanation: str
    attempt_number: int
    attempt_finished: bool
    attempt_passed: bool | None
    correct: int
    graded: int


def _score(value: Any, low: int, high: int, who: str) -> int:
    if isinstance(value, bool) or value is None or value == "":
        raise TutorialError(f"{who}score is required")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise TutorialError(f"{who}score must be a whole number, not {value!r}") from None
    if not low <= number <= high:
        raise TutorialError(f"{who}score must be from {low} to {high}")
    return number


def _spans(task: Task, raw: Any, text: str, source: str, prefilled: list[Span]) -> tuple:
    checked = spans_checked(task=task, raw=raw, target=text, source=source, prefilled=prefilled)
    return tuple(entry.span for entry in checked)


def tutorial_answer_read(*, task: Task, item: TutorialItem, answer: dict) -> list[CandidateAnswer]:
    """The answer per candidate, checked as a real judgment's is (TutorialError or
    SpanAnswerError: a 400)."""
    if not isinstance(answer, dict):
        raise TutorialError("the answer must be an object")
    candidates = item.candidates
    protocol = protocol_for(task.task_type)
    low, high = protocol.scores(task.scale)
    if protocol.contrastive:
        given = answer.get("candidates")
        if not isinstance(given, list) or len(given) != len(candidates):
            raise TutorialError(f"give one {{score, spans}} per candidate ({len(candidates)})")
        read = []
        for index, (entry, candidate) in enumerate(zip(given, candidates, strict=True)):
            who = f"translation {chr(ord('A') + index)}: "
            if not isinstance(entry, dict):
                raise TutorialError(f"{who}expected {{score, spans}}")
            score = _score(entry.get("score"), low, high, who) if protocol.scored else None
            raw_spans = entry.get("spans") or []
            if not protocol.spans and raw_spans:
                raise TutorialError(f"{who}this task marks no spans")
            spans = _spans(task, raw_spans, candidate["text"], item.source, [])
            read.append(CandidateAnswer(score, spans))
        return read
    text = candidates[0]["text"]
    if protocol.spans:
        prefilled = [
            span_from_dict({**entry, "prefilled": True})
            for entry in candidates[0].get("prefilled", [])
        ]
        spans = _spans(task, answer.get("spans") or [], text, item.source, prefilled)
        score = _score(answer.get("score"), low, high, "") if protocol.scored else None
        return [CandidateAnswer(score, spans)]
    return [CandidateAnswer(_score(answer.get("score"), low, high, ""))]


def _current_attempt(task: Task, annotator_id: int) -> TutorialAttempt:
    """The attempt running (locked), the first one started when there is none; refused
    when the last one is over."""
    last = (
        TutorialAttempt.objects.select_for_update()
        .filter(task=task, annotator_id=annotator_id)
        .order_by("-number")
        .first()
    )
    if last is None:
        return TutorialAttempt.objects.create(
            task=task, annotator_id=annotator_id, number=1, language=tutorial_language(task=task)
        )
    if last.passed:
        raise TutorialError("You passed the tutorial already.", kind="conflict")
    if last.passed is False:
        raise TutorialError(
            "This attempt at the tutorial is over; start it again if you may.", kind="conflict"
        )
    return last


def _feedback(
    answer: TutorialAnswer, item: TutorialItem, attempt: TutorialAttempt, total: int
) -> TutorialFeedback:
    return TutorialFeedback(
        answer_id=answer.id,
        item_id=item.id,
        position=item.position,
        total=total,
        passed=answer.passed,
        failures=list(answer.failures),
        expected=expected_said(expected=item.expected, candidates=item.candidates),
        explanation=item.explanation,
        attempt_number=attempt.number,
        attempt_finished=attempt.passed is not None,
        attempt_passed=attempt.passed,
        correct=attempt.correct,
        graded=attempt.graded,
    )


@transaction.atomic
def tutorial_answer_record(
    *, task: Task, annotator_id: int, item_id: int, answer: dict, skip: bool = False
) -> TutorialFeedback:
    """Grades and stores the answer to the attempt's next item; after the last item the
    attempt passes when at least the task's share of its graded items were as expected.
    ``skip``: a skippable item (Pearmut's ``allow_skip``) left unanswered, stored as
    ``SKIPPED`` and not graded, so it cannot fail the attempt; any other item is refused.
    Sending the same item again returns its feedback and changes nothing."""
    if task.state != Task.State.LAUNCHED:
        raise TutorialError(f"The task is {task.get_state_display().lower()}.", kind="conflict")
    attempt = _current_attempt(task, annotator_id)
    items = tutorial_items(task=task, language=attempt.language)
    if not items:
        raise TutorialError("This task has no tutorial.", kind="not_found")
    answered = dict(TutorialAnswer.objects.filter(attempt=attempt).values_list("item_id", "id"))
    by_id = {item.id: item for item in items}
    if item_id in answered:
        done = TutorialAnswer.objects.get(id=answered[item_id])
        return _feedback(done, by_id[item_id], attempt, len(items))
    waiting = [item for item in items if item.id not in answered]
    if not waiting or waiting[0].id != item_id:
        raise TutorialError(
            "Answer the tutorial's items in order: that is not the item shown now.",
            kind="conflict",
        )
    item = waiting[0]
    if skip:
        if not item.skippable:
            raise TutorialError("This tutorial item cannot be skipped: answer it.")
        stored = TutorialAnswer.objects.create(
            attempt=attempt, item=item, answer=SKIPPED, passed=None, failures=[]
        )
    else:
        read = tutorial_answer_read(task=task, item=item, answer=answer)
        failures = (
            tutorial_grade(expected=item.expected, candidates=item.candidates, answers=read)
            if item.graded
            else []
        )
        stored = TutorialAnswer.objects.create(
            attempt=attempt,
            item=item,
            answer=answer,
            passed=(not failures) if item.graded else None,
            failures=failures,
        )
    if len(waiting) == 1:
        _finish(task, attempt)
    return _feedback(stored, item, attempt, len(items))


def _finish(task: Task, attempt: TutorialAttempt) -> None:
    outcomes = list(
        TutorialAnswer.objects.filter(attempt=attempt, passed__isnull=False).values_list(
            "passed", flat=True
        )
    )
    attempt.graded = len(outcomes)
    attempt.correct = sum(1 for passed in outcomes if passed)
    share = tutorial_rules(task=task).pass_share
    # A whole number of items: 0.8 of 6 graded items asks for 5 (4.8 rounded up).
    attempt.passed = attempt.correct >= math.ceil(share * attempt.graded - 1e-9)
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["graded", "correct", "passed", "finished_at"])


@transaction.atomic
def tutorial_retry(*, task: Task, annotator_id: int) -> TutorialAttempt:
    """A new attempt after a failed one, while the task's attempts allow it (counted since
    a manager last let the annotator start again)."""
    last = (
        TutorialAttempt.objects.select_for_update()
        .filter(task=task, annotator_id=annotator_id)
        .order_by("-number")
        .first()
    )
    if last is None or last.passed is None:
        raise TutorialError("Finish this attempt at the tutorial first.", kind="conflict")
    if last.passed:
        raise TutorialError("You passed the tutorial already.", kind="conflict")
    allowed = tutorial_rules(task=task).attempts
    if allowed and tutorial_attempts_used(task=task, annotator_id=annotator_id) >= allowed:
        raise TutorialError(
            f"You have used all {allowed} attempts at this tutorial.", kind="forbidden"
        )
    return TutorialAttempt.objects.create(
        task=task,
        annotator_id=annotator_id,
        number=last.number + 1,
        language=tutorial_language(task=task),
    )
