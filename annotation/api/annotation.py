"""Annotator API: the same services as the pages, for scripts and crowdsourcing front ends."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import (
    CaseInsensitiveChoiceField,
    HotPathSerializer,
    StrictCharField,
    StrictIntegerField,
)
from annotation.api.schema import RECORD_STATUSES, SKIP_STATUSES, ErrorSerializer
from annotation.errors import ApplicationError
from annotation.lib.uploads import read_uploaded
from annotation.models import SkipReason, Slot, SourceMedia, Task, Unit
from annotation.permissions import CAN_ANNOTATE, CAN_MANAGE, authorize, authorize_request
from annotation.selectors.annotation import (
    AnnotatorProgress,
    annotator_progress,
    item_display,
    progress_from_row,
)
from annotation.selectors.pages import page_body
from annotation.selectors.tutorials import tutorial_state
from annotation.services.assignment import slot_claim_with_progress
from annotation.services.judgments import (
    judgment_record_and_claim_next,
    skip_record,
)
from annotation.services.page_judgments import page_skip
from annotation.services.spans import task_prefilled_spans_set


class CandidateSerializer(serializers.Serializer):
    label = serializers.CharField(help_text="A, B... for pairwise and contrastive, 1..N otherwise")
    text = serializers.CharField()


class PageCandidateSerializer(serializers.Serializer):
    label = serializers.CharField(help_text="its places on the page: A, or B = C (identical)")
    text = serializers.CharField()
    columns = serializers.ListField(child=serializers.IntegerField())


class PageSegmentSerializer(serializers.Serializer):
    slot = serializers.IntegerField()
    source = serializers.CharField()
    text = serializers.CharField()
    reference = serializers.CharField(allow_null=True)
    prefilled_spans = serializers.ListField(child=serializers.DictField())
    candidates = PageCandidateSerializer(
        many=True, help_text="contrastive pages: the segment's translations, in screen order"
    )


class SourceMediaSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["image", "audio", "video"])
    mime_type = serializers.CharField()
    url = serializers.CharField(help_text="the file, served with HTTP range requests")
    transcript = serializers.CharField(help_text="empty without one")


class NextItemSerializer(serializers.Serializer):
    done = serializers.BooleanField()
    slot = serializers.IntegerField(allow_null=True)
    task_type = serializers.CharField()
    scale = serializers.CharField()
    source = serializers.CharField(allow_null=True)
    source_media = SourceMediaSerializer(
        allow_null=True, help_text="the source's image, audio or video file, if it has one"
    )
    reference = serializers.CharField(allow_null=True)
    context_before = serializers.ListField(child=serializers.CharField())
    context_after = serializers.ListField(child=serializers.CharField())
    candidates = CandidateSerializer(many=True)
    prefilled_spans = serializers.ListField(
        child=serializers.DictField(), help_text="ESA^AI: spans shown pre-filled"
    )
    mqm_categories = serializers.ListField(child=serializers.CharField())
    judged = serializers.IntegerField(help_text="items judged in the current batch")
    skipped = serializers.IntegerField(
        help_text="items skipped in the current batch (not judgments; counted apart)"
    )
    total = serializers.IntegerField(
        help_text="the current batch's size, quality control included; fixed once taken"
    )
    unit = serializers.CharField(
        required=False, help_text="document tasks: 'document' (the screen is a page)"
    )
    document = serializers.CharField(required=False, help_text="document tasks: its id")
    document_score = serializers.BooleanField(
        required=False, help_text="document tasks: whether the page is scored as a whole"
    )
    outputs = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="contrastive document tasks: the page's translations' labels, in order",
    )
    page = PageSegmentSerializer(
        many=True,
        required=False,
        help_text="document tasks: the page's segments in reading order; answer them at "
        "once with POST /pages (``slot`` above is the page's first)",
    )


SHOWN_KEYS = (
    "source",
    "reference",
    "context_before",
    "context_after",
    "prefilled_spans",
    "mqm_categories",
)


def _media_body(media: SourceMedia | None) -> dict[str, str] | None:
    if media is None:
        return None
    return {
        "kind": media.kind,
        "mime_type": media.mime_type,
        "url": reverse("source-media", args=[media.campaign_id, media.id]),
        "transcript": media.transcript,
    }


def next_item_body(
    task: Task, annotator_id: int, slot: Slot | None, progress: AnnotatorProgress | None = None
) -> dict[str, object]:
    """The item this annotator should judge now (``slot``, claimed by the caller), as
    NextItemSerializer describes it (built directly: the hot path skips the serializer, whose
    output would be the same dict). ``progress`` is read unless given."""
    if progress is None:
        progress = annotator_progress(task=task, annotator_id=annotator_id)
    body: dict[str, object] = {
        "done": slot is None,
        "slot": None,
        "task_type": task.task_type,
        "scale": task.scale,
        "source": None,
        "source_media": None,
        "reference": None,
        "context_before": [],
        "context_after": [],
        "candidates": [],
        "prefilled_spans": [],
        "mqm_categories": [],
        "judged": progress.judged,
        "skipped": progress.skipped,
        "total": progress.total,
    }
    if slot is not None:
        shown = item_display(slot)
        body.update({key: shown[key] for key in SHOWN_KEYS})
        body["candidates"] = [
            {"label": candidate["label"], "text": candidate["text"]}
            for candidate in shown["candidates"]  # type: ignore[attr-defined]
        ]
        body["source_media"] = _media_body(shown["source_media"])
        body["slot"] = slot.id
        if task.unit == Unit.DOCUMENT:
            # A document page: its slots come along; POST /pages answers them at once.
            body.update(page_body(task=task, slot=slot))
    return body


class NextItemApi(APIView):
    """The item this annotator should judge now (the same one until it is answered)."""

    @extend_schema(responses={200: NextItemSerializer, 404: ErrorSerializer, 409: ErrorSerializer})
    @authorize(CAN_ANNOTATE)
    def get(self, request, task_id: int):
        task = request.task
        # The claim and the progress in one statement (a first screen's claim).
        slot, progress = slot_claim_with_progress(task=task, annotator_id=request.user.id)
        if slot is None and tutorial_state(task=task, annotator_id=request.user.id).blocks:
            # The loop's tutorial gate held the claim: say so rather than "done".
            raise ApplicationError(
                f"Pass the task's tutorial first: GET /api/v1/tasks/{task.id}/tutorial.",
                kind="conflict",
            )
        return Response(next_item_body(task, request.user.id, slot, progress_from_row(progress)))


class JudgmentApi(APIView):
    """Records a judgment; sending it again returns the saved one (200) and changes nothing.
    Either answer carries ``next``, the item to judge now (as GET /tasks/<id>/next answers
    it): one round trip per judgment."""

    class JudgmentInputSerializer(HotPathSerializer):
        task = StrictIntegerField()
        slot = StrictIntegerField()
        score = StrictIntegerField(required=False)
        fluency = StrictIntegerField(required=False)
        preference = CaseInsensitiveChoiceField(choices=["A", "B", "T"], required=False)
        ranks = serializers.ListField(child=StrictIntegerField(), required=False)
        candidate_scores = serializers.ListField(child=StrictIntegerField(), required=False)
        post_edit = StrictCharField(required=False, trim_whitespace=False)
        spans = serializers.ListField(
            child=serializers.DictField(),
            required=False,
            help_text="ESA/MQM: {start, end (exclusive), severity, category, side, prefilled}",
        )
        candidates = serializers.ListField(
            child=serializers.DictField(),
            required=False,
            help_text="contrastive: one {score, spans} per candidate, in the order shown",
        )

    class JudgmentOutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        status = serializers.ChoiceField(choices=RECORD_STATUSES)
        message = serializers.CharField()
        hter = serializers.FloatField(allow_null=True)
        duration_ms = serializers.IntegerField()
        batch_closed = serializers.BooleanField(
            help_text="this judgment closed its batch (``next`` is the next batch's item)"
        )
        next = NextItemSerializer(help_text="the item to judge now (done: nothing left)")

    @extend_schema(
        request=JudgmentInputSerializer,
        responses={
            201: JudgmentOutputSerializer,
            200: JudgmentOutputSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request):
        data = self.JudgmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = dict(data.validated_data)
        authorize_request(request, CAN_ANNOTATE, task_id=answer.pop("task"))
        task = request.task
        # A refusal (JudgmentError) answers through the one handler (api_exception_handler).
        recorded, next_slot, progress_row = judgment_record_and_claim_next(
            task=task,
            slot_id=answer.pop("slot"),
            annotator_id=request.user.id,
            answer=answer,
        )
        # Plain values in the serializer's shape (the serializer documents it).
        return Response(
            {
                "id": recorded.judgment_id,
                "status": "recorded" if recorded.created else "already_recorded",
                "message": recorded.message,
                "hter": recorded.hter,
                "duration_ms": recorded.duration_ms,
                "batch_closed": recorded.batch_closed,
                "next": next_item_body(
                    task, request.user.id, next_slot, progress_from_row(progress_row)
                ),
            },
            status=status.HTTP_201_CREATED if recorded.created else status.HTTP_200_OK,
        )


class SkipApi(APIView):
    """Skips or flags the slot's item with a reason (as the page's "Skip" does): no judgment is
    counted, its repeat and bad references in the batch are cancelled and it goes to someone
    else. Sending it again changes nothing (200). The answer carries ``next``."""

    class SkipInputSerializer(HotPathSerializer):
        slot = StrictIntegerField()
        reason = StrictCharField(help_text=f"one of {', '.join(SkipReason.values)}")
        note = StrictCharField(required=False, allow_blank=True, default="")

    class SkipOutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        status = serializers.ChoiceField(choices=SKIP_STATUSES)
        batch_closed = serializers.BooleanField(
            help_text="this skip closed its batch (``next`` is the next batch's item)"
        )
        next = NextItemSerializer(help_text="the item to judge now (done: nothing left)")

    @extend_schema(
        request=SkipInputSerializer,
        responses={
            201: SkipOutputSerializer,
            200: SkipOutputSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    @authorize(CAN_ANNOTATE)
    def post(self, request, task_id: int):
        data = self.SkipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = request.task
        given = data.validated_data
        if task.unit == Unit.DOCUMENT:
            # A document page is skipped whole (``slot``: its first), as the page does.
            skipped = page_skip(
                task=task,
                slot_id=given["slot"],
                annotator_id=request.user.id,
                reason=given["reason"],
                note=given["note"],
            )
        else:
            skipped = skip_record(
                task_id=task.id,
                slot_id=given["slot"],
                annotator_id=request.user.id,
                reason=given["reason"],
                note=given["note"],
            )
        next_slot, progress = slot_claim_with_progress(task=task, annotator_id=request.user.id)
        created = skipped.outcome == "recorded"
        return Response(
            {
                "id": skipped.skip_id,
                "status": "skipped" if created else "already_skipped",
                "batch_closed": skipped.batch_closed,
                "next": next_item_body(
                    task, request.user.id, next_slot, progress_from_row(progress)
                ),
            },
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


PrefillUploadSerializer = inline_serializer("PrefillUpload", {"file": serializers.FileField()})
PrefillResultSerializer = inline_serializer(
    "PrefillResult", {"items": serializers.IntegerField(help_text="items given spans")}
)


class PrefilledSpansApi(APIView):
    """Sets an ESA^AI task's pre-filled spans from a JSON Lines file (field ``file``): one
    line per item, ``{"system", "segment" (0-based), "spans": [{"start", "end" (exclusive),
    "severity"}]}``. Checked whole before anything is written."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        request={
            "multipart/form-data": inline_serializer(
                "PrefillUpload", {"file": serializers.FileField()}
            )
        },
        responses={
            200: inline_serializer("PrefillResult", {"items": serializers.IntegerField()}),
            400: ErrorSerializer,
        },
    )
    @authorize(CAN_MANAGE)
    def post(self, request, task_id: int):
        upload = request.FILES.get("file")
        if upload is None:
            raise ApplicationError("send the JSON Lines as the file field 'file'")
        # Upload and prefill errors answer 400 through the one handler.
        (named,) = read_uploaded([upload], max_bytes=settings.UPLOAD_MAX_BYTES)
        count = task_prefilled_spans_set(task=request.task, name=named[0], data=named[1])
        return Response({"items": count})
