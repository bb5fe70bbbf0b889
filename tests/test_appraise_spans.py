"""Appraise Document campaigns with TASK_OPTIONS ESA or MQM, and pre-filled spans (``mqm``)."""

import json

import pytest
from django.core.management import call_command

from annotation.models import Campaign, Item
from annotation.services.appraise import AppraiseError, appraise_parse
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
DOCUMENT = DATA / "appraise-examples" / "Document"


def example(options, prefill=None):
    manifest = json.loads((DOCUMENT / "manifest.json").read_text())
    batches = json.loads((DOCUMENT / "batches.json").read_text())
    manifest["TASK_OPTIONS"] = options
    if prefill is not None:
        batches[0]["items"][0]["mqm"] = prefill
    return manifest, batches


def import_files(tmp_path, manifest, batches):
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    (tmp_path / "b.json").write_text(json.dumps(batches))
    call_command(
        "import_appraise", str(tmp_path / "m.json"), str(tmp_path / "b.json"), "--owner", "manager"
    )
    return Campaign.objects.get(name=manifest["CAMPAIGN_NAME"]).tasks.get()


@pytest.mark.parametrize(("options", "task_type"), [("ESA", "esa"), ("MQM", "mqm")])
def test_task_options_choose_the_protocol(manager, tmp_path, options, task_type):
    task = import_files(tmp_path, *example(options))
    assert task.task_type == task_type and task.state == "launched"
    assert not Item.objects.filter(task=task).exclude(prefilled_spans=[]).exists()


def test_prefilled_spans_make_esa_ai_with_exclusive_ends(manager, tmp_path):
    prefill = [
        {"start_i": 0, "end_i": 4, "severity": "major", "error_type": None},  # chars 0..4
        {"start_i": "missing", "end_i": "missing", "severity": "minor", "error_type": None},
    ]
    manifest, batches = example("ESA", prefill)
    task = import_files(tmp_path, manifest, batches)
    assert task.task_type == "esa_prefilled"
    # itemIDs restart in every document of a batch (several items have ID 0), so the item is
    # found by its spans: exactly one item holds any, and it has the first item's ID.
    (item,) = Item.objects.filter(task=task).exclude(prefilled_spans=[])
    assert item.source_meta["itemID"] == batches[0]["items"][0]["itemID"]
    assert item.prefilled_spans == [
        {"start": 0, "end": 5, "severity": "major", "category": None, "prefilled": True},
        {"start": None, "end": None, "severity": "minor", "category": None, "prefilled": True},
    ]


def test_bad_prefilled_span_names_the_item_and_writes_nothing(manager, tmp_path):
    manifest, batches = example("ESA", [{"start_i": 0, "end_i": 100_000, "severity": "minor"}])
    with pytest.raises(AppraiseError, match=r"task 1, item 1 .*'mqm'.*past the end"):
        appraise_parse(manifest=manifest, batches=batches)
    assert not Campaign.objects.exists()


def test_both_protocols_at_once_is_refused():
    with pytest.raises(AppraiseError, match="both ESA and MQM"):
        manifest, batches = example("ESA;MQM")
        appraise_parse(manifest=manifest, batches=batches)
