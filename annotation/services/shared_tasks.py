"""Shared tasks: creating one, adding or removing its campaigns (one per language pair), and
choosing the WMT procedure that ranks each pair.

Who acts is checked by the caller (``authorize_shared_task``); what is added is checked here:
the actor must be allowed to read the campaign's results, and a shared task holds one
campaign per language pair.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction

from annotation.errors import ApplicationError
from annotation.models import Campaign, SharedTask, SharedTaskCampaign
from annotation.permissions import may_create_shared_task, results_campaign_ids
from annotation.selectors.shared_task_pairs import pair_task
from annotation.selectors.shared_task_procedures import PAIR_PROCEDURES, task_protocol
from annotation.selectors.shared_tasks import shared_task_pair
from annotation.services.results_snapshots import results_snapshot_refresh_request

NAME_MAX_LENGTH = SharedTask._meta.get_field("name").max_length
METRICS_MAX_LENGTH = SharedTask._meta.get_field("autorank_metrics").max_length


class SharedTaskError(ApplicationError):
    """A change the shared task cannot take, with the reason for the person."""


def _metrics_text(metrics: Iterable[str]) -> str:
    names = [name.strip() for name in metrics if name.strip()]
    text = ",".join(dict.fromkeys(names))
    if len(text) > (METRICS_MAX_LENGTH or 0):
        raise SharedTaskError(f"too many AutoRank metrics: at most {METRICS_MAX_LENGTH} characters")
    return text


@transaction.atomic
def shared_task_create(
    *,
    name: str,
    owner,
    description: str = "",
    campaign_ids: Iterable[int] = (),
    autorank_metrics: Iterable[str] = (),
) -> SharedTask:
    """A shared task owned by ``owner``, with the campaigns ``campaign_ids`` (in that order)."""
    name = name.strip()
    if not name:
        raise SharedTaskError("a shared task needs a name")
    if len(name) > (NAME_MAX_LENGTH or 0):
        raise SharedTaskError(f"the name is too long: at most {NAME_MAX_LENGTH} characters")
    if not may_create_shared_task(owner):
        raise SharedTaskError(
            "only organisers and managers of a campaign create shared tasks", kind="forbidden"
        )
    taken = SharedTaskError(f"a shared task named {name!r} exists already", kind="conflict")
    if SharedTask.objects.filter(name=name).exists():
        raise taken
    try:
        with transaction.atomic():  # a concurrent create of the name loses here, as above
            shared_task = SharedTask.objects.create(
                name=name,
                owner=owner,
                description=description.strip(),
                autorank_metrics=_metrics_text(autorank_metrics),
            )
    except IntegrityError:
        raise taken from None
    for campaign_id in campaign_ids:
        shared_task_campaign_add(shared_task=shared_task, campaign_id=campaign_id, by=owner)
    return shared_task


@transaction.atomic
def shared_task_campaign_add(
    *, shared_task: SharedTask, campaign_id: int, by
) -> SharedTaskCampaign:
    """Adds a campaign as the shared task's pair for its language pair."""
    # The row lock orders concurrent adds, so that two campaigns of one pair cannot both pass
    # the check below.
    SharedTask.objects.select_for_update().filter(id=shared_task.id).first()
    campaign = Campaign.objects.filter(id=campaign_id).first()
    if campaign is None or not results_campaign_ids(by, [campaign_id]):
        raise SharedTaskError("no such campaign among those whose results you read", "not_found")
    pairs = SharedTaskCampaign.objects.filter(shared_task=shared_task).select_related("campaign")
    for pair in pairs:
        if pair.campaign_id == campaign.id:
            raise SharedTaskError(f"{campaign.name} is in the shared task already", "conflict")
        if pair.campaign.language_pair == campaign.language_pair:
            raise SharedTaskError(
                f"the shared task has a {campaign.language_pair} campaign already "
                f"({pair.campaign.name}): one campaign per language pair",
                "conflict",
            )
    link = SharedTaskCampaign.objects.create(shared_task=shared_task, campaign=campaign)
    # Its pair table is computed ahead, so that the shared-task page finds it stored.
    results_snapshot_refresh_request(campaign_id=campaign.id)
    return link


@transaction.atomic
def shared_task_campaign_remove(*, shared_task: SharedTask, campaign_id: int) -> None:
    """Takes a campaign out of the shared task (the campaign itself is untouched)."""
    deleted, _ = SharedTaskCampaign.objects.filter(
        shared_task=shared_task, campaign_id=campaign_id
    ).delete()
    if not deleted:
        raise SharedTaskError("that campaign is not in the shared task", "not_found")


@transaction.atomic
def shared_task_pair_procedure_set(
    *, shared_task: SharedTask, campaign_id: int, procedure: str
) -> SharedTaskCampaign:
    """Chooses the WMT procedure that ranks one pair (blank: its protocol's default); only a
    procedure of the pair's protocol is taken (``PAIR_PROCEDURES``)."""
    link = shared_task_pair(shared_task, campaign_id)
    if link is None:
        raise SharedTaskError("that campaign is not in the shared task", "not_found")
    procedure = procedure.strip()
    if procedure:
        task = pair_task(link.campaign)
        if task is None:
            raise SharedTaskError(
                f"{link.campaign.name} has no launched task to rank yet, so no procedure to choose"
            )
        protocol = task_protocol(task)
        choices = PAIR_PROCEDURES[protocol]
        if procedure not in choices:
            raise SharedTaskError(
                f"{procedure[:20]!r} does not rank a {task.get_task_type_display()} pair: "
                f"choose one of {', '.join(choices)}"
            )
    link.procedure = procedure
    link.save(update_fields=["procedure"])
    # The pair's table by this procedure is part of the pair's snapshots, computed ahead.
    results_snapshot_refresh_request(campaign_id=campaign_id)
    return link
