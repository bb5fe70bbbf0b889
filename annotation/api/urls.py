from django.urls import include, path

from annotation.api import annotation, auth, campaigns, media, members, pages, pearmut, tasks

urlpatterns = [
    path("auth/token", auth.TokenApi.as_view(), name="api-token"),
    path("auth/token/rotate", auth.TokenRotateApi.as_view(), name="api-token-rotate"),
    path("campaigns", campaigns.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/pearmut", pearmut.PearmutImportApi.as_view(), name="api-pearmut-import"),
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
        "campaigns/<int:campaign_id>/media",
        media.MediaUploadApi.as_view(),
        name="api-media-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/systems",
        campaigns.SystemListApi.as_view(),
        name="api-systems",
    ),
    path("campaigns/<int:campaign_id>/tasks", tasks.TaskListApi.as_view(), name="api-tasks"),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>",
        tasks.TaskDetailApi.as_view(),
        name="api-task",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/launch",
        tasks.TaskLaunchApi.as_view(),
        name="api-task-launch",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/pause",
        tasks.TaskPauseApi.as_view(),
        name="api-task-pause",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/resume",
        tasks.TaskResumeApi.as_view(),
        name="api-task-resume",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/close",
        tasks.TaskCloseApi.as_view(),
        name="api-task-close",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/continue",
        tasks.TaskContinueApi.as_view(),
        name="api-task-continue",
    ),
    path(
        "campaigns/<int:campaign_id>/members",
        members.MemberListApi.as_view(),
        name="api-members",
    ),
    path(
        "campaigns/<int:campaign_id>/invitations",
        members.InvitationListApi.as_view(),
        name="api-invitations",
    ),
    path(
        "campaigns/<int:campaign_id>/invitations/<int:invitation_id>",
        members.InvitationDetailApi.as_view(),
        name="api-invitation",
    ),
    path("invitations/join", members.InvitationJoinApi.as_view(), name="api-invitation-join"),
    path("tasks/<int:task_id>/next", annotation.NextItemApi.as_view(), name="api-next-item"),
    path("judgments", annotation.JudgmentApi.as_view(), name="api-judgments"),
    path("pages", pages.PageApi.as_view(), name="api-pages"),
    path("tasks/<int:task_id>/skip", annotation.SkipApi.as_view(), name="api-skip"),
    path(
        "tasks/<int:task_id>/prefilled-spans",
        annotation.PrefilledSpansApi.as_view(),
        name="api-task-prefilled-spans",
    ),
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
    path("", include("annotation.api.urls_shared_tasks")),
    path("", include("annotation.api.urls_tutorials")),
]
