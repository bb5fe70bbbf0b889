"""MQM (Freitag et al., 2021): error spans with a category from the task's typology and a
severity; the score is computed from them with the task's weights."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.settings import ADAPTIVE_SETTINGS, DOCUMENT_SETTINGS
from annotation.protocols.simulated import mqm_simulated
from annotation.protocols.spans import (
    ESA_SCORE_RANGE,
    SPAN_EXPORT_COLUMNS,
    SPAN_QUALITY_CONTROL,
    SPAN_RESULTS,
    SPAN_SCRIPTS,
    SPAN_SETTINGS,
    SPAN_TEMPLATE,
    span_form,
)


def answer(scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]) -> dict:
    return {"score": None}  # everything is in the spans; the score is computed from them


# Google's MQM rater guidelines (Freitag et al., 2021).
INSTRUCTIONS = (
    "Identify all errors in the translation, given the source and its context. For each "
    "error, mark the span, choose its category (accuracy, fluency, terminology, style, "
    "locale convention, other) and its severity: major if it may mislead or confuse the "
    "reader, minor if it does not. A translation that is not a translation of the "
    "source at all is one Non-translation error over the whole segment. The score is "
    "computed from the errors."
)

PROTOCOL = Protocol(
    task_type=TaskType.MQM,
    instructions=INSTRUCTIONS,
    answer=answer,
    parse_form=span_form,
    settings=DOCUMENT_SETTINGS
    | SPAN_SETTINGS
    | ADAPTIVE_SETTINGS
    | {"mqm_categories", "mqm_weights"},
    quality_control=SPAN_QUALITY_CONTROL | {"hotw"},
    template=SPAN_TEMPLATE,
    scripts=SPAN_SCRIPTS,
    results_section=SPAN_RESULTS,
    export_columns=SPAN_EXPORT_COLUMNS,
    spans=True,
    score_range=ESA_SCORE_RANGE,  # a document page's score: annotators score no segment
    appraise=(("Direct", "mqm"), ("Document", "mqm")),
    mqm_tsv=True,
    ranked_as="mqm",
    pearmut=("MQM",),
    simulate=mqm_simulated,
)
