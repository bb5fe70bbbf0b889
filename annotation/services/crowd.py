"""Crowd workers (Prolific, MTurk and others): a per-task link that signs a participant in
by the platform's URL parameters, with no password, into an account that can do that task
only, for one batch (``evalsite_annotator_quota``, migrations/sql)."""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from annotation.errors import ApplicationError
from annotation.models import Campaign, CrowdParticipant, Membership, Role, Task

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
