"""What an annotator can never read: other annotators' judgments, other campaigns, the
systems behind the outputs they judge, and any result."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Judgment, Slot
from annotation.services.assignment import slot_claim_next
from annotation.services.tasks import HUMAN
from tests.conftest import answer_for
from tests.security_world import (
    ALL_SYSTEM_NAMES,
    ANN,
    ANN_OTHER,
    MGR_OTHER,
    SYSTEMS,
    TASK_SETTINGS,
    World,
    world_for_module,
)

pytestmark = pytest.mark.django_db

ITEMS_PER_TYPE = 8  # items walked through in each task type (with its QC items among them)
NEXT_ITEM_KEYS = {
    "done",
    "slot",
    "task_type",
    "scale",
    "source",
    "source_media",  # kind, MIME type, the file's URL and the transcript, or null
    "reference",
    "context_before",
    "context_after",
    "candidates",
    "judged",
    "skipped",
    "total",
    # Error-span tasks: the typology and the spans pre-filled on the item (offsets and
    # severities, no system name).
    "mqm_categories",
    "prefilled_spans",
}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    with world_for_module(django_db_blocker) as built:
        yield built


def logged_in(world: World, role: str) -> Client:
    client = Client()
    client.force_login(world.users[role])
    return client


def result_urls(world: World) -> list[str]:
    """Every page, download and API answer that shows a campaign's systems or results."""
    campaign = {"campaign_id": world.campaign.id}
    pairwise = world.tasks["pairwise"].id

    def fmt(value: str) -> dict[str, object]:
        return {**campaign, "fmt": value}

    return [
        reverse("campaign-detail", kwargs=campaign),
        reverse("campaign-systems", kwargs=campaign),
        reverse("results-automatic", kwargs=campaign),
        reverse("results-automatic-download", kwargs=fmt("csv")),
        reverse("results-automatic-download", kwargs=fmt("json")),
        reverse("results-human", kwargs=campaign),
        *(reverse("results-human-judgments", kwargs=fmt(f)) for f in ("csv", "jsonl", "appraise")),
        reverse("results-human-judgments", kwargs=fmt("wmt")) + f"?task={pairwise}",
        reverse("results-human-rankings", kwargs=fmt("csv")),
        reverse("results-human-rankings", kwargs=fmt("json")),
        reverse("api-campaign", kwargs=campaign),
        reverse("api-systems", kwargs=campaign),
        reverse("api-results-automatic", kwargs=campaign),
        reverse("api-results-human", kwargs=campaign),
        reverse("api-results-human-judgments", kwargs=fmt("csv")),
        reverse("api-results-human-judgments", kwargs=fmt("jsonl")),
    ]


def assert_names_no_system(text: str, where: str) -> None:
    # "Human" is the name the reference is judged under: a reference item must not say so.
    named = [name for name in (*ALL_SYSTEM_NAMES, HUMAN) if name in text]
    assert not named, f"{where} names the systems {named}"
    assert "Sysname" not in text, where


@pytest.mark.parametrize("task_type", list(TASK_SETTINGS))
def test_no_system_name_on_the_annotator_page_or_in_the_next_item(
    task_type: str, world: World
) -> None:
    client = logged_in(world, ANN)
    task = world.tasks[task_type]
    page_url = reverse("annotate", kwargs={"task_id": task.id})
    next_url = reverse("api-next-item", kwargs={"task_id": task.id})
    item_types = set()
    for _ in range(ITEMS_PER_TYPE):
        body = client.get(next_url).json()
        if body["done"]:
            break
        assert set(body) == NEXT_ITEM_KEYS
        assert all(set(c) == {"label", "text"} for c in body["candidates"]), body["candidates"]
        assert_names_no_system(json.dumps(body, ensure_ascii=False), f"next item of {task_type}")
        page = client.get(page_url)
        assert page.status_code == 200
        html = page.content.decode()
        assert f'name="slot" value="{body["slot"]}"' in html  # the page shows the same item
        assert_names_no_system(html, f"the {task_type} page")
        slot = Slot.objects.select_related("item").get(id=body["slot"])
        item_types.add(slot.item.item_type)
        answer = answer_for(task_type, len(body["candidates"]))
        response = client.post(
            reverse("api-judgments"),
            {"task": task.id, "slot": body["slot"], **answer},
            content_type="application/json",
        )
        assert response.status_code == 201, response.content
        answered = response.json()
        assert set(answered) == {
            "id",
            "status",
            "message",
            "hter",
            "duration_ms",
            "batch_closed",
            "next",
        }
        assert set(answered["next"]) == NEXT_ITEM_KEYS  # the next item, anonymised as well
        assert_names_no_system(json.dumps(answered, ensure_ascii=False), "a judgment's answer")
    assert item_types, "no item was shown"
    for url in (reverse("task-list"), page_url):
        assert_names_no_system(client.get(url).content.decode(), url)


