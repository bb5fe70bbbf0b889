"""Post-editing: the annotator corrects one output; HTER is computed against it."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from annotation.models import TaskType
from annotation.protocols.base import AnswerError, Protocol, posted
from annotation.protocols.simulated import post_edit_simulated
from metrics.postedit import hter

MAX_POST_EDIT_CHARS = 10_000


def answer(scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]) -> dict:
    post_edit = given.get("post_edit")
    if not isinstance(post_edit, str) or not post_edit.strip():
        raise AnswerError("the post-edited translation is empty")
    post_edit = post_edit.replace("\r\n", "\n").strip()
    if len(post_edit) > MAX_POST_EDIT_CHARS:
        raise AnswerError(f"the post-edit is over {MAX_POST_EDIT_CHARS} characters")
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n" for c in post_edit):
        raise AnswerError("the post-edit contains control characters")
    result = hter(candidates[0]["text"], post_edit)
    return {
        "post_edit": post_edit,
        "hter": result.score,
        "edits": result.edits,
        "post_edit_length": result.length,
    }


INSTRUCTIONS = (
    "Correct the machine translation so that it is an accurate and fluent translation "
    "of the source, changing as little as possible."
)

PROTOCOL = Protocol(
    task_type=TaskType.POSTEDIT,
    instructions=INSTRUCTIONS,
    answer=answer,
    parse_form=posted("post_edit"),
    template="annotate/_answer_postedit.html",
    settings=frozenset({"context_size", "show_reference"}),
    quality_control=frozenset({"repeat", "reference"}),
    export_columns=("post_edit", "hter", "edits", "post_edit_length"),
    simulate=post_edit_simulated,
)
