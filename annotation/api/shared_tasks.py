"""REST API of shared tasks: list and create, a shared task's tables (each pair's ranking, the
global table, per-domain tables, AutoRank) with links to their Typst, LaTeX and PDF, its
campaigns added or removed, and the paper-ready downloads."""

from __future__ import annotations

import math
from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import NoUnknownFieldsSerializer, StrictCharField, StrictIntegerField
from annotation.api.results_figures import (
    COMPUTING,
    ComputingSerializer,
    FiguresSerializer,
    computing_response,
)
from annotation.api.schema import ErrorSerializer
from annotation.models import ResultsSnapshot
from annotation.paper_tables import TABLE_FORMATS, TABLE_SETS, tables_download
from annotation.permissions import authorize_shared_task
from annotation.results_freshness import figures, figures_headers
from annotation.selectors.shared_task_pairs import PairResults, unranked_pair
from annotation.selectors.shared_task_tables import autorank_tables, domain_grids, global_grid
from annotation.selectors.shared_tasks import (
    SharedTaskResults,
    shared_task_results,
    visible_shared_tasks,
)
from annotation.services.results_snapshots import SnapshotReader
from annotation.services.shared_tasks import (
    shared_task_campaign_add,
    shared_task_campaign_remove,
    shared_task_create,
    shared_task_pair_procedure_set,
)
from annotation.services.snapshot_compute import Snapshotted
from metrics.report.grid import Grid


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _downloads(request, shared_task_id: int, which: str) -> dict[str, str]:
    return {
        fmt: request.build_absolute_uri(
            reverse("api-shared-task-tables", args=[shared_task_id, which, fmt])
        )
        for fmt in TABLE_FORMATS
    }


def _grid(grid: Grid) -> dict[str, Any]:
    return {
        "title": grid.title,
        "caption": grid.full_caption(),
        "columns": list(grid.columns),
        "rows": [
            {"cells": list(row.cells), "human": row.human, "new_group": row.rule_before}
            for row in grid.rows
        ],
    }


def _pair(request, shared_task_id: int, pair: PairResults, read: Snapshotted) -> dict[str, Any]:
    table = pair.table
    return {
        # How current the pair's figures are; ``computing``: none yet (no ranking shown).
        **FiguresSerializer(figures([read])).data,
        "computing": read.pending,
        "campaign": pair.campaign.id,
        "campaign_name": pair.campaign.name,
        "language_pair": pair.pair,
        "task": pair.task.id if pair.task else None,
        "protocol": pair.protocol,
        "procedure": pair.procedure,
        "procedure_chosen": pair.chosen_procedure,
        "procedure_choices": list(pair.procedure_choices),
        "procedure_label": pair.procedure_label,
        "lower_is_better": table.protocol.lower_is_better if table else None,
        "domains": list(table.domains) if table else [],
        "systems": [
            {
                "system": row.system,
                "human": row.human,
                "rank_range": list(row.rank_range),
                "cluster": row.cluster,
                "score": _finite(row.score),
                "interval": [_finite(v) for v in row.interval] if row.interval else None,
                "raw": _finite(row.secondary),
                "domain_scores": [_finite(v) for v in row.domain_scores],
            }
            for row in pair.rows
        ],
        "downloads": _downloads(request, shared_task_id, pair.download_key) if pair.rows else {},
    }


def results_body(request, results: SharedTaskResults, reads: list[Snapshotted]) -> dict[str, Any]:
    """The shared task's answer; ``reads``: how current each pair's figures are (said per
    pair and over the pairs shown)."""
    shared_task = results.shared_task
    return {
        **FiguresSerializer(figures(reads)).data,
        "id": shared_task.id,
        "name": shared_task.name,
        "description": shared_task.description,
        "hidden_pairs": results.hidden_pairs,
        "autorank_metrics": results.autorank_metrics,
        "pairs": [
            _pair(request, shared_task.id, pair, read)
            for pair, read in zip(results.pairs, reads, strict=True)
        ],
        "global": [
            {
                "system": row.system,
                "average_normalised_rank": row.average_normalised_rank,
                "pairs": row.pairs,
                "normalised_ranks": row.normalised,
            }
            for row in results.global_rows
        ],
        "tables": {
            "global": _grid(global_grid(results)) if results.global_rows else None,
            "domains": [_grid(grid) for grid in domain_grids(results)],
            "autorank": [
                {
                    "language_pair": table.pair.pair,
                    "metrics": table.metrics,
                    "autorank": table.autorank,
                    "table": _grid(table.grid),
                }
                for table in autorank_tables(results)
            ],
        },
        "downloads": {which: _downloads(request, shared_task.id, which) for which in TABLE_SETS},
    }


SharedTaskEntrySerializer = inline_serializer(
    "SharedTaskEntry",
    {
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "pairs": serializers.ListField(
            child=serializers.DictField(), help_text="{campaign, language_pair} the caller sees"
        ),
        "hidden_pairs": serializers.IntegerField(help_text="pairs the caller may not see"),
    },
    many=True,
)
# Adding campaigns may name one the caller cannot read (404) or a pair taken already (409).
REFUSALS = {404: ErrorSerializer, 409: ErrorSerializer}


