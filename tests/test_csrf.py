"""CSRF: pages, log-in and log-out, and the API with a session refuse a POST without the
token; the API with a token needs none. (The test client skips the check unless asked.)"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Invitation, Judgment
from tests.security_world import ANN, MGR, PASSWORD, World, client_for, world_for_module

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    with world_for_module(django_db_blocker) as built:
        yield built


def campaign(world: World) -> dict[str, int]:
    return {"campaign_id": world.campaign.id}


def _csrf_token(client: Client, url: str) -> str:
    client.get(url)
    return client.cookies["csrftoken"].value


def test_a_page_post_without_csrf_token_is_refused(world: World) -> None:
    client = client_for(world, MGR, enforce_csrf_checks=True)
    url = reverse("invitation-add", kwargs=campaign(world))
    before = Invitation.objects.count()
    assert client.post(url, {"role": "annotator"}).status_code == 403
    assert Invitation.objects.count() == before
    token = _csrf_token(client, reverse("campaign-detail", kwargs=campaign(world)))
    response = client.post(url, {"role": "annotator", "csrfmiddlewaretoken": token})
    assert response.status_code == 302  # post/redirect/get to the links
    assert Invitation.objects.count() == before + 1


def test_a_judgment_without_csrf_token_is_refused(world: World) -> None:
    client = client_for(world, ANN, enforce_csrf_checks=True)
    task = world.tasks["adequacy"]
    url = reverse("annotate-submit", kwargs={"task_id": task.id})
    answer = {"slot": world.leased.id, "score": "3", "candidates": "1"}
    before = Judgment.objects.count()
    assert client.post(url, answer).status_code == 403
    assert Judgment.objects.count() == before
    token = _csrf_token(client, reverse("annotate", kwargs={"task_id": task.id}))
    assert client.post(url, {**answer, "csrfmiddlewaretoken": token}).status_code == 302
    assert Judgment.objects.count() == before + 1


def test_login_and_logout_need_the_csrf_token(world: World) -> None:
    client = Client(enforce_csrf_checks=True)
    credentials = {"username": world.users[MGR].username, "password": PASSWORD}
    assert client.post(reverse("login"), credentials).status_code == 403
    token = _csrf_token(client, reverse("login"))
    response = client.post(reverse("login"), {**credentials, "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 200
    assert client.post(reverse("logout")).status_code == 403  # a forged logout is refused
    assert client.get(reverse("home")).status_code == 200
    token = client.cookies["csrftoken"].value  # rotated at log-in
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_the_api_with_a_session_needs_the_csrf_token_and_with_a_token_does_not(
    world: World,
) -> None:
    url = reverse("api-results-human-exclusions", kwargs=campaign(world))
    body = json.dumps({"annotator": world.annotator2.id, "excluded": True})
    session = client_for(world, MGR, enforce_csrf_checks=True)
    assert session.post(url, body, content_type="application/json").status_code == 403
    token = Client().post(
        reverse("api-token"), {"username": world.users[MGR].username, "password": PASSWORD}
    )
    headers = {"Authorization": f"Token {token.json()['token']}"}
    api = Client(enforce_csrf_checks=True, headers=headers)
    assert api.post(url, body, content_type="application/json").status_code == 200
