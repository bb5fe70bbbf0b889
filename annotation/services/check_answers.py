"""Whether a screen's answer passes its attention check (``checks.slot_check`` says which
check a slot is; ``checks.check_outcome_record`` records the outcome), and the measures a
document page's check shares (``page_check_answers``): an answer as one number per output,
whether the damage is marked, how far a repeat may stray.

- bad reference: Likert/DA: scored below the annotator's score of its original; ESA, ESA^AI
  and MQM: the damage marked as an error AND scored below the original (MQM: a larger
  penalty);
- HOTW: the injected error marked;
- repeat: the same answer again, within ``REPEAT_TOLERANCE`` of the scale's range (pairwise
  and ranking: the same preference, the same ranks; a contrastive screen: every candidate
  within it of its first score, MQM within ``MQM_REPEAT_TOLERANCE`` penalty points);
- contrastive (WMT26): the shuffled candidate scored below every clean one (contrastive
  MQM: a larger penalty than each).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from annotation.models import CheckKind, ErrorSpan, Judgment, Task
from annotation.protocols import protocol_for
from annotation.services.checks import CheckResult, SlotCheck
from annotation.services.spans import CheckedSpan, task_mqm_weights
from metrics.spans.mqm import NO_ERROR_SEVERITY

# A repeat passes when its score is within this share of the scale's range of the first
# (1 step of 1-5, 25 points of 0-100); MQM: within MQM_REPEAT_TOLERANCE penalty points.
REPEAT_TOLERANCE = 0.25
MQM_REPEAT_TOLERANCE = 5.0  # one major error (Google's weights)
NOT_AN_ERROR = frozenset({"neutral", NO_ERROR_SEVERITY})


def contrastive_result(*, scores: Sequence[float | None], shuffled: int) -> CheckResult:
    """WMT26's check: the shuffled candidate scored below both (every) clean one."""
    bad = scores[shuffled]
    clean = [score for i, score in enumerate(scores) if i != shuffled]
    passed = bad is not None and all(score is not None and bad < score for score in clean)
    reason = "" if passed else f"the shuffled candidate scored {bad}, not below {clean}"
    return CheckResult(CheckKind.CONTRASTIVE, passed, reason)


def damage_marked(*, spans: list[Any], damage: tuple[int, int]) -> bool:
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


def answer_value(*, task: Task, values: dict[str, Any], spans: list[Any]) -> float | None:
    """The answer as one number, higher is better: the score, or MQM's negated penalty."""
    if protocol_for(task.task_type).penalty_scored:
        weights = task_mqm_weights(task=task)
        errors = [(s.severity, s.category) for s in spans if s.side == "target"]
        try:
            return -weights.score(errors)
        except ValueError:
            return None
    score = values.get("score")
    return None if score is None else float(score)


def candidate_values(
    *, task: Task, values: dict[str, Any], spans: list[Any], count: int
) -> list[float | None] | None:
    """A contrastive screen's answer as one number per candidate, higher is better: its
    score, or (contrastive MQM) its negated penalty from the spans naming it."""
    if not protocol_for(task.task_type).penalty_scored:
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


def repeat_tolerance(*, task: Task) -> float:
    """How far a repeat's answer may be from the first (a page: its mean difference)."""
    protocol = protocol_for(task.task_type)
    if protocol.penalty_scored:
        return MQM_REPEAT_TOLERANCE
    low, high = protocol.scores(task.scale)
    return REPEAT_TOLERANCE * (high - low)


