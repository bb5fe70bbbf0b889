"""Settings come from the environment; production refuses the default secret key."""

import os
import subprocess
import sys

import pytest

from evalsite.settings import database_from_url


def _import_settings(**env):
    base = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    return subprocess.run(
        [sys.executable, "-c", "import evalsite.settings as s; print(s.DEBUG)"],
        env={**base, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_default_secret_key_is_refused_without_debug():
    result = _import_settings()
    assert result.returncode != 0
    assert "SECRET_KEY is the insecure default while DEBUG is off" in result.stderr


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_debug_is_off_unless_set_to_a_true_value(value):
    result = _import_settings(DEBUG=value, SECRET_KEY="a-real-secret")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_debug_allows_the_default_key_for_local_development():
    result = _import_settings(DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_database_url_is_parsed():
    db = database_from_url("postgres://user:p%40ss@db.example:6543/evalsite")
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "user",
        "p@ss",
        "db.example",
        "6543",
        "evalsite",
    )


def test_database_url_must_be_postgres():
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="postgres"):
        database_from_url("sqlite:///db.sqlite3")
