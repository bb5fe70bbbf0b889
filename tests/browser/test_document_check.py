"""In headless Chromium (issues 22 §2 and 24 §2): a loud bad-reference page on a document ESA
task, scored like the clean pages and nothing marked, is refused with the page's warning and
stays to be answered again; the second answer is recorded and the outcome kept. At 1280 px
and 390 px; screenshots into ../docqc-shots (outside the repo)."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, ItemType, Judgment, Slot
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "docqc-shots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def _page_slot(page) -> str:
    return page.locator("input[name=page]").get_attribute("value")


def _is_bad(slot_id: str) -> bool:
    return Slot.objects.get(id=int(slot_id)).item.item_type == ItemType.BAD


def _judged(slot_id: str) -> int:
    first = Slot.objects.get(id=int(slot_id))
    return Judgment.objects.filter(slot__batch_id=first.batch_id, slot__page=first.page).count()


def _score_all(page, value: str) -> None:
    boxes = page.locator(".doc-segment input.score-box")
    for index in range(boxes.count()):
        boxes.nth(index).fill(value)


def _left(page, slot: str) -> None:
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return !p || p.value !== slot; }",
        arg=slot,
    )


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_loud_bad_reference_page_warns_and_takes_the_second_answer(
    page, live_server, launched, loaded_campaign, make_annotator, viewport
):
    page.set_viewport_size(PHONE if viewport == "phone" else DESKTOP)
    task = launched(
        "esa", unit="document", page_size=5, bad_reference_rate=0.2, check_feedback="loud"
    )
    make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    for _ in range(12):
        page.wait_for_selector("#document-page")
        slot = _page_slot(page)
        if _is_bad(slot):
            break
        _score_all(page, "70")
        page.keyboard.press("Control+Enter")
        _left(page, slot)
    else:
        raise AssertionError("no bad-reference page in the batch")
    _score_all(page, "70")  # careless: nothing marked, scored as the clean pages
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#submit-status.error")
    warning = page.locator("#submit-status").text_content()
    assert warning.startswith("Please look again: this page has errors you have not marked")
    assert "Not saved" not in warning
    assert _page_slot(page) == slot and _judged(slot) == 0  # the same page, nothing recorded
    page.locator("#submit-status").scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"doc-loud-bad-reference-{viewport}.png"), full_page=True)
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert outcome.kind == "bad_reference" and outcome.warned and not outcome.passed
    assert "the damage not marked" in outcome.reason
    page.keyboard.press("Control+Enter")  # answered again: recorded whatever it is
    _left(page, slot)
    first = Slot.objects.get(id=int(slot))
    assert _judged(slot) == Slot.objects.filter(batch_id=first.batch_id, page=first.page).count()
    outcome.refresh_from_db()
    assert outcome.passed_again is False
