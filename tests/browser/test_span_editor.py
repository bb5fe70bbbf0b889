"""The one span editor (static/js/span_editor.js) on the screens that had none of these
checks: MQM categories chosen with the keyboard on a contrastive screen, the mouse on a
document page, offsets after an emoji (the server counts code points, the DOM UTF-16 units),
and the three screens with spans marked at desktop and phone widths."""

import re

import pytest

from annotation.models import ErrorSpan, Item, Judgment
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot, start
from tests.browser.test_annotate_spans import words_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def focused_is(page, selector):
    page.wait_for_function(
        "selector => document.activeElement && document.activeElement.matches(selector)",
        arg=selector,
    )


def word_spans(text):
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def mark_contrastive_mqm(page):
    """A: word 2 major, Accuracy/Addition; B: word 1 minor, Fluency/Punctuation, typed."""
    focused_is(page, ".contrast-editor")
    cards = page.locator("section.contrast")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("2")
    focused_is(page, "section.contrast:nth-of-type(1) select.contrast-category")
    page.keyboard.press("ArrowDown")  # Accuracy/Mistranslation → Accuracy/Addition
    page.keyboard.press("Enter")
    focused_is(page, "section.contrast:nth-of-type(1) .contrast-editor")
    assert cards.nth(0).locator("output.contrast-mqm").text_content() == "5"
    page.keyboard.press("Enter")  # no score on MQM: on to B
    focused_is(page, "section.contrast:nth-of-type(2) .contrast-editor")
    page.keyboard.press("1")
    focused_is(page, "section.contrast:nth-of-type(2) select.contrast-category")
    page.keyboard.type("Fluency/P")  # a listbox jumps to what is typed
    page.keyboard.press("Enter")
    focused_is(page, "section.contrast:nth-of-type(2) .contrast-editor")
    # Missing content, then Esc in the picker drops it again.
    page.keyboard.press("m")
    focused_is(page, "section.contrast:nth-of-type(2) select.contrast-category")
    page.keyboard.press("Escape")
    focused_is(page, "section.contrast:nth-of-type(2) .contrast-editor")
    assert cards.nth(1).locator(".missing-spans li").count() == 0
    assert cards.nth(1).locator("output.contrast-mqm").text_content() == "0.1"
    assert cards.nth(2).locator("output.contrast-mqm").text_content() == "0"


def test_contrastive_mqm_categories_with_the_keyboard(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("contrastive_mqm")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    editors = page.locator(".contrast-editor")
    words = [word_spans(editors.nth(i).text_content()) for i in range(editors.count())]
    slot = current_slot(page)
    mark_contrastive_mqm(page)
    page.keyboard.press("Enter")  # B → C
    page.keyboard.press("Enter")  # after the last: submits
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    rows = ErrorSpan.objects.filter(judgment=judgment).order_by("candidate", "id")
    assert list(rows.values_list("candidate", "start", "end", "severity", "category")) == [
        (0, words[0][1][0], words[0][1][1], "major", "Accuracy/Addition"),
        (1, words[1][0][0], words[1][0][1], "minor", "Fluency/Punctuation"),
    ]


def drag_over(page, editor, first, last):
    a = editor.locator(f'[data-start="{first}"]').bounding_box()
    b = editor.locator(f'[data-start="{last}"]').bounding_box()
    page.mouse.move(a["x"] + 1, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] - 1, b["y"] + b["height"] / 2, steps=5)
    page.mouse.up()


def test_a_document_page_with_the_mouse(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("esa", unit="document", page_size=5)
    ann = make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#document-page")
    first = page.locator("input[name=page]").get_attribute("value")
    segment_slot = page.locator(".doc-segment").first.get_attribute("data-slot")
    editor = page.locator(".doc-editor").first
    words = word_spans(editor.text_content())
    assert len(words) >= 6
    drag_over(page, editor, words[0][0], words[1][0])  # words 1-2: minor
    page.wait_for_selector(".doc-editor .err-minor")
    drag_over(page, editor, words[3][0], words[3][0])  # word 4: minor, a click: major
    editor.locator(f'[data-start="{words[3][0]}"]').click()
    drag_over(page, editor, words[5][0], words[5][0])  # word 6: minor, two clicks: removed
    editor.locator(f'[data-start="{words[5][0]}"]').click()
    editor.locator(f'[data-start="{words[5][0]}"]').click()
    for index, box in enumerate(page.locator(".doc-segment input.score-box").all()):
        box.fill(str(50 + index))
    page.locator("#document-page button[type=submit]").click()
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return p && p.value !== slot; }",
        arg=first,
    )
    judgment = Judgment.objects.get(slot_id=int(segment_slot), slot__batch__annotator=ann)
    assert list(
        ErrorSpan.objects.filter(judgment=judgment)
        .order_by("start")
        .values_list("start", "end", "severity")
    ) == [(words[0][0], words[1][1], "minor"), (words[3][0], words[3][1], "major")]


def test_offsets_after_an_emoji_are_the_servers_characters(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("esa")
    for item in Item.objects.filter(task=task):
        item.candidates[0]["text"] = "🙂 " + item.candidates[0]["text"]
        item.save(update_fields=["candidates"])
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    text, words = words_of(page)  # Python's offsets: code points
    assert text.startswith("🙂 ")
    slot = current_slot(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("2")  # the word after the emoji
    for _ in words:
        page.keyboard.press("ArrowRight")
    page.keyboard.press("1")  # the last word: its end is the end of the text
    for key in ("Enter", "4", "0", "Enter"):
        page.keyboard.press(key)
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert list(
        ErrorSpan.objects.filter(judgment=judgment)
        .order_by("start")
        .values_list("start", "end", "severity")
    ) == [(words[1][0], words[1][1], "major"), (words[-1][0], len(text), "minor")]


def fits(page, width):
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_the_three_screens_with_spans_marked(
    browser, live_server, launched, loaded_campaign, make_annotator, width, height
):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    ann = make_annotator(loaded_campaign, "ann")
    esa = launched("esa")
    start(page, live_server, esa, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    for key in ("ArrowRight", "Shift+ArrowRight", "2", "ArrowRight", "ArrowRight", "1", "M"):
        page.keyboard.press(key)
    assert page.locator("#span-editor .err-major").count() >= 1
    assert page.locator("#span-editor .err-minor").count() == 1
    assert page.locator("#missing-spans button.err-major").count() == 1
    fits(page, width)
    shoot(page, f"span-editor-esa-{width}")

    contrastive = launched("contrastive_mqm")
    page.goto(f"{live_server.url}/annotate/{contrastive.id}/")
    page.wait_for_selector("#judgment .contrastive")
    mark_contrastive_mqm(page)
    fits(page, width)
    shoot(page, f"span-editor-contrastive-mqm-{width}")

    document = launched("mqm", unit="document", page_size=5)
    page.goto(f"{live_server.url}/annotate/{document.id}/")
    page.wait_for_selector("#document-page")
    focused_is(page, ".doc-editor")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("2")
    focused_is(page, "#mqm-category")
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("1")
    focused_is(page, "#mqm-category")  # left open under segment 2, as it asks
    assert page.locator(".doc-segment").nth(1).locator("#mqm-category").count() == 1
    assert page.locator(".doc-segment").nth(0).locator(".err-major").count() >= 1
    fits(page, width)
    shoot(page, f"span-editor-document-mqm-{width}")
    context.close()
