"""Pearmut campaigns: every shared example imported or refused with a named reason, options
mapped or refused, annotations imported and exported again in Pearmut's shape."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.lib.pearmut import PearmutError, pearmut_parse
from annotation.models import Campaign, ErrorSpan, Item, Judgment, Task
from annotation.protocols import PEARMUT_READINGS
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
EXAMPLES = DATA / "pearmut-examples"
CACHE = EXAMPLES / "annotated_cache" / "data"

# Each shared campaign file: what it becomes (task type, items, check items), or why not.
EXPECTED = {
    "esa.json": ("esa", 200, 0),
    "mqm.json": ("mqm", 107, 0),
    "da.json": ("adequacy", 264, 0),
    "esaai.json": ("esa_prefilled", 3, 0),
    "custom_mqm.json": ("mqm", 6, 0),
    "attention_checks.json": ("esa", 27, 27),
    "dynamic.json": ("esa", 25, 0),
    "singlestream.json": ("esa", 51, 5),
    "tutorials/esa_deen.json": ("esa", 8, 8),
    "annotation/campaign_esa.json": ("esa", 8, 0),
    "annotated_cache/data/tasks/example_contrastive.json": ("esa", 15, 0),
    "contrastive.json": ("contrastive_esa", 5, 0),
    # Its first item's <script> is dropped (never run), with a note: test_tutorials.py.
    "tutorials/cesa_deen.json": ("contrastive_esa", 8, 6),
    "likert_custom_scales.json": "slider 'Fluency' runs 0-5 by 1; evalsite's scales run",
    "multimodal.json": "src embeds a page (<iframe> https://www.youtube.com/embed/U9zFqRQ11qI",
}


def test_every_shared_file_is_listed():
    found = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.json")}
    assert found == set(EXPECTED)


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_shared_pearmut_file_imports_or_is_refused_by_name(path, manager):
    expected = EXPECTED[path]
    args = ["import_pearmut", str(EXAMPLES / path), "--owner", "manager", "--name", path]
    if isinstance(expected, str):
        with pytest.raises(CommandError, match="Nothing was imported") as refused:
            call_command(*args, "--languages", "en-de")
        assert expected in str(refused.value)
        assert not Campaign.objects.exists()
        return
    call_command(*args, "--languages", "en-de")
    task = Task.objects.get(campaign__name=path)
    task_type, items, checks = expected
    assert task.task_type == task_type and task.state == Task.State.LAUNCHED
    assert task.items.count() == items
    assert task.items.filter(item_type="CHK").count() == checks
    assert task.slots.count() >= items


def test_task_based_tasks_become_batches_in_order(manager):
    call_command("import_pearmut", str(EXAMPLES / "esa.json"), "--owner", "manager")
    task = Task.objects.get()
    # 5 Pearmut tasks of 10 documents each: 5 batches, each one task's items in order.
    assert task.campaign.source_language == "en" and task.campaign.target_language == "cs"
    data = json.loads((EXAMPLES / "esa.json").read_text(encoding="utf-8"))["data"]
    batches = list(task.batches.order_by("number"))
    assert len(batches) == 5
    # Each document is a page per system (document-level annotation): its items in reading
    # order for one system, then for the next.
    assert task.unit == "document"
    for batch, pearmut_task in zip(batches, data, strict=True):
        ids = [
            (slot.item.system.name, slot.item.source_meta["pearmut"]["item_id"])
            for slot in batch.slots.filter(is_repeat=False)
            .order_by("position")
            .select_related("item__system")
        ]
        assert ids == [
            (system, item["item_id"])
            for document in pearmut_task
            for system in dict.fromkeys(s for item in document for s in item["tgt"])
            for item in document
            if system in item["tgt"]
        ]
    first = Item.objects.filter(task=task).order_by("external_id").first()
    assert first.source_meta["instructions"] == "Evaluate translation from English to Czech."


def test_mqm_custom_categories_and_checks_are_kept(manager):
    call_command(
        "import_pearmut", str(EXAMPLES / "custom_mqm.json"), "--owner", "manager",
        "--languages", "en-fr",
    )  # fmt: skip
    task = Task.objects.get()
    assert task.mqm_categories[:3] == ["General", "General/Accuracy", "General/Fluency"]
    assert "Unknown" in task.mqm_categories and "Style/Embarassing" in task.mqm_categories
    assert "Custom MQM/STEL Annotation" in task.instructions and "<b>" not in task.instructions


def test_attention_checks_and_tutorials_keep_their_expected_answers(manager):
    call_command(
        "import_pearmut", str(EXAMPLES / "attention_checks.json"), "--owner", "manager",
        "--languages", "en-cs",
    )  # fmt: skip
    kinds = {}
    for item in Item.objects.all():
        kinds.setdefault(item.source_meta["check"], []).append(item)
    # By hand from the file: outputs of items with allow_skip, with a warning, with neither.
    assert {kind: len(found) for kind, found in kinds.items()} == {
        "tutorial": 15,
        "attention": 6,
        "silent": 6,
    }
    loud = kinds["attention"][0]
    assert (
        loud.item_type == "CHK"
        and loud.source_meta["validation"]["score"][0]
        == (loud.source_meta["validation"]["score"][1])
    )


def test_singlestream_welcome_documents_are_a_batch_of_their_own(manager):
    call_command("import_pearmut", str(EXAMPLES / "singlestream.json"), "--owner", "manager")
    task = Task.objects.get()
    welcome = task.items.filter(source_meta__batch="welcome")
    assert welcome.count() == 5 and not welcome.exclude(item_type="CHK").exists()
    first_batch = task.batches.order_by("number").first()
    assert {s.item.source_meta.get("batch") for s in first_batch.slots.all()} == {"welcome"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["info"].update(colour="red"), "unknown info option 'colour'"),
        (lambda d: d.update(extra=1), "unknown top-level key 'extra'"),
        (lambda d: d["data"][0][0][0].update(media="x"), "unknown item key 'media'"),
        (lambda d: d["info"].update(protocol="XYZ"), "unknown protocol 'XYZ'"),
        (lambda d: d["info"].update(assignment="lottery"), "unknown assignment 'lottery'"),
        (lambda d: d["info"].update(textfield="visible"), "textfield 'visible'"),
        (lambda d: d["info"].update(sliders=[]), "sliders need protocol DA"),
        (lambda d: d["info"].update(dynamic_models=2), "need assignment 'dynamic'"),
    ],
)
def test_unknown_or_unsupported_options_are_refused_by_name(change, message):
    data = json.loads((EXAMPLES / "esaai.json").read_text(encoding="utf-8"))
    change(data)
    with pytest.raises(PearmutError, match=message):
        pearmut_parse(data, task_types=PEARMUT_READINGS)


def test_a_bad_item_late_in_the_file_writes_nothing(manager, tmp_path):
    data = json.loads((EXAMPLES / "esa.json").read_text(encoding="utf-8"))
    data["data"][4][9][-1]["tgt"] = "not a mapping"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CommandError, match="task 5, document 10"):
        call_command("import_pearmut", str(path), "--owner", "manager")
    assert not Campaign.objects.exists() and not Item.objects.exists()


def original_annotations():
    lines = (CACHE / "outputs" / "example_contrastive.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in lines.splitlines() if line.strip()]


def comparable(line):
    return (
        line["user_id"],
        [
            {
                system: (
                    value["score"],
                    sorted(
                        (s["start_i"], s["end_i"], s["severity"], s["category"])
                        for s in value["error_spans"]
                    ),
                )
                for system, value in item.items()
            }
            for item in line["annotation"]
        ],
        [(item["item_id"], item["src"], item["tgt"]) for item in line["item"]],
    )


def test_annotations_import_and_round_trip_in_pearmuts_shape(manager, client):
    call_command(
        "import_pearmut", str(CACHE / "tasks" / "example_contrastive.json"), "--owner", "manager",
        "--annotations", str(CACHE / "outputs" / "example_contrastive.jsonl"),
    )  # fmt: skip
    task = Task.objects.get()
    original = original_annotations()
    judged = sum(len(item) for line in original for item in line["annotation"])
    assert Judgment.objects.filter(task=task).count() == judged
    spans = sum(
        len(value["error_spans"])
        for line in original
        for item in line["annotation"]
        for value in item.values()
    )
    assert ErrorSpan.objects.filter(judgment__task=task).count() == spans
    client.force_login(manager)
    response = client.get(
        reverse("results-human-judgments", args=[task.campaign_id, "pearmut.jsonl"])
        + f"?task={task.id}"
    )
    assert response.status_code == 200
    exported = [
        json.loads(line)
        for line in b"".join(response.streaming_content).decode().splitlines()
        if line
    ]
    assert sorted(map(comparable, exported), key=repr) == sorted(
        map(comparable, original), key=repr
    )
    assert [line["item_i"] for line in exported] == [line["item_i"] for line in original]


def test_annotations_for_another_campaign_are_refused(manager, tmp_path):
    line = original_annotations()[0]
    line["item"][0]["src"] = "a source this campaign does not have"
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match="line 1: its document is not in the campaign"):
        call_command(
            "import_pearmut", str(CACHE / "tasks" / "example_contrastive.json"),
            "--owner", "manager", "--annotations", str(path),
        )  # fmt: skip
    assert not Campaign.objects.exists()


def test_appraise_contrastive_batches_import_as_contrastive_screens(manager):
    folder = DATA / "appraise-contrastive"
    call_command(
        "import_appraise", str(folder / "manifest.json"), str(folder / "batches.json"),
        "--owner", "manager",
    )  # fmt: skip
    task = Task.objects.get()
    assert (task.task_type, task.ranking_size) == ("contrastive_da", 3)
    batch = json.loads((folder / "batches.json").read_text(encoding="utf-8"))[0]["items"]
    # 3 items, the last the document's score item with empty texts: 2 screens.
    screens = list(task.items.order_by("external_id"))
    assert len(screens) == 2 and all(screen.system is None for screen in screens)
    for screen, item in zip(screens, batch, strict=False):
        assert screen.segment.source == item["segmentText"]
        assert [(c["systems"], c["text"]) for c in screen.candidates] == [
            ([t["targetID"]], t["targetText"]) for t in item["targets"]
        ]


def made_annotations(path, protocol):
    """One annotator per Pearmut task, every output judged: a score (DA, ESA) and, for the
    span protocols, one span on the first word (and a [missing] marker on every third)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = []
    for number, task in enumerate(data["data"]):
        for index, document in enumerate(task):
            annotation = []
            for position, item in enumerate(document):
                values = {}
                texts = list(item["tgt"].values())
                for system, text in item["tgt"].items():
                    # Identical outputs get identical answers (one candidate on a cESA screen).
                    rank = texts.index(text)
                    spans = []
                    if protocol != "DA":
                        first = text.split(" ")[0]
                        category = "General/Accuracy" if protocol == "MQM" else None
                        spans.append(
                            {"start_i": 0, "end_i": len(first) - 1, "category": category,
                             "severity": "minor"}
                        )  # fmt: skip
                        if position % 3 == 2:
                            spans.append(
                                {"start_i": len(text), "end_i": len(text),
                                 "category": category, "severity": "major"}
                            )  # fmt: skip
                    score = None if protocol == "MQM" else (37 * (position + rank) + 11) % 101
                    values[system] = {"score": score, "error_spans": spans, "textfield": None}
                annotation.append(values)
            lines.append(
                {"annotation": annotation, "actions": [], "item": document,
                 "user_id": f"user-{number}", "item_i": index}
            )  # fmt: skip
    return lines


