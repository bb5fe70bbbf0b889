"""The results pages' plots as files: each plot's download key (set where the page draws
it), as standalone SVG or PDF (annotation.plots.files)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.utils.safestring import SafeString

from annotation.models import ResultsSnapshot
from annotation.permissions import CAN_SEE_RESULTS, authorize
from annotation.plots.files import standalone_svg, svg_pdf
from annotation.selectors.results import automatic_results
from annotation.selectors.results_snapshots import HumanPage, HumanVariant
from annotation.services.results_snapshots import results_snapshot_read
from annotation.views.human import (
    SPAN_PLOT_KEYS,
    chosen_human,
    page_progress_plots,
    page_ranking_plots,
    page_scatters,
    page_span_context,
)
from annotation.views.results import metric_plots
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE, PROCEDURES

PLOT_FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf"}


def _plot_response(campaign_id: int, key: str, fmt: str, plot: SafeString | None) -> HttpResponse:
    if not plot:
        raise Http404("no such plot on this results page")
    data = standalone_svg(plot).encode("utf-8") if fmt == "svg" else svg_pdf(plot)
    response = HttpResponse(data, content_type=PLOT_FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="evalsite-{campaign_id}-{key}.{fmt}"'
    return response


def _check_format(fmt: str) -> None:
    if fmt not in PLOT_FORMATS:
        raise Http404("plots download as .svg or .pdf")


@login_required
@authorize(CAN_SEE_RESULTS)
def human_plot(request, campaign_id: int, key: str, fmt: str):
    _check_format(fmt)
    campaign = request.campaign
    procedure = request.GET.get("procedure") or DEFAULT_PROCEDURE
    if procedure not in PROCEDURES:
        raise Http404("no such ranking procedure")
    # The page's results, current (a file cannot say how old they are): stored when current.
    (snapshot,) = results_snapshot_read(
        kind=ResultsSnapshot.Kind.HUMAN,
        campaigns=[campaign],
        variants=[HumanVariant(procedure=procedure).key],
        stale_ok=False,
    )
    page: HumanPage = snapshot.value
    if key.startswith(SPAN_PLOT_KEYS):
        span_plots = page_span_context(page, procedure)["span_plots"]
        plots = {k: plot for _, k, plot in span_plots}
        return _plot_response(campaign.id, key, fmt, plots.get(key))
    results = page.results
    found: dict[str, SafeString] = dict(page_progress_plots(results))
    for task_plots in page_ranking_plots(results).values():
        found.update(task_plots)
    if key.startswith("scatter-"):
        found.update(page_scatters(results, chosen_human(results, request.GET.get("human"))))
    return _plot_response(campaign.id, key, fmt, found.get(key))


@login_required
@authorize(CAN_SEE_RESULTS)
def automatic_plot(request, campaign_id: int, key: str, fmt: str):
    _check_format(fmt)
    plots = dict(metric_plots(automatic_results(request.campaign)))
    return _plot_response(campaign_id, key, fmt, plots.get(key))
