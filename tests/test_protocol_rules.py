"""The rules that once branched on the task type in the model, the Pearmut reader and the
demo are read from the protocols' declarations (issue 21 §2): the reference shown, the
budget's unit, the Likert tasks, Pearmut's protocols and how a simulated rater answers."""

from __future__ import annotations

import itertools
import random

import pytest

from annotation.lib.pearmut import READINGS
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
