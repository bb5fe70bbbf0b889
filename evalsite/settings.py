"""evalsite settings, read from the environment.

The defaults work for local development with no ``.env``: PostgreSQL and Redis on localhost,
as ``make up`` and ``make test`` provide them. Production sets at least ``SECRET_KEY``,
``ALLOWED_HOSTS``, ``DATABASE_URL`` and ``REDIS_URL``.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

from evalsite.csp import DEFAULT_POLICY

BASE_DIR = Path(__file__).resolve().parent.parent

INSECURE_DEFAULT_SECRET_KEY = "insecure-evalsite-development-key-do-not-use-in-production"  # noqa: S105
# Written once per checkout by make (see the Makefile) when SECRET_KEY is unset.
LOCAL_SECRET_KEY_FILE = BASE_DIR / "var" / "secret_key"


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def env_bool(name: str, default: bool = False) -> bool:
    """A yes/no setting; unset or empty is ``default``. Anything unrecognised stops start-up:
    a typo such as ``HTTPS=ture`` must not quietly turn secure cookies and HSTS off."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a yes/no value; use one of {', '.join(TRUE_WORDS)} "
        f"or {', '.join(FALSE_WORDS)} (empty or unset means "
        f"{TRUE_WORDS[0] if default else FALSE_WORDS[0]})"
    )


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# The annotator loop's statements are prepared, planned once per session
# (annotation/db_prepared.py); 0 for a pooler in transaction mode that cannot keep them.
DATABASE_PREPARED_STATEMENTS = os.environ.get("DATABASE_PREPARE", "1") != "0"


def database_from_url(url: str) -> dict[str, object]:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(f"DATABASE_URL must be a postgres:// URL, not {parts.scheme!r}")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        # Persistent connections: a web request then costs no connection set-up. Ten minutes,
        # not one: a new PostgreSQL session pays its start, its catalogue caches and the
        # compilation of the judging functions on its first requests, which with a minute's
        # age fell on every thread each minute (bench/load.py open loop p99 125 ms, against
        # 45 ms with sessions kept). The health check finds a connection the server dropped.
        "CONN_MAX_AGE": int(os.environ.get("DATABASE_CONN_MAX_AGE", "600")),
        "CONN_HEALTH_CHECKS": True,
        # JIT off: our queries are short lookups and a few aggregates. When statistics are
        # missing or stale, mis-estimated lookups pass the JIT threshold and compiling costs
        # far more than the query (with both, the demo's simulated raters took over ten
        # minutes instead of twenty seconds on a fresh cluster).
        "OPTIONS": {
            "connect_timeout": 5,
            "options": "-c jit=off",
            # Let a session keep prepared statements: only the annotator loop's cursor
            # prepares (annotation/db_prepared.py); Django's client-side cursors never do.
            "prepare_threshold": 1 if DATABASE_PREPARED_STATEMENTS else None,
        },
    }


def secret_key(*, https: bool) -> str:
    """``SECRET_KEY`` from the environment, else the per-checkout key that make writes, so
    that ``manage.py`` commands run as the README shows them. A site served over HTTPS is a
    deployment: it must set its own key, never pick up a file left in the checkout."""
    key = os.environ.get("SECRET_KEY", "").strip()
    if key:
        return key
    if not https and LOCAL_SECRET_KEY_FILE.is_file():
        key = LOCAL_SECRET_KEY_FILE.read_text(encoding="utf-8").strip()
    return key or INSECURE_DEFAULT_SECRET_KEY


DEBUG = env_bool("DEBUG")
HTTPS = env_bool("HTTPS")
SECRET_KEY = secret_key(https=HTTPS)
if not DEBUG and SECRET_KEY == INSECURE_DEFAULT_SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is the insecure default while DEBUG is off. Set SECRET_KEY in the "
        "environment; without HTTPS, the key make up and make test write to var/secret_key "
        "is read when SECRET_KEY is unset. Or DEBUG=1 for local development."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "annotation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "evalsite.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication, so that it knows whose answer it marks private.
    "annotation.middleware.PrivateCacheMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "annotation.middleware.DatabaseUnavailableMiddleware",
    # Pages: a service's ApplicationError becomes the error page or the refused action's
    # message (annotation/views/errors.py); the API's DRF views answer through
    # EXCEPTION_HANDLER, in the one JSON error body (annotation/http_errors.py).
    "annotation.views.errors.ApplicationErrorMiddleware",
    # Last, so that it sees the response first: the user is known, the page can show them.
    "annotation.views.errors.MethodNotAllowedPageMiddleware",
]

