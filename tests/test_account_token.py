"""The API token page: the token, how to send it, a new one on request; a Bearer header is
told the Token scheme."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.services.logins import token_rotate

pytestmark = pytest.mark.django_db


def test_the_page_shows_the_token_and_how_to_send_it(client, manager):
    client.force_login(manager)
    assert b'href="/account/token/"' in client.get("/annotate/").content  # in the header
    empty = client.get("/account/token/").content.decode()
    assert "no token yet" in empty and not Token.objects.filter(user=manager).exists()
    made = client.post("/account/token/")
    assert made.status_code == 302 and made.url == "/account/token/"
    key = Token.objects.get(user=manager).key
    page = client.get("/account/token/").content.decode()
    assert key in page and f"Authorization: Token {key}" in page
    assert "http://testserver/api/v1/campaigns" in page


def test_a_new_token_voids_the_old_one(client, manager):
    old = token_rotate(user=manager).key
    api = APIClient()
    assert api.get("/api/v1/campaigns", HTTP_AUTHORIZATION=f"Token {old}").status_code == 200
    client.force_login(manager)
    client.post("/account/token/")
    new = Token.objects.get(user=manager).key
    assert new != old
    assert api.get("/api/v1/campaigns", HTTP_AUTHORIZATION=f"Token {old}").status_code == 401
    assert api.get("/api/v1/campaigns", HTTP_AUTHORIZATION=f"Token {new}").status_code == 200


def test_the_page_needs_a_login_and_the_rotation_csrf(manager):
    from django.test import Client

    anonymous = Client()
    assert anonymous.get("/account/token/").status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(manager)
    assert strict.post("/account/token/").status_code == 403
    assert not Token.objects.filter(user=manager).exists()


def test_bearer_is_refused_with_a_message_naming_the_token_scheme(manager):
    key = token_rotate(user=manager).key
    answer = APIClient().get("/api/v1/campaigns", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert answer.status_code == 401
    assert "Authorization: Token <your token>" in answer.json()["error"]
    assert answer["WWW-Authenticate"] == "Token"


def test_the_readme_says_what_a_judgment_needs():
    """The README's judgment example names every field the API requires (``task`` too)."""
    import json
    import re
    from pathlib import Path

    from annotation.api.annotation import JudgmentApi

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    example = re.search(r"-d '(\{.*?\})' \S+/api/v1/judgments", readme)
    assert example, "the README shows no POST /api/v1/judgments body"
    body = json.loads(example.group(1))
    fields = JudgmentApi.JudgmentInputSerializer().fields
    required = {name for name, field in fields.items() if field.required}
    assert required == {"task", "slot"} and required <= set(body)
    assert set(body) <= set(fields)
    assert "Authorization: Token" in readme


def test_the_page_says_when_the_token_stops_working(client, manager, settings):
    from datetime import timedelta

    from django.utils import timezone

    settings.API_TOKEN_MAX_AGE_DAYS = 90
    token = token_rotate(user=manager)
    client.force_login(manager)
    page = client.get("/account/token/").content.decode()
    until = (token.created + timedelta(days=90)).strftime("%Y-%m-%d")
    assert f"it works until {until}" in page and "expired on" not in page
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=91))
    page = client.get("/account/token/").content.decode()
    assert "It expired on" in page and "it works until" not in page
    api = APIClient()
    assert api.get("/api/v1/campaigns", HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 401
