"""Task API for managers: create, edit, delete a draft, launch, pause, resume, close."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import (
    NoUnknownFieldsSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
)
from annotation.api.schema import ErrorSerializer
from annotation.models import Scale, Task, TaskType
from annotation.permissions import CAN_MANAGE, authorize
from annotation.services.task_changes import (
    task_close,
    task_delete,
    task_pause,
    task_resume,
    task_update,
)
from annotation.services.tasks import task_create, task_launch


class TaskSettingsSerializer(NoUnknownFieldsSerializer):
    scale = serializers.ChoiceField(choices=Scale.choices, required=False)
    monolingual = StrictBooleanField(required=False)
    show_reference = StrictBooleanField(required=False)
    ranking_size = StrictIntegerField(required=False, min_value=2, max_value=50)
    judgments_per_item = StrictIntegerField(required=False, min_value=1, max_value=50)
    context_size = StrictIntegerField(required=False, min_value=0, max_value=20)
    repeat_rate = serializers.FloatField(required=False)
    bad_reference_rate = serializers.FloatField(required=False)
    reference_rate = serializers.FloatField(required=False)
    lease_seconds = StrictIntegerField(required=False, min_value=60, max_value=86_400)
    seed = StrictIntegerField(required=False, min_value=0, max_value=2**62)
    items_per_annotator = StrictIntegerField(required=False, min_value=0, max_value=1_000_000)
    batch_size = StrictIntegerField(required=False, min_value=1, max_value=10_000)
    instructions = StrictCharField(required=False, allow_blank=True, max_length=20_000)
    completion_code = StrictCharField(required=False, allow_blank=True, max_length=64)
    completion_url = serializers.URLField(required=False, allow_blank=True, max_length=500)


class TaskCreateSerializer(TaskSettingsSerializer):
    task_type = serializers.ChoiceField(choices=TaskType.choices)


class TaskOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    campaign = serializers.IntegerField(source="campaign_id")
    task_type = serializers.CharField()
    state = serializers.CharField()
    scale = serializers.CharField()
    monolingual = serializers.BooleanField()
    show_reference = serializers.BooleanField()
    ranking_size = serializers.IntegerField()
    judgments_per_item = serializers.IntegerField()
    context_size = serializers.IntegerField()
    repeat_rate = serializers.FloatField()
    bad_reference_rate = serializers.FloatField()
    reference_rate = serializers.FloatField()
    lease_seconds = serializers.IntegerField()
    seed = serializers.IntegerField()
    items_per_annotator = serializers.IntegerField()
    batch_size = serializers.IntegerField()
    instructions = serializers.CharField()
    completion_code = serializers.CharField()
    completion_url = serializers.CharField()


class TaskListApi(APIView):
    @extend_schema(responses=TaskOutputSerializer(many=True))
    @authorize(CAN_MANAGE)
    def get(self, request, campaign_id: int):
        return Response(TaskOutputSerializer(request.campaign.tasks.all(), many=True).data)

    @extend_schema(
        request=TaskCreateSerializer,
        responses={201: TaskOutputSerializer, 400: ErrorSerializer},
    )
    @authorize(CAN_MANAGE)
    def post(self, request, campaign_id: int):
        data = TaskCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = task_create(campaign=request.campaign, **data.validated_data)
        return Response(TaskOutputSerializer(task).data, status=status.HTTP_201_CREATED)


class TaskDetailApi(APIView):
    @extend_schema(responses=TaskOutputSerializer)
    @authorize(CAN_MANAGE)
    def get(self, request, campaign_id: int, task_id: int):
        task = get_object_or_404(Task, id=task_id, campaign=request.campaign)
        return Response(TaskOutputSerializer(task).data)

    @extend_schema(
        request=TaskSettingsSerializer,
        responses={200: TaskOutputSerializer, 400: ErrorSerializer},
    )
    @authorize(CAN_MANAGE)
    def patch(self, request, campaign_id: int, task_id: int):
        data = TaskSettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = task_update(task_id=task_id, campaign=request.campaign, **data.validated_data)
        return Response(TaskOutputSerializer(task).data)

    @extend_schema(responses={204: None, 400: ErrorSerializer})
    @authorize(CAN_MANAGE)
    def delete(self, request, campaign_id: int, task_id: int):
        task_delete(task_id=task_id, campaign=request.campaign)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _state_change_api(service, summary: str) -> type[APIView]:
    class TaskStateApi(APIView):
        @extend_schema(
            request=None,
            responses={200: TaskOutputSerializer, 400: ErrorSerializer},
            summary=summary,
        )
        @authorize(CAN_MANAGE)
        def post(self, request, campaign_id: int, task_id: int):
            # The service refuses a task of another campaign (404) and a wrong state (400).
            service(task_id=task_id, campaign=request.campaign)
            return Response(TaskOutputSerializer(Task.objects.get(id=task_id)).data)

    TaskStateApi.__name__ = f"Task{summary.split()[0]}Api"
    return TaskStateApi


TaskLaunchApi = _state_change_api(task_launch, "Launch a draft task (plans its items)")
TaskPauseApi = _state_change_api(task_pause, "Pause a launched task (claims released)")
TaskResumeApi = _state_change_api(task_resume, "Resume a paused task")
TaskCloseApi = _state_change_api(task_close, "Close a task for good (judgments kept)")
