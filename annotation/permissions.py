"""Who may do what in a campaign. Every view and API view goes through these."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from annotation.models import Campaign, Membership, Role

# What each role may do; admins (superusers) may do everything.
CAN_MANAGE = {Role.MANAGER}
CAN_SEE_RESULTS = {Role.MANAGER, Role.ORGANISER}
CAN_ANNOTATE = {Role.ANNOTATOR}
# Leaving an annotator out of the results: the people who read them (README: organisers).
CAN_EXCLUDE = {Role.MANAGER, Role.ORGANISER}


def campaign_role(user, campaign_id: int) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user=user)
        .values_list("role", flat=True)
        .first()
    )


def campaign_for(user, campaign_id: int, allowed: set[str]) -> tuple[Campaign, str]:
    """The campaign and the user's role, or 404 for non-members and 403 for the wrong role.

    Non-members get 404, not 403, so that campaign ids reveal nothing.
    """
    campaign = get_object_or_404(Campaign, id=campaign_id)
    if user.is_authenticated and user.is_superuser:
        return campaign, "admin"
    role = campaign_role(user, campaign_id)
    if role is None:
        raise_not_found()
    if role not in allowed:
        raise PermissionDenied("your role in this campaign does not allow this")
    return campaign, role


def raise_not_found():
    from django.http import Http404

    raise Http404("no such campaign")


# Annotators of a paused or closed task are told so on its page (no new items).
ANNOTATOR_VISIBLE_STATES = ("launched", "paused", "closed")


def crowd_may_open(user, task_id: int) -> bool:
    """A crowd participant's account opens its own task only."""
    participant = getattr(user, "crowd_participant", None)
    return participant is None or participant.task_id == task_id


def task_for_annotator(user, task_id: int):
    """A launched (or paused, closed) task of a campaign where the user is an annotator.

    404 for unknown tasks and non-members, 403 for members with another role.
    """
    from django.db.models import OuterRef, Subquery
    from django.http import Http404

    from annotation.models import Task

    role = Membership.objects.filter(campaign=OuterRef("campaign_id"), user=user).values("role")
    task = (
        Task.objects.select_related("campaign")
        .annotate(role=Subquery(role[:1]))
        .filter(id=task_id, state__in=ANNOTATOR_VISIBLE_STATES)
        .first()
    )
    if task is None or task.role is None or not crowd_may_open(user, task.id):
        raise Http404("no such task")
    if task.role not in CAN_ANNOTATE:
        raise PermissionDenied("only the campaign's annotators judge its items")
    return task


def annotator_task(user, task_id: int):
    """``task_for_annotator`` in one SQL query for the annotator's hot path (the next item and
    the judgment): the task with the user's role and crowd scope joined, no ORM compilation.
    Same answers: 404 unknown task, non-member or another task's crowd participant, 403
    another role."""
    from django.http import Http404

    from annotation.models import CrowdParticipant, Task

    sql = (
        f"SELECT t.*, m.role AS role, cp.task_id AS crowd_task_id"  # noqa: S608 (model tables)
        f" FROM {Task._meta.db_table} t"
        f" LEFT JOIN {Membership._meta.db_table} m"
        " ON m.campaign_id = t.campaign_id AND m.user_id = %s"
        f" LEFT JOIN {CrowdParticipant._meta.db_table} cp ON cp.user_id = %s"
        " WHERE t.id = %s AND t.state = ANY(%s)"
    )
    states = list(ANNOTATOR_VISIBLE_STATES)
    rows = list(Task.objects.raw(sql, [user.id, user.id, task_id, states]))
    task = rows[0] if rows else None
    if task is None or task.role is None:
        raise Http404("no such task")
    if task.crowd_task_id is not None and task.crowd_task_id != task.id:
        raise Http404("no such task")
    if task.role not in CAN_ANNOTATE:
        raise PermissionDenied("only the campaign's annotators judge its items")
    return task
