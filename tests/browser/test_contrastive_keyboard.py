"""A cESA screen of three translations completed in headless Chromium with the keyboard alone,
on a desktop and on a 390 px phone; screenshots into ../contrastive-shots (outside the repo)."""

import re
from pathlib import Path

import pytest

from annotation.models import ErrorSpan, Judgment, OutputJudgment
from tests.browser.test_annotate_keyboard import current_slot, next_item, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "contrastive-shots"


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def words_of(page, index):
    text = page.locator(".contrast-editor").nth(index).text_content()
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def active_is(page, selector):
    page.wait_for_function(
        "selector => document.activeElement && document.activeElement.matches(selector)",
        arg=selector,
    )


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_a_cesa_screen_of_three_with_the_keyboard_alone(
    browser, live_server, launched, loaded_campaign, make_annotator, width, height
):
    task = launched("contrastive_esa", show_reference=False)
    ann = make_annotator(loaded_campaign, "ann")
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    start(page, live_server, task, ann, "ann-pw-123")
    cards = page.locator("section.contrast")
    assert cards.count() == 3
    assert [cards.nth(i).get_attribute("data-label") for i in range(3)] == ["A", "B", "C"]
    body = page.locator("main").inner_text()
    assert not any(name in body for name in ("Online-B", "UEdin", "happypoet"))
    boxes = [cards.nth(i).bounding_box() for i in range(3)]
    if width > 1000:  # side by side: one row
        assert len({round(b["y"]) for b in boxes}) == 1
    else:  # stacked, each as wide as the page allows
        assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]
        assert all(b["x"] + b["width"] <= width for b in boxes)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    active_is(page, ".contrast-editor")
    words = [words_of(page, i) for i in range(3)]
    slot = current_slot(page)
    keys = [
        # A: a major error over words 2-3, then its score.
        "ArrowRight", "Shift+ArrowRight", "2", "Enter", "7", "0", "Enter",
        # B: a minor error on word 1 and missing content, then its score.
        "1", "m", "Enter", "4", "0", "Enter",
        # C: no error; back to B with "[" to look, then "]" and on to C's score.
        "[", "]", "Enter", "9", "5",
    ]  # fmt: skip
    for key in keys:
        page.keyboard.press(key)
    # Each slider shows the others' scores.
    marks = cards.nth(2).locator(".other-mark")
    assert sorted(marks.all_text_contents()) == ["A", "B"]
    assert "A 70" in cards.nth(1).locator("p.others").inner_text()
    shoot(page, f"cesa-{width}")
    page.keyboard.press("Enter")  # the last score: submits the screen
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert judgment.candidate_scores == [70, 40, 95]
    spans = ErrorSpan.objects.filter(judgment=judgment).order_by("candidate", "id")
    assert list(spans.values_list("candidate", "start", "end", "severity")) == [
        (0, words[0][1][0], words[0][2][1], "major"),
        (1, words[1][0][0], words[1][0][1], "minor"),
        (1, None, None, "minor"),
    ]
    outputs = OutputJudgment.objects.filter(judgment=judgment)
    assert sorted(outputs.values_list("position", "score")) == [(0, 70), (1, 40), (2, 95)]
    print(f"cESA at {width} px: {len(keys) + 1} key presses for three translations")
    context.close()


def test_an_unscored_translation_is_pointed_at(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("contrastive_esa")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    slot = current_slot(page)
    for key in ("Enter", "5", "0", "Enter", "]", "]", "Enter", "6", "0", "Enter"):
        page.keyboard.press(key)
    # B has no score: the browser points at it and nothing is sent.
    active_is(page, 'input[name="cscore-1"]')
    assert current_slot(page) == slot
    assert not Judgment.objects.filter(slot_id=int(slot)).exists()


def test_a_reload_keeps_the_marks_and_scores_of_the_screen(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("contrastive_esa")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    active_is(page, ".contrast-editor")
    words = words_of(page, 1)
    slot = current_slot(page)
    for key in ("Enter", "8", "0", "Enter", "ArrowRight", "2"):  # A scored, B's word 2 major
        page.keyboard.press(key)
    page.reload()
    page.wait_for_selector("#judgment")
    assert current_slot(page) == slot
    page.wait_for_function("document.querySelector('input[name=\"cscore-0\"]').value === '80'")
    assert page.locator(".contrast-editor").nth(1).locator(".err-major").count() == 1
    assert "A 80" in page.locator("section.contrast").nth(1).locator("p.others").inner_text()
    active_is(page, ".contrast-editor")
    for key in ("]", "Enter", "4", "0", "Enter", "Enter", "6", "0", "Enter"):
        page.keyboard.press(key)
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert judgment.candidate_scores == [80, 40, 60]
    spans = ErrorSpan.objects.filter(judgment=judgment)
    assert list(spans.values_list("candidate", "start", "end", "severity")) == [
        (1, words[1][0], words[1][1], "major")
    ]
    # The submitted screen's draft is gone.
    drafts = page.evaluate("Object.keys(localStorage)")
    assert f"evalsite:contrastive:{slot}" not in drafts
