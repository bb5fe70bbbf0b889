"""The rules that once branched on the task type in the model, the Pearmut reader and the
demo are read from the protocols' declarations (issue 21 §2): the reference shown, the
budget's unit, the Likert tasks, Pearmut's protocols and how a simulated rater answers."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import pytest

from annotation.lib.pearmut import READINGS, pearmut_parse
from annotation.management.commands import load_demo, load_demo_reliability
from annotation.models import Task, TaskType, Unit
from annotation.protocols import (
    PEARMUT_READINGS,
    PROTOCOLS,
    budget_unit_of,
    protocol_for,
    reference_shown,
)
from annotation.protocols.simulated import SimulatedRater

ROOT = Path(__file__).resolve().parent.parent
LIKERT = {TaskType.ADEQUACY, TaskType.FLUENCY, TaskType.ADEQUACY_FLUENCY}
CONTRASTIVE = {TaskType.CONTRASTIVE_ESA, TaskType.CONTRASTIVE_MQM, TaskType.CONTRASTIVE_DA}


@pytest.mark.parametrize("task_type", TaskType.values)
def test_the_reference_is_shown_as_before_the_rule_moved(task_type):
    """Asked for, or read instead of the source by a monolingual Likert task; never beside a
    fluency output (the rule Task.shows_reference held)."""
    for show_reference, monolingual in itertools.product((False, True), repeat=2):
        task = Task(task_type=task_type, show_reference=show_reference, monolingual=monolingual)
        before = task_type != TaskType.FLUENCY and (
            show_reference or (monolingual and task_type in LIKERT)
        )
        assert reference_shown(task) == before, (show_reference, monolingual)


@pytest.mark.parametrize("task_type", TaskType.values)
def test_the_budget_counts_screens_of_contrastive_segment_tasks(task_type):
    for unit in Unit.values:
        task = Task(task_type=task_type, unit=unit)
        screens = task_type in CONTRASTIVE and unit != Unit.DOCUMENT
        assert budget_unit_of(task) == ("screen" if screens else "judgment")


def test_the_likert_protocols_are_those_asking_likert_questions():
    assert {t for t, protocol in PROTOCOLS.items() if protocol.likert} == LIKERT


def test_each_pearmut_reading_is_one_protocols():
    declared = [reading for protocol in PROTOCOLS.values() for reading in protocol.pearmut]
    assert len(declared) == len(set(declared))
    assert set(declared) <= set(READINGS)
    assert PEARMUT_READINGS == {
        "DA": TaskType.ADEQUACY,
        "DA fluency": TaskType.FLUENCY,
        "DA adequacy+fluency": TaskType.ADEQUACY_FLUENCY,
        "ESA": TaskType.ESA,
        "ESA prefilled": TaskType.ESA_PREFILLED,
        "MQM": TaskType.MQM,
        "cESA": TaskType.CONTRASTIVE_ESA,
    }


EXAMPLES = Path(__file__).resolve().parent / "data" / "pearmut-examples"
SLIDERS = {
    "DA": [{"name": "Quality", "min": 1, "max": 5, "step": 1}],
    "DA fluency": [{"name": "Fluency", "min": 1, "max": 5, "step": 1}],
    "DA adequacy+fluency": [
        {"name": "Fluency", "min": 1, "max": 7, "step": 1},
        {"name": "Adequacy", "min": 1, "max": 7, "step": 1},
    ],
}


def test_the_pearmut_reader_gives_only_the_task_types_it_is_given():
    """``annotation.lib.pearmut`` names no task type: each file's reading is looked up in
    the table it is passed (a type's name coming back into the reader fails here)."""
    given = {reading: f"type {number}" for number, reading in enumerate(READINGS)}
    files = {
        "da.json": "DA",
        "esa.json": "ESA",
        "esaai.json": "ESA prefilled",
        "mqm.json": "MQM",
        "contrastive.json": "cESA",
    }
    for name, reading in files.items():
        data = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
        assert pearmut_parse(data, task_types=given, name=name).task_type == given[reading]
    for reading, sliders in SLIDERS.items():
        data = json.loads((EXAMPLES / "likert_custom_scales.json").read_text(encoding="utf-8"))
        data["info"]["sliders"] = sliders
        assert pearmut_parse(data, task_types=given).task_type == given[reading]


def _candidates(count: int) -> list[dict]:
    return [{"text": f"Eine Übersetzung Nummer {i}.", "systems": [f"S{i}"]} for i in range(count)]


@pytest.mark.parametrize("task_type", TaskType.values)
def test_a_simulated_rater_answers_as_the_protocol_checks(task_type):
    """Every protocol declares how the demo's raters answer it (a new one's demo needs no
    other edit), and the answer passes its check, careful or careless, on either scale."""
    protocol = protocol_for(task_type)
    assert protocol.simulate is not None
    outputs = 3 if protocol.several_outputs else 1
    candidates = _candidates(outputs)
    rng = random.Random(5)
    for scale, careless in itertools.product(("likert5", "da100"), (False, True)):
        rater = SimulatedRater(
            rng=rng,
            scale=scale,
            qualities=[1.5 + i for i in range(outputs)],
            errors=[[{"start": 0, "end": 4, "severity": "major"}]] * outputs,
            texts=[candidate["text"] for candidate in candidates],
            careless=careless,
        )
        answer = protocol.simulate(rater)
        protocol.answer(scale, candidates, answer)  # raises if it does not fit
        if protocol.spans and not careless:
            marked = [span for one in answer.get("candidates", [answer]) for span in one["spans"]]
            assert len(marked) == outputs
            assert all(("category" in span) == protocol.span_categories for span in marked)


def test_every_task_the_demo_simulates_has_its_protocol_simulate():
    simulated = {
        *load_demo.SIMULATED_TASKS,
        load_demo.EN_DE_TASK["task_type"],
        *load_demo_reliability.TASKS,
    }
    assert simulated <= set(PROTOCOLS)
    assert all(protocol_for(task_type).simulate is not None for task_type in simulated)


@pytest.mark.django_db
def test_a_monolingual_adequacy_screen_reads_the_reference(
    client, launched, loaded_campaign, make_annotator
):
    task = launched(TaskType.ADEQUACY, monolingual=True)
    client.force_login(make_annotator(loaded_campaign, "mono"))
    page = client.get(f"/annotate/{task.id}/").content.decode()
    assert 'class="text-card reference' in page and 'class="text-card source' not in page
    assert "How much of the reference's meaning does the translation express?" in page
    assert "semantics of the reference text" in page  # its instructions
    assert 'name="score"' in page and 'name="fluency"' not in page


def _row(page: str, name: str) -> str:
    """The campaign page's table row of the task named ``name``."""
    return next(row for row in page.split("<tr>") if f'class="task-name">{name}<' in row)


@pytest.mark.django_db
def test_the_campaign_page_shows_the_settings_each_protocol_declares(
    client, launched, loaded_campaign, manager
):
    launched(TaskType.ADEQUACY, monolingual=True)
    launched(TaskType.FLUENCY)
    launched(TaskType.RANKING, ranking_size=3, show_reference=True)
    launched(TaskType.CONTRASTIVE_ESA, assignment="adaptive", judgment_budget=40)
    client.force_login(manager)
    page = client.get(f"/campaigns/{loaded_campaign.id}/").content.decode()
    adequacy, fluency = _row(page, "Adequacy"), _row(page, "Fluency")
    ranking, contrastive = _row(page, "N-way ranking"), _row(page, "Contrastive ESA (cESA)")
    assert "1–5 (WMT/LDC)" in adequacy and "reference shown" in adequacy
    assert "1–5 (WMT/LDC)" in fluency and "reference hidden" in fluency
    assert "1–5" not in ranking and "N = 3" in ranking and "reference shown" in ranking
    assert "N = 3" in contrastive and "budget 40 screens" in contrastive


# The task's properties that moved to the protocols; a template reading one would quietly
# get nothing (the ranking status's own ``status.budget_unit`` is another thing).
MOVED = re.compile(r"\btask\.(?:task\.)?(?:is_likert|shows_reference|budget_unit)\b")


def test_no_page_reads_the_task_properties_that_moved():
    read = [
        f"{path.relative_to(ROOT)}: {match.group()}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for match in MOVED.finditer(path.read_text())
    ]
    assert read == []
