"""Usernames (issue 21 §4): one rule on every path that creates an account; and answers meant
for one person carry ``Cache-Control: private, no-store``."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from rest_framework.authtoken.models import Token

from annotation.services.invitations import invitation_accept, invitation_create

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-7"

REFUSED = [
    "bob\u200b",  # zero-width space: looks like "bob"
    "\u202eevil",  # right-to-left override: shows reversed
    "al\u200dice",  # zero-width joiner
    "\u0430dmin",  # Cyrillic "а" + Latin "dmin": looks like "admin"
    "bad name",  # Django's validator: no spaces
    "tab\tname",
    "   ",
]


@pytest.mark.parametrize("username", REFUSED)
def test_invitation_sign_up_refuses_names_that_pass_for_others(client, campaign, manager, username):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    response = client.post(
        "/invite/", {"action": "create", "token": token, "username": username, "password": PASSWORD}
    )
    assert response.status_code == 200
    assert "username" in response.content.decode()
    assert not get_user_model().objects.exclude(id=manager.id).exists()


def test_a_full_width_name_is_the_ascii_name_and_so_taken(campaign, manager, django_user_model):
    django_user_model.objects.create_user("bob", password=PASSWORD)
    _, token = invitation_create(campaign=campaign, created_by=manager)
    with pytest.raises(Exception, match="taken"):
        invitation_accept(token=token, username="\uff22\uff2f\uff22", password=PASSWORD)
    user = invitation_accept(token=token, username="\uff43arol", password=PASSWORD)
    assert user.username == "carol"


@pytest.mark.parametrize("username", ["Ζωή", "Мария", "marie.curie@lab", "李雷", "o.neil"])
def test_real_names_in_one_script_pass(username):
    from annotation.services.logins import username_clean

    assert username_clean(username=username) == username


@pytest.mark.parametrize("username", REFUSED)
def test_the_admin_user_form_applies_the_same_rule(username):
    form = UserCreationForm({"username": username, "password1": PASSWORD, "password2": PASSWORD})
    assert not form.is_valid()
    assert "username" in form.errors


def test_the_rule_names_the_character():
    from annotation.services.logins import UsernameError, username_clean

    with pytest.raises(UsernameError, match="U\\+202E"):
        username_clean(username="\u202eevil")


def test_authenticated_pages_and_api_answers_are_private_and_not_stored(client, campaign, manager):
    client.force_login(manager)
    for url in (
        "/",
        f"/campaigns/{campaign.id}/",
        f"/campaigns/{campaign.id}/results/automatic.csv",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        directives = {d.strip() for d in response["Cache-Control"].split(",")}
        assert {"private", "no-store"} <= directives, url
    token = Token.objects.create(user=manager)
    api = client.__class__(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api.get("/api/v1/campaigns")
    assert response.status_code == 200
    assert {"private", "no-store"} <= {d.strip() for d in response["Cache-Control"].split(",")}


def test_imported_mqm_raters_follow_the_same_rule(manager, tmp_path):
    from django.core.management import call_command

    from annotation.models import Campaign

    path = tmp_path / "raters.tsv"
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    path.write_text(header + "A\td\t1\t1\tr\u202e1\tsrc\tt<v>x</v>\tOther\tMajor\n")
    with pytest.raises(Exception, match="U\\+202E"):
        call_command(
            "import_mqm",
            str(path),
            "--name",
            "Raters",
            "--owner",
            "manager",
            "--languages",
            "zh-en",
        )
    assert not Campaign.objects.filter(name="Raters").exists()
    assert not get_user_model().objects.filter(username__startswith="r").exists()
