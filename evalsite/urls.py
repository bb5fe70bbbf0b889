from django.contrib import admin
from django.core.exceptions import ImproperlyConfigured
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from annotation.db_routing import allow_lagging_reads
from annotation.views.auth import AdminLoginForm, admin_login
from annotation.views.health import healthz

# The admin's login counts failures and locks out like ours (annotation/services/logins.py).
admin.site.login_form = AdminLoginForm


class SwaggerPage(SpectacularSwaggerSplitView):
    # A page to read: DRF's OPTIONS answer (metadata) has no HTML template, a 500; now a 405.
    http_method_names = ["get", "head"]


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/login/", admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file: the CSP allows no inline script.
    path(
        "api/docs/",
        SwaggerPage.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    path("api/v1/", include("annotation.api.urls")),
    path("", include("annotation.urls")),
]

# Reads that may lag a little: with DATABASE_REPLICA_URL set, their GETs may read from the
# replica (annotation/db_routing.py). Never the annotator path.
LAGGING_READS = frozenset(
    {
        "results-human",
        "results-human-judgments",
        "results-human-rankings",
        "results-automatic",
        "results-automatic-download",
        "api-results-human",
        "api-results-human-spans",
        "api-results-human-judgments",
        "api-results-automatic",
    }
)
_missing = LAGGING_READS - allow_lagging_reads(urlpatterns, LAGGING_READS)
if _missing:
    raise ImproperlyConfigured(f"LAGGING_READS names no URL: {sorted(_missing)}")

handler403 = "annotation.views.errors.forbidden"
handler404 = "annotation.views.errors.not_found"
handler500 = "annotation.views.errors.server_error"
