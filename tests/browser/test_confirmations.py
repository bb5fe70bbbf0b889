"""In headless Chromium: closing a task or a campaign asks in a dialog first."""

from pathlib import Path

import pytest

from annotation.models import Campaign, Task
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_closing_a_task_asks_in_a_dialog(page, live_server, launched, loaded_campaign, manager):
    task = launched("adequacy")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/")
    page.get_by_role("button", name="Close", exact=True).click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    assert f"Close task #{task.id}" in dialog.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "confirm-task-close.png"))
    dialog.get_by_role("button", name="Cancel").click()
    assert not dialog.is_visible()
    assert Task.objects.get(id=task.id).state == "launched"
    page.get_by_role("button", name="Close the campaign").click()
    dialog.get_by_role("button", name="Close the campaign").click()
    page.wait_for_selector("text=Campaign closed")
    assert Campaign.objects.get(id=loaded_campaign.id).state == "closed"
    assert Task.objects.get(id=task.id).state == "closed"
    assert page.get_by_role("button", name="Archive the campaign").is_visible()


def test_without_javascript_a_confirm_page_asks(browser, live_server, launched, loaded_campaign):
    task = launched("adequacy")
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 800})
    page = context.new_page()
    log_in_no_js(page, live_server)
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/")
    page.get_by_role("button", name="Close", exact=True).click()
    page.wait_for_selector("#confirm")
    page.screenshot(path=str(SHOTS / "confirm-page-390.png"), full_page=True)
    assert Task.objects.get(id=task.id).state == "launched"
    page.get_by_role("button", name="Close the task").click()
    page.wait_for_selector("text=Closed: no more items")
    assert Task.objects.get(id=task.id).state == "closed"
    context.close()


def log_in_no_js(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "manager")
    page.fill("input[name=password]", "manager-password-1")
    page.locator("form button").last.click()
    page.wait_for_url(lambda url: "/login/" not in url)
