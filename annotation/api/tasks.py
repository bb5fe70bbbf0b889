"""Task API for managers: create, edit, delete a draft, launch, pause, resume, close, and
continue an adaptive task that stopped by itself."""

from __future__ import annotations

from typing import Any

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
from annotation.models import Task, TaskType
from annotation.permissions import CAN_MANAGE, authorize
from annotation.protocols import PROTOCOLS, SETTINGS, Setting, protocols_applying
from annotation.services.adaptive import task_continue
from annotation.services.task_changes import (
    task_close,
    task_delete,
    task_pause,
    task_resume,
    task_update,
)
from annotation.services.tasks import task_create, task_launch


def _applies_note(setting: Setting) -> str:
    applying = protocols_applying(setting.name)
    if len(applying) == len(PROTOCOLS):
        return setting.help
    types = ", ".join(p.task_type for p in applying)
    note = f"Only for task types {types}; other types refuse a value other than the default."
    return f"{setting.help}. {note}" if setting.help else note


def _input_field(setting: Setting) -> serializers.Field:
    """The API's field for one declared setting (annotation/protocols/base.py), with the
    declaration's bounds, so that the schema states them."""
    common: dict[str, Any] = {"required": False, "help_text": _applies_note(setting)}
    if setting.kind == "int":
        return StrictIntegerField(
            min_value=setting.minimum,
            max_value=setting.maximum,
            allow_null=setting.optional,
            **common,
        )
    if setting.kind == "number":
        return serializers.FloatField(
            min_value=setting.minimum, max_value=setting.maximum, **common
        )
    if setting.kind == "share":
        # Bounded by the task rules' quality-control check, whose messages say why.
        return serializers.FloatField(**common)
    if setting.kind == "bool":
        return StrictBooleanField(**common)
    if setting.kind == "choice":
        return serializers.ChoiceField(choices=setting.choices, **common)
    if setting.kind == "url":
        return serializers.URLField(allow_blank=True, max_length=setting.max_length, **common)
    if setting.kind == "lines":
        return serializers.ListField(child=StrictCharField(max_length=setting.max_length), **common)
    if setting.kind == "json":
        return serializers.DictField(**common)
    return StrictCharField(allow_blank=True, max_length=setting.max_length, **common)


def _output_field(setting: Setting) -> serializers.Field:
    kinds: dict[str, type[serializers.Field]] = {
        "int": serializers.IntegerField,
        "share": serializers.FloatField,
        "number": serializers.FloatField,
        "bool": serializers.BooleanField,
        "lines": serializers.ListField,
        "json": serializers.DictField,
    }
    if setting.kind == "lines":
        return serializers.ListField(child=serializers.CharField())
    return kinds.get(setting.kind, serializers.CharField)()


class _SettingsValidation(NoUnknownFieldsSerializer):
    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        problems = {
            name: [problem]
            for name, value in attrs.items()
            if name in SETTINGS and (problem := SETTINGS[name].problem(value))
        }
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


# Built from the declarations: one field per setting, its bounds and note from there.
TaskSettingsSerializer = type(
    "TaskSettingsSerializer",
    (_SettingsValidation,),
    {name: _input_field(setting) for name, setting in SETTINGS.items()},
)
TaskCreateSerializer = type(
    "TaskCreateSerializer",
    (TaskSettingsSerializer,),
    {"task_type": serializers.ChoiceField(choices=TaskType.choices)},
)
TaskOutputSerializer = type(
    "TaskOutputSerializer",
    (serializers.Serializer,),
    {
        "id": serializers.IntegerField(),
        "campaign": serializers.IntegerField(source="campaign_id"),
        "task_type": serializers.CharField(),
        "state": serializers.CharField(),
        **{name: _output_field(setting) for name, setting in SETTINGS.items()},
        # Adaptive tasks (annotation/services/adaptive.py): when the stopping rule settled
        # the task and why ("resolved", "budget"; blank: running), and when the organiser
        # chose to continue it.
        "settled_at": serializers.DateTimeField(allow_null=True),
        "settled_reason": serializers.CharField(),
        "continued_at": serializers.DateTimeField(allow_null=True),
    },
)


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
TaskContinueApi = _state_change_api(
    task_continue, "Continue an adaptive task that stopped by itself (settled or budget spent)"
)
