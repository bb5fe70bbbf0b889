"""How current the figures of a results answer are: the contract of the results API and the
shared-task API (annotation.api.human, annotation.api.shared_tasks).

A large campaign (``RESULTS_SNAPSHOT_SYNC_JUDGMENTS`` judgments or more) is never computed in
a request (seconds to minutes at WMT scale); its figures come from its results snapshot,
which the refresh job keeps current:

- current figures: 200, ``"current": true`` and ``"as_of"`` (when they were computed);
- older figures (the job is asked for new ones): 200, ``"current": false``, ``"as_of"``,
  ``"judgments"`` (what they count) and ``"judgments_since"`` (counted since), and a
  ``Retry-After`` header: ask again then for current ones;
- none yet (the job is asked): 202 ``{"status": "computing", "judgments": N, ...}`` and
  ``Retry-After``.

A small campaign's figures are computed in the request when not current, so they are always
current.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.http import http_date
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from annotation.api.schema import RESULTS_STATUSES
from annotation.services.results_snapshots import PENDING_REFRESH_SECONDS
from annotation.services.snapshot_compute import Snapshotted

# How long a client waits before asking again for figures being computed or brought current.
RETRY_SECONDS = PENDING_REFRESH_SECONDS


class FiguresSerializer(serializers.Serializer):
    """The fields that say how current a results answer is (a shared task: its oldest pair's
    figures, judgments summed over its pairs)."""

    current = serializers.BooleanField(
        help_text="false: older figures, a new computation is under way (see Retry-After)"
    )
    as_of = serializers.DateTimeField(
        allow_null=True, help_text="when the figures were computed (null: being computed)"
    )
    judgments = serializers.IntegerField(help_text="the judgments the figures count")
    judgments_since = serializers.IntegerField(
        help_text="judgments recorded since the figures were computed (0 when current)"
    )


ComputingSerializer = inline_serializer(
    "ResultsComputing",
    {
        "status": serializers.ChoiceField(choices=RESULTS_STATUSES),
        "judgments": serializers.IntegerField(help_text="the judgments being counted"),
        "retry_after": serializers.IntegerField(help_text="seconds; also the Retry-After header"),
        "message": serializers.CharField(),
    },
)
# The schema's "not computed yet" answer of the operations that follow this contract.
COMPUTING = {202: ComputingSerializer}


def figures(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, Any]:
    """The ``FiguresSerializer`` fields of what ``snapshots`` hold."""
    shown = [s for s in snapshots if not s.pending]
    oldest = min(shown, key=lambda s: s.computed_at) if shown else None
    return {
        "current": all(s.current for s in snapshots),
        "as_of": oldest.computed_at if oldest is not None else None,
        "judgments": sum(s.judgments for s in snapshots),
        "judgments_since": sum(s.judgments_since for s in shown),
    }


def figures_headers(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, str]:
    """``Retry-After`` unless every figure is current."""
    if all(s.current for s in snapshots):
        return {}
    return {"Retry-After": str(RETRY_SECONDS)}


def computing_response(snapshots: Sequence[Snapshotted[Any]]) -> Response:
    """202: nothing to show yet, the refresh job (already asked) computes it."""
    judgments = sum(s.judgments for s in snapshots)
    body = {
        "status": RESULTS_STATUSES[0],
        "judgments": judgments,
        "retry_after": RETRY_SECONDS,
        "message": f"The results of {judgments} judgments are being computed; "
        f"ask again in {RETRY_SECONDS} seconds.",
    }
    return Response(
        body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": str(RETRY_SECONDS)}
    )


def file_headers(snapshots: Sequence[Snapshotted[Any]]) -> dict[str, str]:
    """A file's answer (it cannot carry the fields): ``Last-Modified``, the time of its
    oldest figures, and ``Retry-After`` unless every figure is current."""
    shown = [s for s in snapshots if not s.pending]
    headers = figures_headers(snapshots)
    if shown:
        headers["Last-Modified"] = http_date(min(s.computed_at for s in shown).timestamp())
    return headers
