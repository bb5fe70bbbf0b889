"""Manager and organiser pages: campaigns, uploads, systems."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.forms import CampaignForm, MetricScoresForm, TaskForm, UploadForm
from annotation.lib.textfiles import UploadError
from annotation.lib.uploads import format_size, read_uploaded
from annotation.permissions import CAN_MANAGE, CAN_SEE_RESULTS, authorize, can_manage
from annotation.selectors.campaigns import campaign_overview, campaigns_for_user
from annotation.selectors.systems import system_runs_with_jobs
from annotation.selectors.tasks import tasks_missing_systems
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.imports import upload_plan
from annotation.services.jobs import campaign_metrics_recompute
from annotation.services.metric_uploads import (
    decode_scores,
    metric_scores_upload,
)
from annotation.services.pending_uploads import (
    NAMED_KINDS,
    pending_upload_confirm,
    pending_upload_create,
    pending_upload_discard,
    pending_upload_plan,
)
from annotation.views.errors import refused_to


@login_required
def home(request):
    campaigns = campaigns_for_user(request.user)
    # Annotators go straight to their work; the campaign pages are for managers and organisers.
    if not request.user.is_superuser and all(c.role == "annotator" for c in campaigns):
        return redirect("task-list")
    return render(request, "campaigns/home.html", {"campaigns": campaigns})


@login_required
@permission_required("annotation.add_campaign", raise_exception=True)
def campaign_create_view(request):
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = campaign_create(owner=request.user, **form.cleaned_data)
        except CampaignError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Campaign {campaign.name} created. Upload its source next.")
            return redirect("campaign-detail", campaign.id)
    return render(request, "campaigns/create.html", {"form": form})


@login_required
@authorize(CAN_SEE_RESULTS)
def campaign_detail(request, campaign_id: int):
    return campaign_page(request, request.campaign, request.role)


def campaign_page(
    request,
    campaign,
    role,
    *,
    form=None,
    upload_error: str = "",
    task_form=None,
    task_error: str = "",
    status=200,
):
    """The campaign page; after a refused upload or task, with that form as it was sent and
    the error beside it (a browser cannot be given the chosen files back, only the other
    choices)."""
    runs = system_runs_with_jobs(campaign)
    return render(
        request,
        "campaigns/detail.html",
        {
            "failed_jobs": sum(1 for row in runs if row.job and row.job.state == "failed"),
            "campaign": campaign,
            "role": role,
            "can_manage": can_manage(role),
            "overview": campaign_overview(campaign),
            "runs": runs,
            "form": form or UploadForm(),
            "upload_error": upload_error,
            "upload_limit": format_size(settings.UPLOAD_MAX_BYTES),
            "task_form": task_form or TaskForm(),
            "task_error": task_error,
            "missing_systems": tasks_missing_systems(campaign),
            "metric_form": MetricScoresForm(),
        },
        status=status,
    )


@login_required
@authorize(CAN_SEE_RESULTS)
def campaign_systems(request, campaign_id: int):
    """The systems table alone, polled by the page while metrics jobs run."""
    campaign = request.campaign
    return render(
        request,
        "campaigns/_systems.html",
        {"campaign": campaign, "runs": system_runs_with_jobs(campaign)},
    )


@login_required
@require_POST
@authorize(CAN_MANAGE)
def campaign_upload(request, campaign_id: int):
    campaign, role = request.campaign, request.role
    form = UploadForm(request.POST, request.FILES)

    def refused(error: str):
        return campaign_page(request, campaign, role, form=form, upload_error=error, status=400)

    if not form.is_valid():
        return refused(" ".join(" ".join(error) for error in form.errors.values()))
    if not request.FILES.getlist("files"):
        return refused("Choose a file to upload.")
    data = form.cleaned_data
    try:
        files = read_uploaded(request.FILES.getlist("files"), max_bytes=settings.UPLOAD_MAX_BYTES)
        documents = None
        if data["documents"] is not None:
            (documents,) = read_uploaded([data["documents"]], max_bytes=settings.UPLOAD_MAX_BYTES)
        plan = upload_plan(
            campaign=campaign,
            kind=data["kind"],
            files=files,
            name=data["name"] or None,
            add_run=data["add_run"],
            documents=documents,
        )
    except UploadError as error:  # shown beside the form, the manager's choices kept
        return refused(f"Nothing was imported. {error}")
    pending = pending_upload_create(
        campaign=campaign,
        user=request.user,
        kind=data["kind"],
        files=files,
        name=data["name"],
        add_run=data["add_run"],
        documents=documents,
    )
    return _preview_page(request, campaign, plan, pending)


def _preview_page(request, campaign, plan, pending, *, names=None, error: str = "", status=200):
    if names is None or len(names) != len(plan.files):
        names = [planned.name for planned in plan.files]
    return render(
        request,
        "campaigns/preview.html",
        {
            "campaign": campaign,
            "plan": plan,
            "pending": pending,
            "names_editable": pending.kind in NAMED_KINDS,
            "rows": list(zip(plan.files, names, strict=True)),
            "error": error,
        },
        status=status,
    )


MAX_NAMED_FILES = 1000  # read at most this many name-i fields


def _names_from_post(post) -> list[str] | None:
    """The names edited in the preview, one a file in order; None when the page sent none."""
    names = []
    while len(names) < MAX_NAMED_FILES and f"name-{len(names)}" in post:
        names.append(post[f"name-{len(names)}"])
    return names or None


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "Nothing was imported. {error}")
def campaign_upload_confirm(request, campaign_id: int, pending_id: int):
    campaign = request.campaign
    names = _names_from_post(request.POST)
    try:
        results = pending_upload_confirm(
            campaign=campaign, user=request.user, pending_id=pending_id, names=names
        )
    except UploadError as error:
        # The preview is kept: show it again with the names as typed and the error above them
        # (confirmed already, or the campaign changed under it: back to the form).
        try:
            pending, plan = pending_upload_plan(
                campaign=campaign, user=request.user, pending_id=pending_id
            )
        except UploadError:
            raise error from None
        message = f"Nothing was imported. {error}"
        return _preview_page(
            request, campaign, plan, pending, names=names, error=message, status=400
        )
    for result in results:
        verb = {
            "created": "imported",
            "new_run": f"imported as run {result.run_number} of",
            "unchanged": "was already there:",
        }[result.status]
        documents = f" in {result.documents} documents" if result.documents else ""
        messages.success(
            request,
            f"{result.kind.title()} {verb} {result.name} ({result.segments} segments{documents}).",
        )
    return redirect("campaign-detail", campaign.id)


@login_required
@require_POST
@authorize(CAN_MANAGE)
def campaign_upload_cancel(request, campaign_id: int, pending_id: int):
    pending_upload_discard(campaign=request.campaign, user=request.user, pending_id=pending_id)
    messages.info(request, "Upload cancelled; nothing was imported.")
    return redirect("campaign-detail", campaign_id)


@login_required
@require_POST
@authorize(CAN_MANAGE)
def campaign_metrics_rerun(request, campaign_id: int):
    count = campaign_metrics_recompute(campaign=request.campaign, only_unfinished=True)
    messages.info(request, f"Metrics asked again for {count} run{'s' if count != 1 else ''}.")
    return redirect("campaign-detail", campaign_id)


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "No scores were stored. {error}")
def campaign_metric_scores_upload(request, campaign_id: int):
    form = MetricScoresForm(request.POST, request.FILES)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
        return redirect("campaign-detail", campaign_id)
    data = form.cleaned_data
    ((_, content),) = read_uploaded([data["file"]], max_bytes=settings.UPLOAD_MAX_BYTES)
    result = metric_scores_upload(
        campaign=request.campaign,
        name=data["name"],
        higher_is_better=data["better"] == "higher",
        text=decode_scores(data=content),
    )
    messages.success(
        request,
        f"{result.name}: scores of {len(result.systems)} system"
        f"{'s' if len(result.systems) != 1 else ''} stored ({result.layout}).",
    )
    return redirect("results-automatic", campaign_id)
