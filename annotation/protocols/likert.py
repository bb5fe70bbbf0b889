"""What the three Likert protocols (adequacy, fluency, both) share: a score per question
on the task's scale, and their settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.lib.scales import scale_range
from annotation.protocols.base import Answer, AnswerError, whole_number
from annotation.protocols.settings import ADAPTIVE_SETTINGS

LIKERT_SETTINGS = (
    frozenset({"scale", "context_size", "show_reference", "monolingual", "equivalence_margin"})
    | ADAPTIVE_SETTINGS
)
LIKERT_QUALITY_CONTROL = frozenset({"repeat", "bad_reference", "reference"})
LIKERT_EXPORT_COLUMNS = ("score",)
LIKERT_TEMPLATE = "annotate/_answer_likert.html"


def likert_answer(*questions: str) -> Answer:
    """An answer of one whole number on the task's scale per question (``score`` first)."""

    def answer(
        scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]
    ) -> dict[str, Any]:
        low, high = scale_range(scale)
        values = {}
        for key in questions:
            value = whole_number(given, key)
            if not low <= value <= high:
                raise AnswerError(f"{key} must be from {low} to {high}")
            values[key] = value
        return values

    return answer
