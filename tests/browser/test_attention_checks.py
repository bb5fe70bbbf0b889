"""Attention checks in headless Chromium (issue 24 §2): on a loud ESA task a bad reference
scored like a clean output without its damage marked is refused with a warning and answered
again; on a silent task the same answer goes through and the failure is only logged."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, ItemType, Judgment, Slot
from tests.browser.conftest import to_first_check
from tests.browser.test_annotate_keyboard import current_slot, next_item

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path("/work/wt/checks-shots")


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _is_check(slot_id: str) -> bool:
    return Slot.objects.get(id=int(slot_id)).item.item_type == ItemType.BAD


def _score(page, value: str):
    """No error marked; the score typed and submitted with the keyboard."""
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    page.keyboard.press("Enter")
    page.keyboard.type(value)
    page.keyboard.press("Enter")


def _to_first_check(page):
    """Answers clean outputs (90, no error) until a bad reference is on screen."""
    slot, _ = to_first_check(
        page, _is_check, lambda page: _score(page, "90"), screens=12, what="bad reference"
    )
    return slot


@pytest.mark.parametrize("feedback", ["loud", "silent"])
def test_loud_check_warns_silent_check_only_logs(page, check_task, feedback):
    check_task("esa", feedback, batch_size=10, items_per_annotator=10, bad_reference_rate=0.2)
    slot = _to_first_check(page)
    _score(page, "90")  # careless: the damage not marked, scored as high as the rest
    if feedback == "loud":
        page.wait_for_selector("#submit-status:not([hidden])")
        warning = page.locator("#submit-status").text_content()
        assert "look again" in warning
        assert current_slot(page) == slot  # the same item, to answer again
        assert not Judgment.objects.filter(slot_id=int(slot)).exists()
        shoot(page, "loud-check-warning")
        outcome = CheckOutcome.objects.get(slot_id=int(slot))
        assert outcome.warned and not outcome.passed and outcome.passed_again is None
        page.locator("input[name=score]").focus()
        page.keyboard.press("Enter")  # answered again: recorded whatever it is
    next_item(page, slot)
    if feedback == "silent":
        shoot(page, "silent-check-next-item")
        assert page.locator("#submit-status").is_hidden() or "look again" not in (
            page.locator("#submit-status").text_content() or ""
        )
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert judgment.score == 90
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert not outcome.passed and outcome.kind == "bad_reference"
    assert outcome.loud == (feedback == "loud") and outcome.warned == (feedback == "loud")
    if feedback == "loud":
        assert outcome.passed_again is False
