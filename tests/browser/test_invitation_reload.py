"""In headless Chromium: reloading the links page makes no invitations; a used link says so
instead of offering the sign-up and log-in forms."""

from pathlib import Path

import pytest

from annotation.models import Invitation
from annotation.services.invitations import invitation_accept, invitation_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_reloading_the_links_page_makes_no_more_invitations(page, live_server, campaign, manager):
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/members/")
    form = page.locator("#invitation-add")
    form.locator('input[name="count"]').fill("2")
    form.locator("button").click()
    page.wait_for_selector(".invitation-links")
    assert page.locator(".invitation-links input").count() == 2
    page.reload()
    page.wait_for_selector("text=shown once")
    assert Invitation.objects.filter(campaign=campaign).count() == 2


@pytest.mark.parametrize("width", [1280, 390])
def test_a_used_link_says_it_was_used(browser, live_server, campaign, manager, width):
    _, token = invitation_create(campaign=campaign, created_by=manager)
    invitation_accept(token=token, username="first", password="a-long-password-9")
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(f"{live_server.url}/invite/#{token}")
    page.wait_for_selector("text=This invitation cannot be used")
    assert page.get_by_text("This invitation was used already").is_visible()
    assert not page.locator("form.create").is_visible()
    assert not page.locator("form.login").is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"invitation-used-{width}.png"), full_page=True)
    context.close()
