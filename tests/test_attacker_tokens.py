"""API tokens (issue 21 §4): they expire, a password change ends them, users can rotate them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.forms import SetPasswordForm
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.services.logins import token_rotate

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-7"


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("tess", password=PASSWORD)


def _with_token(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def _token(api: APIClient | None = None) -> str:
    response = (api or APIClient()).post(
        "/api/v1/auth/token", {"username": "tess", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()["token"]


def test_a_token_older_than_the_maximum_age_is_refused_and_a_new_one_issued(user, settings):
    settings.API_TOKEN_MAX_AGE_DAYS = 30
    key = _token()
    assert _with_token(key).get("/api/v1/campaigns").status_code == 200
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    refused = _with_token(key).get("/api/v1/campaigns")
    assert refused.status_code == 401
    assert "expired" in refused.content.decode()
    fresh = _token()
    assert fresh != key and _with_token(fresh).get("/api/v1/campaigns").status_code == 200


def test_token_check_stays_one_query(user):
    key = _token()
    api = _with_token(key)
    api.get("/api/v1/campaigns")  # warm
    with CaptureQueriesContext(connection) as queries:
        api.get("/api/v1/campaigns")
    token_queries = [q for q in queries.captured_queries if "authtoken_token" in q["sql"]]
    assert len(token_queries) == 1


def test_a_password_reset_ends_the_token(user):
    key = _token()
    form = SetPasswordForm(
        user, {"new_password1": "another-long-pass-8", "new_password2": "another-long-pass-8"}
    )
    assert form.is_valid(), form.errors
    form.save()  # what the password reset and the admin's password form do
    assert not Token.objects.filter(user=user).exists()
    assert _with_token(key).get("/api/v1/campaigns").status_code == 401


def test_saving_a_user_without_a_new_password_keeps_the_token(user):
    key = _token()
    user.first_name = "Tess"
    user.save()
    assert Token.objects.filter(key=key).exists()


def test_rotate_through_the_api_ends_the_old_token(user):
    key = _token()
    response = _with_token(key).post("/api/v1/auth/token/rotate")
    assert response.status_code == 200
    new = response.json()["token"]
    assert new != key
    assert _with_token(key).get("/api/v1/campaigns").status_code == 401
    assert _with_token(new).get("/api/v1/campaigns").status_code == 200
    assert APIClient().post("/api/v1/auth/token/rotate").status_code == 401


def test_rotate_service_replaces_the_token(user):
    old = Token.objects.create(user=user)
    new = token_rotate(user=user)
    assert new.key != old.key
    assert list(Token.objects.filter(user=user).values_list("key", flat=True)) == [new.key]
