"""Pages of the human results; included from ``annotation.urls``."""

from django.urls import path

from annotation.views import human, reliability

urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/results/human/",
        human.human_results_page,
        name="results-human",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/annotators/<int:annotator_id>/exclusion/",
        human.annotator_exclusion,
        name="results-human-exclusion",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/judgments.<str:fmt>",
        human.judgments_export,
        name="results-human-judgments",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/reliability.<str:fmt>",
        reliability.reliability_export,
        name="results-human-reliability",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/tasks/<int:task_id>/exclude-failing/",
        reliability.failing_exclusion,
        name="results-human-exclude-failing",
    ),
    path(
        "campaigns/<int:campaign_id>/results/human/rankings.<str:fmt>",
        human.rankings_export,
        name="results-human-rankings",
    ),
]
