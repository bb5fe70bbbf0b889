"""Pearmut's ``allow_skip`` on tutorial items (issue 24 §1): such an item may be skipped,
unanswered and not counted, so that skipping it cannot fail the tutorial; an item without it
cannot be skipped. Read from the shared Pearmut tutorial (its six tutorial items have
``allow_skip``, its two attention checks not) and from evalsite's JSON Lines
(``"skippable": true``); skipped on the page and through the API. Failed before: nothing was
skippable, every item had to be answered."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.models import TutorialAnswer, TutorialAttempt, TutorialItem
from annotation.models.tutorials import SKIPPED
from annotation.selectors.tutorials import tutorial_state
from annotation.services.tutorial_uploads import tutorial_upload
from annotation.services.tutorials import TutorialError, tutorial_answer_record
from tests.test_tutorials import ESA_LINES, TUTORIALS, api_for, jsonl

pytestmark = pytest.mark.django_db


def _as_expected(item: TutorialItem) -> dict:
    """An ESA answer inside the item's expected ranges (the lowest of each)."""
    (rule,) = item.expected.values()
    spans = []
    for span in rule.get("spans", []):
        severity = span.get("severity") or "minor"
        if span.get("missing"):
            spans.append({"start": None, "end": None, "severity": severity})
        else:
            spans.append({"start": span["start"][0], "end": span["end"][0], "severity": severity})
    return {"score": int(rule["score"][0]), "spans": spans}


@pytest.fixture
def pearmut_esa(launched):
    task = launched("esa")
    call_command(
        "import_pearmut", str(TUTORIALS / "esa_deen.json"), "--tutorial-for", str(task.id),
        "--pass-share", "1",
    )  # fmt: skip
    return task


def _run(task, user, answers) -> TutorialAttempt:
    """Answers the items in order: "skip", "wrong" (score 0, nothing marked) or "right"."""
    items = list(TutorialItem.objects.filter(task=task).order_by("position"))
    for item, how in zip(items, answers, strict=True):
        if how == "skip":
            tutorial_answer_record(
                task=task, annotator_id=user.id, item_id=item.id, answer={}, skip=True
            )
        else:
            answer = _as_expected(item) if how == "right" else {"score": 0, "spans": []}
            tutorial_answer_record(task=task, annotator_id=user.id, item_id=item.id, answer=answer)
    return TutorialAttempt.objects.get(task=task, annotator=user)


def test_allow_skip_items_may_be_skipped_without_failing(
    pearmut_esa, loaded_campaign, make_annotator
):
    task = pearmut_esa
    items = list(TutorialItem.objects.filter(task=task).order_by("position"))
    # By hand from the file: the six tutorial items have allow_skip, the attention checks not.
    assert [item.skippable for item in items] == [True] * 6 + [False] * 2

    skipper = make_annotator(loaded_campaign, "skipper")
    attempt = _run(task, skipper, ["skip"] * 6 + ["right", "right"])
    assert attempt.passed and (attempt.correct, attempt.graded) == (2, 2)
    skipped = TutorialAnswer.objects.filter(attempt=attempt, answer=SKIPPED)
    assert skipped.count() == 6 and not skipped.exclude(passed=None).exists()
    assert not tutorial_state(task=task, annotator_id=skipper.id).blocks

    # The same item answered wrongly fails the attempt (pass share 1): skipping is not failing.
    wrong = make_annotator(loaded_campaign, "wrong")
    attempt = _run(task, wrong, ["wrong"] + ["skip"] * 5 + ["right", "right"])
    assert attempt.passed is False and (attempt.correct, attempt.graded) == (2, 3)

    # An attention check (no allow_skip) cannot be skipped; nothing is stored.
    third = make_annotator(loaded_campaign, "third")
    for item in items[:6]:
        tutorial_answer_record(
            task=task, annotator_id=third.id, item_id=item.id, answer={}, skip=True
        )
    with pytest.raises(TutorialError, match="cannot be skipped"):
        tutorial_answer_record(
            task=task, annotator_id=third.id, item_id=items[6].id, answer={}, skip=True
        )
    assert TutorialAnswer.objects.filter(attempt__annotator=third).count() == 6


def test_skip_on_the_page_and_through_the_api(launched, loaded_campaign, make_annotator, client):
    task = launched("esa")
    lines = [{**ESA_LINES[0], "skippable": True}, ESA_LINES[1]]
    tutorial_upload(task=task, name="t.jsonl", data=jsonl(lines), pass_share=1)
    first, second = TutorialItem.objects.filter(task=task).order_by("position")
    assert (first.skippable, second.skippable) == (True, False)

    page_user = make_annotator(loaded_campaign, "page")
    client.force_login(page_user)
    page = client.get(f"/annotate/{task.id}/tutorial/").content.decode()
    assert 'id="tutorial-skip"' in page and "Skip this item" in page
    done = client.post(
        f"/annotate/{task.id}/tutorial/answer/", {"tutorial_item": first.id, "skip": "1"}
    )
    assert done.status_code == 302
    feedback = client.get(done.url).content.decode()
    assert "Skipped: not counted" in feedback and "Your answer" not in feedback
    page = client.get(f"/annotate/{task.id}/tutorial/").content.decode()
    assert 'id="tutorial-skip"' not in page  # the second item may not be skipped
    refused = client.post(
        f"/annotate/{task.id}/tutorial/answer/", {"tutorial_item": second.id, "skip": "1"}
    )
    assert refused.status_code == 302 and "/tutorial/answers/" not in refused.url
    assert TutorialAnswer.objects.filter(attempt__annotator=page_user).count() == 1

    api = api_for(make_annotator(loaded_campaign, "api"))
    state = api.get(f"/api/v1/tasks/{task.id}/tutorial").json()
    assert state["item"]["id"] == first.id and state["item"]["skippable"] is True
    body = api.post(
        f"/api/v1/tasks/{task.id}/tutorial/answers",
        {"item": first.id, "skip": True},
        format="json",
    )
    assert body.status_code == 201 and body.json()["passed"] is None
    refused = api.post(
        f"/api/v1/tasks/{task.id}/tutorial/answers",
        {"item": second.id, "skip": True},
        format="json",
    )
    assert refused.status_code == 400 and "cannot be skipped" in refused.json()["error"]
