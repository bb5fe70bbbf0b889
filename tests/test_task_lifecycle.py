"""Tasks that can be changed: validation, edits, deletion, pause/resume/close, several
tasks of a type, systems uploaded after launch, skips and second tabs."""

import pytest

from annotation.models import Batch, Judgment, Skip, Slot, Task
from annotation.selectors.tasks import tasks_missing_systems
from annotation.services.assignment import slot_claim_next
from annotation.services.imports import upload_import
from annotation.services.judgments import JudgmentError, judgment_record, skip_record
from annotation.services.task_changes import (
    task_close,
    task_delete,
    task_pause,
    task_resume,
    task_update,
)
from annotation.services.tasks import TaskError, task_create, task_launch

pytestmark = pytest.mark.django_db


def test_two_adequacy_tasks_side_by_side(loaded_campaign):
    likert = task_create(campaign=loaded_campaign, task_type="adequacy", scale="likert5")
    direct = task_create(campaign=loaded_campaign, task_type="adequacy", scale="da100")
    task_launch(task_id=likert.id)
    task_launch(task_id=direct.id)
    assert Task.objects.filter(campaign=loaded_campaign, task_type="adequacy").count() == 2


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"task_type": "ranking", "ranking_size": 5}, "needs at least 5 systems.*has 3 outputs"),
        (
            {"repeat_rate": 0.7, "bad_reference_rate": 0.6, "reference_rate": 0.5},
            "add up to 180%",
        ),
        ({"bad_reference_rate": 1.0}, "bad_reference_rate must be below 1"),
        ({"reference_rate": -0.1}, "share between 0 and 1"),
    ],
)
def test_invalid_settings_have_clear_messages(loaded_campaign, settings, message):
    settings = {"task_type": "adequacy", **settings}
    with pytest.raises(TaskError, match=message):
        task_create(campaign=loaded_campaign, **settings)
    assert not Task.objects.exists()


def test_ranking_of_three_with_three_systems_is_fine(loaded_campaign):
    """The campaign has three systems: a ranking of three is accepted and launched, each item
    ranking the three; one of four is refused."""
    task = task_create(campaign=loaded_campaign, task_type="ranking", ranking_size=3)
    assert Task.objects.get(id=task.id).ranking_size == 3
    task_launch(task_id=task.id)
    # Identical outputs share a candidate: every item ranks the three systems' outputs.
    ranked = {
        tuple(sorted(name for candidate in item.candidates for name in candidate["systems"]))
        for item in task.items.all()
    }
    assert len(ranked) == 1 and len(next(iter(ranked))) == 3, ranked
    with pytest.raises(TaskError, match="needs at least 4 systems"):
        task_create(campaign=loaded_campaign, task_type="ranking", ranking_size=4)


def test_draft_edit_and_delete(loaded_campaign):
    task = task_create(campaign=loaded_campaign, task_type="adequacy")
    task_update(task_id=task.id, scale="da100", batch_size=20, instructions="Read carefully.")
    task.refresh_from_db()
    assert (task.scale, task.batch_size, task.instructions) == ("da100", 20, "Read carefully.")
    with pytest.raises(TaskError, match="add up to"):
        task_update(task_id=task.id, repeat_rate=0.6, bad_reference_rate=0.6)
    task.refresh_from_db()
    assert task.repeat_rate == 0.0  # the refused edit changed nothing
    task_delete(task_id=task.id)
    assert not Task.objects.exists()


def test_launched_task_keeps_its_plan(launched):
    task = launched("adequacy")
    with pytest.raises(TaskError, match="launched: its items were planned from batch_size"):
        task_update(task_id=task.id, batch_size=5)
    task_update(task_id=task.id, instructions="New wording", completion_code="C0DE")
    with pytest.raises(TaskError, match="only a draft task can be deleted"):
        task_delete(task_id=task.id)


def test_a_task_of_another_campaign_is_refused(launched, manager):
    from annotation.services.campaigns import campaign_create

    task = launched("adequacy")
    other = campaign_create(name="Other", source_language="en", target_language="de", owner=manager)
    with pytest.raises(TaskError, match="no such task in this campaign"):
        task_pause(task_id=task.id, campaign=other)
    draft = task_create(campaign=other, task_type="fluency")
    with pytest.raises(TaskError, match="no such task in this campaign"):
        task_launch(task_id=draft.id, campaign=task.campaign)


