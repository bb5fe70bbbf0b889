"""Error-span judgments (ESA, ESA^AI, MQM): storage, validation and the submit API."""

import pytest
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

from annotation.models import ErrorSpan, Item, Judgment, Slot
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import JudgmentError, judgment_record

pytestmark = pytest.mark.django_db


def claim(task, user):
    return slot_claim_next(task=task, annotator_id=user.id)


def span(start, end, severity="minor", **extra):
    return {"start": start, "end": end, "severity": severity, **extra}


def record(task, user, slot, **answer):
    return judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer)


def text_of(slot):
    return slot.item.candidates[0]["text"]


def test_esa_judgment_stores_score_and_spans(launched, loaded_campaign, make_annotator):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    length = len(text_of(slot))
    spans = [
        {"start": 0, "end": 3, "severity": "minor"},
        {"start": 4, "end": length, "severity": "major"},
        {"start": None, "end": None, "severity": "major"},  # missing content
    ]
    recorded = record(task, ann, slot, score=42, spans=spans)
    judgment = Judgment.objects.get(id=recorded.judgment.id)
    assert judgment.score == 42
    stored = list(judgment.spans.values_list("start", "end", "severity", "category", "prefilled"))
    assert stored == [
        (0, 3, "minor", "", False),
        (4, length, "major", "", False),
        (None, None, "major", "", False),
    ]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            {"score": 50, "spans": [{"start": 0, "end": 10_000, "severity": "minor"}]},
            "past the end",
        ),
        ({"score": 50, "spans": [{"start": 5, "end": 2, "severity": "minor"}]}, "start <= end"),
        ({"score": 50, "spans": [{"start": 0, "end": 2, "severity": "huge"}]}, "minor or major"),
        ({"score": 50, "spans": [{"start": 0, "end": 2}]}, "severity"),
        ({"score": 50, "spans": [{"start": 0, "severity": "minor"}]}, "both offsets"),
        (
            {
                "score": 50,
                "spans": [span(0, 2, category="Other")],
            },
            "no category",
        ),
        ({"score": 50, "spans": "0-2"}, "spans must be a list"),
        ({"score": 101, "spans": []}, "score must be from 0 to 100"),
        ({"spans": []}, "score is required"),
        (
            {"score": 50, "spans": [{"start": 0, "end": 2, "severity": "minor", "prefilled": 0}]},
            "pre-filled",
        ),
    ],
)
def test_bad_esa_answers_are_refused_and_nothing_is_written(
    launched, loaded_campaign, make_annotator, answer, message
):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    with pytest.raises(JudgmentError, match=message) as error:
        record(task, ann, slot, **answer)
    assert error.value.code == "invalid"
    assert not Judgment.objects.exists() and not ErrorSpan.objects.exists()
    assert Slot.objects.get(id=slot.id).state == Slot.State.LEASED  # the item stays to answer


def test_mqm_categories_and_non_translation(launched, loaded_campaign, make_annotator):
    task = launched("mqm")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    with pytest.raises(JudgmentError, match="unknown MQM category"):
        record(task, ann, slot, spans=[span(0, 2, category="Nope")])
    with pytest.raises(JudgmentError, match="unknown MQM category"):
        record(task, ann, slot, spans=[{"start": 0, "end": 2, "severity": "minor"}])
    recorded = record(
        task,
        ann,
        slot,
        spans=[
            {"start": 0, "end": 2, "severity": "minor", "category": "Fluency/Punctuation"},
            # Non-translation is always major and covers the whole translation.
            {"start": 3, "end": 4, "severity": "minor", "category": "Non-translation!"},
        ],
    )
    judgment = recorded.judgment
    assert judgment.score is None  # MQM: computed from the spans, not given
    rows = list(judgment.spans.values_list("start", "end", "severity", "category"))
    assert rows == [
        (0, 2, "minor", "Fluency/Punctuation"),
        (0, len(text_of(slot)), "major", "Non-translation!"),
    ]


def test_campaign_typology_replaces_google(launched, loaded_campaign, make_annotator):
    task = launched("mqm", mqm_categories=["Accuracy", "Fluency"])
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    with pytest.raises(JudgmentError, match="unknown MQM category"):
        record(
            task,
            ann,
            slot,
            spans=[span(0, 2, category="Other")],
        )
    record(task, ann, slot, spans=[span(0, 2, "major", category="Fluency")])
    assert ErrorSpan.objects.get().category == "Fluency"


