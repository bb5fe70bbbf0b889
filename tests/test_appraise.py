"""Appraise manifests and batches: the four shared examples, and clear errors."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Campaign, Item, Judgment, Segment
from annotation.services.appraise import AppraiseError, appraise_parse
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
EXAMPLES = DATA / "appraise-examples"


def load(name):
    folder = EXAMPLES / name
    return (
        json.loads((folder / "manifest.json").read_text()),
        json.loads((folder / "batches.json").read_text()),
    )


def items_in(name):
    return sum(len(batch["items"]) for batch in load(name)[1])


@pytest.mark.parametrize(
    ("example", "task_type", "items"),
    [
        ("Direct", "adequacy", 100),
        ("Document", "adequacy", 109),
        ("Pairwise", "pairwise", 100),
        ("PairwiseDocument", "pairwise", 109),
    ],
)
def test_examples_import_with_every_item(manager, example, task_type, items):
    assert items_in(example) == items
    folder = EXAMPLES / example
    call_command(
        "import_appraise",
        str(folder / "manifest.json"),
        str(folder / "batches.json"),
        "--owner",
        "manager",
    )
    campaign = Campaign.objects.get(name=load(example)[0]["CAMPAIGN_NAME"])
    task = campaign.tasks.get()
    assert (task.task_type, task.scale, task.state) == (task_type, "da100", "launched")
    assert Item.objects.filter(task=task).count() == items
    expected_types = {}
    for batch in load(example)[1]:
        for item in batch["items"]:
            expected_types[item["itemType"]] = expected_types.get(item["itemType"], 0) + 1
    stored = {
        kind: Item.objects.filter(task=task, item_type=kind).count() for kind in expected_types
    }
    assert stored == expected_types
    assert Segment.objects.filter(campaign=campaign).exists()


def test_imported_items_are_served_to_annotators(manager, make_annotator):
    folder = EXAMPLES / "Pairwise"
    call_command(
        "import_appraise",
        str(folder / "manifest.json"),
        str(folder / "batches.json"),
        "--owner",
        "manager",
    )
    task = Campaign.objects.get(name="example3pair").tasks.get()
    ann = make_annotator(task.campaign, "ann")
    served = 0
    while (slot := slot_claim_next(task=task, annotator_id=ann.id)) is not None:
        scores = [70, 40][: len(slot.item.candidates)]
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=ann.id,
            answer={"candidate_scores": scores},
        )
        served += 1
    assert served == 100
    two = Judgment.objects.filter(candidate_scores__len=2)
    assert two.exists() and set(two.values_list("preference", flat=True)) == {"A"}
    assert set(
        Judgment.objects.filter(candidate_scores__len=1).values_list("preference", flat=True)
    ) <= {"T"}


def test_unknown_item_type_names_task_item_and_field(manager):
    manifest, batches = load("Direct")
    batches[0]["items"][3]["itemType"] = "XYZ"
    with pytest.raises(AppraiseError) as error:
        appraise_parse(manifest=manifest, batches=batches, batches_name="batches.json")
    item_id = batches[0]["items"][3]["itemID"]
    assert str(error.value) == (
        f"batches.json: task 1, item 4 (itemID {item_id}): unknown item "
        "type 'XYZ'; known: TGT, BAD, REF, CHK"
    )


def test_missing_field_names_task_item_and_field(manager):
    manifest, batches = load("PairwiseDocument")
    del batches[0]["items"][7]["targets"][1]["targetText"]
    with pytest.raises(
        AppraiseError,
        match=r"task 1, item 8 \(itemID \d+\), target 2: "
        r"missing field 'targetText'",
    ):
        appraise_parse(manifest=manifest, batches=batches)
    manifest, batches = load("Direct")
    del batches[0]["items"][0]["sourceText"]
    with pytest.raises(AppraiseError, match=r"item 1 \(itemID \d+\): missing field 'sourceText'"):
        appraise_parse(manifest=manifest, batches=batches)


def test_any_batch_size_works(manager):
    manifest, batches = load("Direct")
    items = batches[0]["items"]
    batches = [
        {"items": items[:37], "task": batches[0]["task"]},
        {"items": items[37:], "task": batches[0]["task"]},
    ]
    parsed = appraise_parse(manifest=manifest, batches=batches)
    assert len(parsed.items) == 100
    assert {item.meta["batch"] for item in parsed.items} == {1, 2}


def test_a_bad_file_imports_nothing(manager, tmp_path):
    manifest, batches = load("Direct")
    batches[0]["items"][-1]["itemType"] = "???"
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    (tmp_path / "b.json").write_text(json.dumps(batches))
    with pytest.raises(CommandError, match="unknown item type"):
        call_command(
            "import_appraise",
            str(tmp_path / "m.json"),
            str(tmp_path / "b.json"),
            "--owner",
            "manager",
        )
    assert not Campaign.objects.exists() and not Item.objects.exists()
    (tmp_path / "b.json").write_text("[{")
    with pytest.raises(CommandError, match=r"b.json, line 1: invalid JSON"):
        call_command(
            "import_appraise",
            str(tmp_path / "m.json"),
            str(tmp_path / "b.json"),
            "--owner",
            "manager",
        )
