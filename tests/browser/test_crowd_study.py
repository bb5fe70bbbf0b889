"""A Prolific-style study in headless Chromium through the participant link (issue 24 §4):
a careful participant gets the completion code, a careless one (bad references scored like
the rest) the failure code; the manager's participants page says why and offers a restart."""

from pathlib import Path

import pytest

from annotation.models import ItemType, Slot
from annotation.services.crowd import task_crowd_link_enable
from annotation.services.task_changes import task_update
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import current_slot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path("/work/wt/checks-shots")
PASS, FAIL = "PASS-7Q2X", "FAIL-3K9Z"


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def run_participant(browser, live_server, task, pid: str, *, careful: bool) -> str:
    """Opens the study link as Prolific does, starts, judges the batch with number keys;
    returns the end page's text."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    link = (
        f"{live_server.url}/crowd/{task.id}/{task.crowd_secret}/"
        f"?PROLIFIC_PID={pid}&STUDY_ID=study-1&SESSION_ID=s-{pid}"
    )
    page.goto(link)
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#judgment")
    while page.locator("input[name=slot]").count():
        slot = current_slot(page)
        bad = Slot.objects.get(id=int(slot)).item.item_type == ItemType.BAD
        page.keyboard.press(("1" if bad else "4") if careful else "5")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "slot => !document.querySelector('input[name=slot]') ||"
            " document.querySelector('input[name=slot]').value !== slot",
            arg=slot,
        )
        page.wait_for_load_state()
        if page.locator("a.button.primary", has_text="Continue").count():
            break
    page.wait_for_selector(".done")
    shoot(page, f"crowd-end-{'pass' if careful else 'fail'}")
    text = page.locator(".done").text_content()
    context.close()
    return text


def test_prolific_study_pass_and_fail_codes(
    browser, page, live_server, launched, loaded_campaign, manager
):
    from annotation.services.campaigns import membership_set

    task = launched("adequacy", batch_size=10, bad_reference_rate=0.2)
    task_update(task_id=task.id, completion_code=PASS, failure_code=FAIL)
    task = task_crowd_link_enable(task_id=task.id)
    careful = run_participant(browser, live_server, task, "careful01", careful=True)
    assert PASS in careful and FAIL not in careful
    careless = run_participant(browser, live_server, task, "careless02", careful=False)
    assert FAIL in careless and PASS not in careless
    assert "attention checks" in careless

    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/tasks/{task.id}/participants/")
    rows = page.locator("#participants tbody tr")
    assert rows.count() == 2
    assert "approve" in rows.nth(0).text_content()
    assert "reject" in rows.nth(1).text_content()
    assert "passed 0 of 2 attention checks" in rows.nth(1).text_content()
    shoot(page, "crowd-participants")
    rows.nth(1).get_by_role("button", name="Let start again").click()
    page.wait_for_selector("text=may start again")
    shoot(page, "crowd-participants-restarted")
    restarted = page.locator("#participants tbody tr").nth(1)
    assert restarted.locator("td").nth(5).text_content() == "2"
    assert "no item answered yet" in restarted.text_content()
    assert restarted.get_by_role("button").count() == 0  # nothing to start again yet
