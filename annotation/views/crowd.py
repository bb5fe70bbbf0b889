"""Crowd participants: the study link's start page, the participants page (verdicts, and
letting one who failed start again) and the approve / reject CSV."""

from __future__ import annotations

import csv
import io

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.lib.spreadsheet import spreadsheet_safe_row
from annotation.models import Task
from annotation.permissions import CAN_MANAGE, authorize
from annotation.selectors.crowd import participant_verdicts
from annotation.services.crowd import (
    CrowdError,
    crowd_participant_restart,
    participant_parameters,
    participant_sign_in,
    task_for_link,
)
from annotation.views.errors import refused_to


def crowd_start(request, task_id: int, secret: str):
    """GET: a start page carrying the platform's parameters; POST (CSRF-checked): signs the
    participant in and sends them to the task."""
    query = request.POST if request.method == "POST" else request.GET
    try:
        parameters = participant_parameters(query={key: query.get(key, "") for key in query})
        task_for_link(task_id=task_id, secret=secret)
        if request.method != "POST":
            return render(
                request,
                "annotate/crowd_start.html",
                {"hidden": sorted((k, v) for k, v in query.items() if k != "csrfmiddlewaretoken")},
            )
        user = participant_sign_in(task_id=task_id, secret=secret, parameters=parameters)
    except CrowdError as error:
        return render(request, "annotate/crowd_error.html", {"error": error}, status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect("annotate", task_id)


@login_required
@authorize(CAN_MANAGE)
def crowd_verdicts_csv(request, campaign_id: int, task_id: int):
    task = get_object_or_404(Task, id=task_id, campaign=request.campaign)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "participant_id",
            "study_id",
            "session_id",
            "verdict",
            "reason",
            "judgments",
            "bad_reference_pairs",
            "bad_reference_p",
            "checks_answered",
            "checks_passed",
            "attempt",
        ]
    )
    for row in participant_verdicts(task):
        writer.writerow(
            spreadsheet_safe_row(
                [
                    row.participant_id,
                    row.study_id,
                    row.session_id,
                    row.verdict,
                    row.reason,
                    row.judgments,
                    row.bad_reference_pairs,
                    "" if row.bad_reference_p is None else f"{row.bad_reference_p:.6g}",
                    row.checks_answered,
                    row.checks_passed,
                    row.attempt,
                ]
            )
        )
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="task-{task.id}-participants.csv"'
    return response


@login_required
@authorize(CAN_MANAGE)
def crowd_participants(request, campaign_id: int, task_id: int):
    """Each participant's verdict and its reason; one who failed may be let start again."""
    task = get_object_or_404(Task, id=task_id, campaign=request.campaign)
    return render(
        request,
        "campaigns/participants.html",
        {"campaign": request.campaign, "task": task, "rows": participant_verdicts(task)},
    )


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("crowd-participants", "Not done: {error}.", url_kwargs=("campaign_id", "task_id"))
def crowd_participant_restart_view(request, campaign_id: int, task_id: int, participant_id: int):
    task = get_object_or_404(Task, id=task_id, campaign=request.campaign)
    participant = crowd_participant_restart(task=task, participant_id=participant_id)
    messages.success(
        request,
        f"Participant {participant.participant_id} may start again (attempt "
        f"{participant.attempts}); their earlier answers are kept, marked excluded.",
    )
    return redirect("crowd-participants", campaign_id, task_id)
