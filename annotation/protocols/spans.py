"""What the error-span protocols (ESA, ESA^AI, MQM) share: the spans are checked against the
item by ``annotation.services.spans.span_answer_validated``; the protocol checks the rest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.lib import json_limits
from annotation.protocols.base import AnswerError, whole_number

ESA_SCORE_RANGE = (0, 100)
SPAN_SETTINGS = frozenset({"context_size", "show_reference", "equivalence_margin"})
# A bad reference's damage must be marked as an error and the score be lower
# (annotation/services/checks.py).
SPAN_QUALITY_CONTROL = frozenset({"repeat", "reference", "bad_reference"})
SPAN_SCRIPTS = ("js/span_editor.js", "js/spans.js")
SPAN_TEMPLATE = "annotate/spans.html"
SPAN_RESULTS = "results/_human_spans.html"
SPAN_EXPORT_COLUMNS = ("spans.start", "spans.end", "spans.severity", "spans.category")


def esa_answer(scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]) -> dict:
    """The ESA score from 0 to 100 (its spans are checked with the item)."""
    low, high = ESA_SCORE_RANGE
    score = whole_number(given, "score")
    if not low <= score <= high:
        raise AnswerError(f"score must be from {low} to {high}")
    return {"score": score}


def span_form(post: Mapping[str, Any], candidates: int, scale: str) -> dict[str, Any]:
    """The span editor's form (static/js/spans.js): its spans as one JSON field, and the
    score (none for MQM)."""
    return {"spans": json_limits.loads(post.get("spans") or "[]"), "score": post.get("score")}
