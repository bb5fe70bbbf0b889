"""Organiser pages: automatic-metric results and their downloads."""

from __future__ import annotations

import csv

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from annotation.lib.ids import database_id
from annotation.lib.spreadsheet import spreadsheet_safe_row
from annotation.permissions import CAN_SEE_RESULTS, authorize
from annotation.plots.intervals import interval_plot
from annotation.selectors.analysis import system_comparison
from annotation.selectors.results import (
    automatic_results,
    automatic_results_rows,
    significance_rows,
)


def metric_plots(results) -> list[tuple[str, SafeString]]:
    """Each metric's interval plot, with its download key."""
    plots = [
        interval_plot(
            [
                (s.name, s.scores[m.key].score, s.scores[m.key].ci_low, s.scores[m.key].ci_high)
                for s in results.systems
                if m.key in s.scores
            ],
            title=f"{m.label} ({m.better} is better) with 95% bootstrap intervals",
        )
        for m in results.metrics
    ]
    return [(f"metric-{i}", plot) for i, plot in enumerate(plots)]


@login_required
@authorize(CAN_SEE_RESULTS)
def automatic_results_page(request, campaign_id: int):
    campaign = request.campaign
    results = automatic_results(campaign)
    known = {info.key: info for info in results.metrics}
    metric = request.GET.get("metric", "bleu")
    metric = metric if metric in known else "bleu"
    if metric != "bleu":
        results = automatic_results(campaign, sort_by=metric)
    plots = metric_plots(results)
    matrix = list(zip(results.systems, results.matrix(metric, "bs"), strict=True))
    return render(
        request,
        "results/automatic.html",
        {
            "campaign": campaign,
            "results": results,
            "plots": plots,
            "metric": metric,
            "metric_info": known.get(metric),
            "matrix": matrix,
            "analysis": error_analysis_context(request, campaign, results),
        },
    )


@login_required
@authorize(CAN_SEE_RESULTS)
def automatic_results_download(request, campaign_id: int, fmt: str):
    campaign = request.campaign
    if fmt not in {"csv", "json"}:
        raise Http404("downloads are .csv or .json")
    scores, pairs = automatic_results_rows(campaign), significance_rows(campaign)
    filename = f"evalsite-{campaign.id}-automatic"
    if fmt == "json":
        response = JsonResponse({"campaign": campaign.name, "systems": scores, "pairs": pairs})
        response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
        return response
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    writer = csv.writer(response)
    columns = [
        "system",
        "metric",
        "better",
        "statistics",
        "references",
        "score",
        "ci_low",
        "ci_high",
        "runs",
        "run_std",
        "signature",
    ]
    writer.writerow(columns)
    for row in scores:
        writer.writerow(spreadsheet_safe_row(row[column] for column in columns))
    return response


def _system_id(value: str | None) -> int | None:
    try:
        return database_id(value)
    except ValueError:
        return None


def error_analysis_context(request, campaign, results) -> dict[str, object]:
    """The two-system form (``?a=ID&b=ID``) and, when both are given, their comparison."""
    first, second = _system_id(request.GET.get("a")), _system_id(request.GET.get("b"))
    context: dict[str, object] = {"a": first, "b": second, "comparison": None, "error": ""}
    if first is None or second is None:
        return context
    if first == second:
        context["error"] = "Pick two different systems."
        return context
    comparison = system_comparison(campaign, first, second)
    if comparison is None:
        context["error"] = "These systems cannot be compared (no reference, or unknown system)."
        return context
    found = comparison.comparison
    context.update(
        comparison=comparison,
        word_buckets=list(zip(found.word_buckets_1, found.word_buckets_2, strict=True)),
        ngram_lists=[
            (comparison.name_1, found.ngrams_better_1),
            (comparison.name_2, found.ngrams_better_2),
        ],
        sentence_lists=[
            (comparison.name_1, comparison.sentences_better_1),
            (comparison.name_2, comparison.sentences_better_2),
        ],
    )
    return context
