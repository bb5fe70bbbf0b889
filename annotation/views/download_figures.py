"""The results pages' downloads (rankings, reliability, plots, paper tables) made from the
stored figures, as the API's answers are (annotation/results_freshness.py): a large
campaign's are never computed in the request. Current figures make the file; older ones make
it too, marked as such (its name, its headers, a JSON file's fields), while the refresh job
computes new ones; none yet answers 202 and ``Retry-After``: to a browser a small page that
says so and asks again by itself, to a script the API's JSON body."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse

from annotation.http_errors import wants_json
from annotation.models import Campaign, ResultsSnapshot
from annotation.results_freshness import RETRY_SECONDS, computing_body, figures, file_headers
from annotation.selectors.results_snapshots import HumanPage
from annotation.services.results_snapshots import results_snapshot_read
from annotation.services.snapshot_compute import Snapshotted

Response = TypeVar("Response", bound=HttpResponseBase)


def human_figures(campaign: Campaign, variant: str = "") -> Snapshotted[HumanPage]:
    """The campaign's human results of ``variant`` (a ``HumanVariant`` key), stored; of a
    large campaign with none yet, ``pending`` (its value None) and the job asked for."""
    (snapshot,) = results_snapshot_read(
        kind=ResultsSnapshot.Kind.HUMAN,
        campaigns=[campaign],
        variants=[variant],
        placeholder=lambda campaign, variant: None,
    )
    return snapshot


def wants_page(request: HttpRequest) -> bool:
    """A browser following a link names HTML in its Accept; a script (curl, requests: */*,
    or JSON) gets the JSON body."""
    return "text/html" in request.headers.get("Accept", "") and not wants_json(request)


def computing_download(
    request: HttpRequest,
    snapshots: Sequence[Snapshotted[Any]],
    *,
    what: str,
    campaign_name: str,
    back_url: str,
) -> HttpResponse:
    """202 while the figures of the file ``what`` are computed for the first time."""
    body = computing_body(snapshots)
    headers = {"Retry-After": str(RETRY_SECONDS)}
    if not wants_page(request):
        return JsonResponse(body, status=202, headers=headers)
    response = render(
        request,
        "results/download_being_computed.html",
        {
            "what": what,
            "campaign_name": campaign_name,
            "judgments": body["judgments"],
            "refresh_seconds": RETRY_SECONDS,
            "back_url": back_url,
        },
        status=202,
    )
    response["Retry-After"] = str(RETRY_SECONDS)
    return response


def figures_fields(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, Any]:
    """How current a JSON file's figures are: the API's fields (``as_of`` in ISO 8601)."""
    found = figures(snapshots)
    as_of = found["as_of"]
    return {**found, "as_of": as_of.isoformat().replace("+00:00", "Z") if as_of else None}


def marked(response: Response, snapshots: Sequence[Snapshotted[Any]]) -> Response:
    """The file's answer with ``Last-Modified`` and, of older figures, ``Retry-After``."""
    for header, value in file_headers(snapshots).items():
        response[header] = value
    return response


def human_computing(
    request: HttpRequest, campaign: Campaign, snapshot: Snapshotted[Any], what: str
) -> HttpResponse:
    """``computing_download`` of a file of the human results page."""
    return computing_download(
        request,
        [snapshot],
        what=what,
        campaign_name=campaign.name,
        back_url=reverse("results-human", args=[campaign.id]),
    )
