"""POST /annotate/<task>/submit/: a plain form post redirects; the page's script (fetch,
``X-Requested-With: fetch``) gets JSON it can act on, and a resend is acknowledged."""

import re

import pytest

from annotation.models import Judgment
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import membership_set

pytestmark = pytest.mark.django_db

FETCH = {"HTTP_X_REQUESTED_WITH": "fetch"}


@pytest.fixture
def annotator_client(client, launched, loaded_campaign, make_annotator):
    task = launched("adequacy")
    user = make_annotator(loaded_campaign, "ann")
    client.force_login(user)
    slot = slot_claim_next(task=task, annotator_id=user.id)
    return client, task, slot


def test_plain_form_post_redirects_to_the_next_item(annotator_client):
    client, task, slot = annotator_client
    response = client.post(f"/annotate/{task.id}/submit/", {"slot": slot.id, "score": "4"})
    assert response.status_code == 302 and response.url == f"/annotate/{task.id}/"
    assert list(Judgment.objects.values_list("slot_id", "score")) == [(slot.id, 4)]


def test_script_gets_json_and_a_resend_is_acknowledged(annotator_client):
    client, task, slot = annotator_client
    url = f"/annotate/{task.id}/submit/"
    first = client.post(url, {"slot": slot.id, "score": "4"}, **FETCH)
    again = client.post(url, {"slot": slot.id, "score": "4"}, **FETCH)
    assert first.status_code == again.status_code == 200
    assert first.json()["status"] == "recorded"
    assert again.json()["status"] == "already_recorded"
    assert first.json()["next"] == again.json()["next"] == f"/annotate/{task.id}/"
    assert first.json()["judgment"] == again.json()["judgment"]
    assert Judgment.objects.count() == 1
    # Both carry the same next item: the resend claimed nothing new.
    assert _slot_in(first.json()["html"]) == _slot_in(again.json()["html"])


def _slot_in(html: str) -> int:
    return int(re.search(r'name="slot" value="(\d+)"', html).group(1))


def test_the_script_gets_the_next_item_with_the_answer(annotator_client):
    """One round trip: the answer carries the next item's form and progress, the same item
    the page shows on reload (so reload and Back resume it)."""
    client, task, slot = annotator_client
    url = f"/annotate/{task.id}/submit/"
    answer = client.post(url, {"slot": slot.id, "score": "4"}, **FETCH).json()
    html = answer["html"]
    assert 'id="judgment"' in html and 'class="task-progress"' in html
    assert 'class="skip-item"' in html and "csrfmiddlewaretoken" in html
    assert "<html" not in html  # a fragment, not a page
    next_slot = _slot_in(html)
    assert next_slot != slot.id
    assert f'name="skipped_slot" value="{next_slot}"' in html
    page = client.get(f"/annotate/{task.id}/").content.decode()
    assert _slot_in(page) == next_slot
    # Judging through the swapped-in form works like the first.
    again = client.post(url, {"slot": next_slot, "score": "2"}, **FETCH)
    assert again.json()["status"] == "recorded" and _slot_in(again.json()["html"]) != next_slot
    assert list(Judgment.objects.order_by("id").values_list("score", flat=True)) == [4, 2]


def test_no_fragment_when_the_task_is_done(client, launched, loaded_campaign, make_annotator):
    task = launched("adequacy", items_per_annotator=1)  # one batch of one item each
    user = make_annotator(loaded_campaign, "ann")
    client.force_login(user)
    slot = slot_claim_next(task=task, annotator_id=user.id)
    answer = client.post(
        f"/annotate/{task.id}/submit/", {"slot": slot.id, "score": "3"}, **FETCH
    ).json()
    # Nothing left: the page loads the done page itself.
    assert answer["status"] == "recorded" and answer["html"] is None
    assert answer["next"] == f"/annotate/{task.id}/"
    assert client.get(answer["next"]).templates[0].name == "annotate/done.html"


