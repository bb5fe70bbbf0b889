"""WMT26's shuffled-translation check in headless Chromium (issue 24 §2): on a loud cESA
task, a screen with one translation's words shuffled, scored like the clean ones, is
refused with a warning and answered again; the outcome is recorded as a failed check whose
second answer failed too. Screenshot into ../cqc-shots (outside the repo)."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, ItemType, Judgment, Slot
from tests.browser.conftest import to_first_check
from tests.browser.test_annotate_keyboard import current_slot, next_item

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "cqc-shots"


def _is_shuffle_check(slot_id: str) -> bool:
    return Slot.objects.get(id=int(slot_id)).item.item_type == ItemType.CHK


def _score_all(page, value: str, candidates: int):
    """No error marked; every translation scored ``value`` with the keyboard (Enter from a
    translation to its score, from a score to the next translation; after the last: submit)."""
    page.wait_for_function(
        "document.activeElement && document.activeElement.matches('.contrast-editor')"
    )
    for _ in range(candidates):
        page.keyboard.press("Enter")
        page.keyboard.type(value)
        page.keyboard.press("Enter")


def to_first_shuffle_check(page, check_task, feedback: str) -> tuple[str, int]:
    """A cESA task with shuffled-translation checks, every screen scored 80 until a check is
    shown: its slot and its number of translations."""
    check_task(
        "contrastive_esa",
        feedback,
        shuffle_rate=0.25,
        batch_size=12,
        items_per_annotator=12,
        show_reference=False,
    )
    slot, _ = to_first_check(
        page,
        _is_shuffle_check,
        lambda page: _score_all(page, "80", page.locator("section.contrast").count()),
        screens=16,
        what="shuffled-translation check",
    )
    return slot, page.locator("section.contrast").count()


def test_a_loud_shuffle_check_warns_and_takes_the_second_answer(page, check_task):
    slot, cards = to_first_shuffle_check(page, check_task, "loud")
    _score_all(page, "80", cards)  # careless: the shuffled one scored as the others
    page.wait_for_selector("#submit-status:not([hidden])")
    warning = page.locator("#submit-status").text_content()
    assert "words out of order" in warning
    assert current_slot(page) == slot  # the same screen, to answer again
    assert not Judgment.objects.filter(slot_id=int(slot)).exists()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "loud-shuffle-check-warning.png"), full_page=True)
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert outcome.kind == "contrastive" and outcome.warned and not outcome.passed
    assert outcome.passed_again is None
    page.locator("input.score-box").last.focus()
    page.keyboard.press("Enter")  # answered again: recorded whatever it is
    next_item(page, slot)
    judgment = Judgment.objects.get(slot_id=int(slot))
    assert judgment.candidate_scores == [80] * cards
    outcome.refresh_from_db()
    assert outcome.passed_again is False


def test_the_reliability_table_of_an_esa_task(
    page, live_server, launched, loaded_campaign, make_annotator, manager
):
    """The ESA task's reliability table with a steady rater, a hasty one (too fast,
    straight-lining, failing its checks) and one who drifts on repeats; screenshot."""
    from tests.browser.conftest import log_in
    from tests.test_span_reliability import _judge, hasty_esa, steady_esa

    task = launched(
        "esa", bad_reference_rate=0.25, repeat_rate=0.25, batch_size=12, items_per_annotator=12
    )

    def drifting(task, slot):
        answer = steady_esa(task, slot)
        return {**answer, "score": 20} if slot.is_repeat else answer

    for name, answer, seconds in [("steady", steady_esa, 10), ("hasty", hasty_esa, 1)]:
        _judge(task, make_annotator(loaded_campaign, name), answer, seconds)
    _judge(task, make_annotator(loaded_campaign, "drifting"), drifting, 14)
    log_in(page, live_server, "manager", "manager-password-1")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/?passing=1")
    table = page.locator(f"#reliability-{task.id} + .table-wrap table")
    assert table.locator("tbody tr").count() == 3
    assert table.locator("tr[data-passes='0']").count() == 2  # hasty, drifting
    section = page.locator(f"#task-{task.id}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SHOTS / "esa-reliability-table.png"))
