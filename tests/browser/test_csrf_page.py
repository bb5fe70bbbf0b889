"""A form sent without a valid CSRF token (a stale tab, cookies cleared) answers the site's own
page, saying what happened and linking back to the form, not Django's bare page."""

from __future__ import annotations

from pathlib import Path

import pytest

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


@pytest.mark.django_db(transaction=True)
def test_a_stale_form_gets_the_sites_page_with_a_way_back(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.context.clear_cookies()  # as if the session ended while the tab stayed open
    page.fill("input[name=username]", "someone")
    page.fill("input[name=password]", "a-password-1")
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("h1")
    assert page.inner_text("h1") == "Form expired"
    assert "reload the page and submit again" in page.inner_text("main")
    assert page.locator(".topbar").count() == 1  # the site's navigation
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "csrf-failure.png"), full_page=True)
    page.click("text=Back to the page")
    page.wait_for_url(f"{live_server.url}/login/")