def earlier_answers(
    *, task: Task, item_ids: Collection[int], annotator_id: int
) -> dict[int, tuple[dict[str, Any], list[Any]]]:
    """The annotator's first judgments of ``item_ids``, by item: each one's columns and its
    spans (MQM's; contrastive MQM's with the candidate each marks). Two statements at most,
    however many items (a document page asks for all of its segments at once)."""
    found = Judgment.objects.filter(
        task_id=task.id, item_id__in=item_ids, annotator_id=annotator_id, is_repeat=False
    ).values("id", "item_id", "score", "preference", "ranks", "candidate_scores")
    judgments: dict[int, dict[str, Any]] = {row["item_id"]: dict(row) for row in found}
    spans: dict[int, list[Any]] = {}
    protocol = protocol_for(task.task_type)
    if judgments and protocol.penalty_scored:
        ids: list[int] = [row["id"] for row in judgments.values()]
        for span in ErrorSpan.objects.filter(judgment_id__in=ids).order_by("id"):
            entry = (span, span.candidate) if protocol.contrastive else span
            spans.setdefault(span.judgment_id, []).append(entry)
    return {item: (row, spans.get(row["id"], [])) for item, row in judgments.items()}


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
    protocol = protocol_for(task.task_type)
    contrastive = protocol.contrastive
    # A contrastive screen's spans with the candidate each marks.
    shown: list[Any] = [
        (checked.span, checked.candidate) if contrastive else checked.span for checked in spans
    ]
    if check.kind == CheckKind.CONTRASTIVE:
        scores = candidate_values(task=task, values=values, spans=shown, count=check.candidates)
        if not scores or check.shuffled is None or check.shuffled >= len(scores):
            return None
        return contrastive_result(scores=scores, shuffled=check.shuffled)
    item_id = check.against_item_id
    earlier = earlier_answers(task=task, item_ids=[item_id], annotator_id=annotator_id).get(item_id)
    span_task = protocol.spans
    if check.kind == CheckKind.REPEAT:
        if earlier is None:
            return None
        first, first_spans = earlier
        if contrastive:
            return _contrastive_repeat(task, check, values, shown, first, first_spans)
        if protocol.wmt_ranking:  # a preference or ranks: the same again
            columns = ("preference", "ranks", "candidate_scores")
            same = all(values.get(c) == first[c] for c in columns if values.get(c) is not None)
            return CheckResult(check.kind, same, "" if same else "a different answer")
        now = answer_value(task=task, values=values, spans=shown)
        before = answer_value(task=task, values=first, spans=first_spans)
        if now is None or before is None:
            return None
        gap = abs(now - before)
        passed = gap <= repeat_tolerance(task=task)
        return CheckResult(check.kind, passed, "" if passed else f"{gap:g} apart from the first")
    if check.kind == CheckKind.HOTW:
        assert check.damage is not None  # slot_check
        passed = damage_marked(spans=shown, damage=check.damage)
        return CheckResult(check.kind, passed, "" if passed else "the injected error not marked")
    # A bad reference.
    if "bad_reference" not in protocol.quality_control:
        return None
    reasons = []
    damage = check.damage
    if span_task and damage is not None and not damage_marked(spans=shown, damage=damage):
        reasons.append("the damage not marked")
    if earlier is not None:
        now = answer_value(task=task, values=values, spans=shown)
        before = answer_value(task=task, values=earlier[0], spans=earlier[1])
        if now is not None and before is not None and now >= before:
            said = value_said(task=task, value=now), value_said(task=task, value=before)
            reasons.append(f"scored {said[0]}, not below the original's {said[1]}")
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
    now = candidate_values(task=task, values=values, spans=spans, count=check.candidates)
    before = candidate_values(task=task, values=first, spans=first_spans, count=check.candidates)
    if not now or not before or len(now) != len(before):
        return None
    gaps = [abs(a - b) for a, b in zip(now, before, strict=True) if a is not None and b is not None]
    if not gaps:
        return None
    gap = max(gaps)
    passed = gap <= repeat_tolerance(task=task)
    said = "" if passed else f"a translation scored {gap:g} apart from the first time"
    return CheckResult(CheckKind.REPEAT, passed, said)


def value_said(*, task: Task, value: float) -> str:
    """An answer's number as the annotator gave it (MQM: its penalty)."""
    # 0.0 - value: no penalty reads "0", not "-0".
    return f"MQM {0.0 - value:g}" if protocol_for(task.task_type).penalty_scored else f"{value:g}"
