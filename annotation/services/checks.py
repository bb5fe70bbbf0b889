"""Attention checks, judged as the annotator answers: which slot is a check, whether the
answer passes it, and its outcome recorded (``CheckOutcome``), loud or silent per task.

The checks (planned at launch by ``assignment``/``tasks``, declared per protocol in
``annotation/protocols``):

- bad reference (``ItemType.BAD``): Likert/DA: scored below the annotator's score of its
  original; ESA, ESA^AI and MQM: the damaged phrase (``Item.check_span``) marked as an error
  AND scored below the original (MQM: a larger penalty);
- HOTW (MQM; a ``CHK`` item made from an output, ``check_span`` its injected error): the
  error marked; never counted in MQM scores (the results read system outputs only);
- repeat (a slot with ``is_repeat``): the same answer again, within ``REPEAT_TOLERANCE`` of
  the scale's range (pairwise and ranking: the same preference, the same ranks; a
  contrastive screen: every candidate within it of its first score, MQM within
  ``MQM_REPEAT_TOLERANCE`` penalty points);
- contrastive (WMT26; a ``CHK`` item whose candidates include one of type ``CHK``, made by
  ``lib.perturb.shuffled`` and planned by ``contrastive.shuffle_check_items``): that
  candidate scored below every clean one (``contrastive_result``; contrastive MQM: a larger
  penalty than each); on a contrastive document page (``page_checks``) the shuffled
  output's mean over its shuffled segments below every clean output's
  (``page_check_result``), its outcome on the page's first slot.

A check whose original the annotator did not judge (a batch taken over half-way) is not
scored for "lower" (the mark alone decides) nor, for a repeat, recorded at all.

Loud (``Task.check_feedback``): an answer that fails is not recorded; the annotator is warned
(``judgments.CheckWarning``, the check's own words, never "this was a check") and answers again; the
second answer is recorded whatever it is (``passed_again`` says if it passed). Silent: the
answer is recorded, the outcome only logged. ``passed`` is always the first answer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max

from annotation.lib.scales import scale_range
from annotation.models import (
    CONTRASTIVE_TYPES,
    ESA_TYPES,
    LIKERT_TYPES,
    AnnotatorRestart,
    CheckFeedback,
    CheckKind,
    CheckOutcome,
    CrowdParticipant,
    ErrorSpan,
    ItemType,
    Judgment,
    Slot,
    Task,
    TaskType,
)
from annotation.services.spans import CheckedSpan, task_mqm_weights
from metrics.spans.mqm import NO_ERROR_SEVERITY

# A repeat passes when its score is within this share of the scale's range of the first
# (1 step of 1-5, 25 points of 0-100); MQM: within MQM_REPEAT_TOLERANCE penalty points.
REPEAT_TOLERANCE = 0.25
MQM_REPEAT_TOLERANCE = 5.0  # one major error (Google's weights)
ESA_RANGE = (0, 100)
NOT_AN_ERROR = frozenset({"neutral", NO_ERROR_SEVERITY})

# What a loud check tells the annotator: never that the item was a check.
WARNINGS = {
    CheckKind.BAD_REFERENCE: "Please look again: this translation has an error you have not "
    "marked or scored",
    CheckKind.HOTW: "Please look again: this translation has an error you have not marked",
    CheckKind.REPEAT: "Please read the translation again carefully before answering",
    CheckKind.CONTRASTIVE: "Please pay more attention: one translation has its words out of "
    "order and should be scored lower than the others",
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

    @property
    def warning(self) -> str:
        return WARNINGS[CheckKind(self.kind)]


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


def contrastive_result(*, scores: Sequence[float | None], shuffled: int) -> CheckResult:
    """WMT26's check: the shuffled candidate scored below both (every) clean one."""
    bad = scores[shuffled]
    clean = [score for i, score in enumerate(scores) if i != shuffled]
    passed = bad is not None and all(score is not None and bad < score for score in clean)
    reason = "" if passed else f"the shuffled candidate scored {bad}, not below {clean}"
    return CheckResult(CheckKind.CONTRASTIVE, passed, reason)


