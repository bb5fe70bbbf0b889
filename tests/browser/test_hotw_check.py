"""MQM's HOTW check in headless Chromium (issue 24 §2): a translation with an injected error
(Anthea's "hands on the wheel") that the rater must mark. On a loud task, leaving it unmarked
is refused with a warning, and the rater marks it and answers again; on a silent task the
same answer goes through with no warning, the failure only recorded; a rater who marks it
at once is not warned and passes. Screenshots in ../qc-shots (outside the repo)."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, ErrorSpan, ItemType, Judgment, Slot
from tests.browser.conftest import to_first_check
from tests.browser.test_annotate_keyboard import current_slot, next_item
from tests.browser.test_annotate_spans import drag_over, words_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "qc-shots"
CATEGORY = "Fluency/Grammar"


def _hotw_damage(slot_id: str) -> tuple[int, int] | None:
    """The injected error's offsets when the slot is a HOTW check, else None."""
    item = Slot.objects.select_related("item").get(id=int(slot_id)).item
    if item.item_type != ItemType.CHK or not item.check_span:
        return None
    start, end = item.check_span
    return int(start), int(end)


def _submit_unmarked(page):
    """No error marked: Enter from the span editor sends the MQM answer."""
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    page.keyboard.press("Enter")


def _mark(page, damage: tuple[int, int]) -> tuple[int, int]:
    """Marks the first word inside the injected error (mouse), with a category."""
    _, words = words_of(page)
    word = next(w for w in words if w[0] < damage[1] and damage[0] < w[1])
    drag_over(page, word[0], word[0])
    page.locator(f"#mqm-category option[value='{CATEGORY}']").click()
    page.wait_for_selector("#mqm-category", state="hidden")
    return word


def _to_first_hotw(page):
    return to_first_check(page, _hotw_damage, _submit_unmarked, screens=14, what="HOTW check")


def _submit_button(page):
    page.locator("#judgment button.primary[type=submit]").click()


@pytest.mark.parametrize("rater", ["loud", "silent", "attentive"])
def test_hotw_error_must_be_marked(page, check_task, rater):
    feedback = "silent" if rater == "silent" else "loud"
    check_task("mqm", feedback, hotw_rate=0.25, batch_size=10, items_per_annotator=10)
    slot, damage = _to_first_hotw(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    if rater == "attentive":
        word = _mark(page, damage)
        _submit_button(page)
        next_item(page, slot)
        outcome = CheckOutcome.objects.get(slot_id=int(slot))
        assert outcome.kind == "hotw" and outcome.passed and not outcome.warned
        spans = ErrorSpan.objects.filter(judgment__slot_id=int(slot))
        assert list(spans.values_list("start", "end")) == [word]
        return
    _submit_unmarked(page)  # careless: the injected error left unmarked
    if rater == "loud":
        page.wait_for_selector("#submit-status:not([hidden])")
        warning = page.locator("#submit-status").text_content()
        assert "an error you have not marked" in warning
        assert current_slot(page) == slot  # the same translation, to answer again
        assert not Judgment.objects.filter(slot_id=int(slot)).exists()
        page.screenshot(path=str(SHOTS / "hotw-loud-warning.png"), full_page=True)
        outcome = CheckOutcome.objects.get(slot_id=int(slot))
        assert outcome.kind == "hotw" and outcome.warned and not outcome.passed
        assert outcome.passed_again is None
        word = _mark(page, damage)  # looked again and found it
        _submit_button(page)
        next_item(page, slot)
        outcome.refresh_from_db()
        assert outcome.passed_again is True and not outcome.passed
        spans = ErrorSpan.objects.filter(judgment__slot_id=int(slot))
        assert list(spans.values_list("start", "end")) == [word]
        return
    next_item(page, slot)  # silent: on to the next translation at once
    page.screenshot(path=str(SHOTS / "hotw-silent-next-item.png"), full_page=True)
    status = page.locator("#submit-status")
    assert status.is_hidden() or "not marked" not in (status.text_content() or "")
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert not judgment.spans.exists()
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert outcome.kind == "hotw" and not outcome.passed
    assert not outcome.loud and not outcome.warned and outcome.passed_again is None
    assert outcome.reason == "the injected error not marked"
