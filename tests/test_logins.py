"""Failed log-ins lock the account (and a spraying IP address) out: the login page, the admin
login and the API token, with failures counted in PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from annotation.models import LoginFailure
from annotation.services.logins import login_failure_record, login_lockout_check

pytestmark = pytest.mark.django_db

PASSWORD = "right-password-42"
LOCKED = "Too many failed attempts; try again in 15 minutes."


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password=PASSWORD)


def page_login(client, username, password, ip="10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def api_token(client, username, password, ip="10.0.0.1"):
    return client.post(
        "/api/v1/auth/token",
        {"username": username, "password": password},
        content_type="application/json",
        REMOTE_ADDR=ip,
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_page_locks_after_five_failures_even_for_the_right_password(client, alice):
    for _ in range(5):
        response = page_login(client, "alice", "wrong")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.text
    response = page_login(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert 890 <= int(response["Retry-After"]) <= 900
    assert LOCKED in response.text
    assert not logged_in(client)
    # Attempts during the lockout are not counted: it ends when the first five leave the window.
    assert LoginFailure.objects.count() == 5


def test_success_clears_the_usernames_failures(client, alice):
    for _ in range(4):
        page_login(client, "ALICE ", "wrong")  # counted under the normalised name
    assert LoginFailure.objects.filter(username="alice").count() == 4
    response = page_login(client, "alice", PASSWORD)
    assert response.status_code == 302 and logged_in(client)
    assert LoginFailure.objects.count() == 0
    client.logout()
    for _ in range(4):
        page_login(client, "alice", "wrong")
    assert page_login(client, "alice", PASSWORD).status_code == 302


def test_an_unknown_username_is_treated_like_a_real_one(client, alice):
    real = page_login(client, "alice", "wrong")
    ghost = page_login(client, "nobody-here", "wrong")
    assert real.status_code == ghost.status_code == 200
    error = "Please enter a correct username and password"
    assert error in real.text and error in ghost.text
    for _ in range(4):
        page_login(client, "nobody-here", "wrong")
    locked = page_login(client, "nobody-here", "wrong")
    assert locked.status_code == 429 and LOCKED in locked.text


def test_the_lockout_ends_with_the_window(client, alice):
    for _ in range(5):
        page_login(client, "alice", "wrong")
    assert page_login(client, "alice", PASSWORD).status_code == 429
    # The oldest failure leaves the window: four remain, below the limit of five.
    oldest = list(LoginFailure.objects.order_by("at").values_list("id", flat=True)[:1])
    LoginFailure.objects.filter(id__in=oldest).update(at=timezone.now() - timedelta(seconds=901))
    response = page_login(client, "alice", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_window_and_limit_come_from_settings(client, alice, settings):
    settings.LOGIN_LOCKOUT_FAILURES = 2
    settings.LOGIN_LOCKOUT_WINDOW_SECONDS = 60
    page_login(client, "alice", "wrong")
    page_login(client, "alice", "wrong")
    response = page_login(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "try again in 1 minute." in response.text
    assert 50 <= int(response["Retry-After"]) <= 60
    LoginFailure.objects.update(at=timezone.now() - timedelta(seconds=61))
    assert page_login(client, "alice", PASSWORD).status_code == 302


def test_one_address_spraying_many_usernames_is_locked(client, alice, settings):
    settings.LOGIN_LOCKOUT_IP_FAILURES = 4
    for name in ("bob", "carol", "dave", "erin"):
        assert page_login(client, name, "Winter2024!", ip="203.0.113.7").status_code == 200
    # Every username from that address, even a real account with its right password ...
    assert page_login(client, "alice", PASSWORD, ip="203.0.113.7").status_code == 429
    # ... but not from another address.
    assert page_login(client, "alice", PASSWORD, ip="198.51.100.1").status_code == 302


def test_api_token_locks_out_and_answers_429(client, alice):
    for _ in range(5):
        response = api_token(client, "alice", "wrong")
        assert response.status_code == 400
        assert response.json() == {
            "error": "Unable to log in with provided credentials.",
            "code": "invalid",
            "fields": {"non_field_errors": ["Unable to log in with provided credentials."]},
        }
    response = api_token(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert response.json() == {"error": LOCKED, "code": "too_many_requests"}
    assert 890 <= int(response["Retry-After"]) <= 900


def test_api_token_success_clears_failures_and_shares_the_count_with_the_page(client, alice):
    for _ in range(2):
        api_token(client, "alice", "wrong")
    for _ in range(2):
        page_login(client, "alice", "wrong")
    response = api_token(client, "alice", PASSWORD)
    assert response.status_code == 200 and len(response.json()["token"]) == 40
    assert LoginFailure.objects.count() == 0
    for _ in range(3):
        api_token(client, "alice", "wrong")
    for _ in range(2):
        page_login(client, "alice", "wrong")
    assert api_token(client, "alice", PASSWORD).status_code == 429


def test_api_incomplete_request_is_not_a_failure(client, alice):
    response = client.post(
        "/api/v1/auth/token", {"username": "alice"}, content_type="application/json"
    )
    assert response.status_code == 400 and "password" in response.json()["fields"]
    assert (
        client.post("/api/v1/auth/token", [1], content_type="application/json").status_code == 400
    )
    assert LoginFailure.objects.count() == 0


def test_nul_bytes_and_wrong_types_are_refused_without_a_password_check(client, alice):
    # Found by the API fuzz test: a NUL byte in the username reached PostgreSQL (a 500).
    for username, password in (("ali\x00ce", PASSWORD), ("alice", "pass\x00word"), (7, PASSWORD)):
        response = api_token(client, username, password)
        assert response.status_code == 400, response.content
    assert page_login(client, "ali\x00ce", PASSWORD).status_code == 200
    assert not logged_in(client)
    assert LoginFailure.objects.count() == 0


def test_admin_login_is_locked_out_too(client, django_user_model):
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "root", "password": "wrong"})
        assert response.status_code == 200
    response = client.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 429
    assert LOCKED in response.text
    assert client.get("/admin/").status_code == 302  # still not logged in


def test_admin_login_works_and_clears(client, django_user_model):
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    client.post("/admin/login/", {"username": "root", "password": "wrong"})
    response = client.post("/admin/login/?next=/admin/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200
    assert LoginFailure.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_parallel_guesses_get_no_more_than_the_limit(alice):
    """Eight guesses at once: the per-username lock lets exactly five be checked."""
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def guess() -> None:
        try:
            barrier.wait()
            statuses.append(api_token(Client(), "alice", "wrong").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=guess) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [400] * 5 + [429] * 3
    assert LoginFailure.objects.count() == 5


def test_recording_prunes_rows_older_than_the_window():
    old = login_failure_record(username="x", ip="10.0.0.9")
    LoginFailure.objects.filter(id=old.id).update(at=timezone.now() - timedelta(hours=1))
    login_failure_record(username="y", ip=None)
    assert list(LoginFailure.objects.values_list("username", flat=True)) == ["y"]
    assert login_lockout_check(username="x", ip="10.0.0.9") is None


def test_behind_proxies_the_forwarded_address_counts(client, alice, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.LOGIN_LOCKOUT_IP_FAILURES = 2
    spoofed = "1.2.3.4, 203.0.113.9"  # the client wrote 1.2.3.4; our proxy appended the rest
    for name in ("bob", "carol"):
        client.post(
            "/login/",
            {"username": name, "password": "x"},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=spoofed,
        )
    assert set(LoginFailure.objects.values_list("ip", flat=True)) == {"203.0.113.9"}
    response = client.post(
        "/login/",
        {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="5.6.7.8, 203.0.113.9",
    )
    assert response.status_code == 429
