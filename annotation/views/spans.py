"""Organiser page actions of error-span tasks: uploading ESA^AI pre-filled spans."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from annotation.permissions import CAN_MANAGE, campaign_for
from annotation.services.spans import PrefillError, task_prefilled_spans_set
from annotation.textfiles import UploadError, read_uploaded


@login_required
@require_POST
def task_prefill_view(request, campaign_id: int, task_id: int):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_MANAGE)
    task = campaign.tasks.filter(id=task_id).first()
    upload = request.FILES.get("file")
    if task is None or upload is None:
        messages.error(request, "Choose an ESA^AI task and a JSON Lines file.")
        return redirect("campaign-detail", campaign.id)
    try:
        ((name, data),) = read_uploaded([upload], max_bytes=settings.UPLOAD_MAX_BYTES)
        count = task_prefilled_spans_set(task=task, name=name, data=data)
    except (UploadError, PrefillError) as error:
        messages.error(request, f"Nothing changed: {error}.")
    else:
        messages.success(request, f"Pre-filled spans set on {count} items.")
    return redirect("campaign-detail", campaign.id)
