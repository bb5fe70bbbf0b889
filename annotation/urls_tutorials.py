"""Tutorial pages (annotators' and managers'); included from ``annotation.urls``."""

from django.urls import path

from annotation.views import tutorials

urlpatterns = [
    path("annotate/<int:task_id>/tutorial/", tutorials.tutorial_page, name="tutorial"),
    path(
        "annotate/<int:task_id>/tutorial/answer/",
        tutorials.tutorial_answer,
        name="tutorial-answer",
    ),
    path(
        "annotate/<int:task_id>/tutorial/answers/<int:answer_id>/",
        tutorials.tutorial_feedback,
        name="tutorial-feedback",
    ),
    path(
        "annotate/<int:task_id>/tutorial/retry/",
        tutorials.tutorial_retry_view,
        name="tutorial-retry",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/tutorial/",
        tutorials.tutorial_manage,
        name="tutorial-manage",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/tutorial/upload/",
        tutorials.tutorial_upload_view,
        name="tutorial-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/tutorial/rules/",
        tutorials.tutorial_rules_view,
        name="tutorial-rules",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/tutorial/clear/",
        tutorials.tutorial_clear_view,
        name="tutorial-clear",
    ),
]
