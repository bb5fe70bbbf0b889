"""One unit for the judgment budget (issue 23): the budget planner's total, the live estimate
of what is still needed and the stop's notice count what the budget counts -- judgments as
recorded, a contrastive task's screens (annotation/selectors/budget.py) -- not the ranking's
observations (a screen's outputs, a document's pages). Before, a contrastive organiser who
planned 1,200 judgments and typed 1,200 as the budget bought 3,600 outputs."""

from __future__ import annotations

import math
import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Judgment, OutputJudgment, TaskNotice
from annotation.selectors.adaptive import figures_from_sums
from annotation.selectors.human.ranking_status import task_statuses
from annotation.services.tasks import task_create
from metrics.adaptive import judgments_needed
from tests.test_adaptive_contrastive import (
    annotators,
    contrastive_campaign,
    judge_batch_as_claimed,
    launch,
    refresh,
)

pytestmark = pytest.mark.django_db

DESIGNS = ("sequential", "fixed")


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _planner(client: Client, task, **query) -> tuple[list[int], str]:
    """The planner's totals in the budget's unit, one per design, and the page."""
    url = f"/campaigns/{task.campaign_id}/tasks/{task.id}/edit/"
    response = client.get(url, query)
    assert response.status_code == 200
    html = response.content.decode()
    totals = re.findall(r'<td class="num budget-judgments">(\d+)</td>', html)
    return [int(total) for total in totals], html


def test_the_planner_counts_a_contrastive_task_in_screens(manager):
    campaign = contrastive_campaign(manager)  # five systems
    task = task_create(campaign=campaign, task_type="contrastive_esa", ranking_size=3, seed=5)
    totals, html = _planner(_logged_in(manager), task, plan_sd="12", plan_difference="5")
    assert len(totals) == len(DESIGNS)
    for design, screens in zip(DESIGNS, totals, strict=True):
        outputs = judgments_needed(sd=12.0, min_difference=5.0, systems=5, design=design)
        # Three outputs a screen: a third of the outputs, not the outputs themselves.
        assert screens == math.ceil(outputs.total / 3), (design, screens, outputs.total)
    assert "Outputs per system" in html and "Screens in all: the judgment budget" in html


def test_the_planner_counts_a_document_task_in_segments(launched, manager):
    task = launched("esa", unit="document", page_size=4)  # three systems
    totals, html = _planner(_logged_in(manager), task, plan_sd="10", plan_difference="5")
    for design, judgments in zip(DESIGNS, totals, strict=True):
        pages = judgments_needed(sd=10.0, min_difference=5.0, systems=3, design=design)
        assert judgments == pages.total * 4  # the status counts pages, the budget segments
    assert "Pages per system" in html and "Judgments in all: the judgment budget" in html


def test_a_one_output_task_plans_in_judgments(launched, manager):
    task = launched("esa")
    totals, _ = _planner(_logged_in(manager), task, plan_sd="10", plan_difference="5")
    expected = [
        judgments_needed(sd=10.0, min_difference=5.0, systems=3, design=design).total
        for design in DESIGNS
    ]
    assert totals == expected


def test_the_live_estimate_of_a_contrastive_task_is_in_screens(manager):
    campaign = contrastive_campaign(manager)
    task = launch(campaign, judgment_budget=1000)
    users = annotators(campaign, 2)
    for _ in range(3):
        for user in users:
            judge_batch_as_claimed(task, user)
            refresh(task)
    screens = Judgment.objects.filter(task=task).count()
    outputs = OutputJudgment.objects.filter(task=task, system__isnull=False).count()
    assert outputs > 2 * screens  # up to three outputs a screen
    (status,) = task_statuses(task, rolling=True)
    assert (status.unit, status.budget_unit) == ("output", "screen")
    assert status.observations == outputs
    assert not status.settled and status.needed_known
    needed = math.ceil(status.still_needed * screens / outputs - 1e-9)
    assert status.needed_judgments == needed < status.still_needed / 2
    # The refresh's figures (what stops the task) say the same.
    (refreshed,) = figures_from_sums(task, judgments=screens).statuses
    assert refreshed.needed_judgments == needed
    # The results page and the API name the unit.
    html = _logged_in(manager).get(reverse("results-human", args=[campaign.id])).content.decode()
    assert f"About {needed} more screens should settle it" in html
    api = APIClient()
    api.force_authenticate(manager)
    body = api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    (shown,) = next(t for t in body["tasks"] if t["id"] == task.id)["ranking_status"]
    assert (shown["unit"], shown["budget_unit"]) == ("output", "screen")
    assert shown["still_needed_judgments"] == needed


def test_a_contrastive_task_stops_at_its_budget_in_screens(manager):
    campaign = contrastive_campaign(manager)
    task = launch(campaign, judgment_budget=8)  # two batches of four screens
    users = annotators(campaign, 2)
    while any(judge_batch_as_claimed(task, user) is not None for user in users):
        refresh(task)
    refresh(task)
    task.refresh_from_db()
    assert task.settled_reason == "budget"
    screens = Judgment.objects.filter(task=task).count()
    assert screens == 8
    notice = TaskNotice.objects.get(task=task)
    assert f"after {screens} screens" in notice.message
    assert notice.figures["unit"] == "screen" and notice.figures["budget"] == 8
    (status,) = task_statuses(task, rolling=True)
    assert notice.figures["still_needed"] == status.needed_judgments