def test_prefilled_spans_keep_what_was_shown_and_what_changed(
    launched, loaded_campaign, make_annotator
):
    task = launched("esa_prefilled")
    shown = [
        {"start": 0, "end": 3, "severity": "major", "category": None, "prefilled": True},
        {"start": 4, "end": 6, "severity": "minor", "category": None, "prefilled": True},
        {"start": 7, "end": 9, "severity": "minor", "category": None, "prefilled": True},
    ]
    Item.objects.filter(task=task).update(prefilled_spans=shown)
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    answer = {
        "score": 70,
        "spans": [
            {"start": 0, "end": 3, "severity": "major", "prefilled": 0},  # confirmed
            {"start": 4, "end": 6, "severity": "major", "prefilled": 1},  # made major
            {"start": 10, "end": 12, "severity": "minor"},  # the annotator's own
        ],  # the third pre-filled span was deleted
    }
    record(task, ann, slot, **answer)
    rows = list(
        ErrorSpan.objects.values_list("start", "severity", "prefilled", "changed", "origin")
    )
    assert rows == [
        (0, "major", True, False, None),
        (4, "major", True, True, {k: v for k, v in shown[1].items()}),
        (10, "minor", False, False, None),
    ]
    # What was pre-filled stays on the item, the deleted span included.
    assert Item.objects.get(id=slot.item_id).prefilled_spans == shown


