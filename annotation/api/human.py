"""REST API for human results: the dashboard's numbers, exclusions and judgment downloads."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import (
    NoUnknownFieldsSerializer,
    QueryChoiceField,
    StrictBooleanField,
    StrictIntegerField,
)
from annotation.api.human_serializers import HumanResultsSerializer
from annotation.api.results_figures import COMPUTING, FiguresSerializer, computing_response
from annotation.downloads import JUDGMENT_FORMATS, judgments_file, unknown_format_message
from annotation.models import ResultsSnapshot, Task
from annotation.permissions import CAN_EXCLUDE, CAN_SEE_RESULTS, authorize
from annotation.results_freshness import figures, figures_headers
from annotation.selectors.results_snapshots import HumanVariant, page_of_task
from annotation.services.exclusions import annotator_exclude
from annotation.services.results_snapshots import results_snapshot_read
from annotation.services.snapshot_compute import Snapshotted
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE, PROCEDURES


class HumanResultsApi(APIView):
    """Rankings with intervals and clusters, agreement and quality control of every launched
    task (of error-span tasks the rankings only, in ``span_rankings``), system-level
    correlations with the automatic metrics, and their meta-evaluation (system pairwise
    accuracy; segment Kendall-like tau, acc23, tie-optimised acc23).

    A large campaign's figures are never computed in the request: ``current`` false (older
    figures, ``as_of``, ``judgments_since``) comes with ``Retry-After``; none computed yet
    answers 202 ``{"status": "computing"}`` with ``Retry-After``."""

    class QuerySerializer(serializers.Serializer):
        weights = serializers.ChoiceField(
            choices=["linear", "quadratic"],
            required=False,
            help_text="weighted kappa for Likert agreement",
        )
        task = serializers.IntegerField(required=False, min_value=1, help_text="one task only")
        passing = serializers.BooleanField(
            required=False,
            default=False,
            help_text="also rank without the annotators who fail a reliability check",
        )
        procedure = QueryChoiceField(
            choices=list(PROCEDURES),
            default=DEFAULT_PROCEDURE,
            help_text="how ESA tasks are ranked: "
            + "; ".join(PROCEDURES.values())
            + ". Likert and DA tasks rank as WMT21 (z-scores, Wilcoxon rank-sum).",
        )

    @extend_schema(
        parameters=[QuerySerializer], responses={200: HumanResultsSerializer, **COMPUTING}
    )
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        values = query.validated_data
        variant = HumanVariant(
            procedure=values["procedure"], weights=values.get("weights"), passing=values["passing"]
        )
        snapshot = _read(request.campaign, variant)
        if snapshot.pending:
            return computing_response([snapshot])
        page = page_of_task(snapshot.value, values.get("task"))
        body = {
            **figures([snapshot]),
            "tasks": page.results.tasks,
            "span_rankings": page.span_results,
            "excluded": sorted(page.results.excluded),
            "correlations": page.results.correlations,
            "meta_evaluation": page.meta_rows,
        }
        return Response(HumanResultsSerializer(body).data, headers=figures_headers([snapshot]))


def _read(campaign, variant: HumanVariant) -> Snapshotted:
    """The campaign's snapshot of these choices (annotation/api/results_figures.py: a large
    campaign's is never computed here)."""
    (snapshot,) = results_snapshot_read(
        kind=ResultsSnapshot.Kind.HUMAN,
        campaigns=[campaign],
        variants=[variant.key],
        placeholder=lambda campaign, variant: None,
    )
    return snapshot


class ExclusionApi(APIView):
    """Leaves an annotator out of the rankings and agreement of every task of the campaign,
    or of one ``task``; or lets them back in (without ``task``: in every task)."""

    class ExclusionSerializer(NoUnknownFieldsSerializer):
        annotator = StrictIntegerField()
        excluded = StrictBooleanField()
        task = StrictIntegerField(
            required=False, help_text="Only this task of the campaign; absent: every task"
        )

    @extend_schema(
        request=ExclusionSerializer,
        responses=ExclusionSerializer,
    )
    @authorize(CAN_EXCLUDE)
    def post(self, request, campaign_id: int):
        data = self.ExclusionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task_id = data.validated_data.get("task")
        excluded = annotator_exclude(
            campaign=request.campaign,
            annotator_id=data.validated_data["annotator"],
            excluded=data.validated_data["excluded"],
            by=request.user,
            task_id=task_id,
        )
        body = {"annotator": data.validated_data["annotator"], "excluded": excluded}
        return Response(body if task_id is None else {**body, "task": task_id})


class JudgmentsExportApi(APIView):
    """Every judgment, streamed, in one of the formats of ``annotation.downloads`` (the page's
    list): ``csv``, ``jsonl``, ``appraise``, ``wmt`` (a pairwise or ranking task's WMT
    ranking CSV) and, of error-span tasks, ``esa.csv``, ``mqm.tsv``, ``spans.jsonl``;
    ``included=1`` keeps what the rankings count."""

    class QuerySerializer(serializers.Serializer):
        task = serializers.IntegerField(required=False, min_value=1)
        included = serializers.BooleanField(required=False, default=False)
        pseudonymise = serializers.BooleanField(required=False, default=False)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "fmt", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(JUDGMENT_FORMATS)
            ),
            QuerySerializer,
        ],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "text/tab-separated-values"): OpenApiTypes.STR,
            (200, "application/x-ndjson"): OpenApiTypes.STR,
        },
    )
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int, fmt: str):
        campaign = request.campaign
        if fmt not in JUDGMENT_FORMATS:
            raise Http404(unknown_format_message())
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        task_id = query.validated_data.get("task")
        task = None if task_id is None else get_object_or_404(Task, id=task_id, campaign=campaign)
        return judgments_file(
            campaign=campaign,
            fmt=fmt,
            task=task,
            included_only=query.validated_data["included"],
            pseudonymise=query.validated_data["pseudonymise"],
        )


class SpanResultsApi(APIView):
    """ESA, ESA^AI and MQM tasks: system scores (MQM lower is better, with the weights used),
    clusters, pairwise p-values, errors by category and severity, and agreement. How
    current: as the human results (``current``, ``as_of``, 202 while computing)."""

    class QuerySerializer(serializers.Serializer):
        procedure = QueryChoiceField(
            choices=list(PROCEDURES),
            default=DEFAULT_PROCEDURE,
            help_text="how ESA tasks are ranked: " + "; ".join(PROCEDURES.values()),
        )

    @extend_schema(parameters=[QuerySerializer], responses={200: OpenApiTypes.OBJECT, **COMPUTING})
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        snapshot = _read(
            request.campaign, HumanVariant(procedure=query.validated_data["procedure"])
        )
        if snapshot.pending:
            return computing_response([snapshot])
        body = FiguresSerializer(figures([snapshot])).data
        body["tasks"] = [result.as_dict() for result in snapshot.value.span_results]
        return Response(body, headers=figures_headers([snapshot]))
