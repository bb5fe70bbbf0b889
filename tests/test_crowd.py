"""Crowd participants: a per-task link signs them in by the platform's URL parameters, for
one batch of that task only; the end of the batch gives a code or the study's completion
URL; the approve / reject CSV follows the bad-reference test."""

import csv
import io

import pytest
from django.test import Client
from scipy.stats import ttest_rel

from annotation.models import CrowdParticipant, Item, ItemType, Judgment
from annotation.services.crowd import task_crowd_link_enable
from annotation.services.task_changes import task_update

pytestmark = pytest.mark.django_db

PROLIFIC = {"PROLIFIC_PID": "5f1e2d3c4b5a69788a9b0c1d", "STUDY_ID": "st-1", "SESSION_ID": "se-9"}


def crowd_client() -> Client:
    return Client(enforce_csrf_checks=True)


def start(client: Client, task, params=PROLIFIC):
    """Opens the link, then posts its start form with the page's CSRF token."""
    url = f"/crowd/{task.id}/{task.crowd_secret}/"
    page = client.get(url, params)
    assert page.status_code == 200, page.content
    token = client.cookies["csrftoken"].value
    return client.post(url, {**params, "csrfmiddlewaretoken": token})


def judge_batch(client: Client, task) -> list:
    """Answers every item the participant is given; returns the last response."""
    response = client.get(f"/annotate/{task.id}/")
    while response.context is not None and response.context.get("slot") is not None:
        slot = response.context["slot"]
        token = client.cookies["csrftoken"].value
        client.post(
            f"/annotate/{task.id}/submit/",
            {"slot": slot.id, "score": "4", "candidates": "1", "csrfmiddlewaretoken": token},
        )
        response = client.get(f"/annotate/{task.id}/")
    return response


def test_prolific_participant_does_one_batch_and_gets_the_code(launched, loaded_campaign):
    task = launched("adequacy", batch_size=5)
    task_update(task_id=task.id, completion_code="C1234ABC")
    task = task_crowd_link_enable(task_id=task.id)
    client = crowd_client()
    response = start(client, task)
    assert response.status_code == 302 and response["Location"] == f"/annotate/{task.id}/"
    participant = CrowdParticipant.objects.get()
    assert (participant.platform, participant.participant_id) == (
        "prolific",
        PROLIFIC["PROLIFIC_PID"],
    )
    assert not participant.user.has_usable_password()
    done = judge_batch(client, task)
    assert Judgment.objects.filter(annotator=participant.user).count() == 5  # one batch
    assert b"C1234ABC" in done.content
    # The same participant coming back is the same account, and gets nothing more.
    again = crowd_client()
    start(again, task)
    assert CrowdParticipant.objects.count() == 1
    assert b"C1234ABC" in again.get(f"/annotate/{task.id}/").content


def test_completion_url_redirect_and_scope(launched, loaded_campaign):
    task = launched("adequacy", batch_size=3)
    other = launched("fluency")
    task_update(
        task_id=task.id, completion_url="https://app.prolific.com/submissions/complete?cc=XYZ"
    )
    task = task_crowd_link_enable(task_id=task.id)
    client = crowd_client()
    start(client, task, {"participant": "worker-42"})
    assert CrowdParticipant.objects.get().platform == "generic"
    # Scoped: the campaign's other task and its pages are not theirs.
    assert client.get(f"/annotate/{other.id}/").status_code == 404
    assert client.get(f"/campaigns/{loaded_campaign.id}/").status_code in (403, 404)
    done = judge_batch(client, task)
    assert done.status_code == 302
    assert done["Location"] == "https://app.prolific.com/submissions/complete?cc=XYZ"


def test_bad_links_are_refused(launched):
    task = task_crowd_link_enable(task_id=launched("adequacy").id)
    client = crowd_client()
    assert client.get(f"/crowd/{task.id}/wrong-secret/", PROLIFIC).status_code == 400
    assert client.get(f"/crowd/{task.id}/{task.crowd_secret}/").status_code == 400  # no id
    bad = {"PROLIFIC_PID": "<script>"}
    assert client.get(f"/crowd/{task.id}/{task.crowd_secret}/", bad).status_code == 400
    # CSRF stays on: a post without the token is refused.
    response = client.post(f"/crowd/{task.id}/{task.crowd_secret}/", PROLIFIC)
    assert response.status_code == 403
    assert not CrowdParticipant.objects.exists()


