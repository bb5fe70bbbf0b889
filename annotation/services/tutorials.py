"""Tutorials: the manager's items and rules stored, an annotator's answers graded and their
attempts closed (passed or failed), and a new attempt when the rules allow one.

The gate itself is the loop's (``evalsite_tutorial_passed`` in
``sql/0035_tutorial_assignment.sql``): while a task has tutorial items, the claim gives no new
batch to an annotator without a passed attempt, whichever page or API asks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.lib import json_limits
from annotation.lib.pearmut import PROTOCOLS, PearmutError, pearmut_parse
from annotation.lib.scales import scale_range
from annotation.lib.textfiles import decode_utf8, split_lines
from annotation.lib.tutorials import (
    CandidateAnswer,
    TutorialFile,
    TutorialFormatError,
    expected_said,
    tutorial_from_pearmut,
    tutorial_grade,
    tutorial_lines_parse,
)
from annotation.models import (
    CONTRASTIVE_TYPES,
    ESA_TYPES,
    LIKERT_TYPES,
    SPAN_TYPES,
    Task,
    TaskType,
    Tutorial,
    TutorialAnswer,
    TutorialAttempt,
    TutorialInstructions,
    TutorialItem,
)
from annotation.selectors.tutorials import tutorial_items, tutorial_language, tutorial_rules
from annotation.services.spans import ESA_SCORE_RANGE, spans_checked
from metrics.spans import Span, SpanError
from metrics.spans.jsonl import span_from_dict

# Task types whose answers are scores or spans, which a tutorial item can expect.
TUTORIAL_TYPES = (*LIKERT_TYPES, *SPAN_TYPES, *CONTRASTIVE_TYPES)
NO_SCORE_TYPES = (TaskType.MQM, TaskType.CONTRASTIVE_MQM)  # the score comes from the spans
NO_SPAN_TYPES = (*LIKERT_TYPES, TaskType.CONTRASTIVE_DA)
MAX_ATTEMPTS = 100


class TutorialError(ApplicationError):
    """A tutorial upload, setting or answer that is refused, with the reason."""


@dataclass(frozen=True)
class TutorialStored:
    items: int
    languages: tuple[str, ...]
    instructions: tuple[str, ...]
    notes: list[str] = field(default_factory=list)


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


def tutorial_supported(*, task: Task) -> bool:
    return task.task_type in TUTORIAL_TYPES and (
        task.task_type not in LIKERT_TYPES or task.scale is not None
    )


def _check_items(task: Task, parsed: TutorialFile) -> None:
    several = task.task_type in CONTRASTIVE_TYPES
    for number, draft in enumerate(parsed.items, start=1):
        where = f"tutorial item {number}" + (f" ({draft.external_id})" if draft.external_id else "")
        if not several and len(draft.candidates) != 1:
            raise TutorialError(f"{where}: this task shows one translation per screen")
        for name, rule in draft.expected.items():
            if ("score" in rule or "above" in rule) and task.task_type in NO_SCORE_TYPES:
                raise TutorialError(f"{where}: {name}: MQM has no score to expect (spans only)")
            if "spans" in rule and task.task_type in NO_SPAN_TYPES:
                raise TutorialError(f"{where}: {name}: this task marks no spans")
        for candidate in draft.candidates:
            for entry in candidate.get("prefilled", []):
                try:
                    span_from_dict({**entry, "prefilled": True}).check_within(candidate["text"])
                except (SpanError, ValueError, TypeError) as error:
                    raise TutorialError(f"{where}: prefilled span: {error}") from None


@transaction.atomic
def tutorial_store(
    *,
    task: Task,
    parsed: TutorialFile,
    pass_share: float | None = None,
    attempts: int | None = None,
) -> TutorialStored:
    """Stores an uploaded tutorial whole: the items of each language in the file replace
    that language's items (answers already given are kept, counted, and no longer tied to
    an item); instructions per language; the pass rule and attempts, if given."""
    if not tutorial_supported(task=task):
        raise TutorialError(
            f"{task.get_task_type_display()} tasks have no tutorial: tutorials expect scores"
            " or spans (Likert, DA, ESA, MQM and contrastive tasks)"
        )
    _check_items(task, parsed)
    languages = sorted({draft.language for draft in parsed.items})
    TutorialItem.objects.filter(task=task, language__in=languages).delete()
    positions: dict[str, int] = {}
    rows = []
    for draft in parsed.items:
        position = positions.get(draft.language, 0)
        positions[draft.language] = position + 1
        rows.append(
            TutorialItem(
                task=task,
                language=draft.language,
                position=position,
                external_id=draft.external_id,
                instructions=draft.instructions,
                source=draft.source,
                reference=draft.reference,
                candidates=draft.candidates,
                expected=draft.expected,
                explanation=draft.explanation,
            )
        )
    TutorialItem.objects.bulk_create(rows)
    for language, text in parsed.instructions.items():
        if language:
            TutorialInstructions.objects.update_or_create(
                task=task, language=language, defaults={"text": text}
            )
        else:
            Task.objects.filter(id=task.id).update(instructions=text)
    tutorial_rules_set(task=task, pass_share=pass_share, attempts=attempts)
    return TutorialStored(
        items=len(rows),
        languages=tuple(languages),
        instructions=tuple(sorted(parsed.instructions)),
        notes=list(parsed.notes),
    )


# Pearmut protocols whose tutorial a task can take: the protocol's own task type, ESA's
# for ESA^AI too.
PEARMUT_FAMILY: dict[str, str] = {TaskType.ESA_PREFILLED: TaskType.ESA}


def tutorial_file_read(*, task: Task, name: str, data: bytes, language: str = "") -> TutorialFile:
    """An uploaded tutorial: Pearmut's campaign or tutorial JSON (its ``validation`` items),
    or evalsite's JSON Lines; checked whole, nothing written."""
    text = decode_utf8(name, data)
    language = language.strip().lower()
    try:
        stripped = text.lstrip()
        whole = json_limits.loads(text) if stripped.startswith("{") else None
        if isinstance(whole, dict) and "info" in whole and "data" in whole:
            campaign = pearmut_parse(whole, name=name)
            wanted = PEARMUT_FAMILY.get(task.task_type, task.task_type)
            given = PEARMUT_FAMILY.get(campaign.task_type, PROTOCOLS[campaign.protocol])
            if given != wanted:
                raise TutorialError(
                    f"{name} is a Pearmut {campaign.protocol} tutorial; this task is"
                    f" {task.get_task_type_display()}"
                )
            return tutorial_from_pearmut(
                campaign, language=language, single=task.task_type not in CONTRASTIVE_TYPES
            )
        parsed = tutorial_lines_parse(split_lines(name, text), name=name)
    except (PearmutError, TutorialFormatError) as error:
        raise TutorialError(str(error)) from None
    except ValueError:
        # One JSON object that is not a Pearmut file, or a JSON Lines file: read as lines.
        try:
            parsed = tutorial_lines_parse(split_lines(name, text), name=name)
        except TutorialFormatError as error:
            raise TutorialError(str(error)) from None
    if language:
        for draft in parsed.items:
            draft.language = draft.language or language
    return parsed


