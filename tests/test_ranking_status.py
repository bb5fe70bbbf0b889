"""The live ranking status (issue 23, section 2) on the human results page and its API, the
equivalence margin setting, and the budget planner on the task page."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from rest_framework.test import APIClient
from statsmodels.stats.power import NormalIndPower

from annotation.services.imports import upload_import
from annotation.services.task_changes import task_update
from annotation.services.tasks import task_create, task_launch
from metrics.adaptive import judgments_needed
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

SEGMENTS = 40
ANNOTATORS = 4


def _lines(word: str) -> bytes:
    return "".join(f"{word} {i} text\n" for i in range(SEGMENTS)).encode()


def _campaign_task(campaign, manager, make_annotator, means: dict[str, float], spread: float):
    """An adequacy task on 0-100, every item judged by all four annotators, each system's
    scores drawn around its planted mean."""
    upload_import(campaign=campaign, kind="source", files=[("s.en", _lines("src"))], user=manager)
    for name in means:
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            files=[("x.de", _lines(name))],
            user=manager,
        )
    task = task_create(
        seed=12345,
        campaign=campaign,
        task_type="adequacy",
        scale="da100",
        judgments_per_item=ANNOTATORS,
    )
    task_launch(task_id=task.id)
    users = [make_annotator(campaign, f"ann{i}") for i in range(ANNOTATORS)]

    def answer(user, slot):
        # Seeded by what the slot is, not by database ids (sequences differ between runs).
        name = slot.item.system.name
        rng = random.Random(f"{user.username} {name} {slot.item.segment.index}")
        score = means[name] + rng.gauss(0.0, spread)
        return {"score": int(min(100, max(0, round(score))))}

    judge_all(task, users, answer)
    return task


def _status(client: APIClient, campaign, task) -> dict:
    response = client.get(f"/api/v1/campaigns/{campaign.id}/results/human")
    assert response.status_code == 200, response.content[:300]
    (mine,) = [t for t in response.json()["tasks"] if t["id"] == task.id]
    (status,) = mine["ranking_status"]
    return status


@pytest.fixture
def api(manager):
    client = APIClient()
    client.force_authenticate(manager)
    return client


@pytest.fixture
def page(manager):
    client = Client()
    client.force_login(manager)
    return client


def test_well_separated_systems_are_settled(campaign, manager, make_annotator, api, page):
    task = _campaign_task(
        campaign, manager, make_annotator, {"best": 85, "middle": 50, "worst": 15}, 8.0
    )
    status = _status(api, campaign, task)
    assert status["settled"] is True
    assert [s["system"] for s in status["systems"]] == ["best", "middle", "worst"]
    assert [p["status"] for p in status["pairs"]] == ["resolved", "resolved"]
    assert status["still_needed"] == 0
    assert status["delta"] == 0
    for system in status["systems"]:
        low, high = system["interval"]
        assert system["judgments"] == SEGMENTS * ANNOTATORS
        assert low < system["mean"] < high
    for pair in status["pairs"]:
        assert pair["interval"][0] > 0  # z is higher-is-better: the upper system's lead
    html = page.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert "Ranking status" in html
    assert "The ranking is settled" in html
    assert html.count("resolved: above") == 2


def test_identical_systems_stay_open_at_margin_zero_and_are_equivalent_at_a_wide_one(
    campaign, manager, make_annotator, api, page
):
    task = _campaign_task(campaign, manager, make_annotator, {"a": 50, "b": 50, "c": 50}, 15.0)
    status = _status(api, campaign, task)
    assert status["settled"] is False
    assert "resolved" not in [p["status"] for p in status["pairs"]]
    assert "open" in [p["status"] for p in status["pairs"]]
    html = page.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert "still open" in html
    assert "The ranking is settled" not in html

    task_update(task_id=task.id, campaign=campaign, equivalence_margin=1.0)
    status = _status(api, campaign, task)
    assert status["delta"] == 1.0
    assert status["settled"] is True
    assert [p["status"] for p in status["pairs"]] == ["equivalent", "equivalent"]
    for pair in status["pairs"]:
        assert -1.0 < pair["interval"][0] <= 0 <= pair["interval"][1] < 1.0
    html = page.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert "The ranking is settled" in html
    assert html.count("equivalent to") == 2


def test_equivalence_margin_is_a_bounded_setting_editable_after_launch(launched, api):
    task = launched("adequacy")
    url = f"/api/v1/campaigns/{task.campaign_id}/tasks/{task.id}"
    response = api.patch(url, {"equivalence_margin": -1}, format="json")
    assert response.status_code == 400, response.content
    response = api.patch(url, {"equivalence_margin": 0.25}, format="json")
    assert response.status_code == 200, response.content
    task.refresh_from_db()
    assert task.equivalence_margin == 0.25
    # Not a setting of protocols whose status is not computed.
    response = api.post(
        f"/api/v1/campaigns/{task.campaign_id}/tasks",
        {"task_type": "ranking", "equivalence_margin": 0.5},
        format="json",
    )
    assert response.status_code == 400, response.content


def _planner(page, task, **query) -> str:
    url = f"/campaigns/{task.campaign_id}/tasks/{task.id}/edit/"
    response = page.get(url, query)
    assert response.status_code == 200
    return response.content.decode()


def test_planner_shows_judgments_needed(launched, page):
    task = launched("adequacy")  # three systems in the campaign
    html = _planner(page, task, plan_sd="1", plan_difference="0.2")
    for design in ("sequential", "fixed"):
        budget = judgments_needed(sd=1.0, min_difference=0.2, systems=3, design=design)
        assert f'<td class="num">{budget.per_system}</td>' in html
        assert f'<td class="num">{budget.total}</td>' in html
    # By hand: the fixed design is statsmodels' two-sample z-test, effect 0.2 SD.
    by_hand = NormalIndPower().solve_power(effect_size=0.2, alpha=0.05, power=0.8, ratio=1.0)
    fixed = judgments_needed(sd=1.0, min_difference=0.2, systems=3, design="fixed")
    assert fixed.per_system == 393 == -int(-by_hand // 1)
    assert fixed.total == 3 * 393
    assert '<td class="num">393</td>' in html
    # The sequential design pays for peeking: more judgments than the fixed one.
    sequential = judgments_needed(sd=1.0, min_difference=0.2, systems=3)
    assert sequential.per_system > fixed.per_system


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"plan_sd": "abc"}, "the score SD must be a number"),
        ({"plan_sd": "0"}, "the score SD must be a positive number"),
        ({"plan_difference": "nan"}, "the smallest difference must be a positive number"),
        ({"plan_systems": "1"}, "the number of systems must be a whole number"),
        ({"plan_systems": "²"}, "the number of systems must be a whole number"),
    ],
)
def test_planner_explains_bad_assumptions(launched, page, query, message):
    task = launched("adequacy")
    html = _planner(page, task, **query)
    assert "Cannot plan: " + message in html