def test_pause_releases_claims_keeps_judgments_and_resume(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", batch_size=6)
    ann = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=ann.id)
    judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=ann.id, answer={"score": 3})
    held = slot_claim_next(task=task, annotator_id=ann.id)
    task_pause(task_id=task.id)
    assert not Batch.objects.filter(task=task, state="leased").exists()
    assert not Slot.objects.filter(task=task, state="leased").exists()
    assert Judgment.objects.filter(task=task).count() == 1
    with pytest.raises(JudgmentError, match="the task is paused"):
        judgment_record(task_id=task.id, slot_id=held.id, annotator_id=ann.id, answer={"score": 3})
    task_resume(task_id=task.id)
    # Their half batch went back: someone else finishes it; they get a fresh batch.
    other = make_annotator(loaded_campaign, "other")
    assert slot_claim_next(task=task, annotator_id=other.id).batch_id == held.batch_id
    assert slot_claim_next(task=task, annotator_id=ann.id).batch_id != held.batch_id
    task_close(task_id=task.id)
    with pytest.raises(TaskError, match="a closed task cannot resume"):
        task_resume(task_id=task.id)
    assert Judgment.objects.filter(task=task).count() == 1


def test_system_uploaded_after_launch_is_reported(launched, loaded_campaign, manager):
    task = launched("adequacy")
    assert tasks_missing_systems(loaded_campaign) == []
    text = "\n".join(f"Satz {i}." for i in range(12)).encode() + b"\n"
    upload_import(
        campaign=loaded_campaign,
        kind="system",
        name="late",
        files=[("late.de", text)],
        user=manager,
    )
    assert tasks_missing_systems(loaded_campaign) == [(task, ["late"])]
    newer = task_create(campaign=loaded_campaign, task_type="adequacy")
    task_launch(task_id=newer.id)
    assert [t for t, _ in tasks_missing_systems(loaded_campaign)] == [task]


def test_skip_is_recorded_not_counted_and_goes_to_someone_else(
    launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", batch_size=4)
    ann = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=ann.id)
    skip_record(
        task_id=task.id, slot_id=slot.id, annotator_id=ann.id, reason="garbled", note="mojibake"
    )
    assert Skip.objects.get().reason == "garbled"
    assert not Judgment.objects.exists()
    following = slot_claim_next(task=task, annotator_id=ann.id)
    assert following.id != slot.id and following.item_id != slot.item_id
    with pytest.raises(JudgmentError, match="you skipped this item"):
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=ann.id, answer={"score": 2})
    with pytest.raises(JudgmentError, match="reason must be one of"):
        skip_record(task_id=task.id, slot_id=following.id, annotator_id=ann.id, reason="bored")
    # The skipped item is waiting for someone else, in a batch of its own.
    reopened = Slot.objects.get(item_id=slot.item_id, replica=1)
    assert reopened.state == "open" and reopened.batch.size == 1
    # The skipping annotator never gets it back, even after finishing everything.
    taken = set()
    while (s := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
        taken.add(s.item_id)
        judgment_record(task_id=task.id, slot_id=s.id, annotator_id=ann.id, answer={"score": 3})
    assert slot.item_id not in taken
    other = make_annotator(loaded_campaign, "other")
    seen = set()
    while (s := slot_claim_next(task=task, annotator_id=other.id)) is not None:
        seen.add(s.item_id)
        judgment_record(task_id=task.id, slot_id=s.id, annotator_id=other.id, answer={"score": 3})
    assert slot.item_id in seen


def test_close_then_archive_a_campaign(launched, loaded_campaign, make_annotator):
    from annotation.models import Campaign
    from annotation.services.campaign_states import campaign_archive, campaign_close

    task = launched("adequacy")
    ann = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=ann.id)
    judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=ann.id, answer={"score": 5})
    slot_claim_next(task=task, annotator_id=ann.id)
    with pytest.raises(TaskError, match="close the campaign before archiving"):
        campaign_archive(campaign_id=loaded_campaign.id)
    campaign_close(campaign_id=loaded_campaign.id)
    assert Task.objects.get(id=task.id).state == "closed"
    assert not Batch.objects.filter(task=task, state="leased").exists()
    assert Judgment.objects.filter(task=task).count() == 1
    with pytest.raises(TaskError, match="no new tasks"):
        task_create(campaign=Campaign.objects.get(id=loaded_campaign.id), task_type="fluency")
    campaign_archive(campaign_id=loaded_campaign.id)
    assert Campaign.objects.get(id=loaded_campaign.id).state == "archived"