def tutorial_upload(
    *,
    task: Task,
    name: str,
    data: bytes,
    language: str = "",
    pass_share: float | None = None,
    attempts: int | None = None,
) -> TutorialStored:
    """Reads an uploaded tutorial file and stores it whole (``tutorial_store``)."""
    parsed = tutorial_file_read(task=task, name=name, data=data, language=language)
    return tutorial_store(task=task, parsed=parsed, pass_share=pass_share, attempts=attempts)


@transaction.atomic
def tutorial_rules_set(
    *, task: Task, pass_share: float | None = None, attempts: int | None = None
) -> Tutorial:
    """The share of graded items to answer as expected (0 < share <= 1) and the attempts
    allowed (0: no limit); what is not given stays."""
    tutorial, _ = Tutorial.objects.get_or_create(task=task)
    if pass_share is not None:
        if isinstance(pass_share, bool) or not (math.isfinite(pass_share) and 0 < pass_share <= 1):
            raise TutorialError("the pass share must be above 0 and at most 1 (e.g. 0.8)")
        tutorial.pass_share = pass_share
    if attempts is not None:
        if isinstance(attempts, bool) or not 0 <= attempts <= MAX_ATTEMPTS:
            raise TutorialError(f"attempts must be 0 (no limit) to {MAX_ATTEMPTS}")
        tutorial.attempts = attempts
    tutorial.save()
    return tutorial


@transaction.atomic
def tutorial_clear(*, task: Task) -> int:
    """Removes the task's tutorial items (the gate opens); answers given are kept."""
    deleted, _ = TutorialItem.objects.filter(task=task).delete()
    return deleted


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
    if task.task_type in CONTRASTIVE_TYPES:
        given = answer.get("candidates")
        if not isinstance(given, list) or len(given) != len(candidates):
            raise TutorialError(f"give one {{score, spans}} per candidate ({len(candidates)})")
        read = []
        for index, (entry, candidate) in enumerate(zip(given, candidates, strict=True)):
            who = f"translation {chr(ord('A') + index)}: "
            if not isinstance(entry, dict):
                raise TutorialError(f"{who}expected {{score, spans}}")
            score = (
                None
                if task.task_type == TaskType.CONTRASTIVE_MQM
                else _score(entry.get("score"), *ESA_SCORE_RANGE, who)
            )
            raw_spans = entry.get("spans") or []
            if task.task_type == TaskType.CONTRASTIVE_DA and raw_spans:
                raise TutorialError(f"{who}this task marks no spans")
            spans = _spans(task, raw_spans, candidate["text"], item.source, [])
            read.append(CandidateAnswer(score, spans))
        return read
    text = candidates[0]["text"]
    if task.task_type in SPAN_TYPES:
        prefilled = [
            span_from_dict({**entry, "prefilled": True})
            for entry in candidates[0].get("prefilled", [])
        ]
        spans = _spans(task, answer.get("spans") or [], text, item.source, prefilled)
        score = (
            _score(answer.get("score"), *ESA_SCORE_RANGE, "")
            if task.task_type in ESA_TYPES
            else None
        )
        return [CandidateAnswer(score, spans)]
    low, high = scale_range(task.scale)
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
    *, task: Task, annotator_id: int, item_id: int, answer: dict
) -> TutorialFeedback:
    """Grades and stores the answer to the attempt's next item; after the last item the
    attempt passes when at least the task's share of its graded items were as expected.
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
    """A new attempt after a failed one, while the task's attempts allow it."""
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
    if allowed and last.number >= allowed:
        raise TutorialError(
            f"You have used all {allowed} attempts at this tutorial.", kind="forbidden"
        )
    return TutorialAttempt.objects.create(
        task=task,
        annotator_id=annotator_id,
        number=last.number + 1,
        language=tutorial_language(task=task),
    )
