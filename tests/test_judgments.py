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
