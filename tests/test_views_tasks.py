"""Manager pages and API for changing tasks; the annotator's side of a pause, skip,
instructions and a second tab."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Judgment, Skip, Task
from annotation.services.campaigns import membership_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager_client(client, loaded_campaign, manager):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    client.force_login(manager)
    return client


def test_manager_edits_pauses_and_closes_on_the_pages(
    manager_client, loaded_campaign, launched, make_annotator
):
    draft = Task.objects.create(campaign=loaded_campaign, task_type="fluency")
    base = f"/campaigns/{loaded_campaign.id}/tasks/{draft.id}"
    page = manager_client.get(f"{base}/edit/")
    assert page.status_code == 200 and b"Instructions" in page.content
    form = {
        "task_type": "fluency",
        "scale": "likert5",
        "judgments_per_item": "2",
        "context_size": "0",
        "items_per_annotator": "0",
        "batch_size": "40",
        "repeat_rate": "0.7",
        "bad_reference_rate": "0.6",
        "reference_rate": "0.5",
    }
    refused = manager_client.post(f"{base}/edit/", form)
    assert refused.status_code == 200 and b"add up to 180%" in refused.content
    saved = manager_client.post(
        f"{base}/edit/", {**form, "repeat_rate": "0.1", "bad_reference_rate": "0.1"}
    )
    assert saved.status_code == 302
    draft.refresh_from_db()
    assert (draft.judgments_per_item, draft.batch_size) == (2, 40)

    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    base = f"/campaigns/{loaded_campaign.id}/tasks/{task.id}"
    detail = manager_client.get(f"/campaigns/{loaded_campaign.id}/")
    assert b"items per annotator no limit" in detail.content and b"context 0" in detail.content
    manager_client.post(f"{base}/state/pause/")
    assert Task.objects.get(id=task.id).state == "paused"
    annotator = APIClient()
    annotator.force_login(ann)
    stopped = annotator.get(f"/annotate/{task.id}/")
    assert stopped.status_code == 409 and b"paused" in stopped.content
    manager_client.post(f"{base}/state/resume/")
    manager_client.post(f"{base}/state/close/", {"confirmed": "1"})
    assert Task.objects.get(id=task.id).state == "closed"
    assert b"closed" in annotator.get(f"/annotate/{task.id}/").content
    manager_client.post(
        f"/campaigns/{loaded_campaign.id}/tasks/{draft.id}/state/delete/", {"confirmed": "1"}
    )
    assert not Task.objects.filter(id=draft.id).exists()


def test_instructions_skip_and_second_tab(launched, loaded_campaign, make_annotator, client):
    task = launched("adequacy")
    client.force_login(make_annotator(loaded_campaign, "ann"))
    first = client.get(f"/annotate/{task.id}/")
    assert b'id="instructions" open' in first.content
    assert b"convey the original semantics" in first.content  # WMT's default wording
    slot = first.context["slot"]
    client.post(f"/annotate/{task.id}/skip/", {"skipped_slot": slot.id, "reason": "language"})
    assert Skip.objects.get().reason == "language" and not Judgment.objects.exists()
    second = client.get(f"/annotate/{task.id}/")
    assert b'id="instructions" open' not in second.content and b"<kbd>?</kbd>" in second.content
    other = second.context["slot"]
    client.post(f"/annotate/{task.id}/submit/", {"slot": other.id, "score": "4", "candidates": "1"})
    # The same item answered differently in another tab is told, not dropped silently.
    response = client.post(
        f"/annotate/{task.id}/submit/",
        {"slot": other.id, "score": "2", "candidates": "1"},
        headers={"X-Requested-With": "fetch"},
    )
    assert response.status_code == 409
    assert "already recorded as 4" in response.json()["error"]
    assert Judgment.objects.get().score == 4


def test_task_api_end_to_end(loaded_campaign, manager, launched, make_annotator):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    api = APIClient()
    api.force_authenticate(manager)
    base = f"/api/v1/campaigns/{loaded_campaign.id}/tasks"
    typo = api.post(base, {"task_type": "pairwise", "judgements_per_item": 2}, format="json")
    assert typo.status_code == 400 and "judgements_per_item" in typo.json()["fields"]
    too_big = api.post(base, {"task_type": "ranking", "ranking_size": 5}, format="json")
    assert too_big.status_code == 400 and "needs at least 5 systems" in too_big.json()["error"]
    created = api.post(base, {"task_type": "pairwise", "judgments_per_item": 2}, format="json")
    assert created.status_code == 201
    task_id = created.json()["id"]
    edited = api.patch(f"{base}/{task_id}", {"batch_size": 10}, format="json")
    assert edited.status_code == 200 and edited.json()["batch_size"] == 10
    assert api.post(f"{base}/{task_id}/launch").json()["state"] == "launched"
    assert api.post(f"{base}/{task_id}/pause").json()["state"] == "paused"
    assert api.post(f"{base}/{task_id}/resume").json()["state"] == "launched"
    # preference in either case, as the keys are
    ann = make_annotator(loaded_campaign, "ann")
    worker = APIClient()
    worker.force_authenticate(ann)
    item = worker.get(f"/api/v1/tasks/{task_id}/next").json()
    answer = {"task": task_id, "slot": item["slot"], "preference": "b"}
    assert worker.post("/api/v1/judgments", answer, format="json").status_code == 201
    assert Judgment.objects.get().preference == "B"
    assert api.post(f"{base}/{task_id}/close").json()["state"] == "closed"
    assert api.delete(f"{base}/{task_id}").status_code == 400
    draft = api.post(base, {"task_type": "fluency"}, format="json").json()["id"]
    assert api.delete(f"{base}/{draft}").status_code == 204


def test_unknown_json_fields_are_refused(manager, loaded_campaign):
    api = APIClient()
    api.force_authenticate(manager)
    body = {"name": "Typo", "source_language": "en", "target_language": "de", "descripton": "x"}
    response = api.post("/api/v1/campaigns", body, format="json")
    assert response.status_code == 400 and response.json()["fields"] == {
        "descripton": ["unknown field"]
    }
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    response = api.post(
        f"/api/v1/campaigns/{loaded_campaign.id}/results/human/exclusions",
        {"annotator": manager.id, "excluded": True, "scope": "task"},
        format="json",
    )
    assert response.status_code == 400 and "scope" in response.json()["fields"]
