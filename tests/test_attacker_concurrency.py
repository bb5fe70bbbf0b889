"""Concurrent identical requests (issue 21 §4) answer what one of them alone would, never a
500 from the unique index the second one's insert runs into.

Each race is two real transactions: the first request's service runs in this thread and its
transaction stays open until the second, a real HTTP request in another thread on its own
connection, waits on the first's uncommitted row (PostgreSQL reports the lock wait); then the
first commits and the second's insert meets the committed row."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test import Client

from annotation.models import Campaign, CrowdParticipant, Membership
from annotation.services.campaigns import campaign_create, membership_add
from annotation.services.crowd import (
    ParticipantParameters,
    participant_sign_in,
    task_crowd_link_enable,
)
from annotation.services.invitations import invitation_accept, invitation_create, invitation_join

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-test-password-7"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    """A quick hasher: a password hashed on a loaded machine would outlast the wait."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _lock_waiters() -> int:
    with connection.cursor() as cursor:
        # The statistics views are one snapshot per transaction unless cleared.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def race(first: Callable[[], object], second: Callable[[], object]) -> object:
    """Runs ``first`` in an open transaction, ``second`` in another thread until it waits on
    that transaction (or ends), commits ``first``; returns what ``second`` returned."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = second()
        finally:
            from django.db import connections

            connections.close_all()

    Client().get("/login/")  # the URLconf's imports (scipy...) done before, not while racing
    thread = threading.Thread(target=run)
    with transaction.atomic():
        first()
        thread.start()
        deadline = time.monotonic() + 60
        while thread.is_alive() and not _lock_waiters():
            assert time.monotonic() < deadline, "the second request neither waited nor ended"
            time.sleep(0.02)
        assert thread.is_alive(), "the second request did not wait for the first"
    thread.join(30)
    return outcome["value"]


def _client(user=None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def test_two_sign_ups_with_one_username_in_two_cases(campaign, manager):
    _, first_token = invitation_create(campaign=campaign, created_by=manager)
    _, second_token = invitation_create(campaign=campaign, created_by=manager)
    client = _client()
    response = race(
        lambda: invitation_accept(token=first_token, username="Bob", password=PASSWORD),
        lambda: client.post(
            "/invite/",
            {"action": "create", "token": second_token, "username": "bob", "password": PASSWORD},
        ),
    )
    assert response.status_code == 200
    assert "that username is taken" in response.content.decode()
    assert list(
        get_user_model().objects.filter(username__iexact="bob").values_list("username", flat=True)
    ) == ["Bob"]


def test_two_campaigns_created_with_one_name(manager):
    client = _client(manager)
    response = race(
        lambda: campaign_create(
            name="WMT", source_language="en", target_language="de", owner=manager
        ),
        lambda: client.post(
            "/api/v1/campaigns",
            {"name": "WMT", "source_language": "en", "target_language": "de"},
            content_type="application/json",
        ),
    )
    assert response.status_code == 400, response.content
    assert "exists already" in response.content.decode()
    assert Campaign.objects.filter(name="WMT").count() == 1


def test_one_member_added_twice(campaign, manager, django_user_model):
    django_user_model.objects.create_user("carol", password=PASSWORD)
    client = _client(manager)
    response = race(
        lambda: membership_add(campaign=campaign, username="carol", role="annotator"),
        lambda: client.post(
            f"/api/v1/campaigns/{campaign.id}/members",
            {"username": "carol", "role": "annotator"},
            content_type="application/json",
        ),
    )
    assert response.status_code == 400, response.content
    assert "already" in response.content.decode()
    assert Membership.objects.filter(campaign=campaign, user__username="carol").count() == 1


def test_one_account_joins_with_two_invitations_at_once(campaign, manager, django_user_model):
    dave = django_user_model.objects.create_user("dave", password=PASSWORD)
    _, first_token = invitation_create(campaign=campaign, created_by=manager)
    _, second_token = invitation_create(campaign=campaign, created_by=manager)
    client = _client(dave)
    response = race(
        lambda: invitation_join(token=first_token, user=dave),
        lambda: client.post(
            "/api/v1/invitations/join", {"token": second_token}, content_type="application/json"
        ),
    )
    assert response.status_code == 400, response.content
    assert "already" in response.content.decode()
    assert Membership.objects.filter(campaign=campaign, user=dave).count() == 1


def test_one_crowd_participant_signs_in_twice_at_once(launched):
    task = launched("adequacy")
    secret = task_crowd_link_enable(task_id=task.id).crowd_secret
    parameters = ParticipantParameters("prolific", "PID42", "S1", "X1")
    client = _client()
    response = race(
        lambda: participant_sign_in(task_id=task.id, secret=secret, parameters=parameters),
        lambda: client.post(
            f"/crowd/{task.id}/{secret}/",
            {"PROLIFIC_PID": "PID42", "STUDY_ID": "S1", "SESSION_ID": "X1"},
        ),
    )
    assert response.status_code == 302, response.content
    participant = CrowdParticipant.objects.get(task=task, participant_id="PID42")
    assert response.wsgi_request.user == participant.user  # the first visit's account
    assert get_user_model().objects.filter(username__startswith=f"crowd-{task.id}-").count() == 1


def test_one_user_rotates_the_token_twice_at_once(django_user_model):
    from rest_framework.authtoken.models import Token

    from annotation.services.logins import token_rotate

    erin = django_user_model.objects.create_user("erin", password=PASSWORD)
    Token.objects.create(user=erin)
    client = _client(erin)
    response = race(
        lambda: token_rotate(user=erin), lambda: client.post("/api/v1/auth/token/rotate")
    )
    assert response.status_code == 200, response.content
    assert list(Token.objects.filter(user=erin).values_list("key", flat=True)) == [
        response.json()["token"]
    ]
