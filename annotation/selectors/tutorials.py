"""Reads of tutorials (written by ``annotation.services.tutorials``): which language's items an
annotator sees, where they are in it, the outcomes for the reliability table, and the
manager's overview."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q

from annotation.models import (
    AnnotatorRestart,
    CrowdParticipant,
    Task,
    Tutorial,
    TutorialAnswer,
    TutorialAttempt,
    TutorialInstructions,
    TutorialItem,
)
from annotation.models.tutorials import DEFAULT_ATTEMPTS, DEFAULT_PASS_SHARE


@dataclass(frozen=True)
class TutorialRules:
    pass_share: float
    attempts: int  # 0: no limit


def tutorial_rules(*, task: Task) -> TutorialRules:
    row = Tutorial.objects.filter(task=task).values_list("pass_share", "attempts").first()
    return TutorialRules(*row) if row else TutorialRules(DEFAULT_PASS_SHARE, DEFAULT_ATTEMPTS)


def restarted_at(*, task: Task, annotator_id: int) -> datetime | None:
    """When a manager last let the annotator start again (None: never)."""
    restarts = AnnotatorRestart.objects.filter(task=task, annotator_id=annotator_id)
    return restarts.order_by("-attempt").values_list("created_at", flat=True).first()


def tutorial_attempts_used(*, task: Task, annotator_id: int) -> int:
    """The attempts at the tutorial that count against the task's limit: those started
    since the annotator was last let start again (all, if never)."""
    attempts = TutorialAttempt.objects.filter(task=task, annotator_id=annotator_id)
    since = restarted_at(task=task, annotator_id=annotator_id)
    return (attempts if since is None else attempts.filter(started_at__gte=since)).count()


def tutorial_language(*, task: Task) -> str:
    """The language whose items this task's annotators see: the campaign's target language
    when the tutorial has items in it, else the default ("")."""
    target = task.campaign.target_language.lower()
    if TutorialItem.objects.filter(task=task, language=target).exists():
        return target
    return ""


def tutorial_items(*, task: Task, language: str) -> list[TutorialItem]:
    return list(TutorialItem.objects.filter(task=task, language=language).order_by("position"))


def task_has_tutorial(*, task: Task) -> bool:
    return TutorialItem.objects.filter(task=task).exists()


def instructions_variant(*, task: Task) -> str | None:
    """The task's instructions written for its campaign's target language, if any."""
    return (
        TutorialInstructions.objects.filter(
            task=task, language=task.campaign.target_language.lower()
        )
        .values_list("text", flat=True)
        .first()
    )


@dataclass(frozen=True)
class TutorialState:
    """Where an annotator is in a task's tutorial. ``required``: the task has one;
    ``passed``: they passed an attempt; ``attempt``: their latest (None: not begun);
    ``next_item``: the item to answer now (None: the attempt is over, or passed);
    ``attempts_left``: further attempts after this one (None: no limit)."""

    required: bool
    passed: bool
    attempt: TutorialAttempt | None
    next_item: TutorialItem | None
    answered: int
    total: int
    attempts_left: int | None
    rules: TutorialRules

    @property
    def blocks(self) -> bool:
        """The loop gives them no real item yet."""
        return self.required and not self.passed

    @property
    def failed(self) -> bool:
        return self.attempt is not None and self.attempt.passed is False

    @property
    def may_retry(self) -> bool:
        return self.failed and (self.attempts_left is None or self.attempts_left > 0)


def tutorial_state(*, task: Task, annotator_id: int) -> TutorialState:
    rules = tutorial_rules(task=task)
    required = task_has_tutorial(task=task)
    attempts = list(
        TutorialAttempt.objects.filter(task=task, annotator_id=annotator_id).order_by("number")
    )
    passed = any(a.passed for a in attempts)
    attempt = attempts[-1] if attempts else None
    language = attempt.language if attempt is not None else tutorial_language(task=task)
    items = tutorial_items(task=task, language=language) if required else []
    answered_ids: set[int | None] = set()
    if attempt is not None:
        answered_ids = set(
            TutorialAnswer.objects.filter(attempt=attempt).values_list("item_id", flat=True)
        )
    waiting = [item for item in items if item.id not in answered_ids]
    running = attempt is None or attempt.passed is None
    used = tutorial_attempts_used(task=task, annotator_id=annotator_id) if attempts else 0
    return TutorialState(
        required=required,
        passed=passed,
        attempt=attempt,
        next_item=waiting[0] if waiting and running and not passed else None,
        answered=len(items) - len(waiting),
        total=len(items),
        attempts_left=None if not rules.attempts else max(0, rules.attempts - max(used, 1)),
        rules=rules,
    )


def restart_times(*, task: Task) -> dict[int, datetime]:
    """When a manager last let each annotator start the task again (an invited annotator's
    last ``AnnotatorRestart``, a crowd participant's ``restarted_at``); others: absent."""
    times = dict(
        AnnotatorRestart.objects.filter(task=task)
        .values("annotator_id")
        .annotate(last=Max("created_at"))
        .values_list("annotator_id", "last")
    )
    crowd = CrowdParticipant.objects.filter(task=task, restarted_at__isnull=False)
    times.update(crowd.values_list("user_id", "restarted_at"))
    return times


def tutorial_outcomes(task: Task) -> list[tuple[int, bool]]:
    """(annotator, as expected) per graded tutorial answer of each annotator's current
    attempt at the task, in order: the reliability table's tutorial pass rate. After a
    restart, the tutorial attempts started since count (one who had failed it gets a new
    one at once); with none (the tutorial they passed before still holds), the earlier."""
    since = restart_times(task=task)
    renewed = {
        annotator
        for annotator, started in TutorialAttempt.objects.filter(
            task=task, annotator_id__in=since
        ).values_list("annotator_id", "started_at")
        if started >= since[annotator]
    }
    rows = (
        TutorialAnswer.objects.filter(attempt__task=task, passed__isnull=False)
        .order_by("id")
        .values_list("attempt__annotator_id", "attempt__started_at", "passed")
    )
    return [
        (annotator, bool(passed))
        for annotator, started, passed in rows
        if annotator not in renewed or started >= since[annotator]
    ]


@dataclass(frozen=True)
class TutorialOverview:
    """The manager's view: items per language, the rules, and attempts so far."""

    items: list[TutorialItem]
    languages: list[str]
    rules: TutorialRules
    instructions: list[TutorialInstructions]
    annotators: int
    passed: int
    # (annotator, username): failed with no attempt left (a manager may let them restart)
    failed_out_annotators: list[tuple[int, str]]

    @property
    def failed_out(self) -> int:
        return len(self.failed_out_annotators)


def tutorial_overview(*, task: Task) -> TutorialOverview:
    items = list(TutorialItem.objects.filter(task=task).order_by("language", "position"))
    rules = tutorial_rules(task=task)
    per_annotator = (
        TutorialAttempt.objects.filter(task=task)
        .values("annotator_id")
        .annotate(
            tries=Count("id"),
            passes=Count("id", filter=Q(passed=True)),
            fails=Count("id", filter=Q(passed=False)),
        )
    )
    passed = sum(1 for row in per_annotator if row["passes"])
    return TutorialOverview(
        items=items,
        languages=sorted({item.language for item in items}),
        rules=rules,
        instructions=list(TutorialInstructions.objects.filter(task=task).order_by("language")),
        annotators=len(per_annotator),
        passed=passed,
        failed_out_annotators=tutorial_failed_out(task=task),
    )


def tutorial_failed_out(*, task: Task) -> list[tuple[int, str]]:
    """(annotator, username) of those who failed every attempt the tutorial allows (counted
    since a manager last let them start again): the real work stays closed to them until a
    manager lets them start again (``services.restarts``)."""
    if not tutorial_rules(task=task).attempts:
        return []  # no limit: they may always try again themselves
    never_passed = (
        TutorialAttempt.objects.filter(task=task)
        .values("annotator_id")
        .annotate(passes=Count("id", filter=Q(passed=True)))
        .filter(passes=0)
        .values_list("annotator_id", flat=True)
    )
    out = [
        annotator_id
        for annotator_id in never_passed
        if not (state := tutorial_state(task=task, annotator_id=annotator_id)).may_retry
        and state.failed
    ]
    names = dict(get_user_model().objects.filter(id__in=out).values_list("id", "username"))
    return sorted(((a, names[a]) for a in out), key=lambda row: row[1].lower())
