"""API routes of tutorials; included from ``annotation.api.urls``."""

from django.urls import path

from annotation.api import tutorials

urlpatterns = [
    path("tasks/<int:task_id>/tutorial", tutorials.TutorialApi.as_view(), name="api-tutorial"),
    path(
        "tasks/<int:task_id>/tutorial/answers",
        tutorials.TutorialAnswerApi.as_view(),
        name="api-tutorial-answers",
    ),
    path(
        "tasks/<int:task_id>/tutorial/retry",
        tutorials.TutorialRetryApi.as_view(),
        name="api-tutorial-retry",
    ),
    path(
        "tasks/<int:task_id>/tutorial/items",
        tutorials.TutorialItemsApi.as_view(),
        name="api-tutorial-items",
    ),
]
