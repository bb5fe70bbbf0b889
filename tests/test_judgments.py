"""Recording judgments: validation per task type, idempotency, conflicts, HTER."""

import pytest
from sacrebleu.metrics import TER

from annotation.models import Judgment
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import JudgmentError, judgment_record

pytestmark = pytest.mark.django_db


def claim(task, user):
    return slot_claim_next(task=task, annotator_id=user.id)


def record(task, user, slot, **answer):
    return judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer)


def test_double_submit_keeps_the_first_answer(launched, loaded_campaign, make_annotator):
    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    first = record(task, ann, slot, score=4)
    again = record(task, ann, slot, score=4)  # a double click: the same answer
    assert first.created and not again.created
    assert again.judgment.id == first.judgment.id
    assert again.message.startswith("already recorded")
    # A second tab with another answer is told, not silently dropped.
    with pytest.raises(JudgmentError, match=r"already recorded as 4 .*another tab"):
        record(task, ann, slot, score=1)
    assert Judgment.objects.get().score == 4


@pytest.mark.parametrize(
    ("task_type", "answer", "message"),
    [
        ("adequacy", {"score": 6}, "score must be from 1 to 5"),
        ("adequacy", {}, "score is required"),
        ("adequacy", {"score": "3.5"}, "whole number"),
        ("adequacy_fluency", {"score": 3}, "fluency is required"),
        ("pairwise", {"preference": "C"}, "preference must be A, B or T"),
        ("ranking", {"ranks": [1]}, "one rank for each"),
        ("postedit", {"post_edit": "   "}, "empty"),
        ("postedit", {"post_edit": "bad\x00text"}, "control characters"),
    ],
)
def test_invalid_answers_are_refused(
    launched, loaded_campaign, make_annotator, task_type, answer, message
):
    task = launched(task_type)
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    with pytest.raises(JudgmentError, match=message) as error:
        record(task, ann, slot, **answer)
    assert error.value.code == "invalid"
    assert not Judgment.objects.exists()


def test_nist_scale_accepts_seven(launched, loaded_campaign, make_annotator):
    task = launched("fluency", scale="nist7")
    ann = make_annotator(loaded_campaign, "ann")
    assert record(task, ann, claim(task, ann), score=7).judgment.score == 7


def test_ranking_ties_are_allowed(launched, loaded_campaign, make_annotator):
    task = launched("ranking")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    ranks = [1] * len(slot.item.candidates)
    assert record(task, ann, slot, ranks=ranks).judgment.ranks == ranks


def test_post_edit_hter_is_sacrebleu_ter(launched, loaded_campaign, make_annotator):
    task = launched("postedit")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    mt = slot.item.candidates[0]["text"]
    post_edit = mt.replace(" ", "  ", 1) + " zusätzlich"
    judgment = record(task, ann, slot, post_edit=post_edit).judgment
    expected = TER().sentence_score(mt, [post_edit.strip()]).score  # percent, as TER
    assert judgment.hter == pytest.approx(expected, rel=1e-12)
    assert judgment.post_edit == post_edit.strip()
    assert judgment.duration_ms >= 0


def test_another_annotators_slot_is_a_conflict(launched, loaded_campaign, make_annotator):
    task = launched("adequacy")
    owner, intruder = make_annotator(loaded_campaign, "a"), make_annotator(loaded_campaign, "b")
    slot = claim(task, owner)
    with pytest.raises(JudgmentError) as error:
        record(task, intruder, slot, score=3)
    assert error.value.code == "conflict"
    record(task, owner, slot, score=3)
    with pytest.raises(JudgmentError, match="another annotator judged this item"):
        record(task, intruder, slot, score=3)


def test_slot_of_another_task_is_not_found(launched, loaded_campaign, make_annotator):
    adequacy, fluency = launched("adequacy"), launched("fluency")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(adequacy, ann)
    with pytest.raises(JudgmentError) as error:
        judgment_record(
            task_id=fluency.id, slot_id=slot.id, annotator_id=ann.id, answer={"score": 3}
        )
    assert error.value.code == "not_found"


