"""A large campaign's results page with no snapshot yet: the browser is told they are being
computed, and the page reloads itself into the results once the job has stored them, with
no inline script (CSP) and nothing for the organiser to do (issue 25 section 4)."""

import os

import pytest

from annotation.services.snapshot_compute import results_snapshots_refresh
from tests.browser.conftest import log_in
from tests.test_results_snapshots import judged  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = os.environ.get("SNAPSHOT_SCREENSHOTS")  # a directory: the pages as PNG, to look at


def test_the_page_reloads_itself_into_the_results(page, live_server, judged, settings):  # noqa: F811
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    campaign = judged["campaign"]
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/")
    notice = page.locator("#results-being-computed")
    assert notice.is_visible() and "being computed" in notice.inner_text()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/results-being-computed.png", full_page=True)

    results_snapshots_refresh(target_id=campaign.id)  # what the worker's job does
    page.wait_for_selector("h2:has-text('Progress')", timeout=30_000)
    assert page.locator("#results-being-computed").count() == 0
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/results-after-reload.png")