def page_check_result(
    *,
    task: Task,
    slots: Sequence[Slot],
    answers: Sequence[tuple[dict[str, Any], list[CheckedSpan]]],
) -> CheckResult | None:
    """WMT26's check on a contrastive document page (``page_checks``): over the segments whose
    output was shuffled, that output's mean segment score (contrastive MQM: its mean negated
    penalty) below every clean output's mean over the same segments. The segments' scores,
    not the page scores: every contrastive page has them (a page score is the task's option),
    contrastive MQM scores by its spans alone, and one comparison per page (as WMT26 makes
    one per item) does not fail an attentive annotator over a single tie on a long page.
    None for a page that is no such check."""
    shuffled: list[float | None] = []
    clean: dict[int, list[float | None]] = {}
    for slot, (values, spans) in zip(slots, answers, strict=True):
        check = slot_check(slot=slot)
        if check is None or check.kind != CheckKind.CONTRASTIVE or check.shuffled is None:
            continue
        shown = [(checked.span, checked.candidate) for checked in spans]
        scores = _candidate_values(task, values, shown, check.candidates)
        if not scores or len(scores) != check.candidates:
            continue
        shuffled.append(scores[check.shuffled])
        for index, candidate in enumerate(slot.item.candidates):
            if index != check.shuffled:
                for column in candidate.get("columns", [index]):
                    clean.setdefault(column, []).append(scores[index])
    if not shuffled:
        return None
    means = [_mean(values) for _, values in sorted(clean.items())]
    bad = _mean(shuffled)
    passed = bad is not None and all(mean is not None and bad < mean for mean in means)
    said = ", ".join("-" if mean is None else f"{mean:.4g}" for mean in means)
    reason = (
        ""
        if passed
        else (
            f"the shuffled translation's {len(shuffled)} segments averaged "
            f"{'-' if bad is None else f'{bad:.4g}'}, not below the others' ({said})"
        )
    )
    return CheckResult(CheckKind.CONTRASTIVE, passed, reason)


