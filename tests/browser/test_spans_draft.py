"""In headless Chromium: the spans marked on an ESA item survive a reload until the item is
submitted (a draft in the browser's localStorage, keyed by the slot)."""

import pytest

from annotation.models import ErrorSpan, Judgment
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot, start
from tests.browser.test_annotate_spans import words_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def marked(page):
    return page.evaluate(
        "Array.from(document.querySelectorAll('#span-editor .err'))"
        ".map((piece) => [Number(piece.dataset.start),"
        " Array.from(piece.classList).filter((name) => name.startsWith('err-')).join(' ')])"
    )


def test_a_reload_keeps_the_spans_marked_until_submitted(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    _, words = words_of(page)
    slot = current_slot(page)
    for key in ["ArrowRight", "Shift+ArrowRight", "2", "ArrowRight", "ArrowRight", "1", "m"]:
        page.keyboard.press(key)
    before = marked(page)
    assert before
    page.reload()
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    assert current_slot(page) == slot
    assert marked(page) == before
    assert page.locator("#missing-spans button").count() == 1
    shoot(page, "esa-draft-restored")
    page.keyboard.press("Enter")
    page.keyboard.type("55")
    page.keyboard.press("Enter")
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert list(
        ErrorSpan.objects.filter(judgment=judgment)
        .order_by("id")
        .values_list("start", "end", "severity")
    ) == [
        (words[1][0], words[2][1], "major"),
        (words[4][0], words[4][1], "minor"),
        (None, None, "minor"),
    ]
    # Submitted: the draft is gone, and the next item starts clean.
    assert page.evaluate(f"localStorage.getItem('evalsite:spans:{slot}')") is None
    assert marked(page) == []