ROOT_URLCONF = "evalsite.urls"
WSGI_APPLICATION = "evalsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = os.environ.get(
    "DATABASE_URL", "postgres://evalsite:evalsite@127.0.0.1:5432/evalsite"
)
DATABASES = {"default": database_from_url(DATABASE_URL)}
# A streaming replica for the reads that may lag (results, exports: annotation/db_routing.py).
# Unset: everything reads the primary. A replica further behind than the bound, or down, is
# left for the primary; its health is checked at most every DATABASE_REPLICA_CHECK_SECONDS.
DATABASE_REPLICA_URL = os.environ.get("DATABASE_REPLICA_URL", "").strip()
DATABASE_REPLICA_MAX_LAG_SECONDS = float(os.environ.get("DATABASE_REPLICA_MAX_LAG_SECONDS", "30"))
DATABASE_REPLICA_CHECK_SECONDS = float(os.environ.get("DATABASE_REPLICA_CHECK_SECONDS", "5"))
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = database_from_url(DATABASE_REPLICA_URL)
    # Tests mirror the primary: no test database is created on a read-only server.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["annotation.db_routing.LaggingReadsRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
if DEBUG:
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}

# Security: cookies are HTTP-only; secure cookies and HSTS whenever we are served over HTTPS.
SESSION_COOKIE_HTTPONLY = True
CSRF_FAILURE_VIEW = "annotation.views.errors.csrf_failure"  # the site's error page
CSRF_COOKIE_HTTPONLY = False  # htmx and the keyboard script read the token from the page
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = 31536000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
# Read even without HTTPS, so that a typo in it stops start-up there too.
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", True) and HTTPS
# Behind a TLS-terminating proxy, name the header it sets (e.g. X-Forwarded-Proto); trusted
# only when configured, since a client could otherwise claim HTTPS itself.
_proxy_ssl_header = os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip()
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _proxy_ssl_header.upper().replace("-", "_"), "https") if _proxy_ssl_header else None
)
# How many proxies in front append to X-Forwarded-For; 0 (default) uses REMOTE_ADDR, which
# behind a proxy is the proxy's address (then login limits per IP would count everyone).
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Scripts and styles only from our own origin (evalsite/csp.py); empty turns the header off.
CONTENT_SECURITY_POLICY = os.environ.get("CONTENT_SECURITY_POLICY", DEFAULT_POLICY)
# Failed logins (HTML and API): an account locks after this many failures in the window, and
# an IP address after LOGIN_LOCKOUT_IP_FAILURES failures over all usernames (password spraying).
LOGIN_LOCKOUT_FAILURES = int(os.environ.get("LOGIN_LOCKOUT_FAILURES", "5"))
LOGIN_LOCKOUT_IP_FAILURES = int(os.environ.get("LOGIN_LOCKOUT_IP_FAILURES", "30"))
LOGIN_LOCKOUT_WINDOW_SECONDS = int(os.environ.get("LOGIN_LOCKOUT_WINDOW_SECONDS", "900"))
# An API token stops working this many days after it was issued (POST /api/v1/auth/token
# then issues a new one); a password change deletes the account's token at once.
API_TOKEN_MAX_AGE_DAYS = int(os.environ.get("API_TOKEN_MAX_AGE_DAYS", "90"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "annotation.api.authentication.TokenUserAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "annotation.http_errors.api_exception_handler",
    # JSON bodies only (uploads name MultiPartParser themselves): one documented way in,
    # and 415 for anything else. Nesting is limited (annotation/lib/json_limits.py).
    "DEFAULT_PARSER_CLASSES": ["annotation.api.parsers.DepthLimitedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "evalsite API",
    "DESCRIPTION": "Campaigns, uploads, annotation and results for human evaluation of MT.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get components of their own, where non-blank strings have minLength 1:
    # the schema then says what the API accepts, which the fuzz tests hold it to.
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RecordStatusEnum": "annotation.api.schema.RECORD_STATUSES",
        "SkipStatusEnum": "annotation.api.schema.SKIP_STATUSES",
        "UploadStatusEnum": "annotation.api.schema.UPLOAD_STATUSES",
        "ResultsStatusEnum": "annotation.api.schema.RESULTS_STATUSES",
        "ObservationUnitEnum": "annotation.api.schema.OBSERVATION_UNITS",
        "TaskUnitEnum": "annotation.models.Unit",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "annotation.api.schema.add_common_errors",
    ],
}

# Celery: Redis as broker; job state and progress live in PostgreSQL, so no result backend.
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
# Django's cache in the same Redis: derived results that are slow to compute (the
# meta-evaluation), keyed by what they are computed from, so a stale entry is never read.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "evalsite",
        "TIMEOUT": 24 * 3600,
    }
}
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True  # a job killed half way is delivered again
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A metrics job leaves its pool process ~100 MB larger (NumPy buffers, glibc arenas kept):
# a process past this size (KiB) is replaced once its job is done, so memory stays flat.
CELERY_WORKER_MAX_MEMORY_PER_CHILD = int(
    os.environ.get("CELERY_WORKER_MAX_MEMORY_PER_CHILD", str(200 * 1024))
)
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "900"))
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 30
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # A job unacknowledged this long (its worker died) is delivered again.
    "visibility_timeout": int(
        os.environ.get("CELERY_VISIBILITY_TIMEOUT", str(CELERY_TASK_TIME_LIMIT + 60))
    ),
    # How often workers look for such messages (kombu's defaults: every ~100 s).
    "unacked_restore_interval": int(os.environ.get("CELERY_RESTORE_INTERVAL", "10")),
    "unacked_restore_throttle": int(os.environ.get("CELERY_RESTORE_THROTTLE", "10")),
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "evalsite")
# A running job's worker beats this often; a job whose heartbeat is older than the timeout lost
# its worker (killed, host gone) and the dispatcher queues it again.
JOB_HEARTBEAT_SECONDS = float(os.environ.get("JOB_HEARTBEAT_SECONDS", "10"))
JOB_HEARTBEAT_TIMEOUT_SECONDS = float(os.environ.get("JOB_HEARTBEAT_TIMEOUT_SECONDS", "60"))
# Test-only switches of the metrics job (never set in deployment; see tests/test_jobs_worker.py):
# a directory where a test holds a campaign's job before a metric until it lets it go, and a
# pace p that makes each metric take p times as long.
METRICS_JOB_TEST_HOLDS = os.environ.get("METRICS_JOB_TEST_HOLDS", "")
METRICS_JOB_TEST_PACE = float(os.environ.get("METRICS_JOB_TEST_PACE", "1"))
if HTTPS and (METRICS_JOB_TEST_HOLDS or METRICS_JOB_TEST_PACE != 1):
    # A deployment with them would hold or slow every metrics job.
    raise ImproperlyConfigured("METRICS_JOB_TEST_HOLDS and METRICS_JOB_TEST_PACE are for tests")

