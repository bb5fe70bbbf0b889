from django.contrib.auth import views as auth_views
from django.urls import include, path

from annotation.views import annotate, auth, campaigns, results, tasks

urlpatterns = [
    path("", campaigns.home, name="home"),
    path("login/", auth.LockoutLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("campaigns/new/", campaigns.campaign_create_view, name="campaign-create"),
    path("campaigns/<int:campaign_id>/", campaigns.campaign_detail, name="campaign-detail"),
    path(
        "campaigns/<int:campaign_id>/systems/",
        campaigns.campaign_systems,
        name="campaign-systems",
    ),
    path("campaigns/<int:campaign_id>/upload/", campaigns.campaign_upload, name="campaign-upload"),
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
    path("campaigns/<int:campaign_id>/tasks/", tasks.task_add, name="task-add"),
    path(
        "campaigns/<int:campaign_id>/tasks/<int:task_id>/launch/",
        tasks.task_launch_view,
        name="task-launch",
    ),
    path("campaigns/<int:campaign_id>/invitations/", tasks.invitation_add, name="invitation-add"),
    path("invite/", tasks.invitation_accept_view, name="invitation-accept"),
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
]
