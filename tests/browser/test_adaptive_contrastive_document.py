"""In headless Chromium: the page of an adaptive cESA document task (the systems sharing it
chosen at claim time), completed with the keyboard alone, at 1280 px and at 390 px; the
page shows the claimed set's three outputs and records them for that set; screenshots for
a person to look at (var/screenshots/adaptive-cdoc-*.png)."""

import pytest

from annotation.models import Batch, Judgment, OutputJudgment, Slot
from annotation.services.campaigns import membership_set
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import shoot
from tests.browser.test_contrastive_document import PHONE, focused_is, page_slot, score_segment
from tests.test_adaptive_contrastive import _stratum_names, expected_stratum
from tests.test_adaptive_contrastive_documents import document_campaign, launch

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_an_adaptive_contrastive_document_page_with_the_keyboard_alone(
    page, live_server, manager, django_user_model, viewport
):
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    campaign = document_campaign(manager, documents=4)
    task = launch(campaign)
    django_user_model.objects.create_user("ann", password="ann-pw-123")
    annotator = django_user_model.objects.get(username="ann")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    wanted = expected_stratum(task, annotator.id)
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#contrastive-page")
    focused_is(page, ".cdoc-editor")
    first = page_slot(page)
    slot = Slot.objects.get(id=int(first))
    assert Batch.objects.get(id=slot.batch_id).stratum == wanted  # the claim's set
    assert page.locator(".cdoc-segment").count() == 2
    assert page.locator(".cdoc-candidate").count() == 6
    shoot(page, f"adaptive-cdoc-{viewport}")
    score_segment(page, [80, 60, 40])
    score_segment(page, [75, 55, 35])
    shoot(page, f"adaptive-cdoc-filled-{viewport}")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "slot => { const p = document.querySelector('input[name=page]');"
        " return p && p.value !== slot; }",
        arg=first,
    )
    judgments = Judgment.objects.filter(slot__batch_id=slot.batch_id, slot__page=slot.page)
    assert sorted(j.candidate_scores for j in judgments) == [[75, 55, 35], [80, 60, 40]]
    shown = set(
        OutputJudgment.objects.filter(judgment__in=judgments).values_list("system__name", flat=True)
    )
    assert shown == _stratum_names(campaign, wanted)
