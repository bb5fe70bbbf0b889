"""Annotator API: GET /api/v1/tasks/<id>/next and POST /api/v1/judgments."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Judgment

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_for():
    def make(user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make


def test_next_then_judge_then_done(launched, loaded_campaign, make_annotator, api_for):
    task = launched("pairwise")
    api = api_for(make_annotator(loaded_campaign, "ann"))
    total = task.items.count()
    for judged in range(total):
        item = api.get(f"/api/v1/tasks/{task.id}/next").json()
        assert not item["done"] and item["judged"] == judged and item["total"] == total
        assert [c["label"] for c in item["candidates"]] == ["A", "B"]
        assert "systems" not in item["candidates"][0]  # anonymised
        response = api.post(
            "/api/v1/judgments",
            {"task": task.id, "slot": item["slot"], "preference": "T"},
            format="json",
        )
        assert response.status_code == 201, response.content
    assert api.get(f"/api/v1/tasks/{task.id}/next").json()["done"] is True
    assert Judgment.objects.count() == total


def test_retry_returns_200_and_the_same_judgment(
    launched, loaded_campaign, make_annotator, api_for
):
    task = launched("adequacy")
    api = api_for(make_annotator(loaded_campaign, "ann"))
    slot = api.get(f"/api/v1/tasks/{task.id}/next").json()["slot"]
    body = {"task": task.id, "slot": slot, "score": 5}
    first = api.post("/api/v1/judgments", body, format="json")
    retry = api.post("/api/v1/judgments", body, format="json")
    assert (first.status_code, retry.status_code) == (201, 200)
    assert retry.json()["status"] == "already_recorded"
    assert retry.json()["id"] == first.json()["id"]
    assert Judgment.objects.count() == 1


def test_errors_are_clear(launched, loaded_campaign, make_annotator, api_for):
    task = launched("adequacy")
    api = api_for(make_annotator(loaded_campaign, "ann"))
    slot = api.get(f"/api/v1/tasks/{task.id}/next").json()["slot"]
    bad = api.post("/api/v1/judgments", {"task": task.id, "slot": slot, "score": 9}, format="json")
    assert bad.status_code == 400 and bad.json() == {"error": "score must be from 1 to 5"}
    other = api_for(make_annotator(loaded_campaign, "other"))
    stolen = other.post(
        "/api/v1/judgments", {"task": task.id, "slot": slot, "score": 3}, format="json"
    )
    assert stolen.status_code == 409


def test_bodies_must_be_json_of_the_documented_types(
    launched, loaded_campaign, make_annotator, api_for
):
    task = launched("adequacy")
    api = api_for(make_annotator(loaded_campaign, "ann"))
    slot = api.get(f"/api/v1/tasks/{task.id}/next").json()["slot"]
    as_text = api.post(
        "/api/v1/judgments", {"task": task.id, "slot": slot, "score": "3"}, format="json"
    )
    assert as_text.status_code == 400 and "score" in as_text.json()
    as_form = api.post("/api/v1/judgments", {"task": task.id, "slot": slot, "score": 3})
    assert as_form.status_code == 415
    assert not Judgment.objects.exists()
    # A URL that matches no route answers JSON under /api/, like the API's own 404s.
    unrouted = api.get("/api/v1/tasks/not-a-number/next")
    assert unrouted.status_code == 404 and unrouted.json() == {"detail": "Not found."}


def test_only_annotators_of_the_campaign(launched, manager, django_user_model, api_for):
    task = launched("adequacy")
    assert api_for(manager).get(f"/api/v1/tasks/{task.id}/next").status_code == 403
    stranger = django_user_model.objects.create_user("stranger", password="x-password-1")
    assert api_for(stranger).get(f"/api/v1/tasks/{task.id}/next").status_code == 404
    assert APIClient().get(f"/api/v1/tasks/{task.id}/next").status_code == 401


def test_next_uses_a_bounded_number_of_queries(
    launched, loaded_campaign, make_annotator, api_for, django_assert_max_num_queries
):
    task = launched("adequacy", context_size=2)
    api = api_for(make_annotator(loaded_campaign, "ann"))
    for _ in range(15):
        slot = api.get(f"/api/v1/tasks/{task.id}/next").json()["slot"]
        api.post("/api/v1/judgments", {"task": task.id, "slot": slot, "score": 3}, format="json")
    with django_assert_max_num_queries(22):
        api.get(f"/api/v1/tasks/{task.id}/next")


def test_the_judgment_answer_carries_the_next_item(
    launched, loaded_campaign, make_annotator, api_for
):
    """One round trip per judgment: after the first GET, POSTs alone walk the whole task,
    and each ``next`` is what GET /next answers at that moment."""
    task = launched("pairwise")
    api = api_for(make_annotator(loaded_campaign, "ann"))
    total = task.items.count()
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    seen = []
    for judged in range(total):
        assert not item["done"] and item["judged"] == judged and item["total"] == total
        seen.append(item["slot"])
        body = {"task": task.id, "slot": item["slot"], "preference": "A"}
        response = api.post("/api/v1/judgments", body, format="json")
        assert response.status_code == 201, response.content
        answer = response.json()
        assert {"id", "status", "message", "hter", "duration_ms"} <= set(answer)
        assert answer["next"] == api.get(f"/api/v1/tasks/{task.id}/next").json()
        # A retry (a lost answer) is acknowledged with the same next item.
        retry = api.post("/api/v1/judgments", body, format="json")
        assert retry.status_code == 200 and retry.json()["status"] == "already_recorded"
        assert retry.json()["next"] == answer["next"]
        item = answer["next"]
    assert item["done"] is True and item["slot"] is None and item["judged"] == total
    assert len(set(seen)) == total
    assert Judgment.objects.filter(task=task).count() == total


def test_judgment_and_next_in_a_bounded_number_of_queries(
    launched, loaded_campaign, make_annotator, api_for, django_assert_max_num_queries
):
    task = launched("adequacy", context_size=2)
    api = api_for(make_annotator(loaded_campaign, "ann"))
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    for round_ in range(15):
        body = {"task": task.id, "slot": item["slot"], "score": 3}
        if round_ < 14:
            item = api.post("/api/v1/judgments", body, format="json").json()["next"]
            continue
        with django_assert_max_num_queries(16) as captured:
            response = api.post("/api/v1/judgments", body, format="json")
        assert response.status_code == 201
        assert len(captured) >= 12  # the judgment's writes and the claim: not skipped
