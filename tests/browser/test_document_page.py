"""In headless Chromium: a document-level ESA page completed with the keyboard alone (every
segment marked and scored, the page scored, one submit), a reload in the middle resuming
what was marked, at desktop width and at 390 px."""

import pytest

from annotation.models import ErrorSpan, Judgment, PageScore, Slot
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import shoot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def page_slot(page):
    return page.locator("input[name=page]").get_attribute("value")


def focused_segment(page):
    return page.evaluate(
        "(() => { const row = document.activeElement.closest('.doc-segment');"
        " return row ? Number(row.dataset.number) : null; })()"
    )


def focused_is(page, what):
    page.wait_for_function(f"document.activeElement.matches({what!r})")


def marks(page):
    return page.evaluate(
        "Array.from(document.querySelectorAll('.doc-segment')).map((row) =>"
        " [Array.from(row.querySelectorAll('.doc-editor .err')).map((p) =>"
        " Number(p.dataset.start) + ':' + Array.from(p.classList).filter((n) =>"
        " n.startsWith('err-')).join(' ')), row.querySelector('.missing-spans').children.length,"
        " row.querySelector('input.score-box').value])"
    )


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_document_esa_page_with_the_keyboard_alone(
    page, live_server, launched, loaded_campaign, make_annotator, viewport
):
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    task = launched("esa", unit="document", page_size=5, document_score=True)
    ann = make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#document-page")
    focused_is(page, ".doc-editor")
    assert page.locator(".doc-segment").count() == 4
    assert focused_segment(page) == 1
    first = page_slot(page)

    # Segment 1: words 2-3 major, then its score; Enter goes on to segment 2.
    for key in ["ArrowRight", "Shift+ArrowRight", "2", "Enter"]:
        page.keyboard.press(key)
    focused_is(page, "input.score-box")
    page.keyboard.type("60")
    page.keyboard.press("Enter")
    assert focused_segment(page) == 2
    # Segment 2: the first word minor, missing content (minor), score 80.
    for key in ["1", "m", "Enter"]:
        page.keyboard.press(key)
    page.keyboard.type("80")
    page.wait_for_timeout(50)
    before = marks(page)
    assert before[0][0] and before[1][0] and before[1][1] == 1
    assert [row[2] for row in before] == ["60", "80", "", ""]

    # A reload resumes the page with everything marked so far.
    page.reload()
    page.wait_for_selector("#document-page")
    focused_is(page, ".doc-editor")
    assert page_slot(page) == first
    assert marks(page) == before
    shoot(page, f"document-esa-resumed-{viewport}")

    # Down to segment 3 (arrows move between segments), then 3 and 4 scored.
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert focused_segment(page) == 3
    page.keyboard.press("Enter")
    page.keyboard.type("90")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.keyboard.type("95")
    page.keyboard.press("Enter")
    focused_is(page, "input[name=document_score]")
    page.keyboard.type("85")
    shoot(page, f"document-esa-filled-{viewport}")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return p && p.value !== slot; }",
        arg=first,
    )
    slots = list(Slot.objects.filter(task=task, page=0, batch__annotator=ann).order_by("position"))
    judgments = [Judgment.objects.get(slot=slot) for slot in slots]
    assert [j.score for j in judgments] == [60, 80, 90, 95]
    spans = [
        list(ErrorSpan.objects.filter(judgment=j).values_list("severity", flat=True))
        for j in judgments
    ]
    assert spans == [["major"], ["minor", "minor"], [], []]
    assert PageScore.objects.get(slot_id=int(first)).score == 85
    # Each segment's time was measured on the page (never more than the page was open).
    assert all(j.duration_ms > 0 for j in judgments)
    # Recorded: the draft is gone and the next page starts clean.
    assert page.evaluate(f"localStorage.getItem('evalsite:page:{first}')") is None
    assert all(row[0] == [] and row[2] == "" for row in marks(page))
    shoot(page, f"document-esa-next-page-{viewport}")


def test_a_document_mqm_page_with_the_keyboard_alone(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("mqm", unit="document", page_size=5)
    make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#document-page")
    focused_is(page, ".doc-editor")
    first = page_slot(page)
    # Segment 1: the first word, minor, then its category chosen with the arrows.
    page.keyboard.press("1")
    focused_is(page, "#mqm-category")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    focused_is(page, ".doc-editor")
    # On to segment 2 (no score on an MQM page: Enter goes on), a major error kept.
    page.keyboard.press("Enter")
    assert focused_segment(page) == 2
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    shoot(page, "document-mqm-marked")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return p && p.value !== slot; }",
        arg=first,
    )
    slots = list(Slot.objects.filter(page=0, task=task, state="done").order_by("position"))
    spans = [
        list(ErrorSpan.objects.filter(judgment__slot=s).values_list("severity", "category"))
        for s in slots
    ]
    assert len(spans) == 4 and spans[2:] == [[], []]
    assert spans[0][0][0] == "minor" and spans[1][0][0] == "major"
    assert spans[0][0][1] and spans[1][0][1]
