"""The ranking status section and the budget planner in a real browser: rendered, no CSP
violation, screenshots for a person to look at (/work/wt/liveranking-shots or $SHOTS_DIR)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from annotation.services.task_changes import task_update
from tests.browser.conftest import log_in
from tests.test_ranking_status import _campaign_task

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_DIR", "/work/wt/liveranking-shots"))


def _watch_csp(page) -> list[str]:
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return problems


def test_ranking_status_and_planner_pages(page, live_server, campaign, manager, make_annotator):
    task = _campaign_task(
        campaign, manager, make_annotator, {"Online-B": 80, "UEdin": 52, "happypoet": 50}, 15.0
    )
    problems = _watch_csp(page)
    log_in(page, live_server, "manager", "manager-password-1")
    SHOTS.mkdir(parents=True, exist_ok=True)

    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/")
    section = page.locator(".ranking-status").first
    assert "still open" in section.inner_text()
    assert "resolved: above" in section.inner_text()
    section.screenshot(path=str(SHOTS / "ranking_status_open.png"))

    task_update(task_id=task.id, campaign=campaign, equivalence_margin=0.8)
    page.reload()
    section = page.locator(".ranking-status").first
    assert "The ranking is settled" in section.inner_text()
    section.screenshot(path=str(SHOTS / "ranking_status_settled.png"))

    page.goto(f"{live_server.url}/campaigns/{campaign.id}/tasks/{task.id}/edit/")
    page.fill("input[name=plan_sd]", "0.9")
    page.fill("input[name=plan_difference]", "0.15")
    page.click("#budget-planner button")
    page.wait_for_url(lambda url: "plan_sd=0.9" in url)
    planner = page.locator("#budget-planner")
    assert "Sequential" in planner.inner_text()
    planner.screenshot(path=str(SHOTS / "budget_planner.png"))
    assert problems == []
