"""In headless Chromium: a manager finds the API token page from the header, makes a token,
and reads how to send it; at 390 px the page does not scroll sideways."""

from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_token_page_from_the_header(browser, live_server, manager, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    log_in(page, live_server, "manager", "manager-password-1")
    page.get_by_role("link", name="API token").click()
    page.get_by_role("button", name="Make a token").click()
    page.wait_for_selector("#token-key")
    key = Token.objects.get(user=manager).key
    assert page.locator("#token-key").input_value() == key
    assert f"Authorization: Token {key}" in page.locator("pre.example").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"api-token-{width}.png"), full_page=True)
    page.get_by_role("button", name="Make a new token").click()
    page.wait_for_selector("text=the old one no longer works")
    assert Token.objects.get(user=manager).key != key
    context.close()
