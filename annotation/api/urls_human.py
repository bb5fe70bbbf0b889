"""API routes of the human results; included from ``annotation.api.urls``."""

from django.urls import path

from annotation.api import human

urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/results/human",
        human.HumanResultsApi.as_view(),
        name="api-results-human",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/spans",
        human.SpanResultsApi.as_view(),
        name="api-results-human-spans",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/exclusions",
        human.ExclusionApi.as_view(),
        name="api-results-human-exclusions",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/judgments.<str:fmt>",
        human.JudgmentsExportApi.as_view(),
        name="api-results-human-judgments",
    ),
]
