"""A manager lets an invited annotator who failed the checks start again from the reliability
table, in headless Chromium (issue 24 §4): the button asks first in a dialog; confirmed, the
page comes back saying so. Screenshots of the table, desktop and 390 px wide, in ../qc-shots
(outside the repo)."""

from pathlib import Path

import pytest

from annotation.models import AnnotatorRestart, Judgment
from tests.browser.conftest import log_in
from tests.test_checks import careless_answer, judge_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "qc-shots"


def test_the_manager_lets_a_careless_annotator_start_again(
    page, live_server, launched, loaded_campaign, make_annotator, manager
):
    task = launched("esa", batch_size=12, items_per_annotator=12, bad_reference_rate=0.2)
    careless = make_annotator(loaded_campaign, "careless")
    judge_all(task, careless, careless_answer)
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/")
    row = page.locator(f"#reliability-{task.id} + .table-wrap tr[data-annotator='{careless.id}']")
    assert "missed" in row.text_content()
    SHOTS.mkdir(parents=True, exist_ok=True)
    section = page.locator(f"#task-{task.id}")
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "restart-reliability-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "restart-reliability-390.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})
    page.reload()

    row.get_by_role("button", name="Let start again").click()
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for(state="visible")
    assert "Let careless start task #" in dialog.text_content()
    page.screenshot(path=str(SHOTS / "restart-dialog.png"))
    assert not AnnotatorRestart.objects.exists()  # asked first
    dialog.get_by_role("button", name="Let them start again").click()
    page.wait_for_selector(".messages")
    assert "careless may start task" in page.locator(".messages").text_content()
    assert AnnotatorRestart.objects.get().annotator_id == careless.id
    assert all(Judgment.objects.filter(annotator=careless).values_list("excluded", flat=True))
    assert section.count() == 1
