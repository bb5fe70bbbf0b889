"""Reads for crowd studies: each participant's quality-control verdict."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, QuerySet

from annotation.models import LIKERT_TYPES, CrowdParticipant, Judgment, Skip, System, Task
from annotation.selectors.annotation import judged_enough
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


def participant_verdicts(task: Task) -> list[ParticipantVerdict]:
    """Approve or reject per participant by the WMT bad-reference test (Likert tasks): a
    participant who does not score bad references significantly lower than their originals
    is rejected; too few pairs to tell is approved (the test cannot blame them). A participant
    who judged too little of what they answered (``judged_enough``: a batch of skips) is
    rejected whatever the test says."""
    participants = list(CrowdParticipant.objects.filter(task=task).order_by("created_at"))
    quality = {}
    if task.task_type in LIKERT_TYPES:
        names = dict(System.objects.filter(campaign=task.campaign).values_list("id", "name"))
        data = likert_data(task, names)
        users = Usernames({p.user_id: p.participant_id for p in participants})
        quality = {row.annotator_id: row.quality for row in likert_quality(data, users, set())}
    judged = _per_annotator(Judgment.objects.filter(task=task))
    skipped = _per_annotator(Skip.objects.filter(task=task))
    rows = []
    for participant in participants:
        q = quality.get(participant.user_id)
        mine, skips = judged.get(participant.user_id, 0), skipped.get(participant.user_id, 0)
        rejected = q is not None and q.verdict == "failed"
        reason = q.verdict if q else "no judgments with quality control"
        if not judged_enough(judged=mine, skipped=skips):
            rejected, reason = True, f"judged {mine} of {mine + skips} items, skipped the rest"
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
