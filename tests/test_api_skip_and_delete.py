"""The annotator API's skip (as the page's "Skip") and deleting a draft campaign through the API."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import Campaign, Judgment, Skip, Slot

pytestmark = pytest.mark.django_db


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_skip_records_once_hands_the_item_on_and_answers_the_next(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", batch_size=4)
    ann = make_annotator(loaded_campaign, "ann")
    api = api_for(ann)
    first = api.get(f"/api/v1/tasks/{task.id}/next").json()
    body = {"slot": first["slot"], "reason": "garbled", "note": "half the sentence is missing"}

    response = api.post(f"/api/v1/tasks/{task.id}/skip", body, format="json")

    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["status"] == "skipped"
    assert answer["next"]["slot"] != first["slot"]
    skip = Skip.objects.get(id=answer["id"])
    assert (skip.slot_id, skip.reason, skip.note) == (
        first["slot"],
        "garbled",
        "half the sentence is missing",
    )
    assert not Judgment.objects.filter(slot_id=first["slot"]).exists()

    again = api.post(f"/api/v1/tasks/{task.id}/skip", body, format="json")
    assert again.status_code == 200
    assert again.json()["status"] == "already_skipped"
    assert again.json()["id"] == answer["id"]
    assert Skip.objects.filter(slot_id=first["slot"]).count() == 1


@pytest.mark.parametrize(
    "change, status",
    [
        ({"reason": "bored"}, 400),
        ({"reason": "other", "note": "x" * 501}, 400),
        ({"reason": "other", "note": "a\x00b"}, 400),
        ({"reason": "other", "extra": 1}, 400),
        ({"reason": "other", "slot": 2**63}, 400),
    ],
)
def test_a_bad_skip_is_refused_with_a_message_and_records_nothing(
    launched, loaded_campaign, make_annotator, change, status
):
    task = launched("adequacy", batch_size=4)
    api = api_for(make_annotator(loaded_campaign, "ann"))
    first = api.get(f"/api/v1/tasks/{task.id}/next").json()

    response = api.post(
        f"/api/v1/tasks/{task.id}/skip", {"slot": first["slot"], **change}, format="json"
    )

    assert response.status_code == status, response.content
    assert response.json()["error"]
    assert not Skip.objects.exists()


def test_an_annotator_cannot_skip_another_annotators_item(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", batch_size=4)
    owner = api_for(make_annotator(loaded_campaign, "owner"))
    theirs = owner.get(f"/api/v1/tasks/{task.id}/next").json()["slot"]
    other = api_for(make_annotator(loaded_campaign, "other"))

    response = other.post(
        f"/api/v1/tasks/{task.id}/skip", {"slot": theirs, "reason": "other"}, format="json"
    )

    assert response.status_code in (404, 409), response.content
    assert not Skip.objects.exists()
    assert Slot.objects.get(id=theirs).annotator.username == "owner"


def test_a_manager_deletes_a_draft_campaign_but_not_a_launched_one(
    launched, loaded_campaign, manager, make_annotator, django_user_model
):
    api = api_for(manager)
    draft = api.post(
        "/api/v1/campaigns",
        {"name": "Draft", "source_language": "en", "target_language": "fr"},
        format="json",
    ).json()
    annotator = make_annotator(loaded_campaign, "ann")
    assert api_for(annotator).delete(f"/api/v1/campaigns/{draft['id']}").status_code in (
        403,
        404,
    )

    assert api.delete(f"/api/v1/campaigns/{draft['id']}").status_code == 204
    assert not Campaign.objects.filter(id=draft["id"]).exists()

    launched("adequacy")
    refused = api.delete(f"/api/v1/campaigns/{loaded_campaign.id}")
    assert refused.status_code == 400, refused.content  # as a launched task's delete
    assert "draft" in refused.json()["error"]
    assert Campaign.objects.filter(id=loaded_campaign.id).exists()
