"""Adaptive assignment in the loop and the stopping rule (issue 23 sections 1 and 2): batches
of one system each, claimed by the priorities a Celery job refreshes, a task that stops by
itself when its ranking is settled or its budget spent, and the organiser's "continue"."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import connection
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import (
    REFERENCE_STRATUM,
    Batch,
    Job,
    Judgment,
    Slot,
    SystemPriority,
    Task,
    TaskNotice,
)
from annotation.selectors.adaptive import AdaptiveFigures
from annotation.services.adaptive import task_priorities_refresh, task_settle_if_done
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record_and_claim_next
from annotation.services.task_rules import TaskError
from annotation.services.tasks import task_create
from tests.adaptive_support import (
    SEPARATED,
    adaptive_campaign,
    common_segments,
    da_answer,
    mqm_segment_scores,
)
from tests.conftest import wait_for, worker_queue_drained

ADAPTIVE = {"assignment": "adaptive", "batch_size": 4, "cold_start": 4}


def _batch_systems(task: Task) -> dict[int, set]:
    """Each batch's systems (of its items' originals, quality control included)."""
    systems: dict[int, set] = {}
    for batch_id, system_id in Slot.objects.filter(task=task).values_list(
        "batch_id", "item__system_id"
    ):
        systems.setdefault(batch_id, set()).add(system_id)
    return systems


@pytest.mark.django_db
def test_an_adaptive_launch_plans_batches_of_one_system_and_their_priorities(launched):
    task = launched("adequacy", bad_reference_rate=0.25, repeat_rate=0.25, **ADAPTIVE)
    strata = dict(Batch.objects.filter(task=task).values_list("id", "stratum"))
    for batch_id, systems in _batch_systems(task).items():
        # A bad reference is made from an output of its own system: still one system.
        assert systems == {strata[batch_id]}, systems
    assert sorted(SystemPriority.objects.filter(task=task).values_list("stratum", flat=True)) == (
        sorted(set(strata.values()))
    )
    assert len(set(strata.values())) == 3  # the campaign's three systems


@pytest.mark.django_db
def test_a_planned_launch_is_unchanged(launched):
    task = launched("adequacy", batch_size=4)
    assert set(Batch.objects.filter(task=task).values_list("stratum", flat=True)) == {0}
    assert not SystemPriority.objects.filter(task=task).exists()
    assert any(len(systems) > 1 for systems in _batch_systems(task).values())


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("task_type", "settings", "words"),
    [
        ("pairwise", {}, "do not implement assignment"),
        # Contrastive screens and pages: tests/test_adaptive_contrastive*.py.
    ],
)
def test_adaptive_is_refused_where_the_protocol_cannot_support_it(
    loaded_campaign, task_type, settings, words
):
    with pytest.raises(TaskError, match=words):
        task_create(
            campaign=loaded_campaign, task_type=task_type, assignment="adaptive", **settings
        )


@pytest.mark.django_db
def test_the_api_takes_and_shows_the_settings(loaded_campaign, manager):
    api = APIClient()
    api.force_authenticate(manager)
    url = reverse("api-tasks", args=[loaded_campaign.id])
    answer = api.post(
        url,
        {"task_type": "adequacy", "assignment": "adaptive", "cold_start": 5, "judgment_budget": 9},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["assignment"], body["cold_start"], body["judgment_budget"]) == ("adaptive", 5, 9)
    assert body["settled_at"] is None and body["settled_reason"] == ""
    refused = api.post(url, {"task_type": "adequacy", "assignment": "greedy"}, format="json")
    assert refused.status_code == 400


@pytest.mark.django_db
def test_the_cold_start_gives_each_system_in_turn(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", **ADAPTIVE)
    claimed = []
    for i in range(3):
        slot = slot_claim_next(task=task, annotator_id=make_annotator(loaded_campaign, f"a{i}").id)
        claimed.append(Batch.objects.get(id=slot.batch_id).stratum)
    assert len(set(claimed)) == 3  # three annotators, three systems
    pending = dict(SystemPriority.objects.filter(task=task).values_list("stratum", "pending"))
    assert sorted(pending.values()) == [4, 4, 4]


@pytest.mark.django_db
def test_after_the_cold_start_the_claim_follows_the_priorities(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", **ADAPTIVE)
    rows = list(SystemPriority.objects.filter(task=task).order_by("stratum"))
    wanted = rows[1].stratum
    for row in rows:  # every system past its cold start; one with most to gain
        row.judged, row.pending = 4, 0
        row.priority = 5.0 if row.stratum == wanted else 1.0
    SystemPriority.objects.bulk_update(rows, ["judged", "pending", "priority"])
    first = slot_claim_next(task=task, annotator_id=make_annotator(loaded_campaign, "a").id)
    assert Batch.objects.get(id=first.batch_id).stratum == wanted
    # Its claim discounts it (4 judged, 4 more claimed: 5 x (4/8)^2 = 1.25 > 1): still first.
    second = slot_claim_next(task=task, annotator_id=make_annotator(loaded_campaign, "b").id)
    assert Batch.objects.get(id=second.batch_id).stratum == wanted
    # Twice claimed (5 x (4/12)^2 = 0.56 < 1): another system now.
    third = slot_claim_next(task=task, annotator_id=make_annotator(loaded_campaign, "c").id)
    assert Batch.objects.get(id=third.batch_id).stratum != wanted


@pytest.mark.django_db
def test_the_refresh_counts_each_system_and_stops_a_settled_ranking(
    launched, loaded_campaign, make_annotator
):
    """Three systems scored far apart (DA 90, 50, 10, a little noise), every item judged:
    the job's refresh writes each system's judgments and stops the task, once."""
    task = launched("adequacy", scale="da100", **ADAPTIVE)
    means = {"Online-B": 90, "UEdin": 50, "happypoet": 10}
    annotator = make_annotator(loaded_campaign, "a")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    judged = 0
    while slot is not None:
        item = Slot.objects.select_related("item__system").get(id=slot.id).item
        score = means[item.system.name] + (judged % 5) - 2
        _, slot, _ = judgment_record_and_claim_next(
            task=task, slot_id=slot.id, annotator_id=annotator.id, answer={"score": score}
        )
        judged += 1
    assert judged == 36  # 12 segments x 3 systems, nothing stopped it before the refresh
    assert SystemPriority.objects.filter(task=task).count() == 3
    task_priorities_refresh(target_id=task.id, report_progress=lambda percent: None)
    rows = SystemPriority.objects.filter(task=task)
    assert sorted(row.judged for row in rows) == [12, 12, 12]
    assert {row.pending for row in rows} == {0}
    # Settled: no pair is open, so no system has anything to gain.
    assert {row.priority for row in rows} == {0.0}
    task.refresh_from_db()
    assert task.settled_reason == "resolved"
    notice = TaskNotice.objects.get(task=task)
    assert notice.figures["order"] == ["Online-B", "UEdin", "happypoet"]
    assert notice.figures["pairs"] == {"resolved": 2, "equivalent": 0, "open": 0}
    task_priorities_refresh(target_id=task.id, report_progress=lambda percent: None)
    assert TaskNotice.objects.filter(task=task).count() == 1  # idempotent


@pytest.mark.django_db
def test_no_batch_is_claimed_past_the_budget(launched, loaded_campaign, make_annotator):
    """The refresh job stops the task after the fact; the claim holds the budget to a batch."""
    task = launched("adequacy", judgment_budget=4, **ADAPTIVE)
    first = make_annotator(loaded_campaign, "a")
    assert slot_claim_next(task=task, annotator_id=first.id) is not None  # 4 slots claimed
    assert slot_claim_next(task=task, annotator_id=make_annotator(loaded_campaign, "b").id) is None
    assert slot_claim_next(task=task, annotator_id=first.id) is not None  # theirs to finish


@pytest.mark.django_db
def test_a_settled_task_hands_out_nothing_until_the_organiser_continues(
    launched, loaded_campaign, make_annotator, manager, client
):
    task = launched("adequacy", judgment_budget=3, **ADAPTIVE)
    annotator = make_annotator(loaded_campaign, "a")
    assert not task_settle_if_done(task_id=task.id, figures=AdaptiveFigures([], {}, 2))
    assert task_settle_if_done(task_id=task.id, figures=AdaptiveFigures([], {}, 3))
    assert not task_settle_if_done(task_id=task.id, figures=AdaptiveFigures([], {}, 4))  # once
    notice = TaskNotice.objects.get(task=task)
    assert notice.reason == "budget" and "after 3 judgments" in notice.message
    assert slot_claim_next(task=task, annotator_id=annotator.id) is None

    client.force_login(manager)
    for page in (
        reverse("campaign-detail", args=[loaded_campaign.id]),
        reverse("results-human", args=[loaded_campaign.id]),
        reverse("task-edit", args=[loaded_campaign.id, task.id]),
    ):
        html = client.get(page).content.decode()
        assert f'id="task-settled-{task.id}"' in html, page
        assert "the judgment budget is spent" in html and "Continue the task" in html

    api = APIClient()
    api.force_authenticate(manager)
    url = reverse("api-task-continue", args=[loaded_campaign.id, task.id])
    assert api.post(url).status_code == 200
    assert api.post(url).status_code == 400  # continued already
    assert slot_claim_next(task=task, annotator_id=annotator.id) is not None
    # A continued task is not stopped again.
    assert not task_settle_if_done(task_id=task.id, figures=AdaptiveFigures([], {}, 99))


@pytest.mark.django_db
def test_only_a_manager_may_continue(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", **ADAPTIVE)
    api = APIClient()
    api.force_authenticate(make_annotator(loaded_campaign, "a"))
    answer = api.post(reverse("api-task-continue", args=[loaded_campaign.id, task.id]))
    assert answer.status_code == 403


# A scripted annotator's pause between answers. People take seconds per item; a twentieth of
# a second still outpaces any of them many times over, while leaving the refresh job (behind
# the judgments by design) its turn on a loaded 2-core machine.
THINK_SECONDS = 0.05


def _annotate(task_id: int, token: str, scores, acknowledged: list, errors: list) -> None:
    """A scripted annotator over the API: judges until the task gives it nothing more."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    try:
        item = api.get(f"/api/v1/tasks/{task_id}/next").json()
        while not item["done"]:
            answer = {
                "task": task_id,
                "slot": item["slot"],
                "score": da_answer(scores, item["candidates"][0]["text"]),
            }
            response = api.post("/api/v1/judgments", answer, format="json")
            if response.status_code != 201:
                errors.append(response.content)
                return
            acknowledged.append(response.json()["id"])
            item = response.json()["next"] or {"done": True}
            time.sleep(THINK_SECONDS)
    finally:
        connection.close()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_adaptive_task_stops_by_itself(celery_worker_process, manager):
    """Six annotators at once, answers from the MQM TED campaign, a real worker refreshing
    the priorities: the task stops when its ranking is settled, before every item is judged,
    every judgment recorded once and no annotator given an item twice."""
    scores = mqm_segment_scores()
    segments = common_segments(scores, SEPARATED)[:150]
    task, users = adaptive_campaign(
        owner=manager,
        systems=SEPARATED,
        segments=segments,
        annotators=6,
        assignment="adaptive",
        batch_size=10,
        cold_start=10,
        seed=7,
    )
    tokens = [Token.objects.create(user=user).key for user in users]
    worker_queue_drained()  # the refresh jobs must not queue behind earlier tests' messages
    acknowledged: list[int] = []
    errors: list = []
    threads = [
        threading.Thread(target=_annotate, args=(task.id, token, scores, acknowledged, errors))
        for token in tokens
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors[:3]
    task.refresh_from_db()
    items = task.items.count()
    assert task.settled_reason == "resolved", (task.judgments.count(), items)
    stored = list(Judgment.objects.filter(task=task).values_list("id", flat=True))
    assert sorted(stored) == sorted(acknowledged)  # each recorded exactly once
    assert len(stored) < items
    per_annotator = Counter(
        Judgment.objects.filter(task=task).values_list("annotator_id", "item_id")
    )
    assert max(per_annotator.values()) == 1
    notice = TaskNotice.objects.get(task=task)
    assert notice.figures["pairs"]["open"] == 0
    assert notice.figures["order"] == list(SEPARATED)  # the campaign's own order
    wait_for(
        lambda: (
            not Job.objects.filter(
                kind=Job.Kind.REFRESH_PRIORITIES, target_id=task.id, state__in=("queued", "running")
            ).exists()
        )
    )
    judged = dict(SystemPriority.objects.filter(task=task).values_list("stratum", "judged"))
    assert REFERENCE_STRATUM not in judged and min(judged.values()) >= 10