@pytest.mark.parametrize(
    ("path", "protocol"),
    [
        ("custom_mqm.json", "MQM"),
        ("esaai.json", "ESA"),
        ("da.json", "DA"),
        ("contrastive.json", "cESA"),
    ],
)
def test_made_annotations_round_trip_per_protocol(path, protocol, manager, client, tmp_path):
    lines = made_annotations(EXAMPLES / path, protocol)
    annotations = tmp_path / "outputs.jsonl"
    annotations.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    call_command(
        "import_pearmut", str(EXAMPLES / path), "--owner", "manager", "--languages", "en-de",
        "--annotations", str(annotations),
    )  # fmt: skip
    task = Task.objects.get()
    if protocol == "cESA":
        from annotation.models import OutputJudgment

        # One judgment per screen, one output row per system (identical outputs included).
        outputs = sum(len(item) for line in lines for item in line["annotation"])
        assert Judgment.objects.filter(task=task).count() == sum(
            len(line["annotation"]) for line in lines
        )
        assert OutputJudgment.objects.filter(task=task).count() == outputs
    client.force_login(manager)
    response = client.get(
        reverse("results-human-judgments", args=[task.campaign_id, "pearmut.jsonl"])
        + f"?task={task.id}"
    )
    exported = [
        json.loads(line)
        for line in b"".join(response.streaming_content).decode().splitlines()
        if line
    ]
    keep = ("item_id", "src", "tgt")
    for line in lines:
        line["item"] = [{key: item[key] for key in keep} for item in line["item"]]
    assert sorted(map(comparable, exported), key=repr) == sorted(map(comparable, lines), key=repr)


