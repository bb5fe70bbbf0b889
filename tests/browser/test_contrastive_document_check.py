"""In headless Chromium (issue 22 §2 leftovers): WMT26's shuffled-translation check on a loud
contrastive ESA document page, scored like the clean translations, is refused with the
warning and the page stays to be answered again; the second answer is recorded. And the
results page's table of page scores per system for a contrastive document task. At 1280 px
and 390 px; screenshots into ../cdocqc-shots (outside the repo)."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, ItemType, Judgment, Slot
from tests.browser.conftest import log_in
from tests.browser.test_contrastive_document import PHONE, page_slot
from tests.test_contrastive_document_checks import careless, judge_pages

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "cdocqc-shots"


def _shot(target, name, **options):
    SHOTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(SHOTS / f"{name}.png"), **options)


def _is_check(slot_id: str) -> bool:
    return Slot.objects.get(id=int(slot_id)).item.item_type == ItemType.CHK


def _judged(slot_id: str) -> int:
    """How many segments of the page ``slot_id`` begins are judged."""
    first = Slot.objects.get(id=int(slot_id))
    return Judgment.objects.filter(slot__batch_id=first.batch_id, slot__page=first.page).count()


def _score_all(page, value):
    boxes = page.locator(".cdoc-candidate input.score-box")
    for index in range(boxes.count()):
        boxes.nth(index).fill(value)


def _left(page, slot):
    """Waits until the page ``slot`` began is gone (the next page, or the done page)."""
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return !p || p.value !== slot; }",
        arg=slot,
    )


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_loud_check_page_warns_and_takes_the_second_answer(
    page, live_server, launched, loaded_campaign, make_annotator, viewport
):
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    task = launched(
        "contrastive_esa",
        unit="document",
        page_size=5,
        shuffle_rate=0.34,
        check_feedback="loud",
        show_reference=False,
    )
    make_annotator(loaded_campaign, "ann")
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    for _ in range(4):
        page.wait_for_selector("#contrastive-page")
        slot = page_slot(page)
        if _is_check(slot):
            break
        _score_all(page, "80")
        page.keyboard.press("Control+Enter")
        _left(page, slot)
    else:
        raise AssertionError("no shuffled-translation check page in the batch")
    _score_all(page, "80")  # careless: the shuffled translation scored as the others
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#submit-status.error")
    warning = page.locator("#submit-status").text_content()
    assert warning.startswith("Please pay more attention") and "words out of order" in warning
    assert page_slot(page) == slot  # the same page, to answer again
    assert _judged(slot) == 0
    page.locator("#submit-status").scroll_into_view_if_needed()
    _shot(page, f"cdoc-loud-check-warning-{viewport}", full_page=True)
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert outcome.kind == "contrastive" and outcome.warned and not outcome.passed
    page.keyboard.press("Control+Enter")  # answered again: recorded whatever it is
    _left(page, slot)
    assert _judged(slot) == 4
    outcome.refresh_from_db()
    assert outcome.passed_again is False


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_results_show_a_contrastive_tasks_page_scores(
    page, live_server, launched, loaded_campaign, make_annotator, manager, viewport
):
    task = launched(
        "contrastive_esa", unit="document", page_size=5, document_score=True, judgments_per_item=2
    )
    for name in ("ann1", "ann2"):
        judge_pages(task, make_annotator(loaded_campaign, name), careless, scores=True)
    log_in(page, live_server, "manager", "manager-password-1")
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    else:
        page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/")
    table = page.locator(f"#document-scores-{task.id} + .table-wrap table")
    assert table.locator("tbody tr").count() == 3
    assert table.locator("tbody tr").first.locator("td").nth(3).inner_text() == "6"
    link = page.locator(f"a[href*='judgments.pages.csv?task={task.id}']")
    assert link.count() == 1
    page.locator(f"#document-scores-{task.id}").scroll_into_view_if_needed()
    _shot(page.locator(f"#task-{task.id}"), f"cdoc-results-page-scores-{viewport}")
