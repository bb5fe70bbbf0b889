"""A manager lets an invited annotator who failed start again (issue 24 §4; Appraise #54,
Pearmut #253): after failing the checks, new items beyond their quota with their earlier
judgments kept and excluded and their check outcomes kept under attempt 1; after failing
every attempt at the tutorial, new attempts. Only a manager may, after a confirmation.
Failed before: only crowd participants could be let start again."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from annotation.models import AnnotatorRestart, CheckOutcome, Judgment, Slot, TutorialAttempt
from annotation.selectors.checks import reliability_checks
from annotation.selectors.tutorials import tutorial_failed_out, tutorial_state
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import membership_set
from annotation.services.restarts import RestartError, annotator_restart
from annotation.services.tutorial_uploads import tutorial_upload
from annotation.services.tutorials import tutorial_answer_record
from tests.test_checks import attentive_answer, careless_answer, judge_all

pytestmark = pytest.mark.django_db

ITEMS = 12


@pytest.fixture
def checked(launched):
    """An ESA task with bad references, one batch of 12 items per annotator."""
    return launched(
        "esa", batch_size=ITEMS, items_per_annotator=ITEMS, bad_reference_rate=0.2, seed=24
    )


def _url(task, annotator) -> str:
    return f"/campaigns/{task.campaign_id}/tasks/{task.id}/annotators/{annotator.id}/restart/"


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_annotator_who_failed_the_checks_starts_again_with_new_items(
    checked, loaded_campaign, make_annotator, manager
):
    task = checked
    careless = make_annotator(loaded_campaign, "careless")
    judge_all(task, careless, careless_answer)
    first = set(Judgment.objects.filter(task=task, annotator=careless).values_list("id", "item"))
    assert len(first) >= ITEMS
    assert slot_claim_next(task=task, annotator_id=careless.id) is None  # quota used
    failed = [passed for _, passed, _ in reliability_checks(task)]
    assert failed and not any(failed)

    assert annotator_restart(task=task, annotator_id=careless.id, by=manager) == 2
    # Kept and marked: the judgments excluded, the outcomes under attempt 1.
    kept = Judgment.objects.filter(task=task, annotator=careless)
    assert {(j.id, j.item_id) for j in kept} == first and all(j.excluded for j in kept)
    assert set(
        CheckOutcome.objects.filter(annotator=careless).values_list("attempt", flat=True)
    ) == {1}
    assert reliability_checks(task) == []  # the table reads the new attempt's

    # A new batch beyond the quota, never an item they had; now attentive.
    judge_all(task, careless, attentive_answer)
    new = Judgment.objects.filter(task=task, annotator=careless, excluded=False)
    assert new.count() >= ITEMS
    assert not {j.item_id for j in new} & {item for _, item in first}
    again = CheckOutcome.objects.filter(annotator=careless, attempt=2)
    assert again.exists() and all(o.passed for o in again)
    assert {passed for _, passed, _ in reliability_checks(task)} == {True}
    assert slot_claim_next(task=task, annotator_id=careless.id) is None  # one more quota only


def test_an_annotator_who_failed_the_tutorial_gets_new_attempts(
    launched, loaded_campaign, make_annotator, manager
):
    task = launched("esa", batch_size=ITEMS, items_per_annotator=ITEMS, seed=24)
    lines = [{"source": "Der Hund.", "target": "The dog.", "expected": {"score": [90, 100]}}]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    tutorial_upload(task=task, name="t.jsonl", data=data, pass_share=1, attempts=1)
    slow = make_annotator(loaded_campaign, "slow")
    (item,) = task.tutorial_items.all()
    wrong = {"score": 10, "spans": []}
    tutorial_answer_record(task=task, annotator_id=slow.id, item_id=item.id, answer=wrong)
    assert not tutorial_state(task=task, annotator_id=slow.id).may_retry
    assert tutorial_failed_out(task=task) == [(slow.id, "slow")]
    assert slot_claim_next(task=task, annotator_id=slow.id) is None  # the gate

    boss = _client(manager)
    page = boss.get(f"/campaigns/{task.campaign_id}/tasks/{task.id}/tutorial/").content.decode()
    assert 'id="tutorial-failed-out"' in page and _url(task, slow) in page
    assert boss.post(_url(task, slow), {"confirmed": "1", "back": "tutorial"}).status_code == 302

    state = tutorial_state(task=task, annotator_id=slow.id)
    assert state.attempt.number == 2 and state.next_item == item  # a new attempt, running
    assert tutorial_failed_out(task=task) == []
    right = {"score": 95, "spans": []}
    tutorial_answer_record(task=task, annotator_id=slow.id, item_id=item.id, answer=right)
    assert slot_claim_next(task=task, annotator_id=slow.id) is not None  # the real work
    # The failed attempt is kept.
    attempts = TutorialAttempt.objects.filter(task=task, annotator=slow).order_by("number")
    assert [a.passed for a in attempts] == [False, True]


def test_only_a_manager_restarts_and_is_asked_first(
    checked, loaded_campaign, make_annotator, manager, django_user_model
):
    task = checked
    careless = make_annotator(loaded_campaign, "careless")
    judge_all(task, careless, careless_answer)
    organiser = django_user_model.objects.create_user("org", password="org-pw-123456")
    membership_set(campaign=loaded_campaign, user=organiser, role="organiser")
    url = _url(task, careless)
    # The annotator cannot restart themselves, nor can an organiser.
    assert _client(careless).post(url, {"confirmed": "1"}).status_code == 403
    assert _client(organiser).post(url, {"confirmed": "1"}).status_code == 403
    # CSRF: a POST without the token is refused.
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(manager)
    assert forged.post(url, {"confirmed": "1"}).status_code == 403
    assert not AnnotatorRestart.objects.exists()
    boss = _client(manager)
    assert boss.get(url).status_code == 405
    # Without "confirmed": the confirm page asks, nothing is done.
    asked = boss.post(url, {"back": "results"})
    assert asked.status_code == 200
    assert b"Let careless start task #" in asked.content
    assert b'name="back" value="results"' in asked.content
    assert not AnnotatorRestart.objects.exists()
    done = boss.post(url, {"confirmed": "1", "back": "results"})
    assert done.status_code == 302 and done["Location"].endswith(f"#reliability-{task.id}")
    restart = AnnotatorRestart.objects.get()
    assert (restart.annotator, restart.attempt, restart.by) == (careless, 2, manager)


def test_the_reliability_table_offers_managers_the_button(
    checked, loaded_campaign, make_annotator, manager, django_user_model
):
    task = checked
    careless = make_annotator(loaded_campaign, "careless")
    judge_all(task, careless, careless_answer)
    page = _client(manager).get(f"/campaigns/{task.campaign_id}/results/human/").content.decode()
    assert f'action="{_url(task, careless)}"' in page
    assert 'data-confirm="Let careless start task #' in page
    organiser = django_user_model.objects.create_user("org", password="org-pw-123456")
    membership_set(campaign=loaded_campaign, user=organiser, role="organiser")
    page = _client(organiser).get(f"/campaigns/{task.campaign_id}/results/human/").content
    assert _url(task, careless).encode() not in page


def test_refusals_say_why_and_change_nothing(
    checked, loaded_campaign, make_annotator, manager, django_user_model
):
    task = checked
    fresh = make_annotator(loaded_campaign, "fresh")
    with pytest.raises(RestartError, match="nothing to start again"):
        annotator_restart(task=task, annotator_id=fresh.id, by=manager)
    slot_claim_next(task=task, annotator_id=fresh.id)  # holds a batch
    with pytest.raises(RestartError, match="still working on a batch"):
        annotator_restart(task=task, annotator_id=fresh.id, by=manager)
    stranger = django_user_model.objects.create_user("stranger", password="stranger-pw-1")
    with pytest.raises(RestartError, match="no such annotator"):
        annotator_restart(task=task, annotator_id=stranger.id, by=manager)
    refused = _client(manager).post(_url(task, fresh), {"confirmed": "1"}, follow=True)
    assert b"still working on a batch" in refused.content
    assert not AnnotatorRestart.objects.exists()
    assert Slot.objects.filter(task=task, annotator=fresh).exists()
