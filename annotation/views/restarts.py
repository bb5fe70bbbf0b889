"""A manager lets an annotator who failed a task's tutorial or its checks start again, from
the reliability table of the results or the task's tutorial page (the rule:
``annotation.services.restarts``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.confirmations import restart_confirmation
from annotation.models import Task
from annotation.permissions import CAN_MANAGE, authorize
from annotation.services.restarts import annotator_restart
from annotation.views.errors import refused_to

# Where the form was (its ``back`` field): the page to return to.
BACK_PAGES = {"results": "results-human", "tutorial": "tutorial-manage"}


def _back(request, campaign_id: int, task_id: int) -> str:
    page = request.POST.get("back")
    if page == "tutorial":
        return reverse(BACK_PAGES[page], args=[campaign_id, task_id])
    return reverse(BACK_PAGES["results"], args=[campaign_id]) + f"#reliability-{task_id}"


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("results-human", "Not done: {error}.")
def annotator_restart_view(request, campaign_id: int, task_id: int, annotator_id: int):
    """POST with ``confirmed`` (the page's dialog adds it): done; without it, the confirm
    page asks first."""
    task = get_object_or_404(Task, id=task_id, campaign=request.campaign)
    annotator = get_object_or_404(get_user_model(), id=annotator_id)
    name = annotator.get_username()
    if request.POST.get("confirmed") != "1":
        return render(
            request,
            "campaigns/confirm.html",
            {
                "campaign": request.campaign,
                "asked": restart_confirmation(task, name),
                "action": request.path,
                "hidden": {"back": request.POST.get("back", "")},
            },
        )
    attempt = annotator_restart(task=task, annotator_id=annotator.id, by=request.user)
    messages.success(
        request,
        f"{name} may start task #{task.id} again (attempt {attempt}); their earlier answers "
        "are kept, marked excluded.",
    )
    return redirect(_back(request, campaign_id, task_id))
