"""Whether a document page that is an attention check passes it, judged whole from its
segments' answers: one outcome per page, on its first slot (``page_judgments`` records it,
loud or silent as on screens).

A page is one kind of check, as planned at launch (``page_plan``, ``page_checks``): every
segment of a repeat page is a repeat, of a bad-reference page a bad reference (a segment too
short to damage is left out of that page), of an MQM HOTW page an injected error; a
shuffled-translation page damages one output where it is long enough. Judged:

- repeat: the mean absolute difference between each segment's score and the annotator's
  first score of it (the measure of WMT26's annotation table, as the reliability table's
  repeat column computes it; contrastive pages: over every output of every segment; MQM and
  contrastive MQM: the penalties) within ``check_answers.repeat_tolerance`` (25 points of
  0-100, one step of 1-5, 5 MQM points). Segments the annotator did not judge the first
  time are left out; none judged: no outcome.
- bad reference: the damaged segments' mean score below the mean of the annotator's scores
  of their originals over the same segments (MQM: a larger mean penalty) and, for the span
  protocols (ESA, ESA^AI, MQM), every damaged segment with an error span overlapping its
  damage. Originals the annotator did not judge: a span page is judged by its marks alone,
  a Likert/DA page has no outcome.
- HOTW: every injected error marked.
- shuffled translation (WMT26): the shuffled output's mean over its shuffled segments below
  every clean output's mean over the same segments.

Scores are compared as means over the page, not segment by segment: one tie or one segment
scored on other grounds does not fail an attentive annotator on a long page (WMT26 makes one
comparison per item, and a page is one item here). Marks are demanded on every damaged
segment, as on a screen: each damage is a phrase that no longer says what the source says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotation.models import CheckKind, Slot, Task
from annotation.protocols import protocol_for
from annotation.services.check_answers import (
    answer_value,
    candidate_values,
    damage_marked,
    earlier_answers,
    repeat_tolerance,
    value_said,
)
from annotation.services.checks import CheckResult, SlotCheck, slot_check
from annotation.services.spans import CheckedSpan

Answer = tuple[dict[str, Any], list[CheckedSpan]]


def page_check_result(
    *, task: Task, slots: Sequence[Slot], answers: Sequence[Answer], annotator_id: int
) -> CheckResult | None:
    """The outcome of the page ``slots`` (with their ``answers``, validated), or None for a
    page that is no check or cannot be told (nothing to compare with)."""
    checks = [slot_check(slot=slot) for slot in slots]
    kind = next((check.kind for check in checks if check is not None), None)
    if kind is None:
        return None
    if kind == CheckKind.CONTRASTIVE:
        return _shuffled(task, slots, checks, answers)
    against = {check.against_item_id for check in checks if check is not None}
    earlier = earlier_answers(task=task, item_ids=against, annotator_id=annotator_id)
    if kind == CheckKind.REPEAT:
        return _repeat(task, checks, answers, earlier)
    if kind == CheckKind.HOTW:
        return _hotw(checks, answers)
    return _bad_reference(task, checks, answers, earlier)


def _shown(task: Task, spans: list[CheckedSpan]) -> list[Any]:
    """The answer's spans as the measures read them (a contrastive one's with its
    candidate)."""
    if protocol_for(task.task_type).contrastive:
        return [(checked.span, checked.candidate) for checked in spans]
    return [checked.span for checked in spans]


def _shown_spans(spans: list[CheckedSpan]) -> list[Any]:
    return [checked.span for checked in spans]


def _values(
    task: Task, check: SlotCheck, values: dict[str, Any], spans: list[Any]
) -> list[float | None]:
    """A segment's answer as one number per output, higher is better."""
    if protocol_for(task.task_type).contrastive:
        count = check.candidates
        return candidate_values(task=task, values=values, spans=spans, count=count) or []
    return [answer_value(task=task, values=values, spans=spans)]


