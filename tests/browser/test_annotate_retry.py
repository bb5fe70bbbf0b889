"""The annotate page keeps an answer sent while PostgreSQL is down and sends it again by
itself: headless Chromium against gunicorn on the fault tests' private PostgreSQL, which the
test really stops and starts."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.browser.conftest import log_in
from tests.faults_seed import ANNOTATOR_PASSWORD
from tests.faults_support import assert_saved_exactly_once, gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.faults]


def current_slot(page) -> int:
    return int(page.locator("input[name=slot]").get_attribute("value"))


def wait_for_next_item(page, slot: int, timeout: float) -> None:
    page.wait_for_function(
        "slot => document.querySelector('input[name=slot]') &&"
        " document.querySelector('input[name=slot]').value !== String(slot)",
        arg=slot,
        timeout=timeout * 1000,
    )


def test_the_page_retries_an_answer_through_a_database_restart(page, fault_database, private_redis):
    db = fault_database
    task = db.seed["task"]
    with gunicorn(db.url, private_redis.url, workers=1) as url:
        log_in(page, SimpleNamespace(url=url), "ann0", ANNOTATOR_PASSWORD)
        page.goto(f"{url}/annotate/{task}/")
        status = page.locator("#submit-status")
        assert status.is_hidden()
        first = current_slot(page)

        db.server.stop()
        try:
            page.keyboard.press("4")
            page.keyboard.press("Enter")
            # The 503 is shown, and the page waits to send the same answer again.
            page.wait_for_selector("#submit-status.retrying", state="visible", timeout=15_000)
            assert status.inner_text() == "Connection lost — retrying…"
            assert current_slot(page) == first
        finally:
            db.server.start()
        # The retry goes through and the page moves on to the next item.
        wait_for_next_item(page, first, timeout=30)
        assert page.locator("#submit-status").is_hidden()

        second = current_slot(page)
        page.keyboard.press("2")
        page.keyboard.press("Enter")
        wait_for_next_item(page, second, timeout=15)
    assert_saved_exactly_once(db, {first: ("ann0", 4), second: ("ann0", 2)})
