"""In headless Chromium: a manager editing, pausing and closing a task; a Prolific
participant finishing a batch and landing on the study's completion URL."""

from pathlib import Path

import pytest

from annotation.models import CrowdParticipant, Judgment, Task
from annotation.services.crowd import task_crowd_link_enable
from annotation.services.task_changes import task_update
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_manager_edits_pauses_and_closes_a_task(page, live_server, loaded_campaign, manager):
    draft = Task.objects.create(campaign=loaded_campaign, task_type="adequacy")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/")
    page.get_by_role("link", name="Edit").click()
    page.wait_for_selector("#task-edit")
    page.fill("input[name=batch_size]", "6")
    page.fill("input[name=repeat_rate]", "0.7")
    page.fill("input[name=bad_reference_rate]", "0.6")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=add up to 130%")
    shoot(page, "task-edit-refused")
    page.fill("input[name=repeat_rate]", "0.1")
    page.fill("input[name=bad_reference_rate]", "0")
    page.fill("textarea[name=instructions]", "Score how much meaning is kept.")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Task saved.")
    assert Task.objects.get(id=draft.id).batch_size == 6
    page.get_by_role("button", name="Launch").click()
    page.wait_for_selector("text=Launched with")
    page.get_by_role("button", name="Pause").click()
    page.wait_for_selector("text=Paused: annotators are told")
    shoot(page, "task-paused")
    assert Task.objects.get(id=draft.id).state == "paused"
    page.get_by_role("button", name="Close", exact=True).click()
    page.get_by_role("dialog").get_by_role("button", name="Close the task").click()
    page.wait_for_selector("text=Closed: no more items")
    shoot(page, "task-closed")
    assert Task.objects.get(id=draft.id).state == "closed"


def test_prolific_participant_lands_on_the_completion_url(page, live_server, launched):
    task = launched("adequacy", batch_size=3)
    completion = f"{live_server.url}/study-complete/?cc=C0MPL3TE"
    task_update(task_id=task.id, completion_url=completion)
    task = task_crowd_link_enable(task_id=task.id)
    link = (
        f"{live_server.url}/crowd/{task.id}/{task.crowd_secret}/"
        "?PROLIFIC_PID=5f1e2d3c4b5a69788a9b0c1d&STUDY_ID=study1&SESSION_ID=sess1"
    )
    page.goto(link)
    shoot(page, "crowd-start")
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#judgment")
    assert page.locator("#instructions").get_attribute("open") is not None
    shoot(page, "crowd-first-item")
    for _ in range(3):
        slot = page.locator("input[name=slot]").get_attribute("value")
        page.keyboard.press("4")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "slot => !document.querySelector('input[name=slot]') ||"
            " document.querySelector('input[name=slot]').value !== slot",
            arg=slot,
        )
    page.wait_for_url(lambda url: "/study-complete/" in url)
    assert page.url == completion
    user = CrowdParticipant.objects.get(participant_id="5f1e2d3c4b5a69788a9b0c1d").user
    assert Judgment.objects.filter(annotator=user).count() == 3
