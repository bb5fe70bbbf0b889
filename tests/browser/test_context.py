"""The annotate page with context, as an annotator sees it in headless Chromium: previous, the
segment, next, all inside the source's card and above the reference (never between them)."""

import pytest

from annotation.services.campaigns import campaign_create
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.tasks import task_create, task_launch
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot
from tests.test_documents import XML

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def box(page, selector):
    found = page.locator(selector)
    assert found.count() == 1, selector
    return found.bounding_box()


def test_context_is_labelled_and_in_reading_order(page, live_server, manager, make_annotator):
    campaign = campaign_create(
        name="WMT21 de-fr", source_language="de", target_language="fr", owner=manager
    )
    upload_import(
        campaign=campaign, kind=WMT_XML, files=[(XML.name, XML.read_bytes())], user=manager
    )
    task = task_create(campaign=campaign, task_type="adequacy", context_size=1, show_reference=True)
    task_launch(task_id=task.id)
    make_annotator(campaign, "reader")
    log_in(page, live_server, "reader", "reader-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#judgment")
    for _ in range(30):  # judge until an item has context on both sides
        if page.locator(".context-previous").count() and page.locator(".context-next").count():
            break
        slot = current_slot(page)
        page.keyboard.press("3")
        page.keyboard.press("Enter")
        next_item(page, slot)
    else:
        pytest.fail("no item with context on both sides was served")
    shoot(page, "adequacy-context")

    source_card = box(page, ".text-card.source")
    previous, current, following = (
        box(page, ".context-previous"),
        box(page, ".text-card.source .segment.current"),
        box(page, ".context-next"),
    )
    reference = box(page, ".text-card.reference")
    assert previous["y"] < current["y"] < following["y"] < reference["y"]
    for part in (previous, current, following):  # inside the source's card
        assert source_card["y"] <= part["y"]
        assert part["y"] + part["height"] <= source_card["y"] + source_card["height"]
    assert page.locator(".context-previous .context-label").inner_text().lower() == "previous"
    assert page.locator(".context-next .context-label").inner_text().lower() == "next"
