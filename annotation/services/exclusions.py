"""Leaving an annotator out of a campaign's human results, and bringing them back."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction

from annotation.errors import ApplicationError
from annotation.models import AnnotatorExclusion, Campaign, Judgment


class ExclusionError(ApplicationError):
    """An exclusion that cannot be made, with the reason."""


@transaction.atomic
def annotator_exclude(
    *,
    campaign: Campaign,
    annotator_id: int,
    excluded: bool,
    by: User | None,
    task_id: int | None = None,
) -> bool:
    """Excludes (or includes again) an annotator's judgments from the rankings and agreement
    of one task, or of every task of the campaign (``task_id`` None); returns whether they
    are excluded in that scope now. Idempotent; no judgment is changed, so including them
    again restores every number. Including without a task brings them back everywhere."""
    if task_id is not None and not campaign.tasks.filter(id=task_id).exists():
        raise ExclusionError("no such task in this campaign", kind="not_found")
    mine = AnnotatorExclusion.objects.filter(campaign=campaign, annotator_id=annotator_id)
    if not excluded:
        (mine if task_id is None else mine.filter(task_id=task_id)).delete()
        return False
    judged = Judgment.objects.filter(task__campaign=campaign, annotator_id=annotator_id)
    if task_id is not None:
        judged = judged.filter(task_id=task_id)
    if not judged.exists():
        where = "task" if task_id is not None else "campaign"
        raise ExclusionError(f"this user has no judgments in the {where}")
    scope: dict[str, object] = (
        {"task__isnull": True} if task_id is None else {"task_id": task_id}
    )  # the isnull lookup is left out when the row is created: task stays NULL
    AnnotatorExclusion.objects.get_or_create(
        campaign=campaign, annotator_id=annotator_id, defaults={"created_by": by}, **scope
    )
    return True


@transaction.atomic
def annotators_exclude(
    *,
    campaign: Campaign,
    annotator_ids: Iterable[int],
    by: User | None,
    task_id: int | None = None,
) -> list[int]:
    """Excludes several annotators at once (those who fail the reliability checks), each as
    ``annotator_exclude`` does, so each can be included again; all or none. Returns them."""
    done = sorted(set(annotator_ids))
    for annotator_id in done:
        annotator_exclude(
            campaign=campaign, annotator_id=annotator_id, excluded=True, by=by, task_id=task_id
        )
    return done
