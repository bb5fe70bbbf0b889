"""API routes of shared tasks; included from ``annotation.api.urls``."""

from django.urls import path

from annotation.api import shared_tasks

urlpatterns = [
    path("shared-tasks", shared_tasks.SharedTaskListApi.as_view(), name="api-shared-tasks"),
    path(
        "shared-tasks/<int:shared_task_id>",
        shared_tasks.SharedTaskDetailApi.as_view(),
        name="api-shared-task",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/campaigns",
        shared_tasks.SharedTaskCampaignsApi.as_view(),
        name="api-shared-task-campaigns",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/campaigns/<int:campaign_id>",
        shared_tasks.SharedTaskCampaignApi.as_view(),
        name="api-shared-task-campaign",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/tables/<str:which>.<str:fmt>",
        shared_tasks.SharedTaskTablesApi.as_view(),
        name="api-shared-task-tables",
    ),
]
