"""Organiser pages for human results: the dashboard, exclusions and the downloads."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import SafeString
from django.views.decorators.http import require_http_methods

from annotation.downloads import JUDGMENT_FORMATS, judgments_file, unknown_format_message
from annotation.exports import (
    csv_stream,
    ranking_csv_rows,
    ranking_rows,
    streaming_response,
)
from annotation.models import ResultsSnapshot, Task
from annotation.permissions import (
    CAN_EXCLUDE,
    CAN_SEE_RESULTS,
    authorize,
    can_exclude,
    can_manage,
)
from annotation.plots.human import progress_plot, scatter_plot
from annotation.plots.intervals import interval_plot
from annotation.plots.rolling import status_plots
from annotation.plots.spans import error_bar_plot, has_categories
from annotation.results_freshness import file_name
from annotation.selectors.human import HumanResults
from annotation.selectors.human.correlation import (
    CORPUS_SCORE,
    METRIC_SYSTEM_SCORES,
    SENTENCE_MEAN,
    scatter_points,
)
from annotation.selectors.members import annotator_in_campaign
from annotation.selectors.results import better, metric_label
from annotation.selectors.results_snapshots import HumanPage, HumanVariant
from annotation.services.exclusions import annotator_exclude
from annotation.services.results_snapshots import (
    PENDING_REFRESH_SECONDS,
    results_snapshot_read,
    snapshot_context,
)
from annotation.views.download_figures import (
    figures_fields,
    human_computing,
    human_figures,
    marked,
)
from annotation.views.errors import error_response, refused_to
from annotation.views.reliability import passing_context
from metrics.agreement.coefficients import Weights
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE, PROCEDURES

# Download keys of the error-span section's plots (``page_span_context``).
SPAN_ROLLING = "span-rolling-"
SPAN_PLOT_KEYS = ("errors-", SPAN_ROLLING)


def _weights(request) -> Weights:
    value = request.GET.get("weights")
    return "linear" if value == "linear" else "quadratic" if value == "quadratic" else None


def _procedure(request) -> str | None:
    """The ESA ranking procedure asked for (``?procedure=``), the default when none; None
    when the name is unknown."""
    value = request.GET.get("procedure") or DEFAULT_PROCEDURE
    return value if value in PROCEDURES else None


def _unknown_procedure(request):
    return error_response(
        request, 400, detail=f"Unknown ranking procedure: choose one of {', '.join(PROCEDURES)}."
    )


def measured(task_label: str, measure: str) -> str:
    """``Adequacy``, not ``Adequacy: adequacy``; ``Adequacy and fluency: fluency``."""
    return task_label if measure.lower() == task_label.lower() else f"{task_label}: {measure}"


def page_ranking_plots(results: HumanResults) -> dict[int, list[tuple[str, SafeString]]]:
    """Interval plots per task, each with its download key: z of each Likert measure,
    corpus HTER of post-editing."""
    plots: dict[int, list] = {}
    for task in results.tasks:
        label = task.task.get_task_type_display()
        plots[task.task.id] = [
            interval_plot(
                [
                    (s.name, s.score.z, s.score.z_interval[0], s.score.z_interval[1])
                    for s in ranking.systems
                ],
                title=f"{measured(label, ranking.measure)}: mean z with 95% bootstrap intervals",
            )
            for ranking in task.likert
        ]
        if task.hter:
            plots[task.task.id].append(
                interval_plot(
                    [(s.name, s.score.corpus_hter, *s.score.corpus_interval) for s in task.hter],
                    title=f"{label}: corpus HTER in % (lower is better), 95% bootstrap intervals",
                    axis_from=0.0,
                )
            )
        plots[task.task.id] = [
            (f"ranking-{task.task.id}-{i}", plot) for i, plot in enumerate(plots[task.task.id])
        ] + [
            (f"rolling-{task.task.id}-{i}", plot)
            for i, plot in enumerate(status_plots(label, task.ranking_status))
            if plot
        ]
    return plots


def page_progress_plots(results: HumanResults) -> list[tuple[str, SafeString]]:
    return [
        (
            "progress-0",
            progress_plot(results.progress.by_task_type, title="Judgments per task type"),
        ),
        (
            "progress-1",
            progress_plot(results.progress.by_annotator, title="Judgments per annotator"),
        ),
    ]


def page_scatters(results: HumanResults, human_name: str) -> list[tuple[str, SafeString]]:
    human = results.human.get(human_name, {})
    plots = [
        scatter_plot(
            scatter_points(human, scores),
            title=f"{human_name} against {metric_label(metric)}",
            x_label=f"{metric_label(metric)} ({better(metric)} is better)",
            y_label=human_name,
        )
        for metric, scores in results.automatic.items()
    ]
    return [(f"scatter-{i}", plot) for i, plot in enumerate(plots)]


def chosen_human(results: HumanResults, value: str | None) -> str:
    """The human score the scatter plots show: the one asked for, else the first."""
    names = list(results.human)
    return value if value in results.human else (names[0] if names else "")


@login_required
@authorize(CAN_SEE_RESULTS)
def human_results_page(request, campaign_id: int):
    campaign = request.campaign
    procedure = _procedure(request)
    if procedure is None:
        return _unknown_procedure(request)
    weights = _weights(request)
    passing = request.GET.get("passing") == "1"
    # Every choice of the page is a snapshot of its own; a large campaign's that is not
    # computed yet is left to the refresh job, and the page says so and reloads itself.
    variant = HumanVariant(procedure=procedure, weights=weights, passing=passing)
    snapshots = results_snapshot_read(
        kind=ResultsSnapshot.Kind.HUMAN,
        campaigns=[campaign],
        variants=[variant.key],
        placeholder=lambda campaign, variant: None,
    )
    if snapshots[0].pending:
        return being_computed_response(request, campaign, snapshots[0].judgments)
    page: HumanPage = snapshots[0].value
    results = page.results
    human_names = list(results.human)
    chosen = chosen_human(results, request.GET.get("human"))
    spans = page_span_context(page, procedure)
    return render(
        request,
        "results/human.html",
        {
            "campaign": campaign,
            "results": results,
            "can_exclude": can_exclude(request.role),
            # The banner of an adaptive task that stopped by itself offers "continue".
            "can_manage": can_manage(request.role),
            "weights": weights,
            **passing_context(request, results, passing, spans["span_results"]),
            "ranking_plots": page_ranking_plots(results),
            "progress_plots": page_progress_plots(results),
            "human_names": human_names,
            "chosen_human": chosen,
            "scatters": page_scatters(results, chosen) if chosen else [],
            "metric_labels": {metric: metric_label(metric) for metric in results.automatic},
            "meta_rows": page.meta_rows,
            "corpus_score": METRIC_SYSTEM_SCORES[CORPUS_SCORE],
            "sentence_mean": METRIC_SYSTEM_SCORES[SENTENCE_MEAN],
            **spans,
            **snapshot_context(snapshots=snapshots),
        },
    )


def being_computed_response(request, campaign, judgments: int):
    """A large campaign's results not computed yet: the refresh job computes them; the page
    says so and reloads itself until they are there."""
    return render(
        request,
        "results/being_computed.html",
        {
            "campaign": campaign,
            "judgments": judgments,
            "refresh_seconds": PENDING_REFRESH_SECONDS,
        },
    )


def page_span_context(page: HumanPage, procedure: str) -> dict[str, Any]:
    """The error-span tasks' section (templates/results/_human_spans.html), from the page's
    snapshot (of the variant shown: ``procedure`` is its ranking procedure)."""
    results = page.span_results
    plots = [
        (
            r.task.id,
            f"errors-{r.task.id}",
            error_bar_plot(
                r.breakdown,
                title="Errors per system by category and severity"
                if has_categories(r.breakdown)
                else "Errors per system by severity",
            ),
        )
        for r in results
        if r.breakdown is not None
    ] + [
        (r.task.id, f"{SPAN_ROLLING}{r.task.id}-{i}", plot)
        for r in results
        for i, plot in enumerate(status_plots(r.task.get_task_type_display(), r.ranking_status))
        if plot
    ]
    hotw = page.hotw
    return {
        "span_results": results,
        "span_plots": plots,
        "procedure": procedure,
        "procedures": PROCEDURES,
        "span_hotw": hotw,
    }


def _scope_task(request, campaign_id: int) -> int | None:
    """The task of a task-scoped exclusion (``task`` in the query or the form), else None."""
    value = request.POST.get("task") or request.GET.get("task") or ""
    if not value:
        return None
    if (
        not (value.isascii() and value.isdigit())
        or not Task.objects.filter(id=int(value), campaign_id=campaign_id).exists()
    ):
        raise Http404("no such task in this campaign")
    return int(value)


@login_required
@require_http_methods(["GET", "POST"])
@authorize(CAN_EXCLUDE)
@refused_to("results-human")
def annotator_exclusion(request, campaign_id: int, annotator_id: int):
    """GET asks for confirmation, offering the scope: the task the organiser came from, or
    every task of the campaign; POST excludes (or includes again) in that scope."""
    campaign = request.campaign
    task_id = _scope_task(request, campaign.id)
    if request.method == "GET":
        annotator = annotator_in_campaign(campaign=campaign, annotator_id=annotator_id)
        if annotator is None:
            raise Http404("no such annotator in this campaign")
        return render(
            request,
            "results/exclusion_confirm.html",
            {"campaign": campaign, "task_id": task_id, **annotator},
        )
    exclude = request.POST.get("excluded") == "1"
    annotator_exclude(
        campaign=campaign,
        annotator_id=annotator_id,
        excluded=exclude,
        by=request.user,
        task_id=task_id,
    )
    scope = f"task #{task_id}" if task_id is not None else f"every task of {campaign.name}"
    messages.success(
        request,
        f"The annotator is left out of the rankings and agreement of {scope}."
        if exclude
        else f"The annotator counts again in {scope}.",
    )
    return redirect("results-human", campaign.id)


def _task_of(campaign_id: int, request) -> Task | None:
    task_id = request.GET.get("task")
    if not task_id:
        return None
    # isdigit() alone lets through digits int() cannot read, such as "²" (a 500).
    if not (task_id.isascii() and task_id.isdigit()):
        raise Http404("no such task")
    return get_object_or_404(Task, id=int(task_id), campaign_id=campaign_id)


@login_required
@authorize(CAN_SEE_RESULTS)
def judgments_export(request, campaign_id: int, fmt: str):
    campaign = request.campaign
    if fmt not in JUDGMENT_FORMATS:
        raise Http404(unknown_format_message())
    return judgments_file(
        campaign=campaign,
        fmt=fmt,
        task=_task_of(campaign.id, request),
        included_only=request.GET.get("included") == "1",
        pseudonymise=request.GET.get("pseudonymise") == "1",
    )


@login_required
@authorize(CAN_SEE_RESULTS)
def rankings_export(request, campaign_id: int, fmt: str):
    campaign = request.campaign
    if fmt not in {"csv", "json"}:
        raise Http404("rankings download as .csv or .json")
    procedure = _procedure(request)
    if procedure is None:
        return _unknown_procedure(request)
    # Stored figures (a large campaign's never computed here), marked when older.
    snapshot = human_figures(campaign, HumanVariant(procedure=procedure).key)
    if snapshot.pending:
        return human_computing(request, campaign, snapshot, "the rankings file")
    rows = ranking_rows(snapshot.value.results, snapshot.value.span_results)
    name = file_name(f"evalsite-{campaign.id}-human-rankings", fmt, [snapshot])
    if fmt == "json":
        document = json.dumps(
            {"campaign": campaign.name, **figures_fields([snapshot]), "systems": rows}, indent=1
        )
        return marked(streaming_response([document], filename=name), [snapshot])
    return marked(streaming_response(csv_stream(ranking_csv_rows(rows)), filename=name), [snapshot])