def test_database_refuses_bad_offsets(launched, loaded_campaign, make_annotator):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    judgment = record(task, ann, claim(task, ann), score=80, spans=[]).judgment
    for start, end in ((5, 2), (3, None), (None, 3)):
        with pytest.raises(IntegrityError), transaction.atomic():
            ErrorSpan.objects.create(judgment=judgment, start=start, end=end, severity="minor")
    with pytest.raises(IntegrityError), transaction.atomic():
        ErrorSpan.objects.create(
            judgment=judgment, start=0, end=1, severity="minor", prefilled=False, changed=True
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.filter(id=judgment.id).update(score=None)


def test_submit_api_records_spans_and_answers_400(launched, loaded_campaign, make_annotator):
    task = launched("esa")
    api = APIClient()
    api.force_authenticate(make_annotator(loaded_campaign, "ann"))
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    assert item["task_type"] == "esa" and item["prefilled_spans"] == []
    body = {
        "task": task.id,
        "slot": item["slot"],
        "score": 30,
        "spans": [{"start": 0, "end": 10_000, "severity": "minor"}],
    }
    bad = api.post("/api/v1/judgments", body, format="json")
    assert bad.status_code == 400 and "past the end" in bad.json()["error"]
    body["spans"] = [{"start": 0, "end": 1, "severity": "minor"}]
    good = api.post("/api/v1/judgments", body, format="json")
    assert good.status_code == 201
    assert list(ErrorSpan.objects.values_list("start", "end")) == [(0, 1)]


def test_mqm_next_item_lists_the_typology(launched, loaded_campaign, make_annotator):
    task = launched("mqm")
    api = APIClient()
    api.force_authenticate(make_annotator(loaded_campaign, "ann"))
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    assert "Accuracy/Mistranslation" in item["mqm_categories"]
    assert "Non-translation!" in item["mqm_categories"]


def test_page_form_posts_spans_as_json(launched, loaded_campaign, make_annotator, client):
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    client.force_login(ann)
    page = client.get(f"/annotate/{task.id}/")
    assert page.status_code == 200 and b'id="span-editor"' in page.content
    slot = Slot.objects.get(
        task=task, annotator=ann, state=Slot.State.LEASED, served_at__isnull=False
    )
    url = f"/annotate/{task.id}/submit/"
    bad = client.post(
        url, {"slot": slot.id, "score": 50, "spans": "{not json"}, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert bad.status_code == 400
    ok = client.post(
        url,
        {"slot": slot.id, "score": 50, "spans": '[{"start": 0, "end": 2, "severity": "major"}]'},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert ok.status_code == 200, ok.content
    assert ErrorSpan.objects.get().severity == "major"


def test_prefilled_spans_upload_api(launched, loaded_campaign, make_annotator, manager):
    import json

    from django.core.files.uploadedfile import SimpleUploadedFile

    task = launched("esa_prefilled")
    item = Item.objects.filter(task=task, item_type="TGT").select_related("system", "segment")[0]
    line = {
        "system": item.system.name,
        "segment": item.segment.index,
        "spans": [{"start": 0, "end": 2, "severity": "major"}],
    }
    bad = dict(line, spans=[{"start": 0, "end": 10_000, "severity": "major"}])
    api = APIClient()
    api.force_authenticate(manager)
    url = f"/api/v1/tasks/{task.id}/prefilled-spans"

    def upload(*lines):
        body = "\n".join(json.dumps(x) for x in lines).encode()
        return api.post(url, {"file": SimpleUploadedFile("pre.jsonl", body)}, format="multipart")

    refused = upload(line, bad)
    assert refused.status_code == 400 and "item 2" in refused.json()["error"]
    assert not Item.objects.filter(task=task).exclude(prefilled_spans=[]).exists()  # nothing
    assert upload(line).json() == {"items": 1}
    item.refresh_from_db()
    assert item.prefilled_spans == [
        {"start": 0, "end": 2, "severity": "major", "category": None, "prefilled": True}
    ]
    annotator = APIClient()
    annotator.force_authenticate(make_annotator(loaded_campaign, "ann"))
    assert annotator.post(url, {}, format="multipart").status_code == 403


def test_prefilled_spans_upload_form(launched, loaded_campaign, manager, client):
    import json

    from django.core.files.uploadedfile import SimpleUploadedFile

    task = launched("esa_prefilled")
    item = Item.objects.filter(task=task, item_type="TGT").select_related("system", "segment")[0]
    client.force_login(manager)
    page = client.get(f"/campaigns/{loaded_campaign.id}/")
    assert b"Pre-filled spans (JSON Lines)" in page.content
    line = {"system": item.system.name, "segment": item.segment.index, "spans": "x"}
    url = f"/campaigns/{loaded_campaign.id}/tasks/{task.id}/prefilled-spans/"
    body = SimpleUploadedFile("pre.jsonl", json.dumps(line).encode())
    response = client.post(url, {"file": body}, follow=True)
    assert b"Nothing changed" in response.content and b"must be a list" in response.content
    line["spans"] = [{"start": None, "end": None, "severity": "major"}]
    body = SimpleUploadedFile("pre.jsonl", json.dumps(line).encode())
    response = client.post(url, {"file": body}, follow=True)
    assert b"Pre-filled spans set on 1 items" in response.content
    item.refresh_from_db()
    assert item.prefilled_spans[0]["start"] is None


def test_task_form_sets_the_mqm_typology_and_weights(loaded_campaign, manager, client):
    from annotation.models import Task

    client.force_login(manager)
    url = f"/campaigns/{loaded_campaign.id}/tasks/"
    base = {
        "task_type": "mqm",
        "scale": "likert5",
        "judgments_per_item": 1,
        "ranking_size": 5,
        "context_size": 0,
        "items_per_annotator": 0,
        "repeat_rate": 0,
        "bad_reference_rate": 0,
        "reference_rate": 0,
    }
    refused = client.post(url, {**base, "mqm_weights": '{"severity": "heavy"}'}, follow=True)
    assert b"Task not created" in refused.content and not Task.objects.exists()
    client.post(
        url,
        {
            **base,
            "mqm_categories": "Accuracy\n\nFluency\n",
            "mqm_weights": '{"severity": {"major": 10, "minor": 1}}',
        },
    )
    task = Task.objects.get()
    assert task.mqm_categories == ["Accuracy", "Fluency"]
    assert task.mqm_weights == {"severity": {"major": 10, "minor": 1}}


def test_campaign_weights_keep_google_for_severities_left_out():
    from annotation.models import Task
    from annotation.services.spans import task_mqm_weights

    weights = task_mqm_weights(task=Task(mqm_weights={"severity": {"Major": 10}}))
    assert weights.weight("major", "Accuracy/Mistranslation") == 10
    assert weights.weight("minor", "Fluency/Grammar") == 1  # Google's, by hand
    assert weights.weight("no-error", None) == 0
    assert weights.weight("minor", "Fluency/Punctuation") == 0.1


def test_a_retry_of_the_same_spans_is_harmless_and_other_spans_are_refused(
    launched, loaded_campaign, make_annotator
):
    """A second tab sending the same ESA answer again is a retry; different spans are told."""
    task = launched("esa")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    first = record(task, ann, slot, score=40, spans=[span(0, 3, "major")])
    again = record(task, ann, slot, score=40, spans=[span(0, 3, "major")])
    assert first.created and not again.created and again.judgment.id == first.judgment.id
    with pytest.raises(JudgmentError) as refused:
        record(task, ann, slot, score=40, spans=[span(0, 3, "minor")])
    assert refused.value.code == "conflict" and "already recorded" in str(refused.value)
    assert ErrorSpan.objects.filter(judgment=first.judgment).count() == 1
