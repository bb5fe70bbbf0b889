"""In headless Chromium: the add-task form offers adaptive assignment for cESA, and the live
results page of an adaptive cESA task that stopped by itself (the notice, the ranking
status with each system's interval and the pairs); screenshots for a person to look at
(var/screenshots/adaptive-contrastive-*.png)."""

from pathlib import Path

import pytest

from annotation.models import Task
from annotation.services.campaigns import membership_set
from tests.browser.conftest import log_in
from tests.test_adaptive_contrastive import (
    ORDER,
    annotators,
    contrastive_campaign,
    judge_batch,
    launch,
    refresh,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_the_form_and_the_live_page_of_an_adaptive_contrastive_task(page, live_server, manager):
    campaign = contrastive_campaign(manager, segments=40)
    membership_set(campaign=campaign, user=manager, role="manager")
    SHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/")
    page.click("#add-task summary")
    form = "#add-task form"
    page.select_option(f"{form} [name=task_type]", "contrastive_esa")
    page.select_option(f"{form} [name=assignment]", "adaptive")
    assert page.is_visible(f"{form} [name=cold_start]")
    assert page.is_visible(f"{form} [name=judgment_budget]")
    page.fill(f"{form} [name=name]", "cESA, adaptive")
    page.locator("#add-task").screenshot(path=str(SHOTS / "adaptive-contrastive-form.png"))
    page.get_by_role("button", name="Add task").click()
    page.wait_for_selector("text=created")
    added = Task.objects.get(campaign=campaign, name="cESA, adaptive")
    assert (added.task_type, added.assignment) == ("contrastive_esa", "adaptive")

    task = launch(campaign, name="cESA, adaptive, launched")
    users = annotators(campaign, 3)
    claimed = True
    while claimed:
        claimed = False
        for user in users:
            if judge_batch(task, user) is not None:
                claimed = True
                refresh(task)
    task.refresh_from_db()
    assert task.settled_reason == "resolved"
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/")
    section = page.locator(f"#task-{task.id}")
    text = section.inner_text()
    assert "stopped after" in text and "Ranking status" in text
    assert text.index(ORDER[0]) < text.index(ORDER[-1])
    section.screenshot(path=str(SHOTS / "adaptive-contrastive-results.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 1281