@pytest.mark.parametrize("task_type", ["pairwise", "ranking"])
def test_the_position_of_an_output_does_not_give_its_system_away(
    task_type: str, world: World
) -> None:
    """Outputs are shown in random order: every system is shown first and not first."""
    positions = defaultdict(set)
    for candidates in world.tasks[task_type].items.values_list("candidates", flat=True):
        for position, candidate in enumerate(candidates):
            for system in candidate["systems"]:
                positions[system].add(min(position, 1))
    assert set(positions) >= set(SYSTEMS)
    assert all(seen == {0, 1} for seen in positions.values()), dict(positions)


def test_an_annotator_cannot_read_or_touch_another_annotators_judgments(world: World) -> None:
    client = logged_in(world, ANN)
    task = world.tasks["adequacy"]
    theirs = Judgment.objects.get(slot=world.judged_by_annotator2)
    before = Judgment.objects.values().get(id=theirs.id)
    answer = {"task": task.id, "slot": world.judged_by_annotator2.id, "score": 1}
    response = client.post(reverse("api-judgments"), answer, content_type="application/json")
    assert response.status_code == 409
    assert set(response.json()) == {"error", "code"}  # nothing of their judgment comes back
    # A slot leased to the other annotator right now is refused as well.
    leased = slot_claim_next(task=task, annotator_id=world.annotator2.id)
    assert leased is not None
    answer["slot"] = leased.id
    response = client.post(reverse("api-judgments"), answer, content_type="application/json")
    assert response.status_code == 409
    assert set(response.json()) == {"error", "code"}
    # The same through the page.
    submit = reverse("annotate-submit", kwargs={"task_id": task.id})
    for slot in (world.judged_by_annotator2.id, leased.id):
        page = client.post(submit, {"slot": slot, "score": "1", "candidates": "1"}, follow=True)
        assert page.status_code == 200
        assert "Not saved" in page.content.decode()
        assert world.annotator2.username not in page.content.decode()
    assert Judgment.objects.values().get(id=theirs.id) == before
    assert not Judgment.objects.filter(slot_id=leased.id).exists()
    assert Slot.objects.get(id=leased.id).annotator_id == world.annotator2.id
    # The progress an annotator sees counts their own judgments only.
    body = client.get(reverse("api-next-item", kwargs={"task_id": task.id})).json()
    assert body["judged"] == Judgment.objects.filter(task=task, annotator=world.users[ANN]).count()


def test_an_annotator_reads_no_result_of_their_campaign(world: World) -> None:
    client = logged_in(world, ANN)
    for url in result_urls(world):
        response = client.get(url)
        assert response.status_code == 403, url
        text = b"".join(response.streaming_content) if response.streaming else response.content
        assert_names_no_system(text.decode(), url)
        assert world.annotator2.username not in text.decode(), url


def test_an_annotator_of_another_campaign_learns_nothing_of_it(world: World) -> None:
    client = logged_in(world, ANN_OTHER)
    for url in result_urls(world) + [
        reverse(name, kwargs={"task_id": task.id})
        for task in world.tasks.values()
        for name in ("annotate", "api-next-item")
    ]:
        response = client.get(url)
        assert response.status_code == 404, url
        assert world.campaign.name not in response.content.decode(), url
    tasks = client.get(reverse("task-list")).content.decode()
    assert world.other.name in tasks and world.campaign.name not in tasks
    campaigns = client.get(reverse("api-campaigns")).json()
    assert [c["name"] for c in campaigns] == [world.other.name]
    answer = {"task": world.tasks["adequacy"].id, "slot": world.leased.id, "score": 3}
    response = client.post(reverse("api-judgments"), answer, content_type="application/json")
    assert response.status_code == 404
    assert not Judgment.objects.filter(slot_id=world.leased.id).exists()


def test_an_annotator_lists_only_their_campaign_and_no_system(world: World) -> None:
    client = logged_in(world, ANN)
    campaigns = client.get(reverse("api-campaigns")).json()
    assert [(c["name"], c["role"]) for c in campaigns] == [(world.campaign.name, "annotator")]
    assert_names_no_system(json.dumps(campaigns), "the campaign list")
    tasks = client.get(reverse("task-list")).content.decode()
    assert world.campaign.name in tasks and world.other.name not in tasks
    assert client.get(reverse("home")).url == reverse("task-list")


def test_a_manager_of_another_campaign_does_not_see_this_one(world: World) -> None:
    client = logged_in(world, MGR_OTHER)
    home = client.get(reverse("home")).content.decode()
    assert world.other.name in home and world.campaign.name not in home
    campaigns = client.get(reverse("api-campaigns")).json()
    assert [c["name"] for c in campaigns] == [world.other.name]
