"""The results pages' plots as files: each plot's download key (set where the page draws
it), as standalone SVG or PDF (annotation.plots.files)."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.utils.safestring import SafeString

from annotation.permissions import CAN_SEE_RESULTS, authorize
from annotation.plots.files import standalone_svg, svg_pdf
from annotation.results_freshness import file_name
from annotation.selectors.results import automatic_results
from annotation.selectors.results_snapshots import HumanPage, HumanVariant
from annotation.services.snapshot_compute import Snapshotted
from annotation.views.download_figures import human_computing, human_figures, marked
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


def _plot_response(
    campaign_id: int,
    key: str,
    fmt: str,
    plot: SafeString | None,
    figures: Sequence[Snapshotted] = (),
) -> HttpResponse:
    """The plot's file; ``figures``: how current the figures drawn are (older ones are said
    in its name and headers)."""
    if not plot:
        raise Http404("no such plot on this results page")
    data = standalone_svg(plot).encode("utf-8") if fmt == "svg" else svg_pdf(plot)
    response = HttpResponse(data, content_type=PLOT_FORMATS[fmt])
    name = file_name(f"evalsite-{campaign_id}-{key}", fmt, figures)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return marked(response, figures)


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
    # The page's stored figures (a large campaign's never computed here), marked when older.
    snapshot = human_figures(campaign, HumanVariant(procedure=procedure).key)
    if snapshot.pending:
        return human_computing(request, campaign, snapshot, "the plot")
    page: HumanPage = snapshot.value
    if key.startswith(SPAN_PLOT_KEYS):
        span_plots = page_span_context(page, procedure)["span_plots"]
        plots = {k: plot for _, k, plot in span_plots}
        return _plot_response(campaign.id, key, fmt, plots.get(key), [snapshot])
    results = page.results
    found: dict[str, SafeString] = dict(page_progress_plots(results))
    for task_plots in page_ranking_plots(results).values():
        found.update(task_plots)
    if key.startswith("scatter-"):
        found.update(page_scatters(results, chosen_human(results, request.GET.get("human"))))
    return _plot_response(campaign.id, key, fmt, found.get(key), [snapshot])


@login_required
@authorize(CAN_SEE_RESULTS)
def automatic_plot(request, campaign_id: int, key: str, fmt: str):
    _check_format(fmt)
    plots = dict(metric_plots(automatic_results(request.campaign)))
    return _plot_response(campaign_id, key, fmt, plots.get(key))
