"""Reads for crowd studies: whether a participant earned the pass or the fail code, and each
participant's approve / reject verdict with its reason."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, QuerySet

from annotation.models import CrowdParticipant, Judgment, Skip, System, Task
from annotation.protocols import protocol_for
from annotation.selectors.annotation import AnnotatorProgress, judged_enough
from annotation.selectors.checks import CheckSummary, check_summaries
from annotation.selectors.human.likert import likert_data, likert_quality
from annotation.selectors.human.loading import Usernames

APPROVE = "approve"
REJECT = "reject"


@dataclass(frozen=True)
class ParticipantVerdict:
    participant_id: str
    study_id: str
    session_id: str
    judgments: int
    bad_reference_pairs: int
    bad_reference_p: float | None
    verdict: str  # approve / reject
    reason: str
    attempt: int = 1
    participant_pk: int = 0  # the CrowdParticipant row (a manager's restart names it)
    answered: int = 0  # items judged or skipped in the current attempt
    checks_answered: int = 0
    checks_passed: int = 0


@dataclass(frozen=True)
class CrowdEnd:
    """How a participant's batch ended: ``done`` (every item answered, enough of them
    judged: no code for a batch of skips or one left half-way), ``passed`` (done, and the
    attention checks of this attempt passed: the completion code; else the failure code)."""

    done: bool
    passed: bool
    reason: str


def crowd_end(
    *, task: Task, participant: CrowdParticipant, progress: AnnotatorProgress
) -> CrowdEnd:
    """The one rule for the end page: which code (or URL) a participant gets."""
    if progress.batches < participant.attempts:  # let start again, no new batch taken yet
        return CrowdEnd(False, False, "no batch of this attempt was taken yet")
    if not progress.total or progress.answered < progress.total:
        return CrowdEnd(False, False, "the batch is not finished")
    if not progress.judged_enough:
        reason = f"judged {progress.judged} of {progress.answered} items, skipped the rest"
        return CrowdEnd(False, False, reason)
    summary = _summaries(task, [participant]).get(participant.user_id, _NO_CHECKS)
    return CrowdEnd(True, summary.passes, summary.said())


_NO_CHECKS = CheckSummary(0, 0, ())


def _summaries(task: Task, participants: list[CrowdParticipant]) -> dict[int, CheckSummary]:
    return check_summaries(task, attempt_of={p.user_id: p.attempts for p in participants})


def participant_verdicts(task: Task) -> list[ParticipantVerdict]:
    """Approve or reject per participant, with every reason: the WMT bad-reference test
    (Likert tasks: a participant who does not score bad references significantly lower than
    their originals is rejected; too few pairs to tell is approved), the attention checks of
    their current attempt (``MIN_CHECKS_PASSED_SHARE`` passed), and judging enough of what
    they answered (``judged_enough``: a batch of skips is rejected whatever the rest says)."""
    participants = list(CrowdParticipant.objects.filter(task=task).order_by("created_at"))
    quality = {}
    if protocol_for(task.task_type).measures:  # Likert questions
        names = dict(System.objects.filter(campaign=task.campaign).values_list("id", "name"))
        data = likert_data(task, names)
        users = Usernames({p.user_id: p.participant_id for p in participants})
        quality = {row.annotator_id: row.quality for row in likert_quality(data, users, set())}
    # Earlier attempts' judgments are kept, marked excluded: the current attempt counts.
    judged = _per_annotator(Judgment.objects.filter(task=task, excluded=False))
    skipped = _per_annotator(Skip.objects.filter(task=task))
    checks = _summaries(task, participants)
    rows = []
    for participant in participants:
        q = quality.get(participant.user_id)
        mine, skips = judged.get(participant.user_id, 0), skipped.get(participant.user_id, 0)
        if participant.restarted_at is not None:  # this attempt's skips only
            skips = Skip.objects.filter(
                task=task,
                annotator_id=participant.user_id,
                created_at__gte=participant.restarted_at,
            ).count()
        summary = checks.get(participant.user_id, _NO_CHECKS)
        rejected = (q is not None and q.verdict == "failed") or not summary.passes
        reasons = [f"bad-reference test {q.verdict}" if q else "no bad-reference test"]
        reasons.append(summary.said())
        if not mine + skips:
            rejected, reasons = True, ["no item answered yet"]
        elif not judged_enough(judged=mine, skipped=skips):
            rejected = True
            reasons = [f"judged {mine} of {mine + skips} items, skipped the rest"]
        if participant.attempts > 1:
            reasons.append(f"attempt {participant.attempts}")
        reason = "; ".join(reasons)
        rows.append(
            ParticipantVerdict(
                participant_id=participant.participant_id,
                study_id=participant.study_id,
                session_id=participant.session_id,
                judgments=q.judgments if q else 0,
                bad_reference_pairs=q.bad_reference_pairs if q else 0,
                bad_reference_p=q.bad_reference_p if q else None,
                verdict=REJECT if rejected else APPROVE,
                reason=reason,
                attempt=participant.attempts,
                participant_pk=participant.id,
                answered=mine + skips,
                checks_answered=summary.answered,
                checks_passed=summary.passed,
            )
        )
    return rows


def _per_annotator(rows: QuerySet) -> dict[int, int]:
    return dict(
        rows.order_by()
        .values("annotator_id")
        .annotate(n=Count("id"))
        .values_list("annotator_id", "n")
    )
