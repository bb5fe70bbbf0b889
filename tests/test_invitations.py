"""Invitations: single use, expiring, no secret sent to the server in a URL."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import Invitation, Membership
from annotation.services.invitations import InvitationError, invitation_accept, invitation_create

pytestmark = pytest.mark.django_db


def test_token_is_single_use_and_stored_hashed(campaign, manager):
    invitation, token = invitation_create(campaign=campaign, created_by=manager)
    assert token not in invitation.token_hash
    user = invitation_accept(token=token, username="newbie", password="a-long-password-9")
    assert Membership.objects.get(user=user).role == "annotator"
    with pytest.raises(InvitationError, match="used already"):
        invitation_accept(token=token, username="second", password="a-long-password-9")


def test_expired_invitation(campaign, manager):
    invitation, token = invitation_create(campaign=campaign, created_by=manager)
    Invitation.objects.filter(id=invitation.id).update(expires_at=timezone.now() - timedelta(1))
    with pytest.raises(InvitationError, match="expired"):
        invitation_accept(token=token, username="late", password="a-long-password-9")


def test_weak_password_and_taken_username(campaign, manager):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    with pytest.raises(InvitationError, match=r"too short|too common"):
        invitation_accept(token=token, username="weak", password="abc")
    with pytest.raises(InvitationError, match="taken"):
        invitation_accept(token=token, username="MANAGER", password="a-long-password-9")
    assert invitation_accept(token=token, username="fine", password="a-long-password-9")


def test_manager_page_puts_the_token_in_the_fragment(client, campaign, manager):
    client.force_login(manager)
    page = client.post(f"/campaigns/{campaign.id}/invitations/", {"role": "annotator"}, follow=True)
    ((_, role, link, _, _),) = page.context["rows"]
    assert role == "annotator"
    assert "/invite/#" in link
    client.logout()
    token = link.split("#", 1)[1]
    response = client.post(
        "/invite/", {"token": token, "username": "joiner", "password": "a-long-password-9"}
    )
    assert response.status_code == 302 and response.url == "/annotate/"
    assert client.get("/annotate/").status_code == 200


def test_the_page_refuses_a_used_or_expired_link_and_creates_nobody(
    client, campaign, manager, django_user_model
):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    first = {"token": token, "username": "first", "password": "a-long-password-9"}
    assert client.post("/invite/", first).status_code == 302
    client.logout()
    again = client.post("/invite/", {**first, "username": "again"})
    assert again.status_code == 200 and "used already" in again.content.decode()
    expired, old_token = invitation_create(campaign=campaign, created_by=manager)
    Invitation.objects.filter(id=expired.id).update(expires_at=timezone.now() - timedelta(1))
    late = client.post("/invite/", {**first, "token": old_token, "username": "late"})
    assert late.status_code == 200 and "expired" in late.content.decode()
    assert sorted(django_user_model.objects.values_list("username", flat=True)) == [
        "first",
        "manager",
    ]
    assert "_auth_user_id" not in client.session
    # Links last a week unless the manager says otherwise.
    assert timedelta(days=7) - (expired.expires_at - expired.created_at) < timedelta(seconds=5)


@pytest.mark.django_db(transaction=True)
def test_one_link_used_twice_at_once_makes_one_account(campaign, manager, django_user_model):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def accept(username: str) -> None:
        try:
            barrier.wait()
            invitation_accept(token=token, username=username, password="a-long-password-9")
            outcomes.append("ok")
        except InvitationError as error:
            outcomes.append(str(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=accept, args=(name,)) for name in ("twin1", "twin2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ok", "this invitation was used already; ask for a new one"]
    assert Membership.objects.filter(user__username__startswith="twin").count() == 1
    assert django_user_model.objects.filter(username__startswith="twin").count() == 1


def test_reloading_the_links_page_creates_no_more_invitations(client, campaign, manager):
    client.force_login(manager)
    made = client.post(f"/campaigns/{campaign.id}/invitations/", {"count": "2"})
    assert made.status_code == 302  # post/redirect/get: a reload asks for the page again
    links = client.get(made.url)
    assert links.content.decode().count("/invite/#") == 2
    reloaded = client.get(made.url, follow=True)
    assert Invitation.objects.filter(campaign=campaign).count() == 2
    page = reloaded.content.decode()
    assert "/invite/#" not in page and "shown once" in page


def test_the_details_of_a_used_invitation_say_it_was_used(client, campaign, manager):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    invitation_accept(token=token, username="first", password="a-long-password-9")
    answer = client.post("/invite/details/", {"token": token})
    assert answer.status_code == 404
    assert answer.json()["error"] == "this invitation was used already; ask for a new one"