def _repeat(
    task: Task,
    checks: Sequence[SlotCheck | None],
    answers: Sequence[Answer],
    earlier: dict[int, tuple[dict[str, Any], list[Any]]],
) -> CheckResult | None:
    gaps: list[float] = []
    for check, (values, spans) in zip(checks, answers, strict=True):
        first = None if check is None else earlier.get(check.against_item_id)
        if check is None or first is None:
            continue
        now = _values(task, check, values, _shown(task, spans))
        before = _values(task, check, *first)
        if len(now) != len(before):
            continue
        pairs = zip(now, before, strict=True)
        gaps += [abs(a - b) for a, b in pairs if a is not None and b is not None]
    if not gaps:
        return None
    mean = sum(gaps) / len(gaps)
    passed = mean <= repeat_tolerance(task=task)
    reason = "" if passed else f"scored {mean:.3g} apart from the first time on average"
    return CheckResult(CheckKind.REPEAT, passed, reason, page=True)


def _hotw(checks: Sequence[SlotCheck | None], answers: Sequence[Answer]) -> CheckResult:
    missed = [
        number
        for number, (check, (_, spans)) in enumerate(zip(checks, answers, strict=True), start=1)
        if check is not None
        and check.damage is not None
        and not damage_marked(spans=_shown_spans(spans), damage=check.damage)
    ]
    reason = f"the injected error not marked in {_segments(missed)}" if missed else ""
    return CheckResult(CheckKind.HOTW, not missed, reason, page=True)


def _bad_reference(
    task: Task,
    checks: Sequence[SlotCheck | None],
    answers: Sequence[Answer],
    earlier: dict[int, tuple[dict[str, Any], list[Any]]],
) -> CheckResult | None:
    marks = protocol_for(task.task_type).spans
    unmarked: list[int] = []
    damaged: list[float] = []
    originals: list[float] = []
    numbered = enumerate(zip(checks, answers, strict=True), start=1)
    for number, (check, (values, spans)) in numbered:
        if check is None or check.kind != CheckKind.BAD_REFERENCE:
            continue
        shown = _shown(task, spans)
        damage = check.damage
        if marks and damage is not None and not damage_marked(spans=shown, damage=damage):
            unmarked.append(number)
        first = earlier.get(check.against_item_id)
        now = answer_value(task=task, values=values, spans=shown)
        before = None
        if first is not None:
            before = answer_value(task=task, values=first[0], spans=first[1])
        if now is not None and before is not None:
            damaged.append(now)
            originals.append(before)
    if not damaged and not marks:
        return None  # nothing to compare with
    reasons = []
    if unmarked:
        reasons.append(f"the damage not marked in {_segments(unmarked)}")
    if damaged:
        now, before = sum(damaged) / len(damaged), sum(originals) / len(originals)
        if now >= before:
            reasons.append(
                f"{len(damaged)} damaged segments scored {value_said(task=task, value=now)} on "
                f"average, not below their originals' {value_said(task=task, value=before)}"
            )
    return CheckResult(CheckKind.BAD_REFERENCE, not reasons, "; ".join(reasons), page=True)


def _segments(numbers: list[int]) -> str:
    said = ", ".join(str(number) for number in numbers)
    return f"segment {said}" if len(numbers) == 1 else f"segments {said}"


def _shuffled(
    task: Task, slots: Sequence[Slot], checks: Sequence[SlotCheck | None], answers: Sequence[Answer]
) -> CheckResult | None:
    """WMT26's check on a contrastive document page (``page_checks``): over the segments whose
    output was shuffled, that output's mean segment score (contrastive MQM: its mean negated
    penalty) below every clean output's mean over the same segments. The segments' scores,
    not the page scores: every contrastive page has them (a page score is the task's option)
    and contrastive MQM scores by its spans alone."""
    shuffled: list[float | None] = []
    clean: dict[int, list[float | None]] = {}
    for slot, check, (values, spans) in zip(slots, checks, answers, strict=True):
        if check is None or check.kind != CheckKind.CONTRASTIVE or check.shuffled is None:
            continue
        scores = _values(task, check, values, _shown(task, spans))
        if len(scores) != check.candidates:
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
    return CheckResult(CheckKind.CONTRASTIVE, passed, reason, page=True)


def _mean(values: list[float | None]) -> float | None:
    if not values or any(value is None for value in values):
        return None
    return sum(v for v in values if v is not None) / len(values)
