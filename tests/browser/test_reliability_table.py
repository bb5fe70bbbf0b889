"""The reliability table and the "only annotators who pass" switch in headless Chromium: the
careless raters flagged, both rankings side by side, and the one button that excludes them
(each brought back by "Include again")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotation.models import AnnotatorExclusion
from tests.browser.conftest import log_in
from tests.browser.test_invitation_join import shot
from tests.reliability_support import raters_judge

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
RATERS = {"careful1": "careful", "careful2": "careful", "random": "random", "fast": "fast"}
RATERS |= {"constant": "constant"}


def test_switch_shows_both_rankings_and_excludes_those_who_fail(
    page, live_server, launched, loaded_campaign, make_annotator, manager
):
    task = launched(
        "adequacy", judgments_per_item=5, bad_reference_rate=0.25, repeat_rate=0.15, seed=7
    )
    users = {make_annotator(loaded_campaign, name): kind for name, kind in RATERS.items()}
    raters_judge(task=task, raters=users, start=timezone.now() - timedelta(days=1), seed=3)
    manager.set_password("manager-password-1")
    manager.save()

    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/")
    table = page.locator("table.reliability")
    expect(table.locator("tr[data-passes='0']")).to_have_count(3)
    expect(table.locator("tr", has_text="fast")).to_contain_text("too fast: median")
    expect(table.locator("tr", has_text="constant")).to_contain_text("straight-lining")
    page.click("text=Only annotators who pass: off")
    expect(page.locator("text=Only annotators who pass: on")).to_be_visible()
    expect(page.locator("ul.dropped li")).to_have_count(3)
    expect(page.locator("table.side-by-side").first).to_contain_text("Only annotators who pass")
    shot(page, "reliability-switch")

    page.click("text=Exclude these 3 from this task")
    expect(page.locator(".messages")).to_contain_text("3 annotators who fail")
    assert {e.annotator.username for e in AnnotatorExclusion.objects.all()} == {
        "random",
        "fast",
        "constant",
    }
    expect(page.locator("table.reliability tr.excluded")).to_have_count(3)
    page.locator("table.quality:not(.reliability) tr", has_text="fast").locator(
        "text=Include again"
    ).click()
    expect(page.locator(".messages")).to_contain_text("counts again")
    assert AnnotatorExclusion.objects.count() == 2
