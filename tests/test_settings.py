"""Settings come from the environment; production refuses the default secret key."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalsite.settings import database_from_url

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_FILE = ROOT / "evalsite" / "settings.py"
# Variables the tests below set themselves; the rest of the environment is passed on.
OWN_VARIABLES = {
    "SECRET_KEY",
    "DEBUG",
    "HTTPS",
    "HSTS_PRELOAD",
    "METRICS_JOB_TEST_HOLDS",
    "METRICS_JOB_TEST_PACE",
}


def _import_settings(
    tmp_path: Path, *, show: str = "DEBUG", local_secret_key: str | None = None, **env: str
) -> subprocess.CompletedProcess:
    """Runs evalsite/settings.py in a subprocess as if its checkout were ``tmp_path``, so
    that ``var/secret_key`` is there exactly when the test writes it, and prints ``show``."""
    (tmp_path / "evalsite").mkdir()
    settings_file = tmp_path / "evalsite" / "settings.py"
    shutil.copy(SETTINGS_FILE, settings_file)
    if local_secret_key is not None:
        (tmp_path / "var").mkdir()
        (tmp_path / "var" / "secret_key").write_text(local_secret_key)
    base = {k: v for k, v in os.environ.items() if k not in OWN_VARIABLES}
    code = f"import runpy; print(runpy.run_path({str(settings_file)!r})[{show!r}])"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_default_secret_key_is_refused_without_debug(tmp_path):
    result = _import_settings(tmp_path)
    assert result.returncode != 0
    assert "SECRET_KEY is the insecure default while DEBUG is off" in result.stderr


@pytest.mark.parametrize("value", ["", "0", "false", "no", "Off", " NO "])
def test_debug_is_off_unless_set_to_a_true_value(tmp_path, value):
    result = _import_settings(tmp_path, DEBUG=value, SECRET_KEY="a-real-secret")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_debug_allows_the_default_key_for_local_development(tmp_path):
    result = _import_settings(tmp_path, DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


@pytest.mark.parametrize(
    ("name", "value"),
    [("HTTPS", "ture"), ("HTTPS", "2"), ("DEBUG", "enabled"), ("HSTS_PRELOAD", "nope")],
)
def test_an_unrecognised_yes_no_value_stops_start_up(tmp_path, name, value):
    """HTTPS=ture used to mean HTTPS off: no secure cookies, no HSTS, and no word of it."""
    result = _import_settings(tmp_path, SECRET_KEY="a-real-secret", **{name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"{name}={value!r} is not a yes/no value" in result.stderr
    assert "1, true, yes, on or 0, false, no, off" in result.stderr


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_https_accepts_the_true_words(tmp_path, value):
    result = _import_settings(
        tmp_path, show="SESSION_COOKIE_SECURE", SECRET_KEY="a-real-secret", HTTPS=value
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_the_checkouts_secret_key_file_is_read_when_secret_key_is_unset(tmp_path):
    """The README's manage.py commands work after make up without exporting SECRET_KEY."""
    result = _import_settings(tmp_path, show="SECRET_KEY", local_secret_key="from-the-file\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from-the-file"


def test_secret_key_in_the_environment_wins_over_the_file(tmp_path):
    result = _import_settings(
        tmp_path, show="SECRET_KEY", local_secret_key="from-the-file", SECRET_KEY="from-env"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from-env"


def test_production_refuses_a_missing_secret_key_even_with_the_file(tmp_path):
    """Served over HTTPS is a deployment: it must name its key, not find one in var/."""
    result = _import_settings(tmp_path, local_secret_key="from-the-file", HTTPS="1")
    assert result.returncode != 0
    assert "SECRET_KEY is the insecure default while DEBUG is off" in result.stderr


def test_an_empty_secret_key_file_is_no_key(tmp_path):
    result = _import_settings(tmp_path, local_secret_key="  \n")
    assert result.returncode != 0
    assert "SECRET_KEY is the insecure default while DEBUG is off" in result.stderr


def test_database_url_is_parsed():
    db = database_from_url("postgres://user:p%40ss@db.example:6543/evalsite")
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "user",
        "p@ss",
        "db.example",
        "6543",
        "evalsite",
    )


@pytest.mark.django_db
def test_connections_run_without_jit():
    # JIT compiled mis-estimated lookups for longer than they ran (evalsite/settings.py).
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == ("off",)


def test_database_url_must_be_postgres():
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="postgres"):
        database_from_url("sqlite:///db.sqlite3")


