"""Repeat checks in headless Chromium (issue 24 §2): an item that comes back in the batch
must be answered as the first time (within a quarter of the scale). On a loud adequacy task
an answer far from the first is refused with a warning and answered again; on a silent one
it goes through with no warning and the failure is only recorded. Screenshots in
../qc-shots (outside the repo)."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, Judgment, Slot
from tests.browser.conftest import to_first_check
from tests.browser.test_annotate_keyboard import current_slot, next_item

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "qc-shots"


def _answer(page, score: str):
    page.keyboard.press(score)
    page.keyboard.press("Enter")


def _to_first_repeat(page):
    """Scores every item 5 until one comes back (its first answer was 5)."""
    slot, _ = to_first_check(
        page,
        lambda slot: Slot.objects.get(id=int(slot)).is_repeat,
        lambda page: _answer(page, "5"),
        screens=14,
        what="repeat",
    )
    return slot


@pytest.mark.parametrize("feedback", ["loud", "silent"])
def test_a_repeat_answered_differently(page, check_task, feedback):
    check_task("adequacy", feedback, repeat_rate=0.25, batch_size=10, items_per_annotator=10)
    slot = _to_first_repeat(page)
    _answer(page, "1")  # careless: 5 the first time, 1 now
    SHOTS.mkdir(parents=True, exist_ok=True)
    if feedback == "loud":
        page.wait_for_selector("#submit-status:not([hidden])")
        warning = page.locator("#submit-status").text_content()
        assert "read the translation again carefully" in warning
        assert current_slot(page) == slot  # the same item, to answer again
        assert not Judgment.objects.filter(slot_id=int(slot)).exists()
        page.screenshot(path=str(SHOTS / "repeat-loud-warning.png"), full_page=True)
        outcome = CheckOutcome.objects.get(slot_id=int(slot))
        assert outcome.kind == "repeat" and outcome.warned and not outcome.passed
        assert outcome.passed_again is None
        _answer(page, "5")  # read again: as the first time
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert outcome.kind == "repeat" and not outcome.passed
    assert outcome.reason == "4 apart from the first"
    if feedback == "loud":
        assert judgment.score == 5 and outcome.loud and outcome.passed_again is True
    else:
        page.screenshot(path=str(SHOTS / "repeat-silent-next-item.png"), full_page=True)
        status = page.locator("#submit-status")
        assert status.is_hidden() or "again" not in (status.text_content() or "")
        assert judgment.score == 1
        assert not outcome.loud and not outcome.warned and outcome.passed_again is None