def test_script_gets_the_reason_of_a_refusal(annotator_client, django_user_model):
    client, task, slot = annotator_client
    url = f"/annotate/{task.id}/submit/"
    invalid = client.post(url, {"slot": slot.id, "score": "9"}, **FETCH)
    assert invalid.status_code == 400
    assert invalid.json()["error"] == "Not saved: score must be from 1 to 5."
    incomplete = client.post(url, {"score": "3"}, **FETCH)
    assert incomplete.status_code == 400 and "incomplete" in incomplete.json()["error"]
    # Someone else's slot: a conflict, with the way to the next item.
    other = django_user_model.objects.create_user("other")
    membership_set(campaign=task.campaign, user=other, role="annotator")
    client.force_login(other)
    conflict = client.post(url, {"slot": slot.id, "score": "3"}, **FETCH)
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "conflict"
    assert conflict.json()["next"] == f"/annotate/{task.id}/"
    assert Judgment.objects.count() == 0


@pytest.mark.parametrize("candidates", ["two", "1.5", "²", "-1"])
def test_a_non_numeric_candidate_count_is_an_incomplete_form_not_a_500(
    client, launched, loaded_campaign, make_annotator, candidates
):
    task = launched("ranking", ranking_size=3)
    user = make_annotator(loaded_campaign, "ann")
    client.force_login(user)
    slot = slot_claim_next(task=task, annotator_id=user.id)
    post = {"slot": slot.id, "candidates": candidates, "rank-0": "1", "rank-1": "2", "rank-2": "3"}
    url = f"/annotate/{task.id}/submit/"
    by_script = client.post(url, post, **FETCH)
    assert by_script.status_code == 400
    assert by_script.json()["error"] == "The form was incomplete; please answer again."
    plain = client.post(url, post)
    assert plain.status_code == 302 and plain.url == f"/annotate/{task.id}/"
    assert Judgment.objects.count() == 0


# Issue 21 §3: a finished batch stops at a "batch done" screen; the annotator goes on.


def test_a_finished_batch_stops_at_the_batch_done_screen(
    client, launched, loaded_campaign, make_annotator
):
    from annotation.models import Slot

    task = launched("adequacy", batch_size=2)
    user = make_annotator(loaded_campaign, "ann")
    client.force_login(user)
    url = f"/annotate/{task.id}/submit/"
    first = client.get(f"/annotate/{task.id}/").context["slot"]
    by_script = client.post(url, {"slot": first.id, "score": "4"}, **FETCH).json()
    assert by_script["batch_closed"] is False
    second = _slot_in(by_script["html"])
    last = client.post(url, {"slot": second, "score": "4"}, **FETCH).json()
    assert last["batch_closed"] is True and last["html"] is None
    assert last["next"] == f"/annotate/{task.id}/?after=batch"
    # The stop: nothing of the next batch is taken until they choose to go on.
    stop = client.get(last["next"])
    assert stop.templates[0].name == "annotate/batch_done.html"
    assert b'id="next-batch"' in stop.content and b"2 items" in stop.content
    assert not Slot.objects.filter(annotator=user, state="leased").exists()
    going_on = client.get(f"/annotate/{task.id}/")
    assert going_on.context["slot"].batch_id != first.batch_id


def test_a_plain_form_closing_a_batch_redirects_to_the_stop(
    client, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", batch_size=1)
    client.force_login(make_annotator(loaded_campaign, "ann"))
    slot = client.get(f"/annotate/{task.id}/").context["slot"]
    response = client.post(f"/annotate/{task.id}/submit/", {"slot": slot.id, "score": "4"})
    assert response.status_code == 302 and response.url == f"/annotate/{task.id}/?after=batch"


def test_a_nul_in_a_skip_note_is_refused_not_a_500(annotator_client):
    from annotation.models import Skip

    client, task, slot = annotator_client
    response = client.post(
        f"/annotate/{task.id}/skip/",
        {"skipped_slot": slot.id, "reason": "other", "note": "bad\x00note"},
        follow=True,
    )
    assert response.status_code == 200
    assert b"control characters or broken Unicode" in response.content
    assert not Skip.objects.exists()