# Uploads: checked by the import service before anything is written.
# Neural metrics from models on this machine (metrics.neural): "comet=/models/wmt22-comet-da".
NEURAL_SCORERS = os.environ.get("NEURAL_SCORERS", "")
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(50 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Media sources (images, audio, video: annotation/services/media.py): where their files are
# stored (a persistent volume in deployment), the largest zip accepted (also bounding its
# expanded size; read in memory, and nginx's client_max_body_size must allow it) and the
# largest file in it.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", str(BASE_DIR / "var" / "media")))
MEDIA_UPLOAD_MAX_BYTES = int(os.environ.get("MEDIA_UPLOAD_MAX_BYTES", str(UPLOAD_MAX_BYTES)))
MEDIA_FILE_MAX_BYTES = int(os.environ.get("MEDIA_FILE_MAX_BYTES", str(UPLOAD_MAX_BYTES)))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
CELERY_BEAT_SCHEDULE = {
    # The outbox dispatcher: queues jobs written while the broker was unreachable.
    "dispatch-pending-jobs": {
        "task": "annotation.tasks.dispatch_pending_jobs",
        "schedule": float(os.environ.get("DISPATCH_INTERVAL_SECONDS", "15")),
    },
    # Stored results snapshots whose campaign changed get their refresh job: judgments that
    # keep arriving are computed once per campaign and period (annotation/services/
    # results_snapshots.py).
    "refresh-stale-results-snapshots": {
        "task": "annotation.tasks.refresh_stale_results_snapshots",
        "schedule": float(os.environ.get("RESULTS_SNAPSHOT_REFRESH_SECONDS", "30")),
    },
}
# A campaign with this many judgments or more shows its last results snapshot, marked as
# older and being updated, rather than recomputing it on the page (results_snapshots.py).
RESULTS_SNAPSHOT_SYNC_JUDGMENTS = int(os.environ.get("RESULTS_SNAPSHOT_SYNC_JUDGMENTS", "20000"))