# Issue 21 §1: a skip cancels the skipped item's companions; skips are counted apart.


def _companions(slot):
    from django.db.models import Q

    from annotation.models import Slot

    return Slot.objects.filter(batch_id=slot.batch_id).filter(
        Q(item_id=slot.item_id, is_repeat=True)
        | Q(item__original_id=slot.item_id, item__item_type="BAD")
    )


def test_a_skip_cancels_the_items_repeat_and_bad_reference(
    launched, loaded_campaign, make_annotator
):
    from annotation.models import Batch, Slot
    from annotation.selectors.annotation import annotator_progress
    from annotation.services.judgments import skip_record

    task = launched("adequacy", batch_size=8, repeat_rate=0.5, bad_reference_rate=0.25)
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    batch_id, size = slot.batch_id, Batch.objects.get(id=slot.batch_id).size
    target = next(
        s
        for s in Slot.objects.filter(batch_id=batch_id, is_repeat=False).order_by("position")
        if _companions(s).exists()
    )
    cancelled = _companions(target).count()
    judged = 0
    while slot.id != target.id:
        record(task, ann, slot, score=3)
        judged += 1
        slot = claim(task, ann)
    skip_record(task_id=task.id, slot_id=target.id, annotator_id=ann.id, reason="garbled")
    shown_after = []
    while (slot := claim(task, ann)).batch_id == batch_id:
        shown_after.append((slot.item_id, slot.item.original_id))
        record(task, ann, slot, score=3)
        judged += 1
    # Neither the repeat nor the bad reference of the skipped item came back.
    assert all(target.item_id not in pair for pair in shown_after)
    batch = Batch.objects.get(id=batch_id)
    assert (batch.state, batch.size) == ("done", size - cancelled)
    assert judged + 1 == batch.size
    # The item itself goes to someone else, in a batch of its own.
    assert Slot.objects.filter(item_id=target.item_id, batch__size=1, state="open").exists()
    progress = annotator_progress(task=task, annotator_id=ann.id)
    assert (progress.judged, progress.skipped) == (0, 0)  # a new batch, not started


def test_skips_are_counted_apart_from_judgments_in_every_progress_figure(
    launched, loaded_campaign, make_annotator
):
    from annotation.models import Slot
    from annotation.selectors.annotation import annotator_progress
    from annotation.selectors.campaigns import campaign_tasks
    from annotation.selectors.human.loading import Usernames
    from annotation.selectors.human.progress import campaign_progress
    from annotation.services.judgments import skip_record

    task = launched("adequacy", batch_size=4)
    ann = make_annotator(loaded_campaign, "ann")
    first = claim(task, ann)
    record(task, ann, first, score=3)
    second = claim(task, ann)
    skip_record(task_id=task.id, slot_id=second.id, annotator_id=ann.id, reason="garbled")
    mine = annotator_progress(task=task, annotator_id=ann.id)
    assert (mine.judged, mine.skipped, mine.total) == (1, 1, 4)
    planned = Slot.objects.filter(task=task).count() - 1  # the skipped slot is no judgment
    (row,) = campaign_tasks(loaded_campaign)
    assert (row.slots_done, row.slots_skipped, row.slots_total) == (1, 1, planned)
    overall = campaign_progress(loaded_campaign, Usernames({}))
    assert (overall.judgments, overall.skips, overall.planned) == (1, 1, planned)


@pytest.mark.parametrize("note", ["bad\x00note", "lone \ud800 surrogate", "bell \x07"])
def test_a_skip_note_with_nul_or_a_lone_surrogate_is_refused_clearly(
    note, launched, loaded_campaign, make_annotator
):
    from annotation.http_errors import error_status
    from annotation.models import Skip
    from annotation.services.judgments import skip_record

    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    slot = claim(task, ann)
    with pytest.raises(JudgmentError, match="control characters or broken Unicode") as refused:
        skip_record(
            task_id=task.id, slot_id=slot.id, annotator_id=ann.id, reason="other", note=note
        )
    assert error_status(refused.value) == 400
    assert not Skip.objects.exists()
