"""Tutorial API: the annotator's tutorial (state and item, answers with their feedback, a new
attempt) and the manager's upload; the same services as the pages. Expected answers are
never sent before the answer."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import NoUnknownFieldsSerializer, StrictIntegerField
from annotation.api.schema import ErrorSerializer
from annotation.errors import ApplicationError
from annotation.lib.uploads import read_uploaded
from annotation.permissions import CAN_ANNOTATE, CAN_MANAGE, authorize
from annotation.selectors.tutorials import TutorialState, tutorial_state
from annotation.services.tutorial_uploads import MAX_ATTEMPTS, tutorial_upload
from annotation.services.tutorials import (
    TutorialFeedback,
    tutorial_answer_record,
    tutorial_retry,
)


class TutorialCandidateSerializer(serializers.Serializer):
    label = serializers.CharField()
    text = serializers.CharField()
    prefilled = serializers.ListField(child=serializers.DictField(), required=False)


class TutorialItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    instructions = serializers.CharField()
    source = serializers.CharField()
    reference = serializers.CharField()
    candidates = TutorialCandidateSerializer(many=True)
    skippable = serializers.BooleanField(help_text="may be skipped, not counted (skip: true)")


class TutorialStateSerializer(serializers.Serializer):
    has_tutorial = serializers.BooleanField(help_text="the task has a tutorial")
    passed = serializers.BooleanField(help_text="real items are open to this annotator")
    attempt = serializers.IntegerField(allow_null=True, help_text="the latest attempt's number")
    attempt_passed = serializers.BooleanField(allow_null=True, help_text="null: running")
    attempts_left = serializers.IntegerField(
        allow_null=True, help_text="further attempts after this one (null: no limit)"
    )
    may_retry = serializers.BooleanField()
    answered = serializers.IntegerField()
    total = serializers.IntegerField()
    pass_share = serializers.FloatField()
    item = TutorialItemSerializer(allow_null=True, help_text="the item to answer now")


class TutorialFeedbackSerializer(serializers.Serializer):
    answer = serializers.IntegerField()
    item = serializers.IntegerField()
    passed = serializers.BooleanField(allow_null=True, help_text="null: a practice item")
    failures = serializers.ListField(child=serializers.CharField())
    expected = serializers.ListField(child=serializers.CharField())
    explanation = serializers.CharField()
    attempt = serializers.IntegerField()
    attempt_finished = serializers.BooleanField()
    attempt_passed = serializers.BooleanField(allow_null=True)
    correct = serializers.IntegerField()
    graded = serializers.IntegerField()


def state_body(state: TutorialState) -> dict[str, object]:
    item = state.next_item
    letters = item is not None and len(item.candidates) > 1
    return {
        "has_tutorial": state.required,
        "passed": state.passed,
        "attempt": state.attempt.number if state.attempt else None,
        "attempt_passed": state.attempt.passed if state.attempt else None,
        "attempts_left": state.attempts_left,
        "may_retry": state.may_retry,
        "answered": state.answered,
        "total": state.total,
        "pass_share": state.rules.pass_share,
        "item": None
        if item is None
        else {
            "id": item.id,
            "position": item.position,
            "instructions": item.instructions,
            "source": item.source,
            "reference": item.reference,
            "skippable": item.skippable,
            "candidates": [
                {
                    "label": chr(ord("A") + i) if letters else str(i + 1),
                    "text": c["text"],
                    **({"prefilled": c["prefilled"]} if c.get("prefilled") else {}),
                }
                for i, c in enumerate(item.candidates)
            ],
        },
    }


def feedback_body(feedback: TutorialFeedback) -> dict[str, object]:
    return {
        "answer": feedback.answer_id,
        "item": feedback.item_id,
        "passed": feedback.passed,
        "failures": feedback.failures,
        "expected": feedback.expected,
        "explanation": feedback.explanation,
        "attempt": feedback.attempt_number,
        "attempt_finished": feedback.attempt_finished,
        "attempt_passed": feedback.attempt_passed,
        "correct": feedback.correct,
        "graded": feedback.graded,
    }


class TutorialApi(APIView):
    """Where the annotator is in the task's tutorial, and the item to answer now. While
    ``has_tutorial`` is true and ``passed`` false, ``GET /tasks/<id>/next`` is refused (409)."""

    @extend_schema(responses={200: TutorialStateSerializer, 404: ErrorSerializer})
    @authorize(CAN_ANNOTATE)
    def get(self, request, task_id: int):
        return Response(state_body(tutorial_state(task=request.task, annotator_id=request.user.id)))


class TutorialAnswerApi(APIView):
    """Answers the tutorial's current item (as a judgment's answer: ``score``, ``spans``, or
    ``candidates`` on a contrastive task); the feedback says whether it was as expected,
    what was expected and why. Sending the same item again returns its first feedback and
    changes nothing."""

    class TutorialAnswerInputSerializer(NoUnknownFieldsSerializer):
        item = StrictIntegerField()
        score = StrictIntegerField(required=False)
        spans = serializers.ListField(child=serializers.DictField(), required=False)
        candidates = serializers.ListField(child=serializers.DictField(), required=False)
        skip = serializers.BooleanField(
            required=False, default=False, help_text="skip a skippable item (no answer)"
        )

    @extend_schema(
        request=TutorialAnswerInputSerializer,
        responses={
            201: TutorialFeedbackSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    @authorize(CAN_ANNOTATE)
    def post(self, request, task_id: int):
        data = self.TutorialAnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = dict(data.validated_data)
        feedback = tutorial_answer_record(
            task=request.task,
            annotator_id=request.user.id,
            item_id=answer.pop("item"),
            skip=answer.pop("skip"),
            answer=answer,
        )
        return Response(feedback_body(feedback), status=status.HTTP_201_CREATED)


class TutorialRetryApi(APIView):
    """Starts a new attempt after a failed one, while the task's attempts allow."""

    @extend_schema(
        request=None,
        responses={201: TutorialStateSerializer, 403: ErrorSerializer, 409: ErrorSerializer},
    )
    @authorize(CAN_ANNOTATE)
    def post(self, request, task_id: int):
        tutorial_retry(task=request.task, annotator_id=request.user.id)
        state = tutorial_state(task=request.task, annotator_id=request.user.id)
        return Response(state_body(state), status=status.HTTP_201_CREATED)


