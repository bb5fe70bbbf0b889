"""In headless Chromium: a contrastive ESA document page (4 segments × 3 translations, a page
score per translation) completed with the keyboard alone, a reload in the middle resuming
what was marked, at 1280 px and at 390 px."""

import pytest

from annotation.models import ErrorSpan, Judgment, OutputJudgment, PageScore, Slot
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import shoot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def page_slot(page):
    return page.locator("input[name=page]").get_attribute("value")


def focused(page):
    """(segment number, translation index) of the focused control, or None."""
    return page.evaluate(
        "(() => { const el = document.activeElement;"
        " const row = el.closest('.cdoc-segment'); const card = el.closest('.cdoc-candidate');"
        " return row && card ? [Number(row.dataset.number), Number(card.dataset.candidate)]"
        " : null; })()"
    )


def focused_is(page, what):
    page.wait_for_function(f"document.activeElement.matches({what!r})")


def marks(page):
    """Per segment, per translation: its marked pieces, missing spans and score."""
    return page.evaluate(
        "Array.from(document.querySelectorAll('.cdoc-segment')).map((row) =>"
        " Array.from(row.querySelectorAll('.cdoc-candidate')).map((card) =>"
        " [Array.from(card.querySelectorAll('.cdoc-editor .err')).map((p) =>"
        " Number(p.dataset.start) + ':' + Array.from(p.classList).filter((n) =>"
        " n.startsWith('err-')).join(' ')), card.querySelector('.missing-spans').children.length,"
        " card.querySelector('input.score-box').value]))"
    )


def score_segment(page, scores):
    """From a segment's first translation: each scored without marks (Enter, the score,
    Enter goes on)."""
    for score in scores:
        page.keyboard.press("Enter")
        focused_is(page, "input.score-box")
        page.keyboard.type(str(score))
        page.keyboard.press("Enter")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_contrastive_esa_document_page_with_the_keyboard_alone(
    page, live_server, launched, loaded_campaign, make_annotator, viewport
):
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    task = launched("contrastive_esa", unit="document", page_size=5, document_score=True)
    ann = make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#contrastive-page")
    focused_is(page, ".cdoc-editor")
    assert page.locator(".cdoc-segment").count() == 4
    assert page.locator(".cdoc-candidate").count() == 12
    assert focused(page) == [1, 0]
    first = page_slot(page)
    if viewport == "phone":  # stacked: one translation above the other, none cut off
        boxes = page.evaluate(
            "Array.from(document.querySelectorAll('.cdoc-segment')[0]"
            ".querySelectorAll('.cdoc-candidate')).map((c) => c.getBoundingClientRect())"
            ".map((r) => [r.left, r.top, r.right])"
        )
        assert boxes[0][1] < boxes[1][1] < boxes[2][1] and all(b[2] <= 390 for b in boxes)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # Segment 1: A words 2-3 major, score 60; B the first word minor, 70; C missing
    # content, 80. Enter goes editor → score → the next translation → the next segment.
    for key in ["ArrowRight", "Shift+ArrowRight", "2", "Enter"]:
        page.keyboard.press(key)
    page.keyboard.type("60")
    page.keyboard.press("Enter")
    assert focused(page) == [1, 1]
    for key in ["1", "Enter"]:
        page.keyboard.press(key)
    page.keyboard.type("70")
    page.keyboard.press("Enter")
    for key in ["m", "Enter"]:
        page.keyboard.press(key)
    page.keyboard.type("80")
    page.keyboard.press("Enter")
    assert focused(page) == [2, 0]
    # Each slider shows the others' scores.
    others = page.locator(".cdoc-segment").first.locator(".cdoc-candidate").first
    assert others.locator("p.others").inner_text() == "Others: B 70 · C 80"
    assert others.locator(".other-mark").count() == 2
    # ] and [ move between translations; segment 2's A scored.
    page.keyboard.press("]")
    assert focused(page) == [2, 1]
    page.keyboard.press("[")
    assert focused(page) == [2, 0]
    score_segment(page, [50])
    page.wait_for_timeout(50)
    before = marks(page)
    assert before[0][0][0] and before[0][1][0] and before[0][2][1] == 1
    assert [[c[2] for c in row] for row in before] == [
        ["60", "70", "80"],
        ["50", "", ""],
        ["", "", ""],
        ["", "", ""],
    ]
    shoot(page, f"cdoc-cesa-marked-{viewport}")

    # A reload resumes the page with everything marked so far.
    page.reload()
    page.wait_for_selector("#contrastive-page")
    focused_is(page, ".cdoc-editor")
    assert page_slot(page) == first
    assert marks(page) == before

    # Down to segment 2 (arrows move between segments), B and C, then segments 3 and 4.
    page.keyboard.press("ArrowDown")
    assert focused(page) == [2, 0]
    page.keyboard.press("]")
    score_segment(page, [55, 45])
    assert focused(page) == [3, 0]
    score_segment(page, [90, 30, 20])
    score_segment(page, [95, 85, 75])
    focused_is(page, "input[name=document-score-0]")
    for score in ["85", "65"]:
        page.keyboard.type(score)
        page.keyboard.press("Enter")
    page.keyboard.type("45")
    shoot(page, f"cdoc-cesa-filled-{viewport}")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return p && p.value !== slot; }",
        arg=first,
    )
    slots = list(Slot.objects.filter(task=task, page=0, batch__annotator=ann).order_by("position"))
    judgments = [Judgment.objects.get(slot=slot) for slot in slots]
    assert [j.candidate_scores for j in judgments] == [
        [60, 70, 80],
        [50, 55, 45],
        [90, 30, 20],
        [95, 85, 75],
    ]
    spans = list(
        ErrorSpan.objects.filter(judgment=judgments[0])
        .order_by("candidate")
        .values_list("candidate", "severity", "start")
    )
    assert spans[0][:2] == (0, "major") and spans[1][:2] == (1, "minor")
    assert spans[2] == (2, "minor", None)  # missing content
    assert OutputJudgment.objects.filter(judgment__in=judgments).count() == 12
    scores = PageScore.objects.filter(slot_id=int(first)).order_by("position")
    assert [s.score for s in scores] == [85, 65, 45]
    assert all(j.duration_ms > 0 for j in judgments)
    # Recorded: the draft is gone and the next page starts clean.
    assert page.evaluate(f"localStorage.getItem('evalsite:cpage:{first}')") is None
    assert all(c[0] == [] and c[2] == "" for row in marks(page) for c in row)
    shoot(page, f"cdoc-cesa-next-page-{viewport}")
