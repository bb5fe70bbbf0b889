"""The ranking status of a budgeted task and of a paired contrastive task in a real browser:
the tuning and the pairing said in the section's note, no CSP violation, screenshots for a
person to look at (/work/wt/adapt2-shots or $SHOTS_DIR)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from annotation.services.tasks import task_create, task_launch
from tests.browser.conftest import log_in
from tests.test_adaptive_paired_status import _judge_screens
from tests.test_adaptive_tuning import ADAPTIVE, BUDGET, edge_answer
from tests.test_span_rankings_export import judge

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_DIR", "/work/wt/adapt2-shots"))


def test_the_note_says_the_tuning_and_the_pairing(
    page, live_server, loaded_campaign, make_annotator
):
    budgeted = task_create(
        campaign=loaded_campaign,
        task_type="esa",
        judgment_budget=BUDGET,
        seed=12345,
        **ADAPTIVE,
    )
    task_launch(task_id=budgeted.id)
    budgeted.refresh_from_db()
    judge(budgeted, make_annotator(loaded_campaign, "ann1"), edge_answer)
    paired = task_create(
        campaign=loaded_campaign, task_type="contrastive_esa", judgments_per_item=2, seed=7
    )
    task_launch(task_id=paired.id)
    paired.refresh_from_db()
    _judge_screens(paired, [make_annotator(loaded_campaign, n) for n in ("ann2", "ann3")])

    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    log_in(page, live_server, "manager", "manager-password-1")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/")
    tuned = page.locator(f"#ranking-status-{budgeted.id}-1")
    assert "tuned in advance for 40 judgments per system" in tuned.inner_text()
    tuned.screenshot(path=str(SHOTS / "ranking_status_budget.png"))
    both = page.locator(f"#ranking-status-{paired.id}-1")
    assert "Each pair's interval is paired" in both.inner_text()
    assert "the rule's default" in both.inner_text()
    both.screenshot(path=str(SHOTS / "ranking_status_paired.png"))
    assert problems == []