def _production_env(**extra: str) -> dict[str, str]:
    """Production as README describes it: DEBUG off, HTTPS=1, a strong key, a real host name."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    # The browser tests' conftest allows async-unsafe ORM calls, which production must not.
    dropped = {"DEBUG", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return {
        **base,
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "HTTPS": "1",
        "SECRET_KEY": "kV3r9pQ2-production-strength-secret-Zx81mLw0aTq7YbN4cJd6HfE5",
        "ALLOWED_HOSTS": "evalsite.example.org",
        # The test database, so that a log-in in the subprocess finds the test's user.
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        **extra,
    }


def _manage_check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_deploy_passes_with_production_settings():
    result = _manage_check_deploy(_production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_check_deploy_fails_without_https():
    """The check above can fail: without HTTPS=1 Django warns about cookies, HSTS, redirect."""
    result = _manage_check_deploy(_production_env(HTTPS=""))
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stdout + result.stderr


PROBE = """
import json
import django
django.setup()
from django.test import Client

client = Client(HTTP_HOST="evalsite.example.org")
insecure = client.get("/login/")
page = client.get("/login/", secure=True)
login = client.post(
    "/login/", {"username": "prod", "password": "prod-password-1"}, secure=True
)
cookies = {
    name: {"secure": bool(m["secure"]), "httponly": bool(m["httponly"]), "samesite": m["samesite"]}
    for name, m in client.cookies.items()
}
print(json.dumps({
    "insecure": [insecure.status_code, insecure.get("Location", "")],
    "headers": dict(page.headers),
    "login": login.status_code,
    "cookies": cookies,
}))
"""


@pytest.mark.django_db(transaction=True)
def test_production_responses_carry_the_security_headers(django_user_model):
    django_user_model.objects.create_user("prod", password="prod-password-1")
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=Path(__file__).resolve().parent.parent,
        env=_production_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["insecure"] == [301, "https://evalsite.example.org/login/"]
    headers = seen["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self'")
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "same-origin"
    assert seen["login"] == 302
    assert seen["cookies"]["sessionid"] == {"secure": True, "httponly": True, "samesite": "Lax"}
    assert seen["cookies"]["csrftoken"]["secure"] is True


def test_proxy_ssl_header_is_trusted_only_when_configured():
    show = "import evalsite.settings as s; print(s.SECURE_PROXY_SSL_HEADER, s.SECURE_HSTS_PRELOAD)"

    def settings_with(**env: str) -> str:
        base = {k: v for k, v in os.environ.items() if k != "SECURE_PROXY_SSL_HEADER"}
        result = subprocess.run(
            [sys.executable, "-c", show],
            env={**base, "SECRET_KEY": "a-real-secret", "HTTPS": "1", **env},
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout.strip()

    assert settings_with() == "None True"
    assert settings_with(SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto", HSTS_PRELOAD="0") == (
        "('HTTP_X_FORWARDED_PROTO', 'https') False"
    )


@pytest.mark.parametrize(
    "name, value", [("METRICS_JOB_TEST_HOLDS", "/tmp/holds"), ("METRICS_JOB_TEST_PACE", "10")]
)
def test_production_refuses_the_metrics_jobs_test_switches(tmp_path, name, value):
    result = _import_settings(tmp_path, SECRET_KEY="k" * 50, HTTPS="1", **{name: value})
    assert result.returncode != 0
    assert "are for tests" in result.stderr
    (tmp_path / "plain").mkdir()
    assert _import_settings(tmp_path / "plain", SECRET_KEY="k" * 50, HTTPS="1").returncode == 0
