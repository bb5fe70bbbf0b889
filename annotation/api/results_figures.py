"""How current the figures of a results answer are, in the API's terms: the serializers of
the fields and of the 202 "being computed" answer, and that answer (the contract itself, shared
with the pages' downloads: annotation/results_freshness.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from annotation.api.schema import RESULTS_STATUSES
from annotation.results_freshness import RETRY_SECONDS, computing_body
from annotation.services.snapshot_compute import Snapshotted


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


def computing_response(snapshots: Sequence[Snapshotted[Any]]) -> Response:
    """202: nothing to show yet, the refresh job (already asked) computes it."""
    body = computing_body(snapshots)
    return Response(
        body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": str(RETRY_SECONDS)}
    )
