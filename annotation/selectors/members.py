"""A campaign's members with their work, and its pending invitations."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from annotation.models import Campaign, Invitation, Membership, Role

# Managers first: the people to ask come before the people who judge.
_ROLE_ORDER = {Role.MANAGER: 0, Role.ORGANISER: 1, Role.ANNOTATOR: 2}


@dataclass(frozen=True)
class Member:
    user_id: int
    username: str
    role: str
    judgments: int
    # The last judgment in this campaign, else the last log-in; None if neither.
    last_active: datetime | None
    joined_at: datetime


def campaign_members(campaign: Campaign) -> list[Member]:
    """Every member with their judgments in this campaign, in one query."""
    rows = (
        Membership.objects.filter(campaign=campaign)
        .select_related("user")
        .annotate(
            judgment_count=Count(
                "user__judgments", filter=Q(user__judgments__task__campaign=campaign)
            ),
            last_judgment=Max(
                "user__judgments__submitted_at",
                filter=Q(user__judgments__task__campaign=campaign),
            ),
        )
    )
    members = [
        Member(
            user_id=row.user_id,
            username=row.user.username,
            role=row.role,
            judgments=row.judgment_count,
            last_active=row.last_judgment or row.user.last_login,
            joined_at=row.created_at,
        )
        for row in rows
    ]
    return sorted(members, key=lambda m: (_ROLE_ORDER.get(m.role, 3), m.username.casefold()))


def pending_invitations(campaign: Campaign) -> QuerySet[Invitation]:
    """Unused invitations that still work, the soonest to expire first."""
    return (
        Invitation.objects.filter(
            campaign=campaign, used_at__isnull=True, expires_at__gte=timezone.now()
        )
        .select_related("created_by")
        .order_by("expires_at", "id")
    )


def annotator_in_campaign(*, campaign: Campaign, annotator_id: int) -> dict[str, object] | None:
    """What excluding this annotator would leave out: their judgments per task, and whether
    they are excluded now; None if they judged nothing in the campaign."""
    from annotation.models import AnnotatorExclusion, Judgment, TaskType

    per_task = list(
        Judgment.objects.filter(task__campaign=campaign, annotator_id=annotator_id)
        .values("task_id", "task__task_type")
        .annotate(count=Count("id"))
        .order_by("task_id")
    )
    if not per_task:
        return None
    for row in per_task:
        row["label"] = TaskType(row["task__task_type"]).label
    user = Membership.objects.filter(campaign=campaign, user_id=annotator_id).first()
    username = user.user.username if user else str(annotator_id)
    return {
        "annotator_id": annotator_id,
        "username": username,
        "per_task": per_task,
        "judgments": sum(row["count"] for row in per_task),
        "excluded": AnnotatorExclusion.objects.filter(
            campaign=campaign, annotator_id=annotator_id, task__isnull=True
        ).exists(),
    }
