"""Tutorials (issue 24 §1): items with expected answers graded with feedback, a pass threshold
and retries gating the real work in the loop itself (page and API), per-language variants,
uploads (JSON Lines, Pearmut files, the command, the page, the API) and the reliability
table's tutorial pass rate."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from annotation.instructions import task_instructions
from annotation.lib.tutorials import (
    CandidateAnswer,
    TutorialFormatError,
    tutorial_grade,
    tutorial_lines_parse,
)
from annotation.models import Slot, Tutorial, TutorialAnswer, TutorialAttempt, TutorialItem
from annotation.selectors.human import human_results
from annotation.selectors.tutorials import tutorial_state
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record_and_claim_next
from annotation.services.tutorial_uploads import tutorial_upload
from annotation.services.tutorials import TutorialError
from metrics.spans import Span
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
TUTORIALS = DATA / "pearmut-examples" / "tutorials"

# Two ESA items: a perfect translation (score 90-100), and one with "walked" wrong (a minor
# error there, ±2 characters, and a score from 60 to 90).
ESA_LINES = [
    {
        "source": "Der Hund ist rausgerannt.",
        "target": "The dog ran outside.",
        "expected": {"score": [90, 100]},
        "explanation": "Nothing is wrong: the score is near 100.",
    },
    {
        "source": "Der Hund ist rausgerannt.",
        "target": "The dog walked outside.",
        "expected": {"score": [60, 90], "spans": [{"text": "walked", "severity": "minor"}]},
        "explanation": "rausgerannt means ran out, not walked.",
        "instructions": "Mark <b>walked</b> as a minor error.",
    },
]
WALKED = (8, 14)  # "walked" in "The dog walked outside."


def jsonl(lines) -> bytes:
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode()


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.fixture
def esa_task(launched):
    task = launched("esa")
    tutorial_upload(task=task, name="t.jsonl", data=jsonl(ESA_LINES), pass_share=1, attempts=2)
    return task


def answer(api, task, item, **body):
    return api.post(
        f"/api/v1/tasks/{task.id}/tutorial/answers", {"item": item, **body}, format="json"
    )


def current_item(api, task) -> int:
    return api.get(f"/api/v1/tasks/{task.id}/tutorial").json()["item"]["id"]


def test_the_loop_gives_no_real_item_before_the_tutorial_is_passed(
    esa_task, loaded_campaign, make_annotator, client
):
    task = esa_task
    ann = make_annotator(loaded_campaign, "ann")
    api = api_for(ann)
    # The claim itself refuses (the SQL gate), whichever adapter asks.
    assert slot_claim_next(task=task, annotator_id=ann.id) is None
    assert not Slot.objects.filter(task=task, annotator=ann).exists()
    refused = api.get(f"/api/v1/tasks/{task.id}/next")
    assert refused.status_code == 409 and "tutorial" in refused.json()["error"]
    client.force_login(ann)
    page = client.get(f"/annotate/{task.id}/")
    assert page.status_code == 302 and page["Location"] == f"/annotate/{task.id}/tutorial/"
    # A slot of the task answered directly is refused too: it was never given to them.
    some_slot = Slot.objects.filter(task=task).first()
    judged = api.post(
        "/api/v1/judgments",
        {"task": task.id, "slot": some_slot.id, "score": 50, "spans": []},
        format="json",
    )
    assert judged.status_code == 409

    # Attempt 1: the first item right, the second missing its error: failed (share 1).
    first = current_item(api, task)
    fed = answer(api, task, first, score=95, spans=[])
    assert fed.status_code == 201 and fed.json()["passed"] is True
    second = current_item(api, task)
    fed = answer(api, task, second, score=75, spans=[]).json()
    assert fed["passed"] is False and fed["attempt_finished"] and fed["attempt_passed"] is False
    assert fed["failures"] == ["the error “walked” (minor) is not marked"]
    assert fed["expected"] == ["a score from 60 to 90, errors marked: “walked” (minor)"]
    assert fed["explanation"] == "rausgerannt means ran out, not walked."
    assert api.get(f"/api/v1/tasks/{task.id}/next").status_code == 409
    assert slot_claim_next(task=task, annotator_id=ann.id) is None

    # Attempt 2: both as expected (the span one character off: within the tolerance).
    retried = api.post(f"/api/v1/tasks/{task.id}/tutorial/retry")
    assert retried.status_code == 201 and retried.json()["attempt"] == 2
    answer(api, task, current_item(api, task), score=100, spans=[])
    span = {"start": WALKED[0] - 1, "end": WALKED[1], "severity": "minor"}
    done = answer(api, task, current_item(api, task), score=70, spans=[span]).json()
    assert done["attempt_passed"] is True and (done["correct"], done["graded"]) == (2, 2)
    nxt = api.get(f"/api/v1/tasks/{task.id}/next")
    assert nxt.status_code == 200 and nxt.json()["slot"] is not None
    assert client.get(f"/annotate/{task.id}/").status_code == 200


def test_retries_are_limited_and_answers_go_in_order(esa_task, loaded_campaign, make_annotator):
    task = esa_task
    ann = make_annotator(loaded_campaign, "ann")
    api = api_for(ann)
    items = list(TutorialItem.objects.filter(task=task).order_by("position"))
    out_of_order = answer(api, task, items[1].id, score=70, spans=[])
    assert out_of_order.status_code == 409
    for attempt in (1, 2):
        answer(api, task, items[0].id, score=10, spans=[])
        answer(api, task, items[1].id, score=10, spans=[])
        if attempt == 1:
            assert api.post(f"/api/v1/tasks/{task.id}/tutorial/retry").status_code == 201
    again = api.post(f"/api/v1/tasks/{task.id}/tutorial/retry")
    assert again.status_code == 403 and "all 2 attempts" in again.json()["error"]
    state = tutorial_state(task=task, annotator_id=ann.id)
    assert state.blocks and not state.may_retry and state.attempts_left == 0
    # A repeated answer returns its feedback and changes nothing.
    repeat = answer(api, task, items[1].id, score=90, spans=[])
    assert repeat.status_code == 409  # the attempt is over
    assert TutorialAnswer.objects.filter(attempt__annotator=ann).count() == 4
    # A bad answer is a 400 with the reason, nothing stored.
    ann2 = make_annotator(loaded_campaign, "ann2")
    bad = answer(api_for(ann2), task, items[0].id, score=101, spans=[])
    assert bad.status_code == 400 and "score must be from 0 to 100" in bad.json()["error"]
    assert not TutorialAnswer.objects.filter(attempt__annotator=ann2).exists()


def test_grading_ranges_tolerance_missing_and_relations():
    candidates = [{"name": "A", "text": "The dog walked."}, {"name": "B", "text": "Dog."}]
    expected = {
        "A": {"score": [50, 80], "spans": [{"start": [3, 5], "end": [14, 14], "text": "x"}]},
        "B": {"above": "A", "spans": [{"missing": True, "severity": "major"}]},
    }
    good = [
        CandidateAnswer(60, (Span(4, 14, "minor"),)),
        CandidateAnswer(61, (Span(None, None, "major"),)),
    ]
    assert tutorial_grade(expected=expected, candidates=candidates, answers=good) == []
    bad = [
        CandidateAnswer(81, (Span(6, 14, "minor"),)),
        CandidateAnswer(81, (Span(None, None, "minor"),)),
    ]
    assert tutorial_grade(expected=expected, candidates=candidates, answers=bad) == [
        "Translation A: the score 81 is outside 50–80",
        "Translation A: the error “x” is not marked",
        "Translation B: the error missing content (major) is not marked",
        "Translation B: should be scored above translation A",
    ]


def test_jsonl_errors_name_the_line_and_store_nothing(esa_task, manager):
    bad = [*ESA_LINES, {"source": "x", "target": "y", "expected": {"score": [9, 1]}}]
    api = api_for(manager)
    before = TutorialItem.objects.count()
    sent = api.post(
        f"/api/v1/tasks/{esa_task.id}/tutorial/items",
        {"file": io.BytesIO(jsonl(bad))},
        format="multipart",
    )
    assert sent.status_code == 400
    assert "line 3" in sent.json()["error"] and "low is above high" in sent.json()["error"]
    assert TutorialItem.objects.count() == before
    with pytest.raises(TutorialFormatError, match="not in the translation"):
        tutorial_lines_parse(
            [json.dumps({"target": "a b", "expected": {"spans": [{"text": "z"}]}})]
        )
    with pytest.raises(TutorialError, match="one translation per screen"):
        tutorial_upload(
            task=esa_task,
            name="two.jsonl",
            data=jsonl([{"candidates": [{"text": "a"}, {"text": "b"}]}]),
        )


def test_api_upload_with_rules_and_annotators_cannot_upload(esa_task, manager, make_annotator):
    sent = api_for(manager).post(
        f"/api/v1/tasks/{esa_task.id}/tutorial/items",
        {"file": io.BytesIO(jsonl(ESA_LINES[:1])), "pass_share": "0.5", "attempts": "0"},
        format="multipart",
    )
    assert sent.status_code == 201 and sent.json()["items"] == 1
    assert Tutorial.objects.get(task=esa_task).attempts == 0
    ann = make_annotator(esa_task.campaign, "ann")
    refused = api_for(ann).post(
        f"/api/v1/tasks/{esa_task.id}/tutorial/items",
        {"file": io.BytesIO(jsonl(ESA_LINES))},
        format="multipart",
    )
    assert refused.status_code == 403


def test_per_language_items_and_instructions(launched, loaded_campaign, make_annotator):
    task = launched("esa")
    german = [dict(line, language="de", explanation="Deutsch") for line in ESA_LINES[:1]]
    extra = [{"task_instructions": "Bewerten Sie die Übersetzung.", "language": "de"}]
    tutorial_upload(task=task, name="t.jsonl", data=jsonl(ESA_LINES + german + extra))
    assert TutorialItem.objects.filter(task=task, language="de").count() == 1
    assert TutorialItem.objects.filter(task=task, language="").count() == 2
    # The campaign translates into German: its annotators see the German variant.
    ann = make_annotator(loaded_campaign, "ann")
    state = tutorial_state(task=task, annotator_id=ann.id)
    assert state.total == 1 and state.next_item.explanation == "Deutsch"
    assert task_instructions(task) == "Bewerten Sie die Übersetzung."
    # Another target language: the default items and instructions.
    loaded_campaign.target_language = "cs"
    loaded_campaign.save()
    task.refresh_from_db()
    assert tutorial_state(task=task, annotator_id=ann.id).total == 2
    assert task_instructions(task) != "Bewerten Sie die Übersetzung."


def test_pearmut_tutorial_files_import_with_their_validation(launched, loaded_campaign):
    esa = launched("esa")
    out = io.StringIO()
    call_command(
        "import_pearmut", str(TUTORIALS / "esa_deen.json"), "--tutorial-for", str(esa.id),
        "--pass-share", "0.75", stdout=out,
    )  # fmt: skip
    items = list(TutorialItem.objects.filter(task=esa).order_by("position"))
    # By hand from the file: 8 items (6 tutorial items, 2 attention checks), each with a
    # validation; item 2 expects "walked" (start_i 7-9, end_i 12-14 inclusive) minor, 75-85.
    assert len(items) == 8 and all(item.graded for item in items)
    walked = items[1].expected["model-tutorial"]
    assert walked["score"] == [75, 85]
    assert walked["spans"] == [
        {"start": [7, 9], "end": [13, 15], "text": "walked", "severity": "minor"}
    ]
    assert "Please mark the word" in items[1].explanation
    assert "<b>" not in items[0].instructions and "Welcome" in items[0].instructions
    assert Tutorial.objects.get(task=esa).pass_share == 0.75

    # cESA: the first item's instructions are a <script>: dropped (never run), said so.
    contrastive = launched("contrastive_esa")
    out = io.StringIO()
    call_command(
        "import_pearmut", str(TUTORIALS / "cesa_deen.json"), "--tutorial-for",
        str(contrastive.id), stdout=out,
    )  # fmt: skip
    items = list(TutorialItem.objects.filter(task=contrastive).order_by("position"))
    assert len(items) == 8 and sum(item.graded for item in items) == 6
    assert "a <script> was dropped" in out.getvalue()
    assert all("<script" not in item.instructions for item in items)
    assert "document.getElementById" not in items[0].instructions
    assert [c["name"] for c in items[6].candidates] == ["model-tutorial-A", "model-tutorial-B"]

    # An ESA tutorial onto a contrastive task is refused by name; nothing changes.
    with pytest.raises(CommandError, match="Pearmut ESA tutorial; this task is Contrastive"):
        call_command(
            "import_pearmut", str(TUTORIALS / "esa_deen.json"), "--tutorial-for",
            str(contrastive.id),
        )  # fmt: skip
    assert TutorialItem.objects.filter(task=contrastive).count() == 8


def test_pearmut_score_greaterthan_is_a_relation(launched):
    task = launched("contrastive_esa")
    campaign = {
        "info": {"protocol": "cESA", "assignment": "task-based"},
        "campaign_id": "rel",
        "data": [[[
            {
                "item_id": "x",
                "src": "Hallo Welt.",
                "tgt": {"good": "Hello world.", "bad": "Hello word."},
                "validation": {
                    "good": {"score_greaterthan": "bad", "warning": "The first is better."}
                },
            }
        ]]],
    }  # fmt: skip
    tutorial_upload(task=task, name="rel.json", data=json.dumps(campaign).encode())
    item = TutorialItem.objects.get(task=task)
    assert item.expected == {"good": {"above": "bad"}}
    assert item.explanation == "The first is better."


def test_pages_show_instructions_as_text_and_feedback_to_its_owner_only(
    esa_task, loaded_campaign, make_annotator, client
):
    ann = make_annotator(loaded_campaign, "ann")
    client.force_login(ann)
    first = TutorialItem.objects.get(task=esa_task, position=0)
    posted = client.post(
        f"/annotate/{esa_task.id}/tutorial/answer/",
        {"tutorial_item": first.id, "candidates": "1", "score": "40", "spans": "[]"},
    )
    assert posted.status_code == 302
    feedback = client.get(posted["Location"])
    html = feedback.content.decode()
    assert "Not as expected" in html and "Nothing is wrong: the score is near 100." in html
    assert "the score 40 is outside 90–100" in html
    page = client.get(f"/annotate/{esa_task.id}/tutorial/").content.decode()
    assert "Mark &lt;b&gt;walked&lt;/b&gt; as a minor error." in page
    assert 'name="tutorial_item"' in page and "Item 2 of 2" in page
    other = make_annotator(loaded_campaign, "other")
    client.force_login(other)
    assert client.get(posted["Location"]).status_code == 404


def test_manager_page_uploads_a_pearmut_tutorial(launched, manager, client):
    task = launched("esa")
    client.force_login(manager)
    url = f"/campaigns/{task.campaign_id}/tasks/{task.id}/tutorial/"
    assert (
        "No tutorial"
        in client.get(f"/campaigns/{task.campaign_id}/tasks/{task.id}/edit/").content.decode()
    )
    with (TUTORIALS / "esa_deen.json").open("rb") as upload:
        sent = client.post(url + "upload/", {"file": upload, "language": "DE"})
    assert sent.status_code == 302
    assert TutorialItem.objects.filter(task=task, language="de").count() == 8
    page = client.get(url).content.decode()
    assert "8 items (de)" in page
    client.post(url + "rules/", {"pass_share": "0.5", "attempts": "1"})
    assert Tutorial.objects.get(task=task).attempts == 1


def test_reliability_table_shows_the_tutorial_pass_rate(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", items_per_annotator=2, batch_size=2)
    lines = [
        {"source": "a", "target": "b", "expected": {"score": [4, 5]}},
        {"source": "c", "target": "d", "expected": {"score": [1, 2]}},
    ]
    tutorial_upload(task=task, name="t.jsonl", data=jsonl(lines), pass_share=0.5)
    ann = make_annotator(loaded_campaign, "ann")
    api = api_for(ann)
    answer(api, task, current_item(api, task), score=5)  # as expected
    answer(api, task, current_item(api, task), score=5)  # not
    assert TutorialAttempt.objects.get(annotator=ann).passed is True
    slot = slot_claim_next(task=task, annotator_id=ann.id)
    judgment_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=ann.id, answer={"score": 3}
    )
    rows = {row.username: row for row in human_results(loaded_campaign).tasks[0].reliability}
    assert (rows["ann"].tutorial.passed, rows["ann"].tutorial.total) == (1, 2)


def test_error_span_reliability_table_shows_the_tutorial_pass_rate(
    launched, loaded_campaign, make_annotator
):
    """The ESA/MQM table (selectors/human/span_reliability.py) has the tutorial column too."""
    from annotation.selectors.human.spans import span_results

    task = launched("esa", items_per_annotator=2, batch_size=2)
    lines = [
        {"source": "a", "target": "b", "expected": {"score": [60, 100]}},
        {"source": "c", "target": "d", "expected": {"score": [0, 30]}},
    ]
    tutorial_upload(task=task, name="t.jsonl", data=jsonl(lines), pass_share=0.5)
    ann = make_annotator(loaded_campaign, "ann")
    api = api_for(ann)
    answer(api, task, current_item(api, task), score=90, spans=[])  # as expected
    answer(api, task, current_item(api, task), score=90, spans=[])  # not
    assert TutorialAttempt.objects.get(annotator=ann).passed is True
    slot = slot_claim_next(task=task, annotator_id=ann.id)
    judgment_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=ann.id, answer={"score": 70, "spans": []}
    )
    (result,) = span_results(loaded_campaign)
    rows = {row.username: row for row in result.reliability}
    assert (rows["ann"].tutorial.passed, rows["ann"].tutorial.total) == (1, 2)
