"""Manager pages for tasks."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from annotation.forms import TaskForm
from annotation.permissions import CAN_MANAGE, campaign_for
from annotation.services.tasks import (
    TaskError,
    task_create,
    task_launch,
    task_reference_warning,
)


@login_required
@require_POST
def task_add(request, campaign_id: int):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_MANAGE)
    form = TaskForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Task not created: {form.errors.as_text()}")
        return redirect("campaign-detail", campaign.id)
    try:
        task = task_create(campaign=campaign, **form.cleaned_data)
    except TaskError as error:
        messages.error(request, f"Task not created: {error}.")
    else:
        messages.success(
            request,
            f"{task.get_task_type_display()} task created; launch it when the data is complete.",
        )
        if warning := task_reference_warning(task):
            messages.warning(request, f"Note: {warning}.")
    return redirect("campaign-detail", campaign.id)


@login_required
@require_POST
def task_launch_view(request, campaign_id: int, task_id: int):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_MANAGE)
    if not campaign.tasks.filter(id=task_id).exists():
        messages.error(request, "No such task in this campaign.")
        return redirect("campaign-detail", campaign.id)
    try:
        items = task_launch(task_id=task_id)
    except TaskError as error:
        messages.error(request, f"Not launched: {error}.")
    else:
        messages.success(request, f"Launched with {items} items.")
        if warning := task_reference_warning(campaign.tasks.get(id=task_id)):
            messages.warning(request, f"Note: {warning}.")
    return redirect("campaign-detail", campaign.id)
