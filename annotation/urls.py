from django.contrib.auth import views as auth_views
from django.urls import include, path

from annotation.views import (
    account,
    annotate,
    auth,
    campaigns,
    crowd,
    document,
    invitations,
    media,
    members,
    pearmut,
    results,
    spans,
    tasks,
)

urlpatterns = [
    path("", campaigns.home, name="home"),
    path("login/", auth.LockoutLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/token/", account.account_token, name="account-token"),
    path("campaigns/new/", campaigns.campaign_create_view, name="campaign-create"),
    path("campaigns/new/pearmut/", pearmut.pearmut_import_view, name="campaign-import-pearmut"),
    path("campaigns/<int:campaign_id>/", campaigns.campaign_detail, name="campaign-detail"),
    path(
        "campaigns/<int:campaign_id>/systems/",
        campaigns.campaign_systems,
        name="campaign-systems",
    ),
    path("campaigns/<int:campaign_id>/upload/", campaigns.campaign_upload, name="campaign-upload"),
    path(
        "campaigns/<int:campaign_id>/media/upload/",
        media.campaign_media_upload,
        name="campaign-media-upload",
    ),
    path(
        "campaigns/<int:campaign_id>/media/<int:media_id>",
        media.source_media,
        name="source-media",
    ),
    path(
        "campaigns/<int:campaign_id>/upload/<int:pending_id>/confirm/",
        campaigns.campaign_upload_confirm,
        name="campaign-upload-confirm",
    ),
    path(
        "campaigns/<int:campaign_id>/upload/<int:pending_id>/cancel/",
        campaigns.campaign_upload_cancel,
        name="campaign-upload-cancel",
    ),
    path(
        "campaigns/<int:campaign_id>/results/automatic/",
        results.automatic_results_page,
        name="results-automatic",
    ),
    path(
        "campaigns/<int:campaign_id>/results/automatic.<str:fmt>",
        results.automatic_results_download,
        name="results-automatic-download",
    ),
    path("annotate/", annotate.task_list, name="task-list"),
    path("annotate/<int:task_id>/", annotate.annotate, name="annotate"),
    path("annotate/<int:task_id>/submit/", annotate.submit, name="annotate-submit"),
    path("annotate/<int:task_id>/skip/", annotate.skip, name="annotate-skip"),
    path("annotate/<int:task_id>/page/", document.page_submit, name="annotate-page"),
    path(
        "campaigns/<int:campaign_id>/state/<str:change>/",
        tasks.campaign_state_view,
        name="campaign-state",
    ),
    path("crowd/<int:task_id>/<str:secret>/", crowd.crowd_start, name="crowd-start"),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/participants.csv",
        crowd.crowd_verdicts_csv,
        name="crowd-verdicts",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/participants/",
        crowd.crowd_participants,
        name="crowd-participants",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/participants/<int:participant_id>/restart/",
        crowd.crowd_participant_restart_view,
        name="crowd-participant-restart",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/edit/",
        tasks.task_edit,
        name="task-edit",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/state/<str:change>/",
        tasks.task_change_view,
        name="task-change",
    ),
    path("campaigns/<int:campaign_id>/tasks/", tasks.task_add, name="task-add"),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/prefilled-spans/",
        spans.task_prefill_view,
        name="task-prefill",
    ),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/launch/",
        tasks.task_launch_view,
        name="task-launch",
    ),
    path("campaigns/<int:campaign_id>/members/", members.members_page, name="campaign-members"),
    path("campaigns/<int:campaign_id>/members/add/", members.member_add, name="member-add"),
    path("campaigns/<int:campaign_id>/invitations/", members.invitation_add, name="invitation-add"),
    path(
        "campaigns/<int:campaign_id>/invitations/new/",
        members.invitations_created,
        name="invitations-created",
    ),
    path(
        "campaigns/<int:campaign_id>/invitations/<int:invitation_id>/revoke/",
        members.invitation_revoke_view,
        name="invitation-revoke",
    ),
    path("invite/", invitations.invitation_accept_view, name="invitation-accept"),
    path("invite/details/", invitations.invitation_details, name="invitation-details"),
    path(
        "campaigns/<int:campaign_id>/metrics/rerun/",
        campaigns.campaign_metrics_rerun,
        name="campaign-metrics-rerun",
    ),
    path(
        "campaigns/<int:campaign_id>/metric-scores/",
        campaigns.campaign_metric_scores_upload,
        name="campaign-metric-scores",
    ),
    path("", include("annotation.urls_human")),
    path("", include("annotation.urls_shared_tasks")),
    path("", include("annotation.urls_tutorials")),
]
