"""Document-level annotation: the plan at launch (pages of consecutive slots, whole pages in
batches, quality control at page granularity), the claim serving a page whole, one submit
per page (validated whole, atomic, idempotent), the page as annotators and the API see it,
and a reload resuming a page."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import (
    ErrorSpan,
    Item,
    ItemType,
    Judgment,
    PageScore,
    Skip,
    Slot,
    Task,
)
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import JudgmentError
from annotation.services.page_judgments import IDLE_CAP_MS, page_record_and_claim_next
from annotation.services.page_plan import page_sizes
from annotation.services.tasks import TaskError, task_create

pytestmark = pytest.mark.django_db


def page_of(slot: Slot) -> list[Slot]:
    return list(
        Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
        .select_related("item__segment")
        .order_by("position")
    )


def esa_answers(slots, score=70, **extra):
    return [{"slot": s.id, "score": score, "spans": [], **extra} for s in slots]


# -- Settings ----------------------------------------------------------------------------------


def test_the_document_settings_are_refused_where_a_protocol_has_no_page(loaded_campaign):
    with pytest.raises(TaskError, match="do not implement unit"):
        task_create(campaign=loaded_campaign, task_type="ranking", unit="document", seed=1)
    with pytest.raises(TaskError, match="page_size is at most 100"):
        task_create(campaign=loaded_campaign, task_type="esa", unit="document", page_size=101)
    task = task_create(campaign=loaded_campaign, task_type="adequacy", unit="document", seed=1)
    assert (task.unit, task.page_size, task.document_score) == ("document", 20, False)


def test_a_document_unit_needs_document_ids(campaign, manager):
    from annotation.services.imports import upload_import

    upload_import(campaign=campaign, kind="source", files=[("s.en", b"One.\nTwo.\n")], user=manager)
    with pytest.raises(TaskError, match="needs document ids"):
        task_create(campaign=campaign, task_type="esa", unit="document", seed=1)


# -- Planning ----------------------------------------------------------------------------------


def test_pages_are_near_equal_and_never_longer_than_the_page_size():
    assert page_sizes(segments=25, page_size=20) == [13, 12]
    assert page_sizes(segments=12, page_size=5) == [4, 4, 4]
    assert page_sizes(segments=3, page_size=20) == [3]


def test_a_page_is_consecutive_slots_of_one_document_and_system_in_reading_order(launched):
    task = launched("esa", unit="document", page_size=5, repeat_rate=0.2, judgments_per_item=2)
    slots = list(Slot.objects.filter(task=task).select_related("item__segment", "batch"))
    pages: dict[tuple[int, int, bool], list[Slot]] = {}
    for slot in slots:
        assert slot.page is not None
        pages.setdefault((slot.batch_id, slot.page, slot.is_repeat), []).append(slot)
    for (_, first, _), page in pages.items():
        page.sort(key=lambda s: s.position)
        assert [s.position for s in page] == list(range(first, first + len(page)))
        assert len({(s.item.system_id, s.item.item_type) for s in page}) == 1
        indices = [s.item.segment.index for s in page]
        assert indices == sorted(indices) and len(page) <= 5
    # 12 segments × 3 systems in pages of 4; each group once per replica, same order.
    originals = [p for p in pages.values() if not p[0].is_repeat]
    assert Counter(len(p) for p in originals) == {4: 18}
    # Repeats are whole pages: 20% of the 9 pages of the group → 2 repeated pages, each after
    # its original, in each replica's batch.
    repeats = [p for p in pages.values() if p[0].is_repeat]
    assert len(repeats) == 2 * 2
    for page in repeats:
        original = next(
            p
            for p in originals
            if p[0].batch_id == page[0].batch_id
            and {s.item_id for s in p} == {s.item_id for s in page}
        )
        assert original[-1].position < page[0].position
    assert Item.objects.filter(task=task, has_repeat=True).count() == 8


def test_bad_reference_pages_degrade_a_page_of_the_same_batch(launched):
    task = launched("adequacy", scale="da100", unit="document", page_size=6, bad_reference_rate=0.2)
    bad = Slot.objects.filter(task=task, item__item_type=ItemType.BAD).select_related("item")
    assert bad.exists()
    for slot in bad:
        original = Slot.objects.get(task=task, item_id=slot.item.original_id, is_repeat=False)
        assert original.batch_id == slot.batch_id and original.position < slot.position
        assert slot.item.segment_id == original.item.segment_id
        assert slot.item.candidates[0]["text"] != original.item.candidates[0]["text"]
    assert all(s.page is not None for s in bad)


def test_the_plan_is_drawn_from_the_seed(launched, loaded_campaign):
    first = launched("esa", unit="document", page_size=5, seed=7, name="one")
    second = launched("esa", unit="document", page_size=5, seed=7, name="two")

    def plan(task):
        return [
            (s.position, s.page, s.item.segment.index, s.item.system_id)
            for s in Slot.objects.filter(task=task)
            .select_related("item__segment")
            .order_by("batch__number", "position")
        ]

    assert plan(first) == plan(second)


# -- Claim and submit --------------------------------------------------------------------------


def test_the_claim_serves_a_whole_page_and_a_submit_records_it(launched, make_annotator):
    task = launched("esa", unit="document", page_size=5, document_score=True)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_of(slot)
    assert slot.id == page[0].id and len(page) == 4
    assert all(s.served_at is not None and s.annotator_id == annotator.id for s in page)
    # Nothing outside the page was served.
    assert Slot.objects.filter(task=task, served_at__isnull=False).count() == 4

    target = page[1].item.candidates[0]["text"]
    answers = esa_answers(page, ms=1500)
    answers[1]["spans"] = [{"start": 0, "end": min(3, len(target)), "severity": "major"}]
    recorded, next_slot, _ = page_record_and_claim_next(
        task=task,
        slot_id=slot.id,
        annotator_id=annotator.id,
        answers=answers,
        document_score="64",
    )
    assert recorded.created and len(recorded.judgment_ids) == 4
    judgments = Judgment.objects.filter(id__in=recorded.judgment_ids).order_by("slot__position")
    assert [j.slot_id for j in judgments] == [s.id for s in page]
    assert [j.score for j in judgments] == [70] * 4
    assert [j.duration_ms <= 1500 for j in judgments] == [True] * 4
    assert ErrorSpan.objects.filter(judgment__in=judgments).count() == 1
    score = PageScore.objects.get(slot=page[0])
    assert (score.score, score.segments, score.annotator_id) == (64, 4, annotator.id)
    # The next page follows, served whole.
    assert next_slot is not None and next_slot.page != slot.page
    assert all(s.served_at is not None for s in page_of(next_slot))


def test_a_resubmit_records_nothing_twice_and_another_answer_is_a_conflict(
    launched, make_annotator
):
    task = launched("esa", unit="document", page_size=5, document_score=True)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_of(slot)
    first, _, _ = page_record_and_claim_next(
        task=task,
        slot_id=slot.id,
        annotator_id=annotator.id,
        answers=esa_answers(page),
        document_score=50,
    )
    again, _, _ = page_record_and_claim_next(
        task=task,
        slot_id=slot.id,
        annotator_id=annotator.id,
        answers=esa_answers(page),
        document_score=50,
    )
    assert first.created and not again.created
    assert again.judgment_ids == first.judgment_ids
    assert Judgment.objects.filter(task=task).count() == 4
    assert PageScore.objects.filter(task=task).count() == 1
    with pytest.raises(JudgmentError, match="already recorded as 70") as error:
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=esa_answers(page, score=20),
            document_score=50,
        )
    assert error.value.code == "conflict"
    with pytest.raises(JudgmentError, match="already scored 50"):
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=esa_answers(page),
            document_score=51,
        )
    assert Judgment.objects.filter(task=task).count() == 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a[:-1], "missing: segment 4"),
        (lambda a: [*a, a[0]], "segment 1 is answered twice"),
        (lambda a: [{**a[0], "slot": 10**9}, *a[1:]], "not a segment of this page"),
        (lambda a: [a[0], {**a[1], "score": 101}, *a[2:]], "segment 2: score must be from 0"),
        (
            lambda a: [
                a[0],
                a[1],
                {**a[2], "spans": [{"start": 0, "end": 10**6, "severity": "minor"}]},
                a[3],
            ],
            "segment 3:",
        ),
        (lambda a: {"not": "a list"}, "answers must be a list"),
    ],
)
def test_a_page_is_validated_whole_and_nothing_is_written(
    launched, make_annotator, change, message
):
    task = launched("esa", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    with pytest.raises(JudgmentError, match=message) as error:
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=change(esa_answers(page_of(slot))),
        )
    assert error.value.code == "invalid"
    assert not Judgment.objects.filter(task=task).exists()


def test_a_page_is_atomic_when_a_segment_is_refused_after_the_first_is_written(
    launched, make_annotator
):
    """The last slot of the page is taken by someone else meanwhile: the loop refuses it, and
    the segments recorded before it in the same submit are rolled back."""
    task = launched("esa", unit="document", page_size=5, document_score=True)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_of(slot)
    Slot.objects.filter(id=page[-1].id).update(annotator=None, state=Slot.State.OPEN)
    with pytest.raises(JudgmentError, match="no longer assigned") as error:
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=esa_answers(page),
            document_score=40,
        )
    assert error.value.code == "conflict"
    assert not Judgment.objects.filter(task=task).exists()
    assert not PageScore.objects.exists()
    assert not ErrorSpan.objects.exists()


def test_the_page_score_is_asked_only_when_the_task_wants_it(launched, make_annotator):
    task = launched("esa", unit="document", page_size=5, document_score=True)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    answers = esa_answers(page_of(slot))
    with pytest.raises(JudgmentError, match="page score is required"):
        page_record_and_claim_next(
            task=task, slot_id=slot.id, annotator_id=annotator.id, answers=answers
        )
    with pytest.raises(JudgmentError, match="whole number from 0 to 100"):
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=answers,
            document_score="7.5",
        )
    Task.objects.filter(id=task.id).update(document_score=False)
    task.refresh_from_db()
    with pytest.raises(JudgmentError, match="asks for no page score"):
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=answers,
            document_score=5,
        )


def test_segment_times_are_the_pages_measure_within_the_pages_own(launched, make_annotator):
    task = launched("esa", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_of(slot)
    later = timezone.now() + timedelta(seconds=100)
    answers = esa_answers(page)
    answers[0]["ms"] = 30_000
    answers[1]["ms"] = 10**9  # more than the page was open: the page's time at most
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=annotator.id, answers=answers, now=later
    )
    times = list(
        Judgment.objects.filter(id__in=recorded.judgment_ids)
        .order_by("slot__position")
        .values_list("duration_ms", flat=True)
    )
    assert times[0] == 30_000
    assert 100_000 <= times[1] < 102_000
    # No measure sent (an API client): the page's time shared among its segments.
    assert 25_000 <= times[2] < 25_600 and times[2] == times[3]
    assert IDLE_CAP_MS == 60_000


def test_a_whole_batch_of_pages_closes_and_counts_as_segments(launched, make_annotator):
    task = launched("adequacy", scale="da100", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    pages = 0
    while slot is not None:
        page = page_of(slot)
        recorded, slot, progress = page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=[{"slot": s.id, "score": 55} for s in page],
        )
        pages += 1
    assert pages == 9 and recorded.batch_closed
    assert progress is not None and progress[:3] == (36, 36, 0)
    # Every statistic reads one judgment per segment, as for a segment task.
    per_item = Judgment.objects.filter(task=task).values("item").annotate(n=Count("id"))
    assert {row["n"] for row in per_item} == {1} and len(per_item) == 36


# -- The page and the API ----------------------------------------------------------------------


def test_the_page_shows_every_segment_escaped_and_a_submit_answers_json(
    client, launched, make_annotator
):
    task = launched("esa", unit="document", page_size=5, document_score=True)
    annotator = make_annotator(task.campaign, "ann")
    Item.objects.filter(task=task).update(
        candidates=[{"text": "<b>x</b> y", "systems": ["S"], "type": "TGT"}]
    )
    client.force_login(annotator)
    page = client.get(reverse("annotate", args=[task.id]))
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('class="doc-segment"') == 4
    assert "&lt;b&gt;x&lt;/b&gt; y" in html and "<b>x</b>" not in html
    assert 'lang="de" dir="ltr"' in html and 'data-idle-cap="60000"' in html
    assert 'name="document_score"' in html
    slot = Slot.objects.get(task=task, served_at__isnull=False, page=0, position=0)
    slots = page_of(slot)
    url = reverse("annotate-page", args=[task.id])
    import json

    bad = client.post(
        url,
        {"page": slot.id, "answers": json.dumps(esa_answers(slots)[:2]), "document_score": "50"},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert bad.status_code == 400 and "missing: segment 3, 4" in bad.json()["error"]
    good = client.post(
        url,
        {"page": slot.id, "answers": json.dumps(esa_answers(slots)), "document_score": "50"},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert good.status_code == 200 and good.json()["status"] == "recorded"
    again = client.post(
        url,
        {"page": slot.id, "answers": json.dumps(esa_answers(slots)), "document_score": "50"},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert again.json()["status"] == "already_recorded"
    assert Judgment.objects.filter(task=task).count() == 4
    # Another annotator cannot submit this page.
    other = make_annotator(task.campaign, "other")
    client.force_login(other)
    refused = client.post(
        url,
        {"page": slot.id, "answers": json.dumps(esa_answers(slots)), "document_score": "50"},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert refused.status_code == 409


def test_the_api_claims_a_page_and_takes_its_answers(launched, make_annotator):
    task = launched("esa", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    api = APIClient()
    api.force_authenticate(annotator)
    body = api.get(reverse("api-next-item", args=[task.id])).json()
    assert body["unit"] == "document" and len(body["page"]) == 4
    assert body["slot"] == body["page"][0]["slot"]
    answers = [{"slot": s["slot"], "score": 80, "spans": []} for s in body["page"]]
    short = api.post(
        reverse("api-pages"),
        {"task": task.id, "slot": body["slot"], "answers": answers[:3]},
        format="json",
    )
    assert short.status_code == 400 and "missing: segment 4" in short.json()["error"]
    done = api.post(
        reverse("api-pages"),
        {"task": task.id, "slot": body["slot"], "answers": answers},
        format="json",
    )
    assert done.status_code == 201, done.json()
    assert done.json()["status"] == "recorded" and len(done.json()["judgments"]) == 4
    assert len(done.json()["next"]["page"]) == 4
    assert done.json()["next"]["slot"] != body["slot"]
    again = api.post(
        reverse("api-pages"),
        {"task": task.id, "slot": body["slot"], "answers": answers},
        format="json",
    )
    assert again.status_code == 200 and again.json()["status"] == "already_recorded"


def test_context_is_refused_on_a_document_page(loaded_campaign):
    with pytest.raises(TaskError, match="set context to 0"):
        task_create(
            campaign=loaded_campaign, task_type="esa", unit="document", context_size=2, seed=1
        )


def test_a_reload_resumes_the_same_page_and_serves_nothing_more(launched, make_annotator):
    task = launched("esa", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    served = dict(
        Slot.objects.filter(task=task, served_at__isnull=False).values_list("id", "served_at")
    )
    later = timezone.now() + timedelta(minutes=5)
    again = slot_claim_next(task=task, annotator_id=annotator.id, now=later)
    assert again.id == slot.id and again.page == slot.page
    # The page's time still counts from its first showing; no other page was served.
    assert (
        dict(Slot.objects.filter(task=task, served_at__isnull=False).values_list("id", "served_at"))
        == served
    )


@pytest.mark.parametrize(
    ("task_type", "settings", "shown"),
    [
        ("mqm", {}, 'id="mqm-category"'),
        ("adequacy", {"scale": "likert5"}, 'max="5"'),
        ("adequacy", {"scale": "da100"}, 'max="100"'),
        ("esa_prefilled", {}, 'type="application/json"'),
    ],
)
def test_every_protocol_with_pages_renders_its_page(
    client, launched, make_annotator, task_type, settings, shown
):
    task = launched(task_type, unit="document", page_size=5, **settings)
    annotator = make_annotator(task.campaign, "ann")
    client.force_login(annotator)
    html = client.get(reverse("annotate", args=[task.id])).content.decode()
    assert html.count('class="doc-segment"') == 4 and shown in html
    assert ('class="segment span-editor doc-editor"' in html) == (task_type != "adequacy")
    assert ('class="score-box"' in html) == (task_type != "mqm")


def test_an_mqm_page_stores_its_categories_and_a_likert_page_its_scale(launched, make_annotator):
    task = launched("mqm", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_of(slot)
    answers = [{"slot": s.id, "spans": []} for s in page]
    category = "Accuracy/Omission"
    answers[0]["spans"] = [{"start": 0, "end": 2, "severity": "minor", "category": category}]
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=annotator.id, answers=answers
    )
    assert ErrorSpan.objects.get(judgment_id=recorded.judgment_ids[0]).category == category
    likert = launched("adequacy", unit="document", page_size=5, name="likert")
    first = slot_claim_next(task=likert, annotator_id=annotator.id)
    with pytest.raises(JudgmentError, match="segment 1: score must be from 1 to 5"):
        page_record_and_claim_next(
            task=likert,
            slot_id=first.id,
            annotator_id=annotator.id,
            answers=[{"slot": s.id, "score": 6} for s in page_of(first)],
        )


def test_a_page_is_skipped_whole_and_its_segments_go_to_someone_else(
    client, launched, make_annotator
):
    task = launched("esa", unit="document", page_size=5, repeat_rate=0.2)
    annotator = make_annotator(task.campaign, "ann")
    client.force_login(annotator)
    client.get(reverse("annotate", args=[task.id]))
    first = Slot.objects.get(task=task, annotator=annotator, position=0)
    page = page_of(first)
    url = reverse("annotate-skip", args=[task.id])
    answer = client.post(url, {"skipped_slot": first.id, "reason": "garbled"})
    assert answer.status_code == 302
    assert Skip.objects.filter(slot__in=page, annotator=annotator).count() == 4
    again = client.post(url, {"skipped_slot": first.id, "reason": "garbled"})
    assert again.status_code == 302 and Skip.objects.count() == 4
    # Each segment goes on in a batch of its own (a page of one); the next page is served.
    handed_on = Slot.objects.filter(task=task, item__in=[s.item_id for s in page], page=None)
    assert handed_on.count() == 4
    following = slot_claim_next(task=task, annotator_id=annotator.id)
    assert following.page != first.page and following.batch_id == first.batch_id
    # A judged page cannot be skipped: nothing is skipped then.
    recorded_page = page_of(following)
    page_record_and_claim_next(
        task=task,
        slot_id=following.id,
        annotator_id=annotator.id,
        answers=esa_answers(recorded_page),
        claim="no",
    )
    refused = client.post(url, {"skipped_slot": following.id, "reason": "garbled"})
    assert refused.status_code == 302
    assert not Skip.objects.filter(slot__in=recorded_page).exists()


def test_the_api_skips_a_page_whole(launched, make_annotator):
    task = launched("esa", unit="document", page_size=5)
    annotator = make_annotator(task.campaign, "ann")
    api = APIClient()
    api.force_authenticate(annotator)
    body = api.get(reverse("api-next-item", args=[task.id])).json()
    skipped = api.post(
        reverse("api-skip", args=[task.id]),
        {"slot": body["slot"], "reason": "other"},
        format="json",
    )
    assert skipped.status_code == 201, skipped.json()
    page = [segment["slot"] for segment in body["page"]]
    assert Skip.objects.filter(slot_id__in=page, annotator=annotator).count() == 4