class SharedTaskListApi(APIView):
    """Shared tasks with a pair the caller sees (or that the caller owns); POST creates one."""

    class CreateSerializer(NoUnknownFieldsSerializer):
        name = StrictCharField(max_length=200)
        description = StrictCharField(required=False, allow_blank=True, default="")
        campaigns = serializers.ListField(child=StrictIntegerField(), required=False, default=list)
        autorank_metrics = serializers.ListField(
            child=StrictCharField(), required=False, default=list
        )

    @extend_schema(operation_id="v1_shared_tasks_list", responses={200: SharedTaskEntrySerializer})
    def get(self, request):
        return Response(
            [
                {
                    "id": entry.shared_task.id,
                    "name": entry.shared_task.name,
                    "pairs": [
                        {"campaign": c.id, "language_pair": c.language_pair} for c in entry.pairs
                    ],
                    "hidden_pairs": entry.hidden,
                }
                for entry in visible_shared_tasks(request.user)
            ]
        )

    @extend_schema(request=CreateSerializer, responses={201: OpenApiTypes.OBJECT, **REFUSALS})
    def post(self, request):
        data = self.CreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        shared_task = shared_task_create(
            name=values["name"],
            owner=request.user,
            description=values["description"],
            campaign_ids=values["campaigns"],
            autorank_metrics=values["autorank_metrics"],
        )
        body = {
            "id": shared_task.id,
            "name": shared_task.name,
            "campaigns": list(shared_task.pairs.values_list("campaign_id", flat=True)),
        }
        return Response(body, status=status.HTTP_201_CREATED)


def _read(request) -> tuple[SharedTaskResults, list[Snapshotted]]:
    """The visible pairs from their snapshots; a large pair's are never computed here (one
    with none yet is left unranked, ``pending``, while the job computes it)."""
    pairs = SnapshotReader(ResultsSnapshot.Kind.PAIR, placeholder=unranked_pair)
    results = shared_task_results(
        request.shared_task, request.visible_campaign_ids, read_pairs=pairs
    )
    return results, pairs.read


def _all_pending(reads: list[Snapshotted]) -> bool:
    return bool(reads) and all(read.pending for read in reads)


class SharedTaskDetailApi(APIView):
    """Each visible pair's ranking, the global table, per-domain and AutoRank tables, and
    the links to their Typst, LaTeX and PDF.

    How current, per pair and over the pairs shown (the oldest pair's ``as_of``): a large
    pair's figures are never computed in the request; older ones say ``current`` false and
    the answer has ``Retry-After``; a pair with none yet says ``computing`` (unranked, left
    out of the global tables); none for any pair answers 202 ``{"status": "computing"}``."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **COMPUTING})
    @authorize_shared_task()
    def get(self, request, shared_task_id: int):
        results, reads = _read(request)
        if _all_pending(reads):
            return computing_response(reads)
        return Response(results_body(request, results, reads), headers=figures_headers(reads))


class SharedTaskCampaignsApi(APIView):
    """Adds a campaign (one per language pair) to the shared task: its owner only."""

    class AddSerializer(NoUnknownFieldsSerializer):
        campaign = StrictIntegerField()

    @extend_schema(request=AddSerializer, responses={201: OpenApiTypes.OBJECT, **REFUSALS})
    @authorize_shared_task(manage=True)
    def post(self, request, shared_task_id: int):
        data = self.AddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        link = shared_task_campaign_add(
            shared_task=request.shared_task,
            campaign_id=data.validated_data["campaign"],
            by=request.user,
        )
        body = {"campaign": link.campaign_id, "language_pair": link.campaign.language_pair}
        return Response(body, status=status.HTTP_201_CREATED)


class SharedTaskCampaignApi(APIView):
    """PATCH chooses the WMT procedure that ranks the pair (``procedure``: one of the pair's
    ``procedure_choices``, blank for its protocol's default); DELETE takes the campaign out
    of the shared task. Its owner only."""

    class ProcedureSerializer(NoUnknownFieldsSerializer):
        procedure = StrictCharField(allow_blank=True, max_length=10)

    @extend_schema(
        request=ProcedureSerializer,
        responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    @authorize_shared_task(manage=True)
    def patch(self, request, shared_task_id: int, campaign_id: int):
        data = self.ProcedureSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        link = shared_task_pair_procedure_set(
            shared_task=request.shared_task,
            campaign_id=campaign_id,
            procedure=data.validated_data["procedure"],
        )
        return Response({"campaign": link.campaign_id, "procedure": link.procedure})

    @extend_schema(responses={204: None})
    @authorize_shared_task(manage=True)
    def delete(self, request, shared_task_id: int, campaign_id: int):
        shared_task_campaign_remove(shared_task=request.shared_task, campaign_id=campaign_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SharedTaskTablesApi(APIView):
    """The tables ``which`` (all, pairs, global, domains, autorank, or pair-<campaign id>)
    as ``typ`` (Typst), ``tex`` (LaTeX, booktabs) or ``pdf``. ``Last-Modified``: when the
    oldest figures in them were computed; with ``Retry-After`` when some are older than the
    data (new ones are being computed). 202 while a pair's figures are computed for the
    first time (a file cannot leave a pair out silently)."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "fmt", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(TABLE_FORMATS)
            ),
        ],
        responses={
            (200, "application/pdf"): OpenApiTypes.BINARY,
            (200, "text/plain"): OpenApiTypes.STR,
            (202, "application/json"): ComputingSerializer,
        },
    )
    @authorize_shared_task()
    def get(self, request, shared_task_id: int, which: str, fmt: str):
        results, reads = _read(request)
        return tables_download(results, reads, which, fmt, computing=computing_response)
