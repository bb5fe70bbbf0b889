"""The pages a manager or organiser meets around members, in headless Chromium: the error
pages (with the site's navigation), the exclusion confirmation naming its scope, and the
campaign form's message for a language code that is not one."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.models import AnnotatorExclusion
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import membership_set
from annotation.services.judgments import judgment_record
from tests.browser.conftest import log_in
from tests.browser.test_invitation_join import shot
from tests.conftest import answer_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-long-password-9"


def test_error_pages_exclusion_confirmation_and_language_message(
    page, live_server, launched, manager, django_user_model
):
    task = launched("adequacy")
    campaign = task.campaign
    judge = django_user_model.objects.create_user("judge", password=PASSWORD)
    membership_set(campaign=campaign, user=judge, role="annotator")
    for _ in range(2):
        slot = slot_claim_next(task=task, annotator_id=judge.id)
        judgment_record(
            task_id=task.id, slot_id=slot.id, annotator_id=judge.id, answer=answer_for("adequacy")
        )
    organiser = django_user_model.objects.create_user("org", password=PASSWORD)
    membership_set(campaign=campaign, user=organiser, role="organiser")

    log_in(page, live_server, "org", PASSWORD)
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/")
    page.click("text=Members and invitations")
    expect(page.locator("table.members")).to_contain_text("judge")
    row = page.locator("table.members tr", has_text="judge")
    expect(row.locator("td.num")).to_have_text("2")
    assert page.locator("#member-add").count() == 0  # organisers read; managers add
    shot(page, "09-members-as-organiser")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/")
    page.click("text=Exclude…")
    expect(page.locator("h1")).to_have_text("Exclude judge?")
    shot(page, "10-exclusion-confirm")
    page.click(f"text=Exclude from task #{task.id} only")
    page.wait_for_url(f"**/campaigns/{campaign.id}/results/human/")
    expect(page.locator(".messages")).to_contain_text(f"rankings and agreement of task #{task.id}")
    assert AnnotatorExclusion.objects.get(annotator=judge).task_id == task.id

    for path, code, name in (
        ("/no/such/page/", 404, "11-error-404"),
        (f"/campaigns/{campaign.id}/upload/", 405, "12-error-405"),
        ("/campaigns/new/", 403, "13-error-403"),  # organisers may not create campaigns
    ):
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == code, path
        expect(page.locator(".error-page .code")).to_have_text(str(code))
        expect(page.locator(".error-page nav a").first).to_have_text("Campaigns")
        shot(page, name)

    page.context.clear_cookies()
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/new/")
    page.fill('input[name="name"]', "Typed by a person")
    page.fill('input[name="source_language"]', "English")
    page.fill('input[name="target_language"]', "de")
    page.click("button.primary")
    expect(page.locator("label span.error")).to_contain_text("'English' is not a language code")
    shot(page, "14-language-code")
