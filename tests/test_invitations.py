"""Invitations: single use, expiring, no secret sent to the server in a URL."""

from datetime import timedelta

import pytest
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
    page = client.post(f"/campaigns/{campaign.id}/invitations/", {"role": "annotator"})
    link = page.context["link"]
    assert "/invite/#" in link
    client.logout()
    token = link.split("#", 1)[1]
    response = client.post(
        "/invite/", {"token": token, "username": "joiner", "password": "a-long-password-9"}
    )
    assert response.status_code == 302 and response.url == "/annotate/"
    assert client.get("/annotate/").status_code == 200
