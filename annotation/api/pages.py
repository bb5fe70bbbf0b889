"""Annotator API for document tasks: a page's answers in one request."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.annotation import NextItemSerializer, next_item_body
from annotation.api.fields import NoUnknownFieldsSerializer, StrictIntegerField
from annotation.api.schema import RECORD_STATUSES, ErrorSerializer
from annotation.permissions import CAN_ANNOTATE, authorize_request
from annotation.selectors.annotation import progress_from_row
from annotation.services.page_judgments import page_record_and_claim_next


class PageApi(APIView):
    """Records a document page: one answer per segment (``{"slot", "score", "spans",
    "ms"}``: ``ms`` the segment's active time, optional; a contrastive page's
    ``{"slot", "candidates": [{"score", "spans"}, ...], "ms"}``, candidates in the order
    shown), checked whole; all are recorded or none. Sending it again returns the saved
    page (200) and changes nothing. ``next`` is the screen to judge now (as GET
    /tasks/<id>/next answers it)."""

    class PageInputSerializer(NoUnknownFieldsSerializer):
        task = StrictIntegerField()
        slot = StrictIntegerField(help_text="the page's first slot")
        answers = serializers.ListField(
            child=serializers.DictField(),
            help_text="one per segment: {slot, score (ESA, DA, Likert), spans (ESA, MQM), ms}; "
            "contrastive: {slot, candidates: [{score, spans}], ms}",
        )
        document_score = StrictIntegerField(required=False, allow_null=True)
        document_scores = serializers.ListField(
            child=StrictIntegerField(),
            required=False,
            allow_null=True,
            help_text="contrastive pages: one page score per translation, in the page's "
            "order (next.outputs)",
        )

    class PageOutputSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=RECORD_STATUSES)
        message = serializers.CharField()
        judgments = serializers.ListField(child=serializers.IntegerField())
        batch_closed = serializers.BooleanField()
        next = NextItemSerializer()

    @extend_schema(
        request=PageInputSerializer,
        responses={
            201: PageOutputSerializer,
            200: PageOutputSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request):
        data = self.PageInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        authorize_request(request, CAN_ANNOTATE, task_id=given["task"])
        task = request.task
        # A refusal (JudgmentError) answers through the one handler (api_exception_handler).
        recorded, next_slot, progress_row = page_record_and_claim_next(
            task=task,
            slot_id=given["slot"],
            annotator_id=request.user.id,
            answers=[dict(answer) for answer in given["answers"]],
            document_score=given.get("document_score"),
            document_scores=given.get("document_scores"),
        )
        return Response(
            {
                "status": "recorded" if recorded.created else "already_recorded",
                "message": recorded.message,
                "judgments": recorded.judgment_ids,
                "batch_closed": recorded.batch_closed,
                "next": next_item_body(
                    task, request.user.id, next_slot, progress_from_row(progress_row)
                ),
            },
            status=status.HTTP_201_CREATED if recorded.created else status.HTTP_200_OK,
        )