@pytest.mark.parametrize(
    ("sliders", "expected"),
    [
        ([{"name": "Fluency", "min": 1, "max": 5, "step": 1}], ("fluency", "likert5")),
        ([{"name": "Quality", "min": 0, "max": 100, "step": 1}], ("adequacy", "da100")),
        (
            [
                {"name": "Fluency", "min": 1, "max": 7, "step": 1},
                {"name": "Adequacy", "min": 1, "max": 7, "step": 1},
            ],
            ("adequacy_fluency", "nist7"),
        ),
    ],
)
def test_likert_sliders_on_an_evalsite_scale_import(sliders, expected):
    data = json.loads((EXAMPLES / "likert_custom_scales.json").read_text(encoding="utf-8"))
    data["info"]["sliders"] = sliders
    parsed = pearmut_parse(data, task_types=PEARMUT_READINGS)
    assert (parsed.task_type, parsed.scale) == expected


def test_likert_annotations_are_checked_on_the_sliders_scale(manager, tmp_path):
    data = json.loads((EXAMPLES / "likert_custom_scales.json").read_text(encoding="utf-8"))
    data["info"]["sliders"] = [{"name": "Fluency", "min": 1, "max": 5, "step": 1}]
    campaign = tmp_path / "likert.json"
    campaign.write_text(json.dumps(data), encoding="utf-8")
    document = data["data"][0][0]
    line = {"annotation": [{"ModelA": {"score": 7}}], "item": document, "user_id": "u1"}
    annotations = tmp_path / "out.jsonl"
    annotations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    args = ["import_pearmut", str(campaign), "--owner", "manager", "--annotations"]
    with pytest.raises(CommandError, match="score must be a number from 1 to 5"):
        call_command(*args, str(annotations))
    line["annotation"][0]["ModelA"]["score"] = 4
    annotations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    call_command(*args, str(annotations))
    judgment = Judgment.objects.get()
    assert (judgment.task.task_type, judgment.score, judgment.item.system.name) == (
        "fluency",
        4,
        "ModelA",
    )


def test_cesa_items_are_contrastive_screens(manager, tmp_path):
    call_command("import_pearmut", str(EXAMPLES / "contrastive.json"), "--owner", "manager")
    task = Task.objects.get()
    data = json.loads((EXAMPLES / "contrastive.json").read_text(encoding="utf-8"))
    first = data["data"][0][0][0]
    screen = task.items.order_by("external_id").first()
    assert screen.system is None
    # Identical outputs are one candidate naming each of their systems (by hand from the
    # file: Baseline-0 and Online-Delta wrote the same translation of the first item).
    expected: dict[str, list[str]] = {}
    for system, text in first["tgt"].items():
        expected.setdefault(text, []).append(system)
    assert [c["systems"] for c in screen.candidates] == list(expected.values())
    assert screen.candidates[0]["systems"] == ["Baseline-0", "Online-Delta"]
    widest = max(len(i["tgt"]) for doc in data["data"][0] for i in doc)
    assert task.ranking_size == widest == 5
