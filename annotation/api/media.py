"""REST API: a campaign's media sources (a zip with a manifest; annotation/services/media.py)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.lib.uploads import read_uploaded
from annotation.permissions import CAN_MANAGE, authorize
from annotation.services.media import media_import


class MediaUploadApi(APIView):
    """Uploads media sources: a zip holding ``manifest.json``, a list of ``{"line": N,
    "file": "path/in/zip", "transcript": "optional"}``, one image, audio or video file per
    source line. Validated whole: an error names the file and nothing is stored."""

    parser_classes = [MultiPartParser]
    permission_classes = [IsAuthenticated]

    class MediaInputSerializer(serializers.Serializer):
        file = serializers.FileField()

    class MediaOutputSerializer(serializers.Serializer):
        line = serializers.IntegerField(source="segment.index")
        file = serializers.CharField(source="filename")
        kind = serializers.CharField()
        mime_type = serializers.CharField()
        size = serializers.IntegerField()

        def to_representation(self, instance):
            data = super().to_representation(instance)
            data["line"] += 1  # lines count from 1, as in the manifest
            return data

    @extend_schema(
        request={"multipart/form-data": MediaInputSerializer},
        responses={201: MediaOutputSerializer(many=True)},
    )
    @authorize(CAN_MANAGE)
    def post(self, request, campaign_id: int):
        data = self.MediaInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ((filename, content),) = read_uploaded(
            [data.validated_data["file"]], max_bytes=settings.MEDIA_UPLOAD_MAX_BYTES
        )
        stored = media_import(campaign=request.campaign, filename=filename, data=content)
        return Response(
            self.MediaOutputSerializer(stored, many=True).data, status=status.HTTP_201_CREATED
        )
