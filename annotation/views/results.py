"""Organiser pages: automatic-metric results and their downloads."""

from __future__ import annotations

import csv

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render

from annotation.exports import _csv_safe
from annotation.permissions import CAN_SEE_RESULTS, campaign_for
from annotation.plots import interval_plot
from annotation.selectors.results import (
    METRIC_LABELS,
    METRICS,
    automatic_results,
    automatic_results_rows,
    better,
    significance_rows,
)


@login_required
def automatic_results_page(request, campaign_id: int):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_SEE_RESULTS)
    metric = request.GET.get("metric", "bleu")
    metric = metric if metric in METRICS else "bleu"
    results = automatic_results(campaign, sort_by=metric)
    plots = [
        interval_plot(
            [
                (s.name, s.scores[m].score, s.scores[m].ci_low, s.scores[m].ci_high)
                for s in results.systems
                if m in s.scores
            ],
            title=f"{METRIC_LABELS[m]} ({better(m)} is better) with 95% bootstrap intervals",
        )
        for m in METRICS
    ]
    matrix = list(zip(results.systems, results.matrix(metric, "bs"), strict=True))
    return render(
        request,
        "results/automatic.html",
        {
            "campaign": campaign,
            "results": results,
            "plots": plots,
            "metric": metric,
            "metric_label": METRIC_LABELS[metric],
            "matrix": matrix,
            "metrics": METRIC_LABELS,
            "lower_is_better": [m for m in METRICS if better(m) == "lower"],
        },
    )


@login_required
def automatic_results_download(request, campaign_id: int, fmt: str):
    campaign, _ = campaign_for(request.user, campaign_id, CAN_SEE_RESULTS)
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
        writer.writerow([_csv_safe(row[column]) for column in columns])
    return response
