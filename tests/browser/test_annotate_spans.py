"""ESA, ESA with pre-filled spans and MQM completed in headless Chromium: keyboard alone, and
mouse alone. Offsets are checked against the words of the text the page showed."""

import re

import pytest

from annotation.models import ErrorSpan, Item, Judgment
from annotation.selectors.human.spans import span_results
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def words_of(page):
    text = page.locator("#span-editor").text_content()
    return text, [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def stored(slot):
    judgment = Judgment.objects.get(slot_id=int(slot))
    rows = ErrorSpan.objects.filter(judgment=judgment).order_by("id")
    return judgment, list(rows.values_list("start", "end", "severity", "category"))


def press(page, keys, counter):
    for key in keys:
        page.keyboard.press(key)
        counter.append(key)


def test_esa_with_the_keyboard_only(page, live_server, launched, loaded_campaign, make_annotator):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    _, words = words_of(page)
    slot = current_slot(page)
    keys: list[str] = []
    # A typical segment: a major error over words 2-3, a minor one on word 5, an omission.
    press(page, ["ArrowRight", "Shift+ArrowRight", "2"], keys)
    press(page, ["ArrowRight", "ArrowRight", "1", "m"], keys)
    shoot(page, "esa-keyboard")
    press(page, ["Enter", "5", "5", "Enter"], keys)
    next_item(page, slot)
    judgment, spans = stored(slot)
    assert judgment.score == 55
    assert spans == [
        (words[1][0], words[2][1], "major", ""),
        (words[4][0], words[4][1], "minor", ""),
        (None, None, "minor", ""),
    ]
    print(f"ESA keyboard: {len(keys)} key presses for 3 errors and the score: {keys}")
    assert len(keys) == 11

    # The gentle warning: a low score and no error marked asks once, the second Enter keeps it.
    slot = current_slot(page)
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    page.keyboard.press("Enter")
    page.keyboard.type("20")
    page.keyboard.press("Enter")
    page.wait_for_selector("#esa-warning:not([hidden])")
    assert current_slot(page) == slot
    shoot(page, "esa-warning")
    page.keyboard.press("Enter")
    next_item(page, slot)
    assert stored(slot) == (Judgment.objects.get(slot_id=int(slot)), [])


def test_esa_prefilled_confirm_edit_delete_by_keyboard(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("esa_prefilled")
    for item in Item.objects.filter(task=task):
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", item.candidates[0]["text"])]
        item.prefilled_spans = [
            {"start": s, "end": e, "severity": "minor", "category": None} for s, e in words[:3]
        ]
        item.save(update_fields=["prefilled_spans"])
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    assert page.locator("#span-editor .err-prefilled").count() == 3
    _, words = words_of(page)
    slot = current_slot(page)
    # Word 1: kept; word 2: made major; word 3: deleted.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("2")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Delete")
    shoot(page, "esa-prefilled")
    for key in ("Enter", "7", "0", "Enter"):
        page.keyboard.press(key)
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    rows = list(
        ErrorSpan.objects.filter(judgment=judgment)
        .order_by("start")
        .values_list("start", "end", "severity", "prefilled", "changed")
    )
    assert rows == [
        (words[0][0], words[0][1], "minor", True, False),
        (words[1][0], words[1][1], "major", True, True),
    ]


def test_esa_prefilled_with_the_mouse(page, live_server, launched, loaded_campaign, make_annotator):
    task = launched("esa_prefilled")
    for item in Item.objects.filter(task=task):
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", item.candidates[0]["text"])]
        item.prefilled_spans = [
            {"start": s, "end": e, "severity": "minor", "category": None} for s, e in words[:2]
        ]
        item.save(update_fields=["prefilled_spans"])
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    _, words = words_of(page)
    slot = current_slot(page)
    first = page.locator(f'#span-editor [data-start="{words[0][0]}"]')
    first.click()  # minor → major
    second = page.locator(f'#span-editor [data-start="{words[1][0]}"]')
    second.click()
    second.click()  # minor → major → removed
    box = page.locator("input[type=range][data-for=score]").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2)
    page.locator("#judgment button.primary[type=submit]").click()
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    rows = list(judgment.spans.values_list("start", "end", "severity", "prefilled", "changed"))
    assert rows == [(words[0][0], words[0][1], "major", True, True)]
    assert judgment.score >= 70


def test_mqm_with_the_keyboard_only(page, live_server, launched, loaded_campaign, make_annotator):
    task = launched("mqm")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    _, words = words_of(page)
    slot = current_slot(page)
    keys: list[str] = []
    press(page, ["ArrowRight", "2"], keys)
    page.wait_for_function("document.activeElement.id === 'mqm-category'")
    press(page, ["ArrowDown", "Enter"], keys)  # Accuracy/Mistranslation → Accuracy/Addition
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    assert page.locator("#mqm-score").text_content() == "5"  # one major error
    press(page, ["ArrowRight", "1"], keys)
    page.keyboard.type("Fluency/P")  # a listbox jumps to what is typed
    keys.extend(["Fluency/P"])
    press(page, ["Enter"], keys)
    shown = page.locator("#mqm-score").text_content()
    assert shown == "5.1"  # + a minor punctuation error, 0.1 (Google's weights)
    shoot(page, "mqm-keyboard")
    press(page, ["Enter"], keys)
    next_item(page, slot)
    judgment, spans = stored(slot)
    assert judgment.score is None
    assert spans == [
        (words[1][0], words[1][1], "major", "Accuracy/Addition"),
        (words[2][0], words[2][1], "minor", "Fluency/Punctuation"),
    ]
    # The server's score of the stored judgment, as the results page computes it.
    (result,) = span_results(loaded_campaign)
    (system,) = result.mqm.systems
    assert system.ratings == 1 and system.score == pytest.approx(float(shown))


def test_mqm_live_score_uses_the_campaign_weights(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("mqm", mqm_weights={"severity": {"major": 10, "minor": 2}})
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.wait_for_function("document.activeElement.id === 'span-editor'")
    slot = current_slot(page)
    for keys in (["ArrowRight", "2"], ["ArrowRight", "1"]):  # a major, then a minor error
        for key in keys:
            page.keyboard.press(key)
        page.wait_for_function("document.activeElement.id === 'mqm-category'")
        page.keyboard.press("Enter")  # Accuracy/Mistranslation
        page.wait_for_function("document.activeElement.id === 'span-editor'")
    shown = page.locator("#mqm-score").text_content()
    assert shown == "12"  # 10 + 2, this campaign's weights
    page.keyboard.press("Enter")
    next_item(page, slot)
    (result,) = span_results(loaded_campaign)
    assert result.mqm.systems[0].score == pytest.approx(float(shown))


def drag_over(page, first, last, editor="#span-editor"):
    """Selects with the mouse from the start of one text piece to the end of another."""
    a = page.locator(editor).locator(f'[data-start="{first}"]').first.bounding_box()
    b = page.locator(editor).locator(f'[data-start="{last}"]').first.bounding_box()
    page.mouse.move(a["x"] + 1, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] - 1, b["y"] + b["height"] / 2, steps=5)
    page.mouse.up()


def test_esa_and_mqm_with_the_mouse_only(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    _, words = words_of(page)
    slot = current_slot(page)
    drag_over(page, words[0][0], words[1][0])  # words 1-2: minor
    page.wait_for_selector("#span-editor .err-minor")
    drag_over(page, words[3][0], words[3][0])  # word 4: minor, then a click makes it major
    page.locator(f'#span-editor [data-start="{words[3][0]}"]').click()
    page.locator("[data-missing=major]").click()
    box = page.locator("input[type=range][data-for=score]").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)
    shoot(page, "esa-mouse")
    page.locator("#judgment button.primary[type=submit]").click()
    next_item(page, slot)
    judgment, spans = stored(slot)
    assert 20 <= judgment.score <= 40
    assert spans == [
        (words[0][0], words[1][1], "minor", ""),
        (words[3][0], words[3][1], "major", ""),
        (None, None, "major", ""),
    ]

    mqm = launched("mqm")
    page.goto(f"{live_server.url}/annotate/{mqm.id}/")
    page.wait_for_selector("#span-editor")
    _, words = words_of(page)
    slot = current_slot(page)
    drag_over(page, words[2][0], words[2][0])
    page.locator("#mqm-category option[value='Fluency/Grammar']").click()
    page.wait_for_selector("#mqm-category", state="hidden")
    shoot(page, "mqm-mouse")
    page.locator("#judgment button.primary[type=submit]").click()
    next_item(page, slot)
    assert stored(slot)[1] == [(words[2][0], words[2][1], "minor", "Fluency/Grammar")]


def test_results_page_shows_mqm_ranking_and_error_chart(page, live_server, manager):
    from django.core.management import call_command

    from annotation.models import Campaign
    from tests.browser.conftest import log_in
    from tests.conftest import DATA

    tsv = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"
    call_command(
        "import_mqm", str(tsv), "--name", "TED", "--owner", "manager", "--languages", "zh-en"
    )
    campaign = Campaign.objects.get(name="TED")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/")
    page.wait_for_selector(".span-results svg.plot")
    assert page.locator(".span-results table.list tbody tr").count() >= 2
    shoot(page, "results-mqm")
