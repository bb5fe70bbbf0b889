"""WMT26's shuffled-translation check on a silent cESA task, in headless Chromium (issue 24
§2; the loud one is tests/browser/test_shuffle_check.py): the screen with one translation's
words shuffled, scored like the clean ones, goes through with no warning; the failure is only
recorded."""

from pathlib import Path

import pytest

from annotation.models import CheckOutcome, Judgment
from tests.browser.test_annotate_keyboard import next_item
from tests.browser.test_shuffle_check import _score_all, to_first_shuffle_check

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "qc-shots"


def test_a_silent_shuffle_check_only_records(page, check_task):
    slot, cards = to_first_shuffle_check(page, check_task, "silent")
    _score_all(page, "80", cards)  # careless: the shuffled one scored as the others
    next_item(page, slot)  # no warning: on to the next screen at once
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "shuffle-silent-next-screen.png"), full_page=True)
    status = page.locator("#submit-status")
    assert status.is_hidden() or "out of order" not in (status.text_content() or "")
    assert Judgment.objects.get(slot_id=int(slot)).candidate_scores == [80] * cards
    outcome = CheckOutcome.objects.get(slot_id=int(slot))
    assert outcome.kind == "contrastive" and not outcome.passed
    assert not outcome.loud and not outcome.warned and outcome.passed_again is None
