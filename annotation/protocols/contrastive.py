"""What the contrastive protocols (cESA, contrastive MQM, contrastive DA) share.

One screen shows N outputs of the same segment (``ranking_size``, default 3 as WMT26),
side by side (stacked on a phone), in an order drawn from the task's seed at launch and
kept in ``item.candidates``; system names are never shown. Each output gets its own spans
and score; identical outputs of several systems are one candidate, shown once and scored
for every system that produced it. With the document unit a screen is a page of one
document's segments, each with the same systems' outputs (``page_plan``, ``page_judgments``)
and, if asked, a page score per output. A segment's answer lists the candidates in screen
order::

    {"candidates": [{"score": 0-100, "spans": [{start, end, severity, category}]}, ...]}

``contrastive_scores`` checks the scores (every candidate scored, on 0-100; MQM has none:
its score comes from the spans); ``annotation.services.contrastive`` checks the spans
against each candidate's text and stores one ``OutputJudgment`` per output and system.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.lib import json_limits
from annotation.protocols.base import AnswerError, whole_number
from annotation.protocols.settings import ADAPTIVE_SETTINGS, DOCUMENT_SETTINGS

# Adaptive: the systems sharing a screen chosen at claim time, on segments and on document
# pages (annotation/services/contrastive_adaptive.py).
CONTRASTIVE_SETTINGS = (
    DOCUMENT_SETTINGS
    | ADAPTIVE_SETTINGS
    | {"ranking_size", "context_size", "show_reference", "equivalence_margin"}
)
CONTRASTIVE_DEFAULTS = {"ranking_size": 3}  # WMT26: three translations side by side
# Repeats of whole screens, and WMT26's check: a screen again with one output shuffled.
CONTRASTIVE_QUALITY_CONTROL = frozenset({"repeat", "shuffle"})
CONTRASTIVE_TEMPLATE = "annotate/contrastive.html"
CONTRASTIVE_SCRIPTS = ("js/span_editor.js", "js/contrastive.js")
CONTRASTIVE_EXPORT_COLUMNS = ("candidate_scores",)
CONTRASTIVE_SCORE_RANGE = (0, 100)
IDENTICAL_OUTPUTS = (
    " Identical translations are shown once; your marks and score count for every system "
    "that produced them."
)


def candidate_answers(candidates: list[dict[str, Any]], given: Mapping[str, Any]) -> list[dict]:
    """The answer's per-candidate entries, one per candidate on the screen, in its order."""
    answers = given.get("candidates")
    if not isinstance(answers, list) or len(answers) != len(candidates):
        raise AnswerError(
            f"candidates must give one answer for each of the {len(candidates)} translations, "
            "in the order shown"
        )
    if not all(isinstance(entry, Mapping) for entry in answers):
        raise AnswerError("each candidate's answer must be an object with its score and spans")
    return list(answers)


def contrastive_form(post: Mapping[str, Any], candidates: int, scale: str) -> dict[str, Any]:
    """static/js/contrastive.js's form: per candidate, its score box and its spans (JSON)."""
    return {
        "candidates": [
            {
                "score": post.get(f"cscore-{i}"),
                "spans": json_limits.loads(post.get(f"spans-{i}") or "[]"),
            }
            for i in range(candidates)
        ]
    }


def contrastive_scores(
    scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]
) -> dict[str, Any]:
    """cESA and contrastive DA: a score from 0 to 100 for every candidate."""
    low, high = CONTRASTIVE_SCORE_RANGE
    scores = []
    for number, entry in enumerate(candidate_answers(candidates, given), 1):
        try:
            score = whole_number(entry, "score")
        except AnswerError as error:
            raise AnswerError(f"translation {number}: {error}") from None
        if not low <= score <= high:
            raise AnswerError(f"translation {number}: score must be from {low} to {high}")
        scores.append(score)
    return {"candidate_scores": scores}


def contrastive_unscored(
    scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]
) -> dict[str, Any]:
    """Contrastive MQM: the scores come from the spans; only the shape is checked here."""
    candidate_answers(candidates, given)
    return {"candidate_scores": None}
