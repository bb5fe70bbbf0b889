"""Pages of the human results; included from ``annotation.urls``."""

from django.urls import path

from annotation.views import human

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
        "campaigns/<int:campaign_id>/results/human/rankings.<str:fmt>",
        human.rankings_export,
        name="results-human-rankings",
    ),
]
