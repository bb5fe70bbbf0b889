"""Irreversible page actions ask first; the campaign header offers what fits its state."""

import pytest

from annotation.models import Campaign, Task
from annotation.services.tasks import task_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager_client(client, manager):
    client.force_login(manager)
    return client


def test_closing_a_task_without_confirming_shows_what_it_does(
    manager_client, launched, loaded_campaign
):
    task = launched("adequacy")
    url = f"/campaigns/{loaded_campaign.id}/tasks/{task.id}/state/close/"
    asked = manager_client.post(url)
    assert asked.status_code == 200
    assert b"cannot be opened again" in asked.content and b'name="confirmed"' in asked.content
    assert Task.objects.get(id=task.id).state == "launched"
    done = manager_client.post(url, {"confirmed": "1"})
    assert done.status_code == 302
    assert Task.objects.get(id=task.id).state == "closed"


def test_deleting_a_draft_task_asks_first(manager_client, loaded_campaign):
    draft = task_create(campaign=loaded_campaign, task_type="adequacy")
    url = f"/campaigns/{loaded_campaign.id}/tasks/{draft.id}/state/delete/"
    assert manager_client.post(url).status_code == 200
    assert Task.objects.filter(id=draft.id).exists()
    manager_client.post(url, {"confirmed": "1"})
    assert not Task.objects.filter(id=draft.id).exists()


def test_closing_a_campaign_asks_first(manager_client, launched, loaded_campaign):
    launched("adequacy")
    url = f"/campaigns/{loaded_campaign.id}/state/close/"
    assert b"Every running task is closed" in manager_client.post(url).content
    assert Campaign.objects.get(id=loaded_campaign.id).state == "active"
    manager_client.post(url, {"confirmed": "1"})
    assert Campaign.objects.get(id=loaded_campaign.id).state == "closed"


def test_the_header_offers_what_fits_the_campaign_state(manager_client, launched, campaign):
    page = manager_client.get(f"/campaigns/{campaign.id}/").content.decode()
    assert "Close the campaign" not in page  # a draft has nothing running to close
    assert "Add a task" in page and "Delete the campaign" in page
    assert 'data-confirm="Delete the draft campaign Test campaign?"' in page
    launched("adequacy")
    page = manager_client.get(f"/campaigns/{campaign.id}/").content.decode()
    assert "Close the campaign" in page and "Delete the campaign" not in page


def test_a_draft_campaign_can_be_deleted_a_launched_one_cannot(
    manager_client, launched, campaign, loaded_campaign
):
    url = f"/campaigns/{campaign.id}/state/delete/"
    assert manager_client.post(url).status_code == 200  # asked
    launched("adequacy")
    refused = manager_client.post(url, {"confirmed": "1"}, follow=True)
    assert b"only a draft campaign can be deleted" in refused.content
    other = Campaign.objects.create(
        name="Draft", source_language="en", target_language="fr", owner=campaign.owner
    )
    from annotation.services.campaigns import membership_set

    membership_set(campaign=other, user=campaign.owner, role="manager")
    gone = manager_client.post(f"/campaigns/{other.id}/state/delete/", {"confirmed": "1"})
    assert gone.status_code == 302 and gone["Location"] == "/"
    assert not Campaign.objects.filter(id=other.id).exists()
