"""An existing annotator joins a second campaign through an invitation, in headless Chromium:
the manager makes links on the members page and copies one; the annotator opens it logged
out, reads which campaign and role it is for, and logs in there instead of registering."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Invitation, Membership
from annotation.services.campaigns import campaign_create, membership_set
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-long-password-9"
# Set to a directory to keep the screenshots of each step (to look at the pages).
SHOTS = os.environ.get("EVALSITE_SCREENSHOTS")


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def test_existing_user_joins_a_second_campaign(browser, live_server, django_user_model):
    users = django_user_model.objects
    manager = users.create_user("boss", password=PASSWORD)
    veteran = users.create_user("veteran", password=PASSWORD)
    first = campaign_create(
        name="WMT first", source_language="en", target_language="de", owner=manager
    )
    second = campaign_create(
        name="WMT second", source_language="en", target_language="cs", owner=manager
    )
    membership_set(campaign=first, user=veteran, role="annotator")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    log_in(page, live_server, "boss", PASSWORD)
    page.goto(f"{live_server.url}/campaigns/{second.id}/")
    page.click("text=Members and invitations")
    page.wait_for_url(f"**/campaigns/{second.id}/members/")
    shot(page, "01-members-empty")
    form = page.locator("#invitation-add")
    form.locator('input[name="count"]').fill("2")
    form.locator('input[name="note"]').fill("second round")
    form.locator("button").click()
    page.wait_for_selector(".invitation-links")
    shot(page, "02-links")
    links = page.locator(".invitation-links input")
    assert links.count() == 2
    link, other_link = links.nth(0).input_value(), links.nth(1).input_value()
    assert "/invite/#" in link
    page.locator("[data-copy]").nth(0).click()
    expect(page.locator("[data-copy]").nth(0)).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == link
    page.goto(f"{live_server.url}/campaigns/{second.id}/members/")
    assert page.locator("table.invitations tbody tr").count() == 2
    shot(page, "03-members-pending")
    context.close()

    # The annotator, logged out, follows the link.
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(link)
    expect(page.locator("#invitation-title")).to_have_text("Join WMT second as annotator")
    assert "#" not in page.url  # the code left the address bar (and any later Referer)
    shot(page, "04-landing-logged-out")
    login = page.locator("form.login")
    login.locator('input[name="login-username"]').fill("veteran")
    login.locator('input[name="login-password"]').fill(PASSWORD)
    login.locator("button").click()
    page.wait_for_url("**/annotate/")
    assert "you joined WMT second as annotator" in page.locator(".messages").inner_text()
    shot(page, "05-joined")
    assert Membership.objects.get(campaign=second, user=veteran).role == "annotator"
    assert Membership.objects.get(campaign=first, user=veteran).role == "annotator"
    assert Invitation.objects.filter(campaign=second, used_by=veteran).count() == 1

    # Logged in already, another existing account joins with one button.
    users.create_user("colleague", password=PASSWORD)
    context.clear_cookies()
    log_in(page, live_server, "colleague", PASSWORD)
    page.goto(other_link)
    expect(page.locator("#invitation-title")).to_have_text("Join WMT second as annotator")
    shot(page, "06-landing-logged-in")
    page.click("text=Join with this account")
    page.wait_for_url("**/annotate/")
    assert Membership.objects.filter(campaign=second, user__username="colleague").exists()
    context.close()
    assert not violations, violations