def test_verdict_csv_follows_the_bad_reference_test(launched, loaded_campaign, client, manager):
    """A careful participant scores bad references lower and is approved; a careless one
    scores everything alike and is rejected. The p-value is checked against scipy."""
    from annotation.services.campaigns import membership_set

    task = launched("adequacy", batch_size=10, bad_reference_rate=0.4, seed=3)
    task = task_crowd_link_enable(task_id=task.id)
    careful, careless = crowd_client(), crowd_client()
    start(careful, task, {"participant": "careful"})
    start(careless, task, {"participant": "careless"})
    for who, browser in (("careful", careful), ("careless", careless)):
        response = browser.get(f"/annotate/{task.id}/")
        while response.context and response.context.get("slot") is not None:
            slot = response.context["slot"]
            is_bad = slot.item.item_type == ItemType.BAD
            score = "1" if (who == "careful" and is_bad) else "4" if who == "careful" else "3"
            if who == "careful" and not is_bad:
                score = str(4 + slot.item.id % 2)
            browser.post(
                f"/annotate/{task.id}/submit/",
                {
                    "slot": slot.id,
                    "score": score,
                    "candidates": "1",
                    "csrfmiddlewaretoken": browser.cookies["csrftoken"].value,
                },
            )
            response = browser.get(f"/annotate/{task.id}/")
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    client.force_login(manager)
    body = client.get(f"/campaigns/{loaded_campaign.id}/tasks/{task.id}/participants.csv")
    assert body.status_code == 200 and body["Content-Type"].startswith("text/csv")
    rows = {
        row["participant_id"]: row for row in csv.DictReader(io.StringIO(body.content.decode()))
    }
    assert rows["careful"]["verdict"] == "approve"
    assert rows["careless"]["verdict"] == "reject"
    # The careful participant's p-value: a one-sided paired t-test, original vs bad.
    user = CrowdParticipant.objects.get(participant_id="careful").user
    scores = dict(Judgment.objects.filter(annotator=user).values_list("item_id", "score"))
    pairs = [
        (scores[item.original_id], scores[item.id])
        for item in Item.objects.filter(task=task, item_type=ItemType.BAD)
        if item.id in scores and item.original_id in scores
    ]
    assert int(rows["careful"]["bad_reference_pairs"]) == len(pairs) >= 2
    expected = ttest_rel([o for o, _ in pairs], [b for _, b in pairs], alternative="greater")
    assert float(rows["careful"]["bad_reference_p"]) == pytest.approx(expected.pvalue, rel=1e-4)


def test_a_participant_judging_through_the_api_gets_one_batch(launched, loaded_campaign):
    """The API's one-round-trip judgment (evalsite_judge_and_claim) applies the crowd quota
    too: the answer to the batch's last judgment says done, with other batches still open."""
    from rest_framework.test import APIClient

    task = task_crowd_link_enable(task_id=launched("adequacy", batch_size=5).id)
    start(crowd_client(), task)
    participant = CrowdParticipant.objects.get()
    api = APIClient()
    api.force_authenticate(participant.user)
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    answers = 0
    while not item["done"]:
        body = {"task": task.id, "slot": item["slot"], "score": 4}
        response = api.post("/api/v1/judgments", body, format="json")
        assert response.status_code == 201, response.content
        item = response.json()["next"]
        answers += 1
    assert answers == 5 and (item["judged"], item["total"]) == (5, 5)
    assert task.batches.filter(state="open").exists()  # work is left, for others
    assert api.get(f"/api/v1/tasks/{task.id}/next").json() == item


def test_a_participant_who_skips_every_item_earns_no_code_nor_approval(launched, loaded_campaign):
    """Issue 21 §4: a batch of skips must not earn the completion code nor ``approve``
    (``judged_enough``: at least half of the items answered must be judged)."""
    from annotation.selectors.crowd import REJECT, participant_verdicts

    task = launched("adequacy", batch_size=3)
    task_update(task_id=task.id, completion_code="C1234ABC")
    task = task_crowd_link_enable(task_id=task.id)
    client = crowd_client()
    start(client, task)
    response = client.get(f"/annotate/{task.id}/", follow=True)
    skipped = 0
    while response.context is not None and response.context.get("slot") is not None:
        token = client.cookies["csrftoken"].value
        response = client.post(
            f"/annotate/{task.id}/skip/",
            {
                "skipped_slot": response.context["slot"].id,
                "reason": "garbled",
                "csrfmiddlewaretoken": token,
            },
            follow=True,
        )
        skipped += 1
    assert skipped == 3 and not Judgment.objects.exists()
    assert b"C1234ABC" not in response.content
    assert b"C1234ABC" not in client.get(f"/annotate/{task.id}/", follow=True).content
    (verdict,) = participant_verdicts(task)
    assert verdict.verdict == REJECT and "skipped" in verdict.reason
