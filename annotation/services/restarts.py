"""Letting an annotator who failed a task's tutorial or its attention checks start again
(Appraise #54, Pearmut #253), whoever they are: an invited annotator gets an
``AnnotatorRestart``; a crowd participant's restart is ``crowd.crowd_participant_restart``.

Nothing is deleted; their earlier answers are kept and marked: judgments ``excluded`` (left
out of the rankings, marked in the exports), check outcomes under the earlier attempt's
number (the reliability table reads the current attempt's), tutorial attempts started
before the restart (no longer counted against the tutorial's limit). An annotator who failed
the tutorial gets a new attempt at it at once; the loop gives them another
``items_per_annotator`` of new items (never one they had).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from annotation.errors import ApplicationError
from annotation.models import (
    AnnotatorRestart,
    Batch,
    CrowdParticipant,
    Judgment,
    Membership,
    Role,
    Task,
    TutorialAttempt,
)
from annotation.services.crowd import crowd_participant_restart
from annotation.services.tutorials import tutorial_retry


class RestartError(ApplicationError):
    """A restart that cannot be given, with the reason."""


@transaction.atomic
def annotator_restart(*, task: Task, annotator_id: int, by: User | None) -> int:
    """Lets the annotator start the task again; returns the attempt they are now on.
    Refused for someone who is not an annotator of the campaign, while the task is not
    running, while they hold a batch, and when there is nothing to start again (no failed
    tutorial, nothing judged since the last restart)."""
    crowd = CrowdParticipant.objects.filter(task=task, user_id=annotator_id).first()
    if crowd is not None:
        return crowd_participant_restart(task=task, participant_id=crowd.id).attempts
    # Locked: two restarts of one annotator at once open one attempt, not two.
    member = (
        Membership.objects.select_for_update()
        .select_related("user")
        .filter(campaign_id=task.campaign_id, user_id=annotator_id, role=Role.ANNOTATOR)
        .first()
    )
    if member is None:
        raise RestartError("no such annotator in this campaign", kind="not_found")
    name = member.user.get_username()
    if task.state != Task.State.LAUNCHED:
        raise RestartError(
            f"the task is {task.get_state_display().lower()}: nobody can start it again",
            kind="conflict",
        )
    if Batch.objects.filter(
        task=task, annotator_id=annotator_id, state=Batch.State.LEASED
    ).exists():
        raise RestartError(
            f"{name} is still working on a batch; they can start again once it is finished",
            kind="conflict",
        )
    tutorial = TutorialAttempt.objects.filter(task=task, annotator_id=annotator_id)
    failed_tutorial = not tutorial.filter(passed=True).exists() and (
        tutorial.order_by("-number").values_list("passed", flat=True).first() is False
    )
    judged = Judgment.objects.filter(task=task, annotator_id=annotator_id, excluded=False)
    if not failed_tutorial and not judged.exists():
        raise RestartError(
            f"{name} has neither failed the tutorial nor judged anything since they last "
            "started: nothing to start again",
            kind="conflict",
        )
    judged.update(excluded=True)
    last = AnnotatorRestart.objects.filter(task=task, annotator_id=annotator_id)
    attempt = (last.order_by("-attempt").values_list("attempt", flat=True).first() or 1) + 1
    AnnotatorRestart.objects.create(task=task, annotator_id=annotator_id, attempt=attempt, by=by)
    if failed_tutorial:
        tutorial_retry(task=task, annotator_id=annotator_id)
    return attempt
