"""The live ranking status of ESA and MQM tasks and the rolling-interval figure in a real
browser, at 1280 and 390 px: rendered, nothing wider than the screen, no CSP violation;
screenshots for a person to look at (/work/wt/livestatus-shots or $SHOTS_DIR)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.conftest import log_in
from tests.test_live_status import esa_answer
from tests.test_span_rankings_export import judge, mqm_answer

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(os.environ.get("SHOTS_DIR", "/work/wt/livestatus-shots"))
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_esa_and_mqm_status_with_rolling_figure(
    page, live_server, launched, loaded_campaign, make_annotator, viewport
):
    esa = launched("esa", judgments_per_item=2, batch_size=36, name="esa")
    mqm = launched("mqm", judgments_per_item=2, batch_size=36, name="mqm")
    for name in ("ann1", "ann2"):
        user = make_annotator(loaded_campaign, name)
        judge(esa, user, esa_answer)
        judge(mqm, user, mqm_answer)
    problems: list[str] = []
    page.on(
        "console",
        lambda m: problems.append(m.text) if "Content Security Policy" in m.text else None,
    )
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for task, label in ((esa, "esa"), (mqm, "mqm")):
        section = page.locator(f"#ranking-status-{task.id}-1")
        text = section.inner_text().lower()
        assert "ranking status" in text and "always-valid interval" in text
        figure = page.locator(f"#task-{task.id} svg[aria-label*='came in']")
        assert figure.count() == 1
        assert figure.locator("polygon").count() == 3  # one band per system
        section.screenshot(path=str(SHOTS / f"{label}_status_{viewport}.png"))
        figure.screenshot(path=str(SHOTS / f"{label}_rolling_{viewport}.png"))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1
    assert problems == []