class TutorialItemsApi(APIView):
    """Uploads the task's tutorial (manager): evalsite's JSON Lines or a Pearmut tutorial or
    campaign JSON (its ``validation`` items) as ``file``; ``language`` for a target language's
    variant; the pass share and attempts. Checked whole: an error stores nothing (400)."""

    parser_classes = [MultiPartParser]

    class TutorialItemsInputSerializer(serializers.Serializer):
        file = serializers.FileField()
        language = serializers.CharField(max_length=16, required=False, allow_blank=True)
        pass_share = serializers.FloatField(required=False, min_value=0.01, max_value=1)
        attempts = serializers.IntegerField(required=False, min_value=0, max_value=MAX_ATTEMPTS)

    @extend_schema(
        request={"multipart/form-data": TutorialItemsInputSerializer},
        responses={
            201: inline_serializer(
                "TutorialStored",
                {
                    "items": serializers.IntegerField(),
                    "languages": serializers.ListField(child=serializers.CharField()),
                    "instructions": serializers.ListField(child=serializers.CharField()),
                    "notes": serializers.ListField(child=serializers.CharField()),
                },
            ),
            400: ErrorSerializer,
        },
    )
    @authorize(CAN_MANAGE)
    def post(self, request, task_id: int):
        if "file" not in request.FILES:
            raise ApplicationError("send the tutorial as the file field 'file'")
        data = self.TutorialItemsInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ((name, content),) = read_uploaded(
            [data.validated_data["file"]], max_bytes=settings.UPLOAD_MAX_BYTES
        )
        stored = tutorial_upload(
            task=request.task,
            name=name,
            data=content,
            language=data.validated_data.get("language", ""),
            pass_share=data.validated_data.get("pass_share"),
            attempts=data.validated_data.get("attempts"),
        )
        return Response(
            {
                "items": stored.items,
                "languages": list(stored.languages),
                "instructions": list(stored.instructions),
                "notes": stored.notes,
            },
            status=status.HTTP_201_CREATED,
        )
