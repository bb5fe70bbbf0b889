"""Every task type completed with the keyboard only, in headless Chromium."""

from pathlib import Path

import pytest

from annotation.models import Judgment
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def start(page, live_server, task, user, password):
    log_in(page, live_server, user.username, password)
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#judgment")


def next_item(page, previous_slot):
    page.wait_for_function(
        "slot => !document.querySelector('input[name=slot]') ||"
        " document.querySelector('input[name=slot]').value !== slot",
        arg=previous_slot,
    )


def current_slot(page):
    return page.locator("input[name=slot]").get_attribute("value")


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("task_type", ["adequacy", "fluency", "adequacy_fluency"])
def test_likert_with_number_keys(
    page, live_server, launched, loaded_campaign, make_annotator, task_type
):
    task = launched(task_type, context_size=1 if task_type == "adequacy" else 0)
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    if task_type == "fluency":
        assert page.locator(".text-card.source").count() == 0  # the translation alone
        assert page.locator(".text-card.reference").count() == 0
    shoot(page, f"{task_type}")
    for score in ("4", "2"):
        slot = current_slot(page)
        page.keyboard.press(score)
        if task_type == "adequacy_fluency":
            page.keyboard.press("5")
        page.keyboard.press("Enter")
        next_item(page, slot)
    judgments = list(Judgment.objects.order_by("id").values_list("score", "fluency"))
    expected_fluency = 5 if task_type == "adequacy_fluency" else None
    assert judgments == [(4, expected_fluency), (2, expected_fluency)]


def test_pairwise_with_a_b_t(page, live_server, launched, loaded_campaign, make_annotator):
    task = launched("pairwise", show_reference=True)
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    shoot(page, "pairwise")
    for key in ("a", "t", "b"):
        slot = current_slot(page)
        page.keyboard.press(key)
        page.keyboard.press("Enter")
        next_item(page, slot)
    assert list(Judgment.objects.order_by("id").values_list("preference", flat=True)) == [
        "A",
        "T",
        "B",
    ]


def test_ranking_with_arrows_and_numbers(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("ranking", ranking_size=3)
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    shoot(page, "ranking")
    slot = current_slot(page)
    rows = page.locator(".rank-row").count()
    # Rank the first translation 2, then (moving down automatically) the others 1, 2, ...
    keys = ["2", "1"] + ["2"] * (rows - 2)
    for key in keys:
        page.keyboard.press(key)
    # Focus stays on the last translation; go up one and change its rank to 1.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    next_item(page, slot)
    expected = [int(key) for key in keys]
    expected[rows - 2] = 1
    assert Judgment.objects.get().ranks == expected


def test_post_editing_with_typing_and_enter(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("postedit")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    shoot(page, "postedit")
    mt = page.locator("textarea.post-edit").input_value()
    slot = current_slot(page)
    page.keyboard.type(" Ende")  # the cursor starts at the end of the MT output
    page.keyboard.press("Enter")
    next_item(page, slot)
    judgment = Judgment.objects.get()
    assert judgment.post_edit == mt + " Ende"
    assert 0 < judgment.hter < 100  # percent, as TER


def test_resume_after_closing_the_browser(
    browser, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    context = browser.new_context()
    page = context.new_page()
    start(page, live_server, task, ann, "ann-pw-123")
    slot = current_slot(page)
    context.close()  # the browser is closed mid-item
    context = browser.new_context()
    page = context.new_page()
    start(page, live_server, task, ann, "ann-pw-123")
    assert current_slot(page) == slot
    context.close()


def test_done_page(page, live_server, launched, loaded_campaign, make_annotator):
    from annotation.models import Slot

    task = launched("fluency")
    ann = make_annotator(loaded_campaign, "ann")
    Slot.objects.filter(task=task).exclude(
        id=Slot.objects.filter(task=task).order_by("position").first().id
    ).update(state=Slot.State.DONE)
    start(page, live_server, task, ann, "ann-pw-123")
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=All done, thank you!")
    shoot(page, "done")


def test_direct_assessment_0_to_100_by_typing(
    page, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", scale="da100")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    shoot(page, "adequacy-da100")
    slot = current_slot(page)
    page.keyboard.type("73")  # the score box has the focus
    page.keyboard.press("Enter")
    next_item(page, slot)
    assert Judgment.objects.get().score == 73


def test_pairwise_side_by_side_scores(page, live_server, launched, loaded_campaign, make_annotator):
    task = launched("pairwise", scale="da100")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    shoot(page, "pairwise-da100")
    slot = current_slot(page)
    page.keyboard.type("35")
    page.keyboard.press("Tab")
    page.keyboard.type("80")
    page.keyboard.press("Enter")
    next_item(page, slot)
    judgment = Judgment.objects.get()
    assert (judgment.candidate_scores, judgment.preference) == ([35, 80], "B")


def test_the_next_item_comes_without_a_page_load(
    page, live_server, launched, loaded_campaign, make_annotator
):
    """One round trip per judgment: the submit's answer carries the next item, swapped into
    the same document; the keys keep working on it, and a reload resumes the item shown."""
    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    page.evaluate("window.sameDocument = true")
    for score in ("4", "3"):
        slot = current_slot(page)
        page.keyboard.press(score)
        page.keyboard.press("Enter")
        next_item(page, slot)
    assert page.evaluate("window.sameDocument") is True  # never navigated
    assert page.url == f"{live_server.url}/annotate/{task.id}/"
    assert page.locator("#submit-status").is_hidden()
    shown = current_slot(page)
    page.reload()
    page.wait_for_selector("#judgment")
    assert current_slot(page) == shown
    assert list(Judgment.objects.order_by("id").values_list("score", flat=True)) == [4, 3]


def test_a_batch_done_stop_between_batches(
    page, live_server, launched, loaded_campaign, make_annotator
):
    """Issue 21 §3: the last item of a batch leads to the "batch done" screen; the annotator
    goes on with its button (Enter on the focused link)."""
    task = launched("fluency", batch_size=2)
    ann = make_annotator(loaded_campaign, "ann")
    start(page, live_server, task, ann, "ann-pw-123")
    for _ in range(2):
        slot = current_slot(page)
        page.keyboard.press("3")
        page.keyboard.press("Enter")
        next_item(page, slot)
    page.wait_for_selector("#batch-done")
    assert "?after=batch" in page.url
    shoot(page, "batch-done")
    page.click("#next-batch")
    page.wait_for_selector("#judgment")
    assert Judgment.objects.count() == 2
