"""Members and invitations: the members page, adding existing accounts, bulk links as CSV,
revoking, and existing accounts joining through an invitation (pages and API)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Invitation, Judgment, Membership
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import CampaignError, campaign_create, membership_add
from annotation.services.invitations import (
    InvitationError,
    invitation_accept,
    invitation_create,
    invitation_join,
    invitation_revoke,
    invitations_create,
)
from annotation.services.judgments import judgment_record
from tests.conftest import answer_for

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-9"


@pytest.fixture
def second(manager):
    return campaign_create(
        name="Second campaign", source_language="en", target_language="fr", owner=manager
    )


@pytest.fixture
def veteran(django_user_model):
    """An annotator with an account already (of some earlier campaign)."""
    return django_user_model.objects.create_user("veteran", password=PASSWORD)


def test_an_existing_account_joins_with_the_invitations_role(campaign, manager, veteran):
    invitation, token = invitation_create(campaign=campaign, created_by=manager, role="organiser")
    membership = invitation_join(token=token, user=veteran)
    assert (membership.campaign_id, membership.role) == (campaign.id, "organiser")
    invitation.refresh_from_db()
    assert invitation.used_by == veteran and invitation.used_at is not None
    with pytest.raises(InvitationError, match="used already"):
        invitation_join(token=token, user=veteran)


def test_a_member_keeps_their_role_and_the_invitation_stays_unused(campaign, manager):
    invitation, token = invitation_create(campaign=campaign, created_by=manager, role="annotator")
    with pytest.raises(InvitationError, match="manager of Test campaign already"):
        invitation_join(token=token, user=manager)
    assert Membership.objects.get(campaign=campaign, user=manager).role == "manager"
    invitation.refresh_from_db()
    assert invitation.used_at is None


def test_a_taken_username_is_told_to_log_in(campaign, manager, veteran):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    with pytest.raises(InvitationError, match="log in below to join"):
        invitation_accept(token=token, username="Veteran", password=PASSWORD)


def test_bulk_invitations_are_all_or_nothing_and_each_single_use(campaign, manager):
    created = invitations_create(campaign=campaign, created_by=manager, count=25, days=3)
    assert len(created) == 25 == Invitation.objects.filter(campaign=campaign).count()
    assert len({token for _, token in created}) == 25
    assert all(token not in inv.token_hash for inv, token in created)
    lifetime = created[0][0].expires_at - timezone.now()
    assert timedelta(days=3) - lifetime < timedelta(seconds=5)
    for bad in ({"count": 0}, {"count": 501}, {"days": 0}, {"role": "boss"}):
        with pytest.raises(InvitationError):
            invitations_create(campaign=campaign, created_by=manager, **{"count": 2, **bad})
    assert Invitation.objects.filter(campaign=campaign).count() == 25
    invitation_accept(token=created[7][1], username="seventh", password=PASSWORD)
    with pytest.raises(InvitationError, match="used already"):
        invitation_accept(token=created[7][1], username="again", password=PASSWORD)


def test_revoking_stops_the_link_and_refuses_used_or_foreign_ones(
    campaign, second, manager, veteran
):
    revoked, token = invitation_create(campaign=campaign, created_by=manager)
    invitation_revoke(campaign=campaign, invitation_id=revoked.id)
    with pytest.raises(InvitationError, match="not valid"):
        invitation_join(token=token, user=veteran)
    used, used_token = invitation_create(campaign=campaign, created_by=manager)
    invitation_join(token=used_token, user=veteran)
    with pytest.raises(InvitationError, match="used already"):
        invitation_revoke(campaign=campaign, invitation_id=used.id)
    foreign, _ = invitation_create(campaign=second, created_by=manager)
    with pytest.raises(InvitationError, match="no such invitation"):
        invitation_revoke(campaign=campaign, invitation_id=foreign.id)
    assert Invitation.objects.filter(id=foreign.id).exists()


def test_membership_add_finds_the_account_and_never_changes_a_role(campaign, manager, veteran):
    assert membership_add(campaign=campaign, username=" VETERAN ", role="annotator").user == veteran
    with pytest.raises(CampaignError, match="annotator of this campaign already"):
        membership_add(campaign=campaign, username="veteran", role="manager")
    with pytest.raises(CampaignError, match="no account is called 'nobody'"):
        membership_add(campaign=campaign, username="nobody", role="annotator")
    with pytest.raises(CampaignError, match="unknown role"):
        membership_add(campaign=campaign, username="manager", role="owner")
    assert Membership.objects.get(campaign=campaign, user=veteran).role == "annotator"


def test_members_page_lists_roles_judgments_activity_and_pending_invitations(
    client, launched, manager, make_annotator, django_user_model
):
    task = launched("adequacy")
    campaign = task.campaign
    busy = make_annotator(campaign, "busy")
    make_annotator(campaign, "idle")
    for _ in range(3):
        slot = slot_claim_next(task=task, annotator_id=busy.id)
        judgment_record(
            task_id=task.id, slot_id=slot.id, annotator_id=busy.id, answer=answer_for("adequacy")
        )
    invitation, _ = invitation_create(campaign=campaign, created_by=manager, note="for Ana", days=2)
    client.force_login(manager)
    response = client.get(f"/campaigns/{campaign.id}/members/")
    members = {m.username: m for m in response.context["members"]}
    assert members["busy"].judgments == 3 == Judgment.objects.filter(annotator=busy).count()
    last = Judgment.objects.filter(annotator=busy).latest("submitted_at").submitted_at
    assert members["busy"].last_active == last
    assert members["idle"].judgments == 0 and members["idle"].last_active is None
    assert response.context["members"][0].username == "manager"  # managers first
    html = response.content.decode()
    assert "for Ana" in html and invitation.expires_at.strftime("%Y-%m-%d %H:%M") in html
    assert f"/invitations/{invitation.id}/revoke/" in html
    assert ">never<" in html


def test_members_page_adds_an_existing_user_and_shows_errors_beside_the_field(
    client, campaign, manager, veteran
):
    client.force_login(manager)
    url = f"/campaigns/{campaign.id}/members/add/"
    response = client.post(url, {"username": "veteran", "role": "organiser"})
    assert response.status_code == 302
    assert Membership.objects.get(campaign=campaign, user=veteran).role == "organiser"
    again = client.post(url, {"username": "ghost", "role": "annotator"})
    assert again.status_code == 200
    assert "no account is called &#x27;ghost&#x27;" in again.content.decode()
    assert again.context["member_form"]["username"].value() == "ghost"


def test_bulk_links_download_as_csv_and_each_link_works(client, campaign, manager, veteran):
    client.force_login(manager)
    response = client.post(
        f"/campaigns/{campaign.id}/invitations/",
        {"role": "annotator", "count": "4", "days": "10", "note": "=batch 1", "csv": "on"},
    )
    assert response["Content-Disposition"] == (
        f'attachment; filename="evalsite-{campaign.id}-invitations.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 4 and {row["role"] for row in rows} == {"annotator"}
    assert {row["note"] for row in rows} == {"'=batch 1"}  # no formula for the spreadsheet
    assert all(row["link"].startswith("http://testserver/invite/#") for row in rows)
    client.logout()
    token = rows[2]["link"].split("#", 1)[1]
    joined = client.post(
        "/invite/",
        {
            "action": "login",
            "token": token,
            "login-username": "veteran",
            "login-password": PASSWORD,
        },
    )
    assert joined.status_code == 302 and joined.url == "/annotate/"
    assert Membership.objects.get(campaign=campaign, user=veteran).role == "annotator"
    assert Invitation.objects.get(id=rows[2]["invitation"]).used_by == veteran


def test_links_page_has_a_copy_button_per_link_and_no_inline_script(client, campaign, manager):
    client.force_login(manager)
    response = client.post(f"/campaigns/{campaign.id}/invitations/", {"count": "3"}, follow=True)
    html = response.content.decode()
    assert html.count("data-copy=") == 3 and html.count("/invite/#") == 3
    assert "<script>" not in html and "onclick" not in html


def test_revoke_from_the_page(client, campaign, manager):
    invitation, _ = invitation_create(campaign=campaign, created_by=manager)
    client.force_login(manager)
    response = client.post(f"/campaigns/{campaign.id}/invitations/{invitation.id}/revoke/")
    assert response.status_code == 302 and not Invitation.objects.exists()
    again = client.post(
        f"/campaigns/{campaign.id}/invitations/{invitation.id}/revoke/", follow=True
    )
    assert "Not revoked: no such invitation" in again.content.decode()


def test_the_landing_page_names_campaign_and_role_and_logs_in_an_existing_user(
    client, campaign, manager, veteran
):
    _, token = invitation_create(campaign=campaign, created_by=manager, role="organiser")
    details = client.post("/invite/details/", {"token": token}).json()
    assert details["campaign"] == "Test campaign" and details["role"] == "organiser"
    assert client.post("/invite/details/", {"token": "nope"}).status_code == 404
    wrong = client.post(
        "/invite/",
        {"action": "login", "token": token, "login-username": "veteran", "login-password": "x"},
    )
    html = wrong.content.decode()
    assert "Join Test campaign as organiser" in html
    assert "_auth_user_id" not in client.session
    right = client.post(
        "/invite/",
        {
            "action": "login",
            "token": token,
            "login-username": "veteran",
            "login-password": PASSWORD,
        },
    )
    assert right.status_code == 302 and right.url == f"/campaigns/{campaign.id}/"
    assert int(client.session["_auth_user_id"]) == veteran.id


def test_a_logged_in_user_joins_with_one_button(client, campaign, second, manager, veteran):
    _, token = invitation_create(campaign=second, created_by=manager)
    client.force_login(veteran)
    page = client.get("/invite/").content.decode()
    assert "Join with this account" in page and "Create account" not in page
    response = client.post("/invite/", {"action": "join", "token": token})
    assert response.status_code == 302
    assert Membership.objects.get(campaign=second, user=veteran).role == "annotator"


def test_api_members_and_invitations_end_to_end(
    launched, manager, veteran, make_annotator, django_user_model
):
    task = launched("fluency")
    campaign = task.campaign
    judge = make_annotator(campaign, "judge")
    slot = slot_claim_next(task=task, annotator_id=judge.id)
    judgment_record(
        task_id=task.id, slot_id=slot.id, annotator_id=judge.id, answer=answer_for("fluency")
    )
    api = APIClient()
    api.force_authenticate(manager)
    base = f"/api/v1/campaigns/{campaign.id}"
    members = {m["username"]: m for m in api.get(f"{base}/members").json()}
    assert members["judge"]["judgments"] == 1 and members["manager"]["role"] == "manager"
    added = api.post(f"{base}/members", {"username": "veteran", "role": "organiser"}, "json")
    assert added.status_code == 201 and added.json()["role"] == "organiser"
    twice = api.post(f"{base}/members", {"username": "veteran", "role": "manager"}, "json")
    assert twice.status_code == 400 and "already" in twice.json()["error"]
    created = api.post(f"{base}/invitations", {"count": 3, "note": "crowd"}, format="json")
    assert created.status_code == 201
    links = created.json()
    assert len(links) == 3 and all(row["link"].endswith("#" + row["token"]) for row in links)
    pending = api.get(f"{base}/invitations").json()
    assert sorted(row["id"] for row in pending) == sorted(row["id"] for row in links)
    assert "token" not in pending[0]
    assert api.delete(f"{base}/invitations/{links[0]['id']}").status_code == 204
    assert api.delete(f"{base}/invitations/{links[0]['id']}").status_code == 404
    organiser = APIClient()
    organiser.force_authenticate(veteran)
    refused = organiser.post("/api/v1/invitations/join", {"token": links[1]["token"]}, "json")
    assert refused.status_code == 400  # an organiser of the campaign already keeps that role
    newcomer = APIClient()
    newcomer.force_authenticate(django_user_model.objects.create_user("newcomer"))
    revoked = newcomer.post("/api/v1/invitations/join", {"token": links[0]["token"]}, "json")
    assert revoked.status_code == 400 and "not valid" in revoked.json()["error"]
    joined = newcomer.post("/api/v1/invitations/join", {"token": links[1]["token"]}, "json")
    assert joined.status_code == 201
    assert joined.json() == {"campaign": campaign.id, "role": "annotator"}
