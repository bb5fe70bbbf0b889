"""Task creation and launch: items, quality-control items and slots, from a seed."""

import pytest

from annotation.models import Item, ItemType, Output, Slot, Task
from annotation.services.tasks import TaskError, task_create, task_launch

pytestmark = pytest.mark.django_db


def test_likert_items_one_per_output_with_k_slots(launched):
    task = launched("adequacy", judgments_per_item=3)
    assert Item.objects.filter(task=task, item_type=ItemType.TGT).count() == 12 * 3
    assert Slot.objects.filter(task=task).count() == 12 * 3 * 3
    # Every item gets its first judgment before any gets its second: replica 0's batches are
    # claimed first (batches go out in number order; position is the order inside a batch).
    first = Slot.objects.filter(task=task, replica=0).order_by("-batch__number").first()
    second = Slot.objects.filter(task=task, replica=1).order_by("batch__number").first()
    assert first.batch.number < second.batch.number


def test_quality_control_items(launched):
    task = launched("adequacy", bad_reference_rate=0.4, reference_rate=0.3, repeat_rate=0.2, seed=7)
    bad = list(Item.objects.filter(task=task, item_type=ItemType.BAD).select_related("original"))
    assert bad, "some bad references"
    for item in bad:
        assert item.original.item_type == ItemType.TGT
        assert item.original.system_id == item.system_id
        assert item.candidates[0]["text"] != item.original.candidates[0]["text"]
        original_words = item.original.candidates[0]["text"].split()
        degraded_words = item.candidates[0]["text"].split()
        assert degraded_words[0] == original_words[0] and degraded_words[-1] == original_words[-1]
    refs = Item.objects.filter(task=task, item_type=ItemType.REF)
    assert refs.exists()
    assert all(item.candidates[0]["systems"] == ["Human"] for item in refs)
    assert Item.objects.filter(task=task, has_repeat=True).exists()
    assert not Item.objects.filter(task=task, item_type=ItemType.BAD, has_repeat=True).exists()


def test_launch_is_reproducible_from_the_seed(loaded_campaign, django_user_model):

    def launch(campaign):
        task = task_create(campaign=campaign, task_type="ranking", seed=99, reference_rate=0.5)
        task_launch(task_id=task.id)
        return [
            (i.segment.index, i.candidates)
            for i in Item.objects.filter(task=task)
            .select_related("segment")
            .order_by("external_id")
        ]

    first = launch(loaded_campaign)
    Task.objects.all().delete()
    assert launch(loaded_campaign) == first


def test_ranking_collapses_identical_outputs(loaded_campaign, manager):
    from annotation.services.imports import upload_import

    copy = [f"same output {i}" for i in range(12)]
    upload_import(
        campaign=loaded_campaign,
        kind="system",
        name="Copy-1",
        user=manager,
        files=[("c1.de", "\n".join(copy).encode())],
    )
    # Identical to Copy-1 on every segment but the last (an identical file is a duplicate).
    copy[-1] = "different"
    upload_import(
        campaign=loaded_campaign,
        kind="system",
        name="Copy-2",
        user=manager,
        files=[("c2.de", "\n".join(copy).encode())],
    )
    # Five systems and rankings of five: every segment ranks all of them together.
    task = task_create(campaign=loaded_campaign, task_type="ranking", ranking_size=5, seed=3)
    task_launch(task_id=task.id)
    items = list(Item.objects.filter(task=task).select_related("segment"))
    for item in items:
        shown = [c["text"] for c in item.candidates]
        assert len(shown) == len(set(shown))
        systems = sorted(s for c in item.candidates for s in c["systems"])
        assert systems == sorted(["Online-B", "UEdin", "happypoet", "Copy-1", "Copy-2"])
        merged = [sorted(c["systems"]) for c in item.candidates if len(c["systems"]) > 1]
        assert (["Copy-1", "Copy-2"] in merged) == (item.segment.index < 11)
        # Every candidate stands for systems whose outputs are the same text (real WMT
        # systems sometimes agree too).
        for candidate in item.candidates:
            outputs = set(
                Output.objects.filter(
                    segment=item.segment, run__system__name__in=candidate["systems"]
                ).values_list("text", flat=True)
            )
            assert outputs == {candidate["text"]}


def test_pairwise_items_are_pairs_of_different_outputs(launched):
    task = launched("pairwise")
    for item in Item.objects.filter(task=task):
        assert len(item.candidates) == 2
        assert item.candidates[0]["text"] != item.candidates[1]["text"]


def test_launch_twice_is_refused(launched):
    task = launched("fluency")
    with pytest.raises(TaskError, match="launched already"):
        task_launch(task_id=task.id)


def test_launch_without_data_is_refused(campaign):
    task = task_create(campaign=campaign, task_type="adequacy")
    with pytest.raises(TaskError, match="upload the source"):
        task_launch(task_id=task.id)
    assert not Item.objects.exists()


def test_bad_settings_are_refused(campaign):
    with pytest.raises(TaskError, match="share between 0 and 1"):
        task_create(campaign=campaign, task_type="adequacy", repeat_rate=1.5)
    with pytest.raises(TaskError, match="unknown task type"):
        task_create(campaign=campaign, task_type="essay")


def test_item_ids_are_unique_per_campaign(launched):
    launched("adequacy")
    launched("pairwise")
    ids = list(Item.objects.values_list("external_id", flat=True))
    assert len(ids) == len(set(ids))
