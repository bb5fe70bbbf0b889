"""Manager pages for tasks and invitations, and the invitation acceptance page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.forms import InvitationAcceptForm, TaskForm
from annotation.permissions import CAN_MANAGE, campaign_for
from annotation.services.invitations import InvitationError, invitation_accept, invitation_create
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


@login_required
@require_POST
def invitation_add(request, campaign_id: int):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_MANAGE)
    role = request.POST.get("role", "annotator")
    try:
        _, token = invitation_create(
            campaign=campaign, created_by=request.user, role=role, note=request.POST.get("note", "")
        )
    except InvitationError as error:
        messages.error(request, str(error))
        return redirect("campaign-detail", campaign.id)
    # The token goes in the fragment, which browsers never send to a server or in a Referer.
    link = request.build_absolute_uri("/invite/") + "#" + token
    return render(
        request,
        "campaigns/invitation.html",
        {"campaign": campaign, "link": link, "token": token, "role": role},
    )


def invitation_accept_view(request):
    form = InvitationAcceptForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = invitation_accept(**form.cleaned_data)
        except InvitationError as error:
            form.add_error(None, str(error))
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}!")
            return redirect("task-list")
    return render(request, "auth/invitation.html", {"form": form})
