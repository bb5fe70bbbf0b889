"""Claiming the next item: resume, never the same item twice, leases, repeats, concurrency."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from annotation.models import Judgment, Slot
from annotation.services.assignment import QC_GAP as REPEAT_GAP
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from tests.conftest import answer_for


def judge(task, user, slot):
    return judgment_record(
        task_id=task.id,
        slot_id=slot.id,
        annotator_id=user.id,
        answer=answer_for(task.task_type, len(slot.item.candidates)),
    )


@pytest.mark.django_db
def test_resuming_returns_the_same_slot(launched, loaded_campaign, make_annotator):
    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    first = slot_claim_next(task=task, annotator_id=ann.id)
    again = slot_claim_next(task=task, annotator_id=ann.id)
    assert first.id == again.id
    assert again.served_at == first.served_at  # time counts from the first showing


@pytest.mark.django_db
def test_an_annotator_never_gets_an_item_twice(launched, loaded_campaign, make_annotator):
    task = launched("fluency", judgments_per_item=3)
    ann = make_annotator(loaded_campaign, "ann")
    items = []
    while (slot := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
        items.append(slot.item_id)
        judge(task, ann, slot)
    assert len(items) == len(set(items)) == 36  # every item once, none of its other replicas


@pytest.mark.django_db
def test_k_annotators_cover_every_item_k_times(launched, loaded_campaign, make_annotator):
    task = launched("pairwise", judgments_per_item=2)
    annotators = [make_annotator(loaded_campaign, f"ann{i}") for i in range(3)]
    active = list(annotators)
    while active:
        for ann in list(active):
            slot = slot_claim_next(task=task, annotator_id=ann.id)
            if slot is None:
                active.remove(ann)
            else:
                judge(task, ann, slot)
    per_item = Judgment.objects.values("item").distinct().count()
    assert per_item == task.items.count()
    assert Judgment.objects.count() == 2 * task.items.count()
    assert not Slot.objects.exclude(state=Slot.State.DONE).exists()


@pytest.mark.django_db
def test_an_expired_lease_returns_to_the_pool(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", lease_seconds=60)
    first, second = make_annotator(loaded_campaign, "a1"), make_annotator(loaded_campaign, "a2")
    slot = slot_claim_next(task=task, annotator_id=first.id)
    later = timezone.now() + timedelta(seconds=61)
    # The second annotator gets open slots first; the expired lease once those are gone.
    Slot.objects.filter(task=task).exclude(id=slot.id).update(state=Slot.State.DONE)
    taken = slot_claim_next(task=task, annotator_id=second.id, now=later)
    assert taken.id == slot.id and taken.annotator_id == second.id
    # The first annotator's late answer is refused with a clear reason, and nothing is lost.
    from annotation.services.judgments import JudgmentError

    with pytest.raises(JudgmentError, match="no longer assigned to you"):
        judge(task, first, slot)
    assert judge(task, second, taken).created


@pytest.mark.django_db
def test_planned_repeats_come_back_to_the_same_annotator(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", repeat_rate=0.9)  # the most a task may repeat: below 1
    ann = make_annotator(loaded_campaign, "ann")
    seen = []
    while (slot := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
        seen.append((slot.item_id, slot.is_repeat))
        judge(task, ann, slot)
    originals = [item for item, repeat in seen if not repeat]
    repeats = [item for item, repeat in seen if repeat]
    planned = task.items.filter(has_repeat=True).values_list("id", flat=True)
    assert sorted(repeats) == sorted(planned)  # every planned repeat, once
    assert set(repeats) < set(originals) and len(repeats) == round(0.9 * len(originals))
    first_repeat = next(i for i, (_, repeat) in enumerate(seen) if repeat)
    assert first_repeat >= REPEAT_GAP
    other = make_annotator(loaded_campaign, "other")
    assert slot_claim_next(task=task, annotator_id=other.id) is None  # repeats are personal


@pytest.mark.django_db
def test_query_count_does_not_grow_with_progress(launched, loaded_campaign, make_annotator):
    from django.test.utils import CaptureQueriesContext

    task = launched("adequacy", repeat_rate=0.3)
    ann = make_annotator(loaded_campaign, "ann")

    claims, submits = [], []
    while True:
        with CaptureQueriesContext(connection) as claim:
            slot = slot_claim_next(task=task, annotator_id=ann.id)
        claims.append(len(claim))
        if slot is None:
            break
        with CaptureQueriesContext(connection) as submit:
            judge(task, ann, slot)
        submits.append(len(submit))
    # The whole task, repeats included: the same small bound at the first item and the last.
    # A claim is one statement with the progress, no transaction of its own, and the shown
    # slot's read.
    assert len(submits) > 36
    assert max(claims) <= 2 and max(submits) <= 9


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_annotators_fill_every_item_exactly_k_times(
    launched, loaded_campaign, make_annotator
):
    k = 3
    task = launched("adequacy", judgments_per_item=k)
    annotators = [make_annotator(loaded_campaign, f"c{i}") for i in range(20)]
    errors = []
    barrier = threading.Barrier(len(annotators))

    def work(ann):
        try:
            barrier.wait()
            while (slot := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
                result = judge(task, ann, slot)
                assert result.created
        except Exception as error:  # reported below; a thread cannot fail the test itself
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(ann,)) for ann in annotators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    items = task.items.count()
    assert Judgment.objects.count() == items * k
    counts = Judgment.objects.values("item").annotate(n=Count("id"))
    assert {row["n"] for row in counts} == {k}
    assert Judgment.objects.values("annotator", "item").distinct().count() == items * k


@pytest.mark.django_db
def test_quota_per_annotator_then_only_their_repeats(launched, loaded_campaign, make_annotator):
    from annotation.selectors.annotation import annotator_progress

    task = launched("adequacy", items_per_annotator=5, repeat_rate=0.8)
    ann = make_annotator(loaded_campaign, "ann")
    kinds = []
    while (slot := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
        kinds.append(slot.is_repeat)
        judge(task, ann, slot)
    assert kinds.count(False) == 5 and kinds.count(True) == 4  # round(0.8 * 5) repeats
    assert annotator_progress(task=task, annotator_id=ann.id)[:2] == (9, 9)
