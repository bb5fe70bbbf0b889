"""A tutorial in headless Chromium, keyboard only: the real work refused before passing (page
and API), an attempt failed with the feedback seen, a retry passed, then the real items."""

import pytest

from annotation.models import Judgment, TutorialAttempt
from annotation.services.tutorial_uploads import tutorial_upload
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import shoot
from tests.test_tutorials import ESA_LINES, TUTORIALS, jsonl

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def both_widths(page, name):
    shoot(page, f"{name}-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    shoot(page, f"{name}-390")
    page.set_viewport_size({"width": 1280, "height": 900})


def on_item(page, number):
    page.wait_for_selector("#tutorial-progress")
    assert f"Item {number} of 2" in page.locator("#tutorial-progress").inner_text()
    page.wait_for_function("document.activeElement.id === 'span-editor'")


def score_and_submit(page, score):
    page.keyboard.press("Enter")  # from the translation to the score
    page.keyboard.type(score)
    page.keyboard.press("Enter")
    page.wait_for_selector("#tutorial-feedback")


def test_fail_retry_pass_then_real_work(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("esa")
    tutorial_upload(task=task, name="t.jsonl", data=jsonl(ESA_LINES), pass_share=1, attempts=2)
    ann = make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")

    # The gate: the task's page leads to the tutorial, the API refuses the next item.
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_url(f"**/annotate/{task.id}/tutorial/")
    assert page.request.get(f"{live_server.url}/api/v1/tasks/{task.id}/next").status == 409
    on_item(page, 1)
    both_widths(page, "tutorial-item")

    # Attempt 1: the first item as expected, the second without its error.
    score_and_submit(page, "95")
    assert "As expected" in page.locator("#verdict").inner_text()
    page.keyboard.press("Enter")  # "Next item" has the focus
    on_item(page, 2)
    assert "Mark <b>walked</b>" in page.locator("#tutorial-item-instructions").inner_text()
    score_and_submit(page, "75")
    assert "Not as expected" in page.locator("#verdict").inner_text()
    assert "“walked” (minor) is not marked" in page.locator("#tutorial-failures").inner_text()
    assert "rausgerannt means ran out" in page.locator("#tutorial-explanation").inner_text()
    assert "Not passed this time" in page.locator("#tutorial-result").inner_text()
    both_widths(page, "tutorial-failed")

    # Still refused, by the page and by the API.
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#tutorial-result")
    assert page.request.get(f"{live_server.url}/api/v1/tasks/{task.id}/next").status == 409
    assert not Judgment.objects.filter(task=task).exists()

    # Attempt 2: Enter on "Try again", then both items as expected, the error marked.
    page.wait_for_function("document.activeElement.id === 'tutorial-continue'")
    page.keyboard.press("Enter")
    on_item(page, 1)
    score_and_submit(page, "100")
    page.keyboard.press("Enter")
    on_item(page, 2)
    for key in ("ArrowRight", "ArrowRight", "1"):  # "walked", the third word: minor
        page.keyboard.press(key)
    score_and_submit(page, "75")
    assert "As expected" in page.locator("#verdict").inner_text()
    assert "You passed the tutorial" in page.locator("#tutorial-result").inner_text()
    both_widths(page, "tutorial-passed")
    assert TutorialAttempt.objects.get(annotator=ann, number=2).passed is True

    # The real work opens.
    page.keyboard.press("Enter")
    page.wait_for_selector("input[name=slot]", state="attached")
    assert page.request.get(f"{live_server.url}/api/v1/tasks/{task.id}/next").status == 200
    shoot(page, "tutorial-real-work")


def test_manager_uploads_a_pearmut_tutorial_on_the_page(page, live_server, launched, manager):
    task = launched("esa")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{task.campaign_id}/tasks/{task.id}/edit/")
    page.click("#tutorial-manage")
    page.set_input_files("#tutorial-upload input[type=file]", str(TUTORIALS / "esa_deen.json"))
    page.click("#tutorial-upload button")
    page.wait_for_selector("#tutorial-items")
    assert page.locator("#tutorial-items tbody tr").count() == 8
    both_widths(page, "tutorial-manage")
