"""The ESA ranking by WMT25 and by WMT26 on the results page in headless Chromium: the link
of each procedure switches the table, which says which procedure it uses."""

from pathlib import Path

import pytest

from tests.browser.conftest import log_in
from tests.test_wmt_procedures import waves  # noqa: F401 - the fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_switching_the_esa_table_between_wmt_procedures(page, live_server, waves):  # noqa: F811
    campaign, task = waves
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/?procedure=wmt25")
    section = page.locator(f"#task-{task.id}")
    assert "This table ranks as WMT25" in section.locator(".ranking-procedure").inner_text()
    headers = section.locator("table.list").first.locator("th").all_text_contents()
    assert "news" in headers and "social" in headers
    SHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SHOTS / "esa-ranking-wmt25.png"))

    section.locator(".ranking-procedure a", has_text="WMT26").click()
    page.wait_for_url(lambda url: "procedure=wmt26" in url)
    section = page.locator(f"#task-{task.id}")
    assert "This table ranks as WMT26" in section.locator(".ranking-procedure").inner_text()
    headers = section.locator("table.list").first.locator("th").all_text_contents()
    assert "Local cluster" in headers and "news" not in headers
    section.screenshot(path=str(SHOTS / "esa-ranking-wmt26.png"))
