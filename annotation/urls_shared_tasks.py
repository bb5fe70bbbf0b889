"""Pages of shared tasks; included from ``annotation.urls``."""

from django.urls import path

from annotation.views import shared_tasks

urlpatterns = [
    path("shared-tasks/", shared_tasks.shared_task_list, name="shared-tasks"),
    path(
        "shared-tasks/<int:shared_task_id>/",
        shared_tasks.shared_task_detail,
        name="shared-task-detail",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/campaigns/",
        shared_tasks.shared_task_campaign_add_view,
        name="shared-task-campaign-add",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/campaigns/<int:campaign_id>/remove/",
        shared_tasks.shared_task_campaign_remove_view,
        name="shared-task-campaign-remove",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/campaigns/<int:campaign_id>/procedure/",
        shared_tasks.shared_task_pair_procedure_view,
        name="shared-task-pair-procedure",
    ),
    path(
        "shared-tasks/<int:shared_task_id>/tables/<str:which>.<str:fmt>",
        shared_tasks.shared_task_tables,
        name="shared-task-tables",
    ),
]
