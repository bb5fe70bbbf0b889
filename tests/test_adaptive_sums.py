"""The adaptive refresh counts only what was recorded since it last ran (issue 23 section 1:
"refreshed incrementally"), and stays exact: a judgment whose transaction commits after a
higher id was seen is counted once, a document page across the bound is one observation,
an edit of recorded judgments recounts from the start, and annotators left out are left
out without a recount. Every figure is compared with the live status computed from all
the judgments (``task_statuses``)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from annotation.models import Judgment, ScoreSums, Slot, SumsCursor, Task
from annotation.selectors.adaptive import Horizon, judgments_horizon
from annotation.services.adaptive import task_sums_count
from annotation.services.assignment import slot_claim_next
from annotation.services.exclusions import annotator_exclude
from annotation.services.judgments import judgment_record
from annotation.services.page_judgments import page_record_and_claim_next
from tests.test_adaptive_protocols import (
    answer,
    assert_figures_equal_the_live_status,
    judge_batch,
    refresh,
)

ADAPTIVE = {"assignment": "adaptive", "batch_size": 4, "cold_start": 2, "seed": 23}


def _judge_batches(task: Task, users, batches: int) -> None:
    counter = [0]
    for _ in range(batches):
        for user in users:
            judge_batch(task, user, counter)


@pytest.mark.django_db
def test_a_refresh_reads_only_the_judgments_since_the_last(
    launched, loaded_campaign, make_annotator
):
    task = launched("esa", **ADAPTIVE)
    users = [make_annotator(loaded_campaign, "a")]
    _judge_batches(task, users, 2)
    refresh(task)
    counted = SumsCursor.objects.get(task=task).counted_to
    assert counted == Judgment.objects.filter(task=task).latest("id").id
    _judge_batches(task, users, 1)
    with CaptureQueriesContext(connection) as queries:
        refresh(task)
    reads = [q["sql"] for q in queries.captured_queries if "FROM annotation_judgment j" in q["sql"]]
    assert len(reads) == 1 and f"j.id > {counted}" in reads[0]
    # Nothing reads the task's judgments whole (no query on the judgment table without the
    # id range).
    whole = [
        q["sql"]
        for q in queries.captured_queries
        if '"annotation_judgment"' in q["sql"] and "j.id >" not in q["sql"]
    ]
    assert not whole, whole
    assert_figures_equal_the_live_status(task)


@pytest.mark.django_db
def test_a_page_across_the_bound_is_counted_whole_and_once(
    launched, loaded_campaign, make_annotator
):
    task = launched("esa", unit="document", page_size=3, **ADAPTIVE)
    user = make_annotator(loaded_campaign, "a")
    slot = slot_claim_next(task=task, annotator_id=user.id)
    page = list(Slot.objects.filter(batch_id=slot.batch_id, page=slot.page).order_by("position"))
    answers = [{"slot": s.id, **answer(task, s.item, i)} for i, s in enumerate(page)]
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=user.id, answers=answers, claim="no"
    )
    ids = sorted(recorded.judgment_ids)
    assert len(ids) == 3
    task_sums_count(task=task, horizon=Horizon(ids[0], [], settled=True))
    cursor = SumsCursor.objects.get(task=task)
    assert (cursor.counted_to, cursor.carried) == (ids[0], ids[1:])
    (row,) = ScoreSums.objects.filter(task=task)
    scores = [a["score"] for a in answers]
    assert row.count == 1 and row.total == pytest.approx(sum(scores) / 3)  # one page mean
    task_sums_count(task=task, horizon=Horizon(ids[1], [], settled=True))
    task_sums_count(task=task, horizon=Horizon(ids[2] + 5, [], settled=True))
    (row,) = ScoreSums.objects.filter(task=task)
    assert row.count == 1  # not again
    cursor.refresh_from_db()
    assert cursor.carried == [] and cursor.judgments == 3


@pytest.mark.django_db
def test_an_edit_recounts_and_an_exclusion_needs_no_recount(
    launched, loaded_campaign, make_annotator, manager
):
    task = launched("mqm", **ADAPTIVE)
    users = [make_annotator(loaded_campaign, name) for name in ("a", "b")]
    _judge_batches(task, users, 3)
    refresh(task)
    assert_figures_equal_the_live_status(task)
    # A crowd restart's update of recorded judgments: the trigger marks the sums stale.
    some = Judgment.objects.filter(task=task, annotator=users[0]).order_by("id")[:3]
    Judgment.objects.filter(id__in=[j.id for j in some]).update(excluded=True)
    assert SumsCursor.objects.get(task=task).stale
    refresh(task)
    assert not SumsCursor.objects.get(task=task).stale
    assert_figures_equal_the_live_status(task)
    # Leaving an annotator out changes the figures at once, from the same sums.
    annotator_exclude(campaign=loaded_campaign, annotator_id=users[1].id, excluded=True, by=manager)
    before = SumsCursor.objects.get(task=task).counted_to
    assert_figures_equal_the_live_status(task)
    assert SumsCursor.objects.get(task=task).counted_to == before


@pytest.mark.django_db
def test_changed_mqm_weights_recount(launched, loaded_campaign, make_annotator):
    task = launched("mqm", **ADAPTIVE)
    _judge_batches(task, [make_annotator(loaded_campaign, "a")], 3)
    refresh(task)
    task.mqm_weights = {"severity": {"major": 10, "minor": 1}}
    task.save(update_fields=["mqm_weights"])
    refresh(task)
    assert_figures_equal_the_live_status(task)


@pytest.mark.django_db(transaction=True)
def test_a_judgment_committed_after_a_higher_id_is_counted_once(
    launched, loaded_campaign, make_annotator
):
    """A judgment's transaction still open while a later one commits: the refresh does not
    move past its id until it ended, then counts it (and the later one) once."""
    task = launched("esa", **ADAPTIVE)
    slow, fast = make_annotator(loaded_campaign, "slow"), make_annotator(loaded_campaign, "fast")
    held, release, failures = threading.Event(), threading.Event(), []

    def slow_judgment() -> None:
        try:
            with transaction.atomic():
                slot = slot_claim_next(task=task, annotator_id=slow.id)
                judgment_record(
                    task_id=task.id,
                    slot_id=slot.id,
                    annotator_id=slow.id,
                    answer=answer(task, slot.item, 1),
                )
                held.set()
                release.wait(30)
        except Exception as error:  # reported by the main thread
            failures.append(error)
            held.set()
        finally:
            connection.close()

    # The fast one claims first: its claim would otherwise wait for the slow one's (both
    # count the slots claimed of a system in one row).
    slot = slot_claim_next(task=task, annotator_id=fast.id)
    thread = threading.Thread(target=slow_judgment)
    thread.start()
    assert held.wait(30)
    judgment_record(
        task_id=task.id, slot_id=slot.id, annotator_id=fast.id, answer=answer(task, slot.item, 2)
    )
    horizon = judgments_horizon(wait=0.05)
    assert not horizon.settled  # the slow one is in flight
    task_sums_count(task=task, horizon=horizon)
    cursor = SumsCursor.objects.get(task=task)
    assert cursor.judgments == 0 and cursor.candidate == horizon.bound
    release.set()
    thread.join(30)
    assert not failures, failures
    task_sums_count(task=task, horizon=judgments_horizon())
    cursor.refresh_from_db()
    assert cursor.judgments == 2 == Judgment.objects.filter(task=task).count()
    assert sum(ScoreSums.objects.filter(task=task).values_list("count", flat=True)) == 2
    task_sums_count(task=task, horizon=judgments_horizon())
    assert sum(ScoreSums.objects.filter(task=task).values_list("count", flat=True)) == 2
