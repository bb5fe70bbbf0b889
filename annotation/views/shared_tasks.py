"""Shared-task pages: the list (and creating one), a shared task's results, its campaigns
added or removed, and its paper-ready tables."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.models import ResultsSnapshot
from annotation.paper_tables import TABLE_FORMATS, TABLE_SETS, tables_download
from annotation.permissions import authorize_shared_task, may_create_shared_task
from annotation.selectors.shared_task_pairs import unranked_pair
from annotation.selectors.shared_task_tables import autorank_tables, domain_grids, global_grid
from annotation.selectors.shared_tasks import (
    readable_campaigns,
    shared_task_results,
    visible_shared_tasks,
)
from annotation.services.results_snapshots import (
    PENDING_REFRESH_SECONDS,
    SnapshotReader,
    snapshot_context,
)
from annotation.services.shared_tasks import (
    shared_task_campaign_add,
    shared_task_campaign_remove,
    shared_task_create,
    shared_task_pair_procedure_set,
)
from annotation.services.snapshot_compute import Snapshotted
from annotation.views.download_figures import computing_download
from annotation.views.errors import refused_to


@login_required
@require_http_methods(["GET", "POST"])
@refused_to("shared-tasks", url_kwargs=())
def shared_task_list(request):
    """GET lists the shared tasks with a pair the user reads; POST creates one."""
    if request.method == "POST":
        shared_task = shared_task_create(
            name=request.POST.get("name", ""),
            owner=request.user,
            description=request.POST.get("description", ""),
            campaign_ids=[int(v) for v in request.POST.getlist("campaigns") if v.isdigit()],
            autorank_metrics=request.POST.get("autorank_metrics", "").split(","),
        )
        messages.success(request, f"Shared task {shared_task.name} created.")
        return redirect("shared-task-detail", shared_task.id)
    return render(
        request,
        "shared_tasks/list.html",
        {
            "rows": visible_shared_tasks(request.user),
            "may_create": may_create_shared_task(request.user),
            "campaigns": readable_campaigns(request.user),
        },
    )


@login_required
@authorize_shared_task()
def shared_task_detail(request, shared_task_id: int):
    # Stored pair tables; a large pair with none yet shows as being computed (by the job).
    pairs = SnapshotReader(ResultsSnapshot.Kind.PAIR, placeholder=unranked_pair)
    results = shared_task_results(
        request.shared_task, request.visible_campaign_ids, read_pairs=pairs
    )
    # Offered: campaigns of a language pair the shared task does not have yet.
    taken = set(
        request.shared_task.pairs.values_list(
            "campaign__source_language", "campaign__target_language"
        )
    )
    addable = (
        [
            c
            for c in readable_campaigns(request.user)
            if (c.source_language, c.target_language) not in taken
        ]
        if request.manages
        else []
    )
    return render(
        request,
        "shared_tasks/detail.html",
        {
            "shared_task": request.shared_task,
            "results": results,
            "global_grid": global_grid(results) if results.global_rows else None,
            "domain_grids": domain_grids(results),
            "autorank_tables": autorank_tables(results),
            "manages": request.manages,
            "addable": addable,
            "table_formats": TABLE_FORMATS,
            "table_sets": TABLE_SETS,
            **snapshot_context(snapshots=pairs.read),
            "pending_pairs": pairs.pending,
            "refresh_seconds": PENDING_REFRESH_SECONDS,
        },
    )


@login_required
@require_POST
@authorize_shared_task(manage=True)
@refused_to("shared-task-detail", url_kwargs=("shared_task_id",))
def shared_task_campaign_add_view(request, shared_task_id: int):
    value = request.POST.get("campaign", "")
    campaign_id = int(value) if value.isascii() and value.isdigit() else 0
    link = shared_task_campaign_add(
        shared_task=request.shared_task, campaign_id=campaign_id, by=request.user
    )
    messages.success(request, f"{link.campaign.name} added.")
    return redirect("shared-task-detail", shared_task_id)


@login_required
@require_POST
@authorize_shared_task(manage=True)
@refused_to("shared-task-detail", url_kwargs=("shared_task_id",))
def shared_task_campaign_remove_view(request, shared_task_id: int, campaign_id: int):
    shared_task_campaign_remove(shared_task=request.shared_task, campaign_id=campaign_id)
    messages.success(request, "Campaign taken out of the shared task.")
    return redirect("shared-task-detail", shared_task_id)


@login_required
@require_POST
@authorize_shared_task(manage=True)
@refused_to("shared-task-detail", url_kwargs=("shared_task_id",))
def shared_task_pair_procedure_view(request, shared_task_id: int, campaign_id: int):
    link = shared_task_pair_procedure_set(
        shared_task=request.shared_task,
        campaign_id=campaign_id,
        procedure=request.POST.get("procedure", ""),
    )
    chosen = link.procedure or "its protocol's default procedure"
    messages.success(request, f"{link.campaign.language_pair} is now ranked by {chosen}.")
    return redirect("shared-task-detail", shared_task_id)


@login_required
@authorize_shared_task()
def shared_task_tables(request, shared_task_id: int, which: str, fmt: str):
    # Stored pair tables (a large pair's never computed here), marked when older; while a
    # pair the file needs has none yet, a "being computed" answer.
    pairs = SnapshotReader(ResultsSnapshot.Kind.PAIR, placeholder=unranked_pair)
    results = shared_task_results(
        request.shared_task, request.visible_campaign_ids, read_pairs=pairs
    )

    def computing(pending: list[Snapshotted]) -> HttpResponse:
        return computing_download(
            request,
            pending,
            what="the tables file",
            campaign_name=request.shared_task.name,
            back_url=reverse("shared-task-detail", args=[shared_task_id]),
        )

    return tables_download(results, pairs.read, which, fmt, computing=computing)
