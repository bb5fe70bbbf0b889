"""REST API for managers and organisers: campaigns, uploads, systems."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import NoUnknownFieldsSerializer, StrictCharField
from annotation.api.schema import UPLOAD_STATUSES, ErrorSerializer
from annotation.lib.uploads import read_uploaded
from annotation.permissions import CAN_MANAGE, CAN_SEE_RESULTS, authorize
from annotation.selectors.campaigns import campaigns_for_user
from annotation.selectors.results import automatic_results_rows, significance_rows
from annotation.selectors.systems import system_runs_with_jobs
from annotation.services.campaign_states import campaign_delete
from annotation.services.campaigns import campaign_create
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.metric_uploads import decode_scores, metric_scores_upload


class CampaignOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    source_language = serializers.CharField()
    target_language = serializers.CharField()
    description = serializers.CharField()
    state = serializers.CharField()
    segment_count = serializers.IntegerField()
    system_count = serializers.IntegerField()
    role = serializers.CharField(allow_null=True)


class CampaignListApi(APIView):
    class CampaignCreateInputSerializer(NoUnknownFieldsSerializer):
        name = StrictCharField(max_length=200)
        source_language = StrictCharField(max_length=16)
        target_language = StrictCharField(max_length=16)
        description = StrictCharField(required=False, allow_blank=True, default="")

    @extend_schema(responses=CampaignOutputSerializer(many=True))
    def get(self, request):
        campaigns = campaigns_for_user(request.user)
        return Response(CampaignOutputSerializer(campaigns, many=True).data)

    @extend_schema(
        request=CampaignCreateInputSerializer,
        responses={201: CampaignOutputSerializer},
    )
    def post(self, request):
        if not request.user.has_perm("annotation.add_campaign"):
            raise PermissionDenied("you may not create campaigns")
        data = self.CampaignCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_create(owner=request.user, **data.validated_data)
        created = campaigns_for_user(request.user).get(id=campaign.id)
        return Response(CampaignOutputSerializer(created).data, status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    @extend_schema(responses=CampaignOutputSerializer)
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        campaign = campaigns_for_user(request.user).get(id=campaign_id)
        return Response(CampaignOutputSerializer(campaign).data)

    @extend_schema(responses={204: None, 400: ErrorSerializer})
    @authorize(CAN_MANAGE)
    def delete(self, request, campaign_id: int):
        """Deletes a draft campaign with its uploads (a launched one is closed instead: 400)."""
        campaign_delete(campaign_id=campaign_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ImportedFileSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=UPLOAD_STATUSES)
    segments = serializers.IntegerField()
    run_number = serializers.IntegerField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    documents = serializers.IntegerField(
        help_text="Documents of a source with document ids; 0 without (one implicit document)."
    )


class UploadApi(APIView):
    """Uploads a source, a reference or system outputs (several files or an archive).

    Everything is validated before anything is written; an error names the file and line and
    leaves the campaign unchanged. Uploading the same outputs again changes nothing.
    """

    parser_classes = [MultiPartParser]
    permission_classes = [IsAuthenticated]
    kind = ""

    class UploadInputSerializer(serializers.Serializer):
        files = serializers.ListField(child=serializers.FileField(), allow_empty=False)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True)
        add_run = serializers.BooleanField(required=False, default=False)
        documents = serializers.FileField(
            required=False,
            help_text="With a plain-text source only: one document id a line, for the source "
            "line with the same number.",
        )

    @extend_schema(
        request={"multipart/form-data": UploadInputSerializer},
        responses={
            201: ImportedFileSerializer(many=True),
            200: ImportedFileSerializer(many=True),
        },
    )
    @authorize(CAN_MANAGE)
    def post(self, request, campaign_id: int):
        fields = {
            "files": request.FILES.getlist("files") or request.FILES.getlist("file"),
            "name": request.data.get("name", ""),
            "add_run": request.data.get("add_run", False),
        }
        if "documents" in request.FILES:
            fields["documents"] = request.FILES["documents"]
        data = self.UploadInputSerializer(data=fields)
        data.is_valid(raise_exception=True)
        files = read_uploaded(data.validated_data["files"], max_bytes=settings.UPLOAD_MAX_BYTES)
        documents = None
        if "documents" in data.validated_data:
            (documents,) = read_uploaded(
                [data.validated_data["documents"]], max_bytes=settings.UPLOAD_MAX_BYTES
            )
        with transaction.atomic():
            results = upload_import(
                campaign=request.campaign,
                kind=self.kind,
                files=files,
                user=request.user,
                name=data.validated_data.get("name") or None,
                add_run=data.validated_data["add_run"],
                documents=documents,
            )
        created = any(result.status != "unchanged" for result in results)
        return Response(
            ImportedFileSerializer(results, many=True).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class SourceUploadApi(UploadApi):
    kind = "source"


class ReferenceUploadApi(UploadApi):
    kind = "reference"


class SystemUploadApi(UploadApi):
    kind = "system"


class WmtXmlUploadApi(UploadApi):
    """Uploads a WMT XML test set into an empty campaign: its documents, the source, every
    reference and every system, validated whole, then imported in one transaction."""

    kind = WMT_XML


class MetricScoresUploadApi(APIView):
    """Uploads per-segment scores of a metric computed elsewhere (COMET, MetricX, ...).

    TSV ``system<TAB>segment<TAB>score`` (segments from 1) or mt-metrics-eval's ``.seg.score``
    (``system<TAB>score``, one line per segment in order). Validated whole: an unknown system,
    a wrong segment count or a non-numeric score is a 400 and nothing is stored. The scores
    then get intervals, paired tests and correlations as the built-in metrics do.
    """

    parser_classes = [MultiPartParser]

    class MetricScoresInputSerializer(serializers.Serializer):
        file = serializers.FileField()
        name = StrictCharField(max_length=60)
        higher_is_better = serializers.BooleanField(default=True)

    class MetricScoresOutputSerializer(serializers.Serializer):
        metric = serializers.CharField(
            help_text="The key in the results: ext:NAME or ext-lower:NAME"
        )
        name = serializers.CharField()
        systems = serializers.ListField(child=serializers.CharField())
        segments = serializers.IntegerField()
        layout = serializers.ChoiceField(choices=["tsv", "seg.score"])

    @extend_schema(
        request={"multipart/form-data": MetricScoresInputSerializer},
        responses={201: MetricScoresOutputSerializer},
    )
    @authorize(CAN_MANAGE)
    def post(self, request, campaign_id: int):
        data = self.MetricScoresInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ((_, content),) = read_uploaded(
            [data.validated_data["file"]], max_bytes=settings.UPLOAD_MAX_BYTES
        )
        result = metric_scores_upload(
            campaign=request.campaign,
            name=data.validated_data["name"],
            higher_is_better=data.validated_data["higher_is_better"],
            text=decode_scores(data=content),
        )
        return Response(
            self.MetricScoresOutputSerializer(result).data, status=status.HTTP_201_CREATED
        )


class SystemRunSerializer(serializers.Serializer):
    system = serializers.CharField(source="run.system.name")
    run = serializers.IntegerField(source="run.number")
    run_id = serializers.IntegerField(source="run.id")
    filename = serializers.CharField(source="run.filename")
    job_state = serializers.CharField(source="job.state", allow_null=True, default=None)
    job_progress = serializers.IntegerField(source="job.progress", allow_null=True, default=None)
    job_message = serializers.CharField(source="job.message", allow_null=True, default=None)
    job_started_at = serializers.DateTimeField(
        source="job.started_at", allow_null=True, default=None
    )
    job_finished_at = serializers.DateTimeField(
        source="job.finished_at", allow_null=True, default=None
    )
    scores = serializers.DictField(child=serializers.FloatField())
    references = serializers.CharField(help_text="The reference set the scores are against: A+C")


class SystemListApi(APIView):
    @extend_schema(responses=SystemRunSerializer(many=True))
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        runs = system_runs_with_jobs(request.campaign)
        return Response(SystemRunSerializer(runs, many=True).data)


class AutomaticResultsApi(APIView):
    """Automatic metrics of every run with 95% bootstrap intervals, and every paired test."""

    class ScoreRowSerializer(serializers.Serializer):
        system = serializers.CharField()
        metric = serializers.CharField()
        better = serializers.ChoiceField(
            choices=["higher", "lower"],
            help_text="which way the metric improves (TER, WER, PER: lower)",
        )
        statistics = serializers.ChoiceField(
            choices=["sufficient", "sentence"],
            help_text="what the interval and the paired tests resample: per-segment sufficient "
            "statistics, or stored sentence scores (RIBES, LEPOR, ROUGE-L, uploaded metrics)",
        )
        references = serializers.CharField(
            allow_blank=True,
            help_text="The reference set scored against: A+C; empty for uploaded scores",
        )
        score = serializers.FloatField()
        ci_low = serializers.FloatField()
        ci_high = serializers.FloatField()
        runs = serializers.IntegerField()
        run_std = serializers.FloatField(allow_null=True)
        signature = serializers.CharField()

    class PairRowSerializer(serializers.Serializer):
        metric = serializers.CharField()
        method = serializers.ChoiceField(choices=["bs", "ar"])
        a = serializers.CharField()
        b = serializers.CharField()
        p_value = serializers.FloatField()
        win_a = serializers.FloatField()
        win_b = serializers.FloatField()
        tie = serializers.FloatField()

    @extend_schema(
        responses=inline_serializer(
            "AutomaticResults",
            {
                "systems": ScoreRowSerializer(many=True),
                "pairs": PairRowSerializer(many=True),
            },
        )
    )
    @authorize(CAN_SEE_RESULTS)
    def get(self, request, campaign_id: int):
        campaign = request.campaign
        return Response(
            {
                "systems": self.ScoreRowSerializer(
                    automatic_results_rows(campaign), many=True
                ).data,
                "pairs": self.PairRowSerializer(significance_rows(campaign), many=True).data,
            }
        )
