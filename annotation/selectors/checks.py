"""Reads of attention-check outcomes (written by ``annotation.services.checks``): one row per
check answered, and each annotator's pass rate, for the results, the crowd verdicts and the
reliability figures."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Max

from annotation.models import AnnotatorRestart, CheckOutcome, CrowdParticipant, Task

# A crowd participant passes the checks when at least this share of those they answered
# passed on the first answer (no check answered: passed; nothing to blame them for).
MIN_CHECKS_PASSED_SHARE = 0.7


@dataclass(frozen=True)
class CheckRow:
    """One check answered: who, which kind, whether the first answer passed; ``warned`` (a
    loud check failed first) and ``passed_again`` (the answer after the warning)."""

    annotator_id: int
    kind: str
    passed: bool
    warned: bool
    passed_again: bool | None
    attempt: int
    item_id: int | None  # None: an imported check no rating came with (no slot)
    reason: str


def check_outcomes(task: Task, *, annotator_id: int | None = None) -> list[CheckRow]:
    """Every check answered in the task (or by one annotator), in the order answered."""
    outcomes = CheckOutcome.objects.filter(task=task)
    if annotator_id is not None:
        outcomes = outcomes.filter(annotator_id=annotator_id)
    rows = outcomes.order_by("id").values_list(
        "annotator_id",
        "kind",
        "passed",
        "warned",
        "passed_again",
        "attempt",
        "slot__item_id",
        "reason",
    )
    return [CheckRow(*row) for row in rows]


@dataclass(frozen=True)
class CheckSummary:
    """An annotator's checks: answered, passed (first answers), failed reasons by kind."""

    answered: int
    passed: int
    failed_kinds: tuple[str, ...]

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.answered if self.answered else None

    @property
    def passes(self) -> bool:
        return not self.answered or self.passed >= MIN_CHECKS_PASSED_SHARE * self.answered

    def said(self) -> str:
        if not self.answered:
            return "no attention checks answered"
        failed = self.answered - self.passed
        kinds = f" ({', '.join(sorted(set(self.failed_kinds)))})" if failed else ""
        return f"passed {self.passed} of {self.answered} attention checks{kinds}"


def check_summary(rows: list[CheckRow]) -> CheckSummary:
    return CheckSummary(
        answered=len(rows),
        passed=sum(row.passed for row in rows),
        failed_kinds=tuple(row.kind for row in rows if not row.passed),
    )


def check_summaries(
    task: Task, *, attempt_of: dict[int, int] | None = None
) -> dict[int, CheckSummary]:
    """Each annotator's summary; with ``attempt_of`` (annotator → attempt), only the checks
    of that attempt count for them (a crowd participant let start again)."""
    by_annotator: dict[int, list[CheckRow]] = {}
    for row in check_outcomes(task):
        if attempt_of is not None and row.attempt != attempt_of.get(row.annotator_id, row.attempt):
            continue
        by_annotator.setdefault(row.annotator_id, []).append(row)
    return {annotator: check_summary(rows) for annotator, rows in by_annotator.items()}


def current_attempts(task: Task) -> dict[int, int]:
    """The attempt of each annotator a manager let start again (an invited annotator: 1 +
    their restarts; a crowd participant: their attempts); anyone else is on attempt 1."""
    attempts = dict(
        AnnotatorRestart.objects.filter(task=task)
        .values("annotator_id")
        .annotate(latest=Max("attempt"))
        .values_list("annotator_id", "latest")
    )
    crowd = CrowdParticipant.objects.filter(task=task, attempts__gt=1)
    attempts.update(crowd.values_list("user_id", "attempts"))
    return attempts


def reliability_checks(task: Task) -> list[tuple[int, bool, str]]:
    """(annotator, first answer passed, kind) per check answered in each annotator's current
    attempt: the reliability table's attention checks (earlier attempts' are kept, apart)."""
    attempt = current_attempts(task)
    return [
        (row.annotator_id, row.passed, row.kind)
        for row in check_outcomes(task)
        if row.attempt == attempt.get(row.annotator_id, 1)
    ]
