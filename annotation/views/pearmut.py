"""The page that imports a Pearmut campaign file (and its annotations) as a new campaign."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.shortcuts import redirect, render

from annotation.errors import ApplicationError
from annotation.lib.textfiles import UploadError
from annotation.lib.uploads import read_uploaded
from annotation.services.pearmut_imports import pearmut_upload


class PearmutForm(forms.Form):
    campaign = forms.FileField(help_text="Pearmut's campaign JSON")
    annotations = forms.FileField(
        required=False, help_text="Optional: Pearmut's annotations (data/outputs/*.jsonl)"
    )
    name = forms.CharField(
        max_length=200, required=False, help_text="Blank: the file's campaign_id"
    )
    languages = forms.CharField(
        max_length=33,
        required=False,
        help_text="source-target, e.g. en-de; blank when the item ids start with the pair",
    )


@login_required
@permission_required("annotation.add_campaign", raise_exception=True)
def pearmut_import_view(request):
    form = PearmutForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        uploads = [form.cleaned_data["campaign"]]
        if form.cleaned_data["annotations"]:
            uploads.append(form.cleaned_data["annotations"])
        try:
            files = read_uploaded(uploads, max_bytes=settings.UPLOAD_MAX_BYTES)
            task, parsed = pearmut_upload(
                owner=request.user,
                campaign_file=files[0],
                annotations_file=files[1] if len(files) > 1 else None,
                name=form.cleaned_data["name"],
                languages=form.cleaned_data["languages"],
            )
        except (ApplicationError, UploadError) as error:
            form.add_error(None, str(error).rstrip(".") + ". Nothing was imported.")
        else:
            messages.success(
                request,
                f"Imported {task.items.count()} items and {task.judgments.count()} judgments"
                f" into the {task.get_task_type_display()} task.",
            )
            for note in parsed.notes:
                messages.info(request, note)
            return redirect("campaign-detail", task.campaign_id)
    status = 400 if request.method == "POST" else 200
    return render(request, "campaigns/pearmut.html", {"form": form}, status=status)
