"""Crowd workers (Prolific, MTurk and others): a per-task link that signs a participant in
by the platform's URL parameters, with no password, into an account that can do that task
only, for one batch per attempt (``evalsite_annotator_quota``, migrations/sql); a manager
may let one who failed start again (``crowd_participant_restart``)."""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.models import (
    Batch,
    Campaign,
    CrowdParticipant,
    Judgment,
    Membership,
    Role,
    Task,
)

# The URL parameters each platform fills in; "participant" is the generic one (MTurk's
# external question or any other platform set up to pass it).
PROLIFIC = "prolific"
GENERIC = "generic"
PLATFORM_PARAMETERS = {
    PROLIFIC: ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"),
    GENERIC: ("participant", "study", "session"),
}
PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class CrowdError(ApplicationError):
    """A participant link that cannot sign anyone in, with the reason."""


@dataclass(frozen=True)
class ParticipantParameters:
    platform: str
    participant_id: str
    study_id: str
    session_id: str


def participant_parameters(*, query: dict[str, str]) -> ParticipantParameters:
    """The platform and ids from a link's query string (Prolific's names first)."""
    for platform, (pid, study, session) in PLATFORM_PARAMETERS.items():
        if query.get(pid):
            values = (query.get(pid, ""), query.get(study, ""), query.get(session, ""))
            for value in values:
                if value and not PARTICIPANT_ID.match(value):
                    raise CrowdError("a participant, study or session id has unexpected characters")
            return ParticipantParameters(platform, *values)
    raise CrowdError("this link needs the participant's id: PROLIFIC_PID (Prolific) or participant")


@transaction.atomic
def task_crowd_link_enable(*, task_id: int, campaign: Campaign | None = None) -> Task:
    """Gives the task a secret for its participant link (kept if it has one); a task of
    another campaign than the one named is not found."""
    tasks = Task.objects.select_for_update()
    if campaign is not None:
        tasks = tasks.filter(campaign=campaign)
    task = tasks.filter(id=task_id).first()
    if task is None:
        raise CrowdError("no such task in this campaign", kind="not_found")
    if not task.crowd_secret:
        task.crowd_secret = secrets.token_urlsafe(24)
        task.save(update_fields=["crowd_secret"])
    return task


def task_for_link(*, task_id: int, secret: str) -> Task:
    """The launched task a participant link opens, or why it cannot."""
    task = Task.objects.select_related("campaign").filter(id=task_id).first()
    if task is None or not task.crowd_secret or not hmac.compare_digest(task.crowd_secret, secret):
        raise CrowdError("this study link is not valid; ask the researcher for a new one")
    if task.state != Task.State.LAUNCHED:
        raise CrowdError(f"this study is {task.get_state_display().lower()}; thank you")
    return task


@transaction.atomic
def participant_sign_in(
    *, task_id: int, secret: str, parameters: ParticipantParameters
) -> AbstractBaseUser:
    """The participant's account for this task, created on first visit (no password: the
    link and the platform's ids are the credentials), member of the campaign as an
    annotator."""
    task = task_for_link(task_id=task_id, secret=secret)
    participants = CrowdParticipant.objects.select_related("user").filter(
        task=task, platform=parameters.platform, participant_id=parameters.participant_id
    )
    existing = participants.first()
    if existing is not None:
        return existing.user
    try:
        # A savepoint: when the same participant's concurrent first visit created the account
        # after the check above, this one is undone and theirs is signed in.
        with transaction.atomic():
            return _participant_create(task, parameters)
    except IntegrityError:
        return participants.get().user


def _participant_create(task: Task, parameters: ParticipantParameters) -> AbstractBaseUser:
    users = get_user_model()
    user = users(username=f"crowd-{task.id}-{secrets.token_hex(6)}")
    user.set_unusable_password()
    user.save()
    CrowdParticipant.objects.create(
        task=task,
        user=user,
        platform=parameters.platform,
        participant_id=parameters.participant_id,
        study_id=parameters.study_id,
        session_id=parameters.session_id,
    )
    Membership.objects.create(campaign=task.campaign, user=user, role=Role.ANNOTATOR)
    return user


@transaction.atomic
def crowd_participant_restart(*, task: Task, participant_id: int) -> CrowdParticipant:
    """Lets a participant start again (Appraise #54, Pearmut #253): one more batch for them
    (a new one: never an item they had), their earlier judgments kept but marked excluded
    (left out of the rankings, ``excluded`` in the exports) and their check outcomes kept
    under the earlier attempt. Refused while they hold a batch or before they had one."""
    participant = (
        CrowdParticipant.objects.select_for_update().filter(task=task, id=participant_id).first()
    )
    if participant is None:
        raise CrowdError("no such participant in this task", kind="not_found")
    user_id = participant.user_id
    if Batch.objects.filter(task=task, annotator_id=user_id, state=Batch.State.LEASED).exists():
        raise CrowdError(
            f"participant {participant.participant_id} is still working on a batch; they can "
            "start again once it is finished",
            kind="conflict",
        )
    with connection.cursor() as cursor:
        cursor.execute("SELECT evalsite_batches_had(%s, %s)", [task.id, user_id])
        (had,) = cursor.fetchone()
    if had < participant.attempts:
        raise CrowdError(
            f"participant {participant.participant_id} has not done the batch of this attempt "
            "yet: nothing to start again",
            kind="conflict",
        )
    Judgment.objects.filter(task=task, annotator_id=user_id, excluded=False).update(excluded=True)
    participant.attempts += 1
    participant.restarted_at = timezone.now()
    participant.save(update_fields=["attempts", "restarted_at"])
    return participant
