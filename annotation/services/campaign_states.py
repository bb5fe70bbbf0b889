"""Closing and archiving a campaign."""

from __future__ import annotations

from django.db import transaction

from annotation.models import Campaign, Job, SystemRun, Task
from annotation.services import assignment
from annotation.services.tasks import TaskError


@transaction.atomic
def campaign_close(*, campaign_id: int) -> Campaign:
    """Closes the campaign and every task still running in it (claims released, judgments
    kept); results stay readable."""
    campaign = Campaign.objects.select_for_update().get(id=campaign_id)
    if campaign.state in (Campaign.State.CLOSED, Campaign.State.ARCHIVED):
        raise TaskError(f"the campaign is {campaign.state} already")
    running = Task.objects.select_for_update().filter(
        campaign=campaign, state__in=[Task.State.LAUNCHED, Task.State.PAUSED]
    )
    for task in running:
        assignment.batches_release(task=task)
    running.update(state=Task.State.CLOSED)
    campaign.state = Campaign.State.CLOSED
    campaign.save(update_fields=["state"])
    return campaign


@transaction.atomic
def campaign_archive(*, campaign_id: int) -> Campaign:
    """Archives a closed campaign (kept, read-only, listed apart)."""
    campaign = Campaign.objects.select_for_update().get(id=campaign_id)
    if campaign.state != Campaign.State.CLOSED:
        raise TaskError("close the campaign before archiving it")
    campaign.state = Campaign.State.ARCHIVED
    campaign.save(update_fields=["state"])
    return campaign


@transaction.atomic
def campaign_delete(*, campaign_id: int) -> None:
    """Deletes a draft campaign (never launched, so nothing was judged in it) with its data;
    the metrics jobs of its system runs go with it, as they name their run by id only."""
    campaign = Campaign.objects.select_for_update().get(id=campaign_id)
    if campaign.state != Campaign.State.DRAFT:
        raise TaskError("only a draft campaign can be deleted; close a launched one instead")
    runs = SystemRun.objects.filter(system__campaign=campaign).values("id")
    Job.objects.filter(kind=Job.Kind.RUN_METRICS, target_id__in=runs).delete()
    campaign.delete()
