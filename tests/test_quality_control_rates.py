"""Quality-control rates: each a share in [0, 1), together below 1, each refusal with its own
message, from the one task validation (``quality_control_check``) the form and the API use."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import Task
from annotation.services.tasks import TaskError, task_create

pytestmark = pytest.mark.django_db

REFUSED = [
    ({"repeat_rate": -0.1}, r"repeat_rate is a share between 0 and 1 \(0\.1 is 10%\), not -0\.1"),
    ({"reference_rate": float("nan")}, "reference_rate is a share between 0 and 1"),
    ({"repeat_rate": 1.0}, "repeat_rate must be below 1 .*every item would be judged twice"),
    (
        {"bad_reference_rate": 1.0},
        "bad_reference_rate must be below 1 .*a batch needs real outputs too",
    ),
    (
        {"reference_rate": 1.5},
        "reference_rate must be below 1 .*every candidate would be the human reference",
    ),
    (
        {"repeat_rate": 0.7, "bad_reference_rate": 0.6, "reference_rate": 0.5},
        r"repeats \(70%\), bad references \(60%\) and human references \(50%\) add up to "
        r"180% of the items; keep quality control below 100% together",
    ),
    # Exactly 1 together is refused too: no real item would be left to judge.
    (
        {"repeat_rate": 0.5, "bad_reference_rate": 0.25, "reference_rate": 0.25},
        "add up to 100%",
    ),
]


@pytest.mark.parametrize(("rates", "message"), REFUSED)
def test_each_refusal_has_its_message(campaign, rates, message):
    with pytest.raises(TaskError, match=message):
        task_create(seed=12345, campaign=campaign, task_type="adequacy", **rates)
    assert not Task.objects.exists()


def test_rates_just_inside_the_bounds_are_accepted(campaign):
    task = task_create(
        seed=12345,
        campaign=campaign,
        task_type="adequacy",
        repeat_rate=0.4,
        bad_reference_rate=0.3,
        reference_rate=0.29,
    )
    assert (task.repeat_rate, task.bad_reference_rate, task.reference_rate) == (0.4, 0.3, 0.29)
    task_create(
        seed=12345, campaign=campaign, task_type="fluency", repeat_rate=0.0, bad_reference_rate=0.99
    )


def test_the_form_and_the_api_give_the_same_messages(client, campaign, manager):
    client.force_login(manager)
    form = {
        "task_type": "adequacy",
        "scale": "likert5",
        "judgments_per_item": "1",
        "ranking_size": "5",
        "context_size": "0",
        "items_per_annotator": "0",
        "repeat_rate": "-0.2",  # the form leaves the bounds to the service and its message
        "bad_reference_rate": "0",
        "reference_rate": "0",
    }
    page = client.post(f"/campaigns/{campaign.id}/tasks/", form, follow=True).content.decode()
    assert "Task not created: repeat_rate is a share between 0 and 1 (0.1 is 10%)" in page
    api = APIClient()
    api.force_authenticate(manager)
    answer = api.post(
        f"/api/v1/campaigns/{campaign.id}/tasks",
        {"task_type": "adequacy", "repeat_rate": 0.5, "bad_reference_rate": 0.5},
        format="json",
    )
    assert answer.status_code == 400 and "add up to 100% of the items" in answer.json()["error"]
    assert not Task.objects.exists()


def test_a_refused_task_keeps_the_managers_choices_beside_the_error(client, campaign, manager):
    client.force_login(manager)
    form = {
        "task_type": "fluency",
        "scale": "likert5",
        "judgments_per_item": "4",
        "ranking_size": "5",
        "context_size": "0",
        "items_per_annotator": "0",
        "repeat_rate": "0.7",
        "bad_reference_rate": "0.6",
        "reference_rate": "0.5",
    }
    answer = client.post(f"/campaigns/{campaign.id}/tasks/", form)
    page = answer.content.decode()
    assert answer.status_code == 400
    assert 'class="error task-error"' in page and "add up to 180%" in page
    # The add-task form is open and holds what was sent, not the defaults.
    assert '<details class="card" id="add-task" open>' in page
    assert 'name="repeat_rate" value="0.7"' in page
    assert 'name="judgments_per_item" value="4"' in page
    assert '<option value="fluency" selected>' in page
    assert not Task.objects.exists()
