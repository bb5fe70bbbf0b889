"""Page scores for the downloads: one row per score of a document page as a whole
(``PageScore``; a contrastive page has one per output, in its place on the page)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from annotation.models import Campaign, PageScore
from annotation.protocols import protocol_for
from annotation.selectors.human.loading import exclusions
from annotation.selectors.pages import output_labels

# The columns of the page-score download, in order (CSV header and JSON keys alike).
PAGE_SCORE_COLUMNS = [
    "annotator",
    "language_pair",
    "task_id",
    "task_type",
    "page",  # the page's first slot: one annotator's one page
    "document_id",
    "first_segment_id",  # the page's first segment, numbered from 1 as in the judgments
    "segments",
    "output",  # a contrastive page: the output's place (A, B, ...); else empty
    "position",  # the same place from 0 (0 on a page of one output)
    "system",  # empty for an output no system produced (an attention check's)
    "item_type",  # TGT, REF, BAD or CHK (an attention check), REPEAT for a repeated page
    "score",
    "submitted_at",
    "excluded",  # the annotator left out of the task's results
]


def page_score_rows(
    *, campaign: Campaign, names: dict[int, str], task_id: int | None, included_only: bool
) -> Iterator[dict[str, Any]]:
    """The campaign's (or one task's) page scores in the order recorded, each a dict of
    ``PAGE_SCORE_COLUMNS``; ``names``: annotator id → the name the file shows;
    ``included_only``: without the annotators left out."""
    left_out = exclusions(campaign.id)
    scores = PageScore.objects.filter(task__campaign_id=campaign.id)
    if task_id is not None:
        scores = scores.filter(task_id=task_id)
    letters = output_labels(26)
    for row in scores.order_by("id").values(
        "annotator_id",
        "task_id",
        "task__task_type",
        "slot_id",
        "document__external_id",
        "slot__item__segment__index",
        "segments",
        "position",
        "system__name",
        "item_type",
        "is_repeat",
        "score",
        "submitted_at",
    ):
        excluded = left_out.excludes(row["annotator_id"], row["task_id"])
        if excluded and included_only:
            continue
        contrastive = protocol_for(row["task__task_type"]).contrastive
        position = row["position"]
        yield {
            "annotator": names.get(row["annotator_id"], str(row["annotator_id"])),
            "language_pair": campaign.language_pair,
            "task_id": row["task_id"],
            "task_type": row["task__task_type"],
            "page": row["slot_id"],
            "document_id": row["document__external_id"],
            "first_segment_id": row["slot__item__segment__index"] + 1,
            "segments": row["segments"],
            "output": _label(letters, position) if contrastive else None,
            "position": position,
            "system": row["system__name"],
            "item_type": "REPEAT" if row["is_repeat"] else row["item_type"],
            "score": row["score"],
            "submitted_at": row["submitted_at"].isoformat(),
            "excluded": excluded,
        }


def _label(letters: list[str], position: int) -> str:
    return letters[position] if position < len(letters) else str(position + 1)
