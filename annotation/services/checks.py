"""Attention checks, judged as the annotator answers: which slot is a check (``slot_check``),
and its outcome recorded (``CheckOutcome``), loud or silent per task. Whether an answer
passes: a screen's in ``check_answers``, a document page's in ``page_check_answers``.

The checks (planned at launch by ``assignment``/``tasks``, a document task's pages by
``page_plan``; declared per protocol in ``annotation/protocols``):

- bad reference (``ItemType.BAD``): Likert/DA: scored below the annotator's score of its
  original; ESA, ESA^AI and MQM: the damaged phrase (``Item.check_span``) marked as an error
  AND scored below the original (MQM: a larger penalty);
- HOTW (MQM; a ``CHK`` item made from an output, ``check_span`` its injected error): the
  error marked; never counted in MQM scores (the results read system outputs only);
- repeat (a slot with ``is_repeat``): the same answer again, within a tolerance
  (``check_answers.repeat_tolerance``);
- contrastive (WMT26; a ``CHK`` item whose candidates include one of type ``CHK``, made by
  ``lib.perturb.shuffled`` and planned by ``contrastive.shuffle_check_items``, on a document
  page by ``page_checks``): that candidate scored below every clean one.

A document page that is a check is judged whole (``page_check_answers``), its one outcome
on the page's first slot.

A check whose original the annotator did not judge (a batch taken over half-way) is not
scored for "lower" (the mark alone decides) nor, for a repeat, recorded at all.

Loud (``Task.check_feedback``): an answer that fails is not recorded; the annotator is warned
(``judgments.CheckWarning``, the check's own words, never "this was a check") and answers
again; the second answer is recorded whatever it is (``passed_again`` says if it passed).
Silent: the answer is recorded, the outcome only logged. ``passed`` is always the first
answer's.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from annotation.models import (
    CheckFeedback,
    CheckKind,
    CheckOutcome,
    ItemType,
    Slot,
    Task,
)

# What a loud check tells the annotator: never that the item was a check.
WARNINGS = {
    CheckKind.BAD_REFERENCE: "Please look again: this translation has an error you have not "
    "marked or scored",
    CheckKind.HOTW: "Please look again: this translation has an error you have not marked",
    CheckKind.REPEAT: "Please read the translation again carefully before answering",
    CheckKind.CONTRASTIVE: "Please pay more attention: one translation has its words out of "
    "order and should be scored lower than the others",
}
# A document page's words where they differ (a page shows several translations).
PAGE_WARNINGS = {
    CheckKind.BAD_REFERENCE: "Please look again: this page has errors you have not marked or "
    "scored",
    CheckKind.HOTW: "Please look again: this page has errors you have not marked",
    CheckKind.REPEAT: "Please read the translations again carefully before answering",
}


@dataclass(frozen=True)
class SlotCheck:
    """What makes a slot a check: its kind, the item it checks against (the original, or
    the item itself for a repeat) and the damage to be marked."""

    kind: str
    against_item_id: int
    damage: tuple[int, int] | None
    shuffled: int | None = None  # contrastive: the shuffled candidate's index
    candidates: int = 1  # on the screen


@dataclass(frozen=True)
class CheckResult:
    kind: str
    passed: bool
    reason: str = ""
    page: bool = False  # a document page's outcome (``page_check_answers``)

    @property
    def warning(self) -> str:
        kind = CheckKind(self.kind)
        return PAGE_WARNINGS.get(kind, WARNINGS[kind]) if self.page else WARNINGS[kind]


def task_may_plan_checks(*, task: Task) -> bool:
    """Whether the task's settings plan checks, so that a judgment of a task that reads no
    item (Likert) reads its slot's item only then (an Appraise import's own BAD items, with
    every rate 0, are left to the bad-reference test of the results)."""
    return any(
        getattr(task, rate) > 0
        for rate in ("repeat_rate", "bad_reference_rate", "hotw_rate", "shuffle_rate")
    )


def slot_check(*, slot: Slot) -> SlotCheck | None:
    """The check a slot (with its item) is, or None."""
    item = slot.item
    count = len(item.candidates or [])
    if slot.is_repeat:
        return SlotCheck(CheckKind.REPEAT, item.id, None, candidates=count)
    span = item.check_span
    damage = (int(span[0]), int(span[1])) if span else None
    if item.item_type == ItemType.BAD and item.original_id is not None:
        return SlotCheck(CheckKind.BAD_REFERENCE, item.original_id, damage)
    if item.item_type == ItemType.CHK and item.original_id is not None and damage:
        return SlotCheck(CheckKind.HOTW, item.original_id, damage)
    if item.item_type == ItemType.CHK:
        types = [candidate.get("type") for candidate in item.candidates or []]
        if ItemType.CHK in types:
            shuffled = types.index(ItemType.CHK)
            return SlotCheck(CheckKind.CONTRASTIVE, item.id, None, shuffled, count)
    return None


# The outcome, in one statement with the annotator's attempt: a crowd participant's, else 1
# plus the restarts a manager gave them (annotation_annotatorrestart). ON CONFLICT DO
# NOTHING: a double click on a warned answer keeps the first request's row.
_OUTCOME_INSERT_SQL = """
INSERT INTO annotation_checkoutcome
    (slot_id, task_id, annotator_id, kind, passed, loud, warned, attempt, reason, created_at)
VALUES (%(slot)s, %(task)s, %(annotator)s, %(kind)s, %(passed)s, %(loud)s, %(warned)s,
        COALESCE((SELECT c.attempts FROM annotation_crowdparticipant c
                   WHERE %(crowd)s AND c.task_id = %(task)s AND c.user_id = %(annotator)s),
                 (SELECT max(r.attempt) FROM annotation_annotatorrestart r
                   WHERE r.task_id = %(task)s AND r.annotator_id = %(annotator)s),
                 1),
        %(reason)s, %(now)s)
ON CONFLICT DO NOTHING
"""


@transaction.atomic
def check_outcome_record(
    *, task: Task, slot_id: int, annotator_id: int, result: CheckResult, final: bool
) -> None:
    """Records (or completes) the outcome of one check. ``final``: the answer is being
    recorded; else a loud check refused it and the annotator is warned. An outcome is
    written once per slot; the answer after a warning fills ``passed_again``. One or two
    statements: a judgment that is a check stays as cheap as the others."""
    loud = task.check_feedback == CheckFeedback.LOUD
    if final and loud:
        answered_again = CheckOutcome.objects.filter(
            slot_id=slot_id, warned=True, passed_again__isnull=True
        ).update(passed_again=result.passed)
        if answered_again:
            return
    with connection.cursor() as cursor:
        cursor.execute(
            _OUTCOME_INSERT_SQL,
            {
                "slot": slot_id,
                "task": task.id,
                "annotator": annotator_id,
                "kind": result.kind,
                "passed": result.passed,
                "loud": loud,
                "warned": not final,
                "crowd": bool(task.crowd_secret),
                "reason": result.reason[:200],
                "now": timezone.now(),
            },
        )


def check_warns(*, task: Task, slot_id: int, result: CheckResult | None) -> bool:
    """Whether this answer is refused with a warning: a loud task, a failed check, and no
    warning given for this slot yet (the second answer is always recorded)."""
    if result is None or result.passed or task.check_feedback != CheckFeedback.LOUD:
        return False
    return not CheckOutcome.objects.filter(slot_id=slot_id, warned=True).exists()
