"""Manager pages for tasks."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.confirmations import confirmation, needs_confirmation
from annotation.errors import ApplicationError
from annotation.forms import TaskForm
from annotation.models import Task
from annotation.permissions import CAN_MANAGE, authorize
from annotation.selectors.budget import budget_plan
from annotation.services.adaptive import task_continue
from annotation.services.campaign_states import (
    campaign_archive,
    campaign_close,
    campaign_delete,
)
from annotation.services.crowd import task_crowd_link_enable
from annotation.services.task_changes import (
    EDITABLE_AFTER_LAUNCH,
    task_close,
    task_delete,
    task_pause,
    task_resume,
    task_update,
)
from annotation.services.tasks import (
    TaskError,
    task_create,
    task_launch,
    task_reference_warning,
)
from annotation.views.campaigns import campaign_page
from annotation.views.errors import refused_to


@login_required
@require_POST
@authorize(CAN_MANAGE)
def task_add(request, campaign_id: int):
    form = TaskForm(request.POST)
    try:
        if not form.is_valid():
            raise TaskError(form.errors.as_text())
        task = task_create(
            campaign=request.campaign,
            task_type=form.cleaned_data["task_type"],
            **form.settings(),
        )
    except ApplicationError as error:
        # A form re-rendered with the error beside it, so the manager's choices are kept.
        return campaign_page(
            request,
            request.campaign,
            request.role,
            task_form=form,
            task_error=f"Task not created: {error}.",
            status=400,
        )
    messages.success(
        request,
        f"Task “{task.name}” ({task.get_task_type_display()}, seed {task.seed}) created; "
        "launch it when the data is complete.",
    )
    if warning := task_reference_warning(task=task):
        messages.warning(request, f"Note: {warning}.")
    return redirect("campaign-detail", campaign_id)


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "Not launched: {error}.")
def task_launch_view(request, campaign_id: int, task_id: int):
    items = task_launch(task_id=task_id, campaign=request.campaign)
    messages.success(request, f"Launched with {items} items.")
    if warning := task_reference_warning(task=request.campaign.tasks.get(id=task_id)):
        messages.warning(request, f"Note: {warning}.")
    return redirect("campaign-detail", campaign_id)


# Prolific fills in these placeholders for each participant.
PROLIFIC_QUERY = (
    "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
)

# The state changes the task page's buttons post, each a service of task_changes.
_CHANGES = {
    "pause": (task_pause, "Paused: annotators are told; claimed batches were released."),
    "resume": (task_resume, "Resumed: annotators get items again."),
    "close": (task_close, "Closed: no more items are handed out; judgments are kept."),
    "continue": (task_continue, "Continued: annotators get items again."),
    "delete": (task_delete, "Draft task deleted."),
}


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "Not done: {error}.")
def task_change_view(request, campaign_id: int, task_id: int, change: str):
    if change == "crowd-link":
        task_crowd_link_enable(task_id=task_id, campaign=request.campaign)
        messages.success(request, "Participant link ready (below).")
        return redirect("task-edit", campaign_id, task_id)
    if change not in _CHANGES:
        raise Http404("no such change")
    task = get_object_or_404(Task, id=task_id, campaign=request.campaign)
    if not _confirmed(request, change, task):
        return _confirm_page(request, change, task)
    service, done = _CHANGES[change]
    service(task_id=task_id, campaign=request.campaign)
    messages.success(request, done)
    return redirect("campaign-detail", campaign_id)


@login_required
@authorize(CAN_MANAGE)
def task_edit(request, campaign_id: int, task_id: int):
    """A task's settings: every one of a draft, the wording and crowd settings after launch."""
    campaign = request.campaign
    task = get_object_or_404(Task, id=task_id, campaign=campaign)
    initial = {name: getattr(task, name) for name in TaskForm.base_fields}
    form = TaskForm(request.POST or None, initial=initial)
    if task.state != Task.State.DRAFT:
        for name, field in form.fields.items():
            field.disabled = name not in EDITABLE_AFTER_LAUNCH
    if request.method == "POST" and form.is_valid():
        given = {"task_type": form.cleaned_data["task_type"], **form.settings()}
        changed = {name: value for name, value in given.items() if getattr(task, name) != value}
        try:
            task_update(task_id=task.id, campaign=campaign, **changed)
        except TaskError as error:  # shown beside the form, the manager's choices kept
            form.add_error(None, str(error))
        else:
            messages.success(request, "Task saved.")
            return redirect("campaign-detail", campaign.id)
    crowd_link = None
    if task.crowd_secret:
        crowd_link = (
            request.build_absolute_uri(reverse("crowd-start", args=[task.id, task.crowd_secret]))
            + PROLIFIC_QUERY
        )
    return render(
        request,
        "campaigns/task_edit.html",
        {
            "campaign": campaign,
            "task": task,
            "form": form,
            "crowd_link": crowd_link,
            "plan": budget_plan(campaign, request.GET, task=task),
        },
    )


_CAMPAIGN_CHANGES = {
    "close": (campaign_close, "Campaign closed: its tasks are closed, judgments kept."),
    "archive": (campaign_archive, "Campaign archived."),
    "delete": (campaign_delete, "Draft campaign deleted."),
}


def _confirmed(request, change: str, subject) -> bool:
    """An irreversible change is done only when its form says the manager confirmed it (the
    page's dialog adds ``confirmed``; without JavaScript, the confirm page's form does)."""
    return not needs_confirmation(change, subject) or request.POST.get("confirmed") == "1"


def _confirm_page(request, change: str, subject):
    return render(
        request,
        "campaigns/confirm.html",
        {
            "campaign": request.campaign,
            "asked": confirmation(change, subject),
            "action": request.path,
        },
    )


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "Not done: {error}.")
def campaign_state_view(request, campaign_id: int, change: str):
    if change not in _CAMPAIGN_CHANGES:
        raise Http404("no such change")
    if not _confirmed(request, change, request.campaign):
        return _confirm_page(request, change, request.campaign)
    service, done = _CAMPAIGN_CHANGES[change]
    service(campaign_id=campaign_id)
    messages.success(request, done)
    if change == "delete":
        return redirect("home")
    return redirect("campaign-detail", campaign_id)
