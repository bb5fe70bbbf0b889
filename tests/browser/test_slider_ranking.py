"""The 0-100 slider without an anchoring thumb, and the ranking keyboard after a validation
error, in headless Chromium."""

import io

import numpy as np
import pytest
from PIL import Image

from annotation.models import Judgment
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

ACCENT = (0x3A, 0x5B, 0xD9)  # --accent, the thumb's colour


def thumb_pixels(page):
    """Pixels of the thumb's colour in the slider (the track is grey): 0 means no thumb."""
    shot = Image.open(io.BytesIO(page.locator("input[type=range]").screenshot())).convert("RGB")
    distance = np.abs(np.asarray(shot, dtype=int) - np.array(ACCENT)).max(axis=2)
    return int((distance < 24).sum())


def test_slider_has_no_thumb_until_chosen(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", scale="da100")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    assert thumb_pixels(page) == 0
    shoot(page, "slider-unset")
    slot = current_slot(page)
    page.keyboard.press("Enter")  # nothing chosen: refused, with a message saying what to do
    message = page.eval_on_selector("input[name=score]", "box => box.validationMessage")
    assert message == "Give a score from 0 to 100 first: click the slider or type a number."
    assert current_slot(page) == slot and not Judgment.objects.exists()

    # The mouse: a click on the slider chooses a score and shows the thumb there.
    track = page.locator("input[type=range]").bounding_box()
    page.mouse.click(track["x"] + track["width"] * 0.25, track["y"] + track["height"] / 2)
    assert thumb_pixels(page) > 50
    clicked = int(page.locator("input[name=score]").input_value())
    assert 15 <= clicked <= 35
    shoot(page, "slider-chosen")

    # The keyboard still works: the box takes a typed score and Enter submits it.
    page.locator("input[name=score]").focus()
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    assert thumb_pixels(page) == 0  # emptied: no score, no thumb
    page.keyboard.type("73")
    page.keyboard.press("Enter")
    next_item(page, slot)
    assert list(Judgment.objects.values_list("score", flat=True)) == [73]


def test_ranking_keyboard_goes_to_the_missing_row(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("ranking", ranking_size=3)
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    rows = page.locator(".rank-row").count()
    assert rows >= 2
    slot = current_slot(page)
    page.keyboard.press("1")  # ranks row 0; the active row moves to row 1
    page.keyboard.press("ArrowUp")  # back to row 0, leaving row 1 unranked
    assert page.locator(".rank-row.active").get_attribute("data-row") == "0"
    page.keyboard.press("Enter")  # refused: row 1 has no rank
    assert page.locator(".rank-row.active").get_attribute("data-row") == "1"
    shoot(page, "ranking-missing-row")
    for _ in range(rows - 1):  # the number keys now rank the missing rows in turn
        page.keyboard.press("2")
    page.keyboard.press("Enter")
    next_item(page, slot)
    judgment = Judgment.objects.get()
    assert judgment.ranks == [1] + [2] * (rows - 1)