def _mean(values: list[float | None]) -> float | None:
    if not values or any(value is None for value in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def _marked(spans: list[Any], damage: tuple[int, int]) -> bool:
    """Whether an error span on the translation overlaps the damage (a non-translation
    over the whole segment does)."""
    start, end = damage
    for span in spans:
        if span.start is None or span.side != "target":
            continue
        if span.severity.lower() in NOT_AN_ERROR:
            continue
        if span.start < end and start < span.end:
            return True
    return False


def _value(task: Task, values: dict[str, Any], spans: list[Any]) -> float | None:
    """The answer as one number, higher is better: the score, or MQM's negated penalty."""
    if task.task_type == TaskType.MQM:
        weights = task_mqm_weights(task=task)
        errors = [(s.severity, s.category) for s in spans if s.side == "target"]
        try:
            return -weights.score(errors)
        except ValueError:
            return None
    score = values.get("score")
    return None if score is None else float(score)


def _candidate_values(
    task: Task, values: dict[str, Any], spans: list[Any], count: int
) -> list[float | None] | None:
    """A contrastive screen's answer as one number per candidate, higher is better: its
    score, or (contrastive MQM) its negated penalty from the spans naming it."""
    if task.task_type != TaskType.CONTRASTIVE_MQM:
        scores = values.get("candidate_scores")
        return None if not scores else [None if x is None else float(x) for x in scores]
    weights = task_mqm_weights(task=task)
    penalties: list[float | None] = []
    for position in range(count):
        errors = [
            (span.severity, span.category)
            for span, candidate in spans
            if candidate == position and span.side == "target"
        ]
        try:
            penalties.append(-weights.score(errors))
        except ValueError:
            penalties.append(None)
    return penalties


def _repeat_tolerance(task: Task) -> float:
    if task.task_type in (TaskType.MQM, TaskType.CONTRASTIVE_MQM):
        return MQM_REPEAT_TOLERANCE
    low, high = scale_range(task.scale) if task.task_type in LIKERT_TYPES else ESA_RANGE
    return REPEAT_TOLERANCE * (high - low)


def _earlier(
    task: Task, item_id: int, annotator_id: int
) -> tuple[dict[str, Any], list[Any]] | None:
    """The annotator's first judgment of ``item_id`` (its columns and spans), or None."""
    found = (
        Judgment.objects.filter(
            task_id=task.id, item_id=item_id, annotator_id=annotator_id, is_repeat=False
        )
        .values("id", "score", "preference", "ranks", "candidate_scores")
        .first()
    )
    if found is None:
        return None
    judgment: dict[str, Any] = dict(found)
    spans: list[Any] = []
    if task.task_type == TaskType.MQM:
        spans = list(ErrorSpan.objects.filter(judgment_id=judgment["id"]))
    if task.task_type == TaskType.CONTRASTIVE_MQM:
        spans = [(s, s.candidate) for s in ErrorSpan.objects.filter(judgment_id=judgment["id"])]
    return judgment, spans


def check_result(
    *,
    task: Task,
    check: SlotCheck,
    annotator_id: int,
    values: dict[str, Any],
    spans: list[CheckedSpan],
) -> CheckResult | None:
    """Whether this answer passes the check; None when it cannot be told (a repeat of an
    item they did not judge, a task type without a rule for it)."""
    contrastive = task.task_type in CONTRASTIVE_TYPES
    # A contrastive screen's spans with the candidate each marks.
    shown: list[Any] = [
        (checked.span, checked.candidate) if contrastive else checked.span for checked in spans
    ]
    if check.kind == CheckKind.CONTRASTIVE:
        scores = _candidate_values(task, values, shown, check.candidates)
        if not scores or check.shuffled is None or check.shuffled >= len(scores):
            return None
        return contrastive_result(scores=scores, shuffled=check.shuffled)
    earlier = _earlier(task, check.against_item_id, annotator_id)
    span_task = task.task_type in (*ESA_TYPES, TaskType.MQM)
    if check.kind == CheckKind.REPEAT:
        if earlier is None:
            return None
        first, first_spans = earlier
        if contrastive:
            return _contrastive_repeat(task, check, values, shown, first, first_spans)
        if task.task_type in (TaskType.PAIRWISE, TaskType.RANKING):
            columns = ("preference", "ranks", "candidate_scores")
            same = all(values.get(c) == first[c] for c in columns if values.get(c) is not None)
            return CheckResult(check.kind, same, "" if same else "a different answer")
        now, before = _value(task, values, shown), _value(task, first, first_spans)
        if now is None or before is None:
            return None
        gap = abs(now - before)
        passed = gap <= _repeat_tolerance(task)
        return CheckResult(check.kind, passed, "" if passed else f"{gap:g} apart from the first")
    if check.kind == CheckKind.HOTW:
        assert check.damage is not None  # slot_check
        passed = _marked(shown, check.damage)
        return CheckResult(check.kind, passed, "" if passed else "the injected error not marked")
    # A bad reference.
    if task.task_type not in (*LIKERT_TYPES, *ESA_TYPES, TaskType.MQM):
        return None
    reasons = []
    if span_task and check.damage is not None and not _marked(shown, check.damage):
        reasons.append("the damage not marked")
    if earlier is not None:
        now, before = _value(task, values, shown), _value(task, *earlier)
        if now is not None and before is not None and now >= before:
            said = f"scored {_said(task, now)}, not below the original's {_said(task, before)}"
            reasons.append(said)
    elif not span_task:
        return None  # nothing to compare with
    return CheckResult(check.kind, not reasons, "; ".join(reasons))


def _contrastive_repeat(
    task: Task,
    check: SlotCheck,
    values: dict[str, Any],
    spans: list[Any],
    first: dict[str, Any],
    first_spans: list[Any],
) -> CheckResult | None:
    """A repeated contrastive screen: every candidate within the tolerance of its first
    answer (the screen comes back in the same order)."""
    now = _candidate_values(task, values, spans, check.candidates)
    before = _candidate_values(task, first, first_spans, check.candidates)
    if not now or not before or len(now) != len(before):
        return None
    gaps = [abs(a - b) for a, b in zip(now, before, strict=True) if a is not None and b is not None]
    if not gaps:
        return None
    gap = max(gaps)
    passed = gap <= _repeat_tolerance(task)
    said = "" if passed else f"a translation scored {gap:g} apart from the first time"
    return CheckResult(CheckKind.REPEAT, passed, said)


def _said(task: Task, value: float) -> str:
    return f"MQM {-value:g}" if task.task_type == TaskType.MQM else f"{value:g}"


def _attempt(task: Task, annotator_id: int) -> int:
    """The annotator's attempt: a crowd participant's, or 1 plus the restarts a manager
    gave them (one probe of one_restart_per_attempt; read for checks only)."""
    if task.crowd_secret:
        attempts = (
            CrowdParticipant.objects.filter(task_id=task.id, user_id=annotator_id)
            .values_list("attempts", flat=True)
            .first()
        )
        if attempts:
            return attempts
    restarts = AnnotatorRestart.objects.filter(task_id=task.id, annotator_id=annotator_id)
    return restarts.aggregate(latest=Max("attempt"))["latest"] or 1


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
    # ON CONFLICT DO NOTHING: a double click on a warned answer keeps the first request's row.
    CheckOutcome.objects.bulk_create(
        [
            CheckOutcome(
                slot_id=slot_id,
                task=task,
                annotator_id=annotator_id,
                kind=result.kind,
                passed=result.passed,
                loud=loud,
                warned=not final,
                attempt=_attempt(task, annotator_id),
                reason=result.reason[:200],
            )
        ],
        ignore_conflicts=True,
    )


def check_warns(*, task: Task, slot_id: int, result: CheckResult | None) -> bool:
    """Whether this answer is refused with a warning: a loud task, a failed check, and no
    warning given for this slot yet (the second answer is always recorded)."""
    if result is None or result.passed or task.check_feedback != CheckFeedback.LOUD:
        return False
    return not CheckOutcome.objects.filter(slot_id=slot_id, warned=True).exists()
