from django.urls import include, path

from annotation.api import annotation, auth, campaigns

urlpatterns = [
    path("auth/token", auth.TokenApi.as_view(), name="api-token"),
    path("campaigns", campaigns.CampaignListApi.as_view(), name="api-campaigns"),
    path(
        "campaigns/<int:campaign_id>",
        campaigns.CampaignDetailApi.as_view(),
        name="api-campaign",
    ),
    path(
        "campaigns/<int:campaign_id>/source",
        campaigns.SourceUploadApi.as_view(),
        name="api-source-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/references",
        campaigns.ReferenceUploadApi.as_view(),
        name="api-reference-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/systems/upload",
        campaigns.SystemUploadApi.as_view(),
        name="api-system-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/wmt-xml",
        campaigns.WmtXmlUploadApi.as_view(),
        name="api-wmt-xml-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/systems",
        campaigns.SystemListApi.as_view(),
        name="api-systems",
    ),
    path("tasks/<int:task_id>/next", annotation.NextItemApi.as_view(), name="api-next-item"),
    path("judgments", annotation.JudgmentApi.as_view(), name="api-judgments"),
    path(
        "campaigns/<int:campaign_id>/results/automatic",
        campaigns.AutomaticResultsApi.as_view(),
        name="api-results-automatic",
    ),
    path(
        "campaigns/<int:campaign_id>/metric-scores",
        campaigns.MetricScoresUploadApi.as_view(),
        name="api-metric-scores",
    ),
    path("", include("annotation.api.urls_human")),
]
