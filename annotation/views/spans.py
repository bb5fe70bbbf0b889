"""Organiser page actions of error-span tasks: uploading ESA^AI pre-filled spans."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from annotation.lib.uploads import read_uploaded
from annotation.permissions import CAN_MANAGE, authorize
from annotation.services.spans import PrefillError, task_prefilled_spans_set
from annotation.views.errors import refused_to


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "Nothing changed: {error}.")
def task_prefill_view(request, campaign_id: int, task_id: int):
    task = request.campaign.tasks.filter(id=task_id).first()
    upload = request.FILES.get("file")
    if task is None or upload is None:
        raise PrefillError("choose an ESA^AI task and a JSON Lines file")
    ((name, data),) = read_uploaded([upload], max_bytes=settings.UPLOAD_MAX_BYTES)
    count = task_prefilled_spans_set(task=task, name=name, data=data)
    messages.success(request, f"Pre-filled spans set on {count} items.")
    return redirect("campaign-detail", campaign_id)
