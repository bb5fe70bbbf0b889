"""REST API: a Pearmut campaign file (and its annotations) imported as a new campaign."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.errors import ApplicationError
from annotation.lib.uploads import read_uploaded
from annotation.services.pearmut_imports import pearmut_upload


class PearmutImportApi(APIView):
    """Imports a Pearmut campaign JSON (``campaign``) and optionally its annotations JSONL
    (``annotations``); unknown options and what evalsite does not run yet are refused with
    the reason (400), and nothing is written."""

    parser_classes = [MultiPartParser]
    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        campaign = serializers.FileField()
        annotations = serializers.FileField(required=False)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True)
        languages = serializers.CharField(
            max_length=33, required=False, allow_blank=True, help_text="source-target, e.g. en-de"
        )

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={
            201: inline_serializer(
                "PearmutImported",
                {
                    "campaign": serializers.IntegerField(),
                    "task": serializers.IntegerField(),
                    "task_type": serializers.CharField(),
                    "items": serializers.IntegerField(),
                    "judgments": serializers.IntegerField(),
                    "notes": serializers.ListField(child=serializers.CharField()),
                },
            )
        },
    )
    def post(self, request):
        if not request.user.has_perm("annotation.add_campaign"):
            raise PermissionDenied("you may not create campaigns")
        if "campaign" not in request.FILES:
            raise ApplicationError("send the Pearmut campaign JSON as the file field 'campaign'")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        uploads = [data.validated_data["campaign"]]
        if "annotations" in data.validated_data:
            uploads.append(data.validated_data["annotations"])
        files = read_uploaded(uploads, max_bytes=settings.UPLOAD_MAX_BYTES)
        task, parsed = pearmut_upload(
            owner=request.user,
            campaign_file=files[0],
            annotations_file=files[1] if len(files) > 1 else None,
            name=data.validated_data.get("name", ""),
            languages=data.validated_data.get("languages", ""),
        )
        return Response(
            {
                "campaign": task.campaign_id,
                "task": task.id,
                "task_type": task.task_type,
                "items": task.items.count(),
                "judgments": task.judgments.count(),
                "notes": parsed.notes,
            },
            status=status.HTTP_201_CREATED,
        )
