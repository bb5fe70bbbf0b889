"""A Prolific-style study run through the participant link (issue 24 §4): the completion
code for a finished batch whose attention checks passed, the failure code (or URL) when
they failed, the reason per participant in the approve / reject CSV, and a manager letting
one who failed start again, their earlier answers kept and marked."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from annotation.models import CheckOutcome, CrowdParticipant, ItemType, Judgment
from annotation.services.campaigns import membership_set
from annotation.services.crowd import task_crowd_link_enable
from annotation.services.task_changes import task_update

pytestmark = pytest.mark.django_db

PASS, FAIL = "PASS-7Q2X", "FAIL-3K9Z"


def _participant(task, pid: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    url = f"/crowd/{task.id}/{task.crowd_secret}/"
    params = {"PROLIFIC_PID": pid, "STUDY_ID": "study-1", "SESSION_ID": f"s-{pid}"}
    assert client.get(url, params).status_code == 200
    token = client.cookies["csrftoken"].value
    assert client.post(url, {**params, "csrfmiddlewaretoken": token}).status_code == 302
    return client


def _judge(client: Client, task, *, attentive: bool):
    """Answers every item of the batch on the page; a bad reference scored 1 by an
    attentive participant, 5 (like everything) by a careless one. Returns the last page."""
    response = client.get(f"/annotate/{task.id}/")
    while response.status_code == 200 and response.context.get("slot") is not None:
        slot = response.context["slot"]
        bad = slot.item.item_type == ItemType.BAD
        score = ("1" if bad else "4") if attentive else "5"
        token = client.cookies["csrftoken"].value
        client.post(
            f"/annotate/{task.id}/submit/",
            {"slot": slot.id, "score": score, "candidates": "1", "csrfmiddlewaretoken": token},
        )
        response = client.get(f"/annotate/{task.id}/")
    return response


@pytest.fixture
def study(launched):
    task = launched("adequacy", batch_size=10, bad_reference_rate=0.2)
    task_update(task_id=task.id, completion_code=PASS, failure_code=FAIL)
    return task_crowd_link_enable(task_id=task.id)


def _csv(client: Client, task) -> dict[str, dict[str, str]]:
    answer = client.get(f"/campaigns/{task.campaign_id}/tasks/{task.id}/participants.csv")
    assert answer.status_code == 200
    return {row["participant_id"]: row for row in csv.DictReader(io.StringIO(answer.text))}


def test_pass_and_fail_codes_by_the_checks_and_a_restart(study, loaded_campaign, manager):
    task = study
    careful = _participant(task, "careful01")
    done = _judge(careful, task, attentive=True)
    assert PASS.encode() in done.content and FAIL.encode() not in done.content

    careless = _participant(task, "careless02")
    done = _judge(careless, task, attentive=False)
    assert FAIL.encode() in done.content and PASS.encode() not in done.content
    assert b'id="checks-failed"' in done.content

    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    boss = Client()
    boss.force_login(manager)
    rows = _csv(boss, task)
    assert rows["careful01"]["verdict"] == "approve"
    assert rows["careless02"]["verdict"] == "reject"
    assert "passed 0 of 2 attention checks (bad_reference)" in rows["careless02"]["reason"]
    assert rows["careless02"]["checks_answered"] == "2"

    # The manager lets the careless participant start again from the participants page.
    page = boss.get(f"/campaigns/{task.campaign_id}/tasks/{task.id}/participants/")
    assert page.status_code == 200 and b"Let start again" in page.content
    person = CrowdParticipant.objects.get(participant_id="careless02")
    first_judgments = set(
        Judgment.objects.filter(annotator=person.user).values_list("id", flat=True)
    )
    restart = f"/campaigns/{task.campaign_id}/tasks/{task.id}/participants/{person.id}/restart/"
    assert boss.post(restart).status_code == 302
    person.refresh_from_db()
    assert person.attempts == 2
    # Their earlier answers are kept, marked excluded (out of the rankings).
    kept = Judgment.objects.filter(id__in=first_judgments)
    assert kept.count() == len(first_judgments) and all(j.excluded for j in kept)

    # Through the same link, a new batch; now attentive: the completion code.
    again = _participant(task, "careless02")
    done = _judge(again, task, attentive=True)
    assert PASS.encode() in done.content
    new = Judgment.objects.filter(annotator=person.user).exclude(id__in=first_judgments)
    assert new.count() == 10 and not any(j.excluded for j in new)
    assert set(
        CheckOutcome.objects.filter(annotator=person.user).values_list("attempt", flat=True)
    ) == {
        1,
        2,
    }
    row = _csv(boss, task)["careless02"]
    assert row["verdict"] == "approve" and row["attempt"] == "2"
    # A restart while nothing was done in this attempt is refused with the reason.
    fresh = _participant(task, "fresh03")
    fresh_row = CrowdParticipant.objects.get(participant_id="fresh03")
    fresh.get(f"/annotate/{task.id}/")  # takes a batch, answers nothing
    refused = boss.post(
        f"/campaigns/{task.campaign_id}/tasks/{task.id}/participants/{fresh_row.id}/restart/",
        follow=True,
    )
    assert b"still working" in refused.content
    fresh_row.refresh_from_db()
    assert fresh_row.attempts == 1


def test_failure_url_and_completion_url_redirect(study):
    task = study
    task_update(
        task_id=task.id,
        completion_url="https://app.prolific.com/submissions/complete?cc=PASS",
        failure_url="https://app.prolific.com/submissions/complete?cc=FAIL",
    )
    careful = _participant(task, "careful01")
    done = _judge(careful, task, attentive=True)
    assert done.status_code == 302 and done["Location"].endswith("cc=PASS")
    careless = _participant(task, "careless02")
    done = _judge(careless, task, attentive=False)
    assert done.status_code == 302 and done["Location"].endswith("cc=FAIL")


def test_a_participant_may_only_restart_by_a_manager(study, loaded_campaign, make_annotator):
    task = study
    careless = _participant(task, "careless02")
    _judge(careless, task, attentive=False)
    person = CrowdParticipant.objects.get()
    restart = f"/campaigns/{task.campaign_id}/tasks/{task.id}/participants/{person.id}/restart/"
    token = careless.cookies["csrftoken"].value
    assert careless.post(restart, {"csrfmiddlewaretoken": token}).status_code == 403
    annotator = make_annotator(loaded_campaign, "ann")
    other = Client()
    other.force_login(annotator)
    assert other.post(restart).status_code == 403
    person.refresh_from_db()
    assert person.attempts == 1


def test_a_restart_with_no_batch_left_pays_nothing(launched, loaded_campaign, manager):
    """The earlier, failed batch never earns the code after a restart: the code needs a
    batch of the current attempt."""
    task = launched("adequacy", batch_size=40, bad_reference_rate=0.1)  # one batch in all
    task_update(task_id=task.id, completion_code=PASS, failure_code=FAIL)
    task = task_crowd_link_enable(task_id=task.id)
    careless = _participant(task, "careless02")
    assert FAIL.encode() in _judge(careless, task, attentive=False).content
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    boss = Client()
    boss.force_login(manager)
    person = CrowdParticipant.objects.get()
    restart = f"/campaigns/{task.campaign_id}/tasks/{task.id}/participants/{person.id}/restart/"
    assert boss.post(restart).status_code == 302
    end = careless.get(f"/annotate/{task.id}/")
    assert PASS.encode() not in end.content and FAIL.encode() not in end.content
    assert b"no batch of this attempt" in end.content
