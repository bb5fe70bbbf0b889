"""Judgments for the downloads, streamed from a server-side cursor in constant memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from django.db import transaction
from django.db.models import F, Func, TextField

from annotation.models import Campaign, Judgment
from annotation.selectors.human.loading import excluded_annotators

CHUNK = 2000


def _candidate_field(path: str) -> Func:
    """One field of every candidate (systems, type) as JSON text, without the candidates'
    texts; left unparsed, since most rows (single-output items) never need it."""
    return Func(
        F("item__candidates"),
        function="jsonb_path_query_array",
        template=f"%(function)s(%(expressions)s, '$[*].{path}')::text",
        output_field=TextField(),
    )


def judgment_export_rows(
    *, campaign: Campaign, task_id: int | None = None, included_only: bool = False
) -> Iterator[dict[str, Any]]:
    """Every judgment of the campaign (or task) in the order they were recorded.

    ``excluded`` is true for judgments excluded one by one and for those of annotators an
    organiser left out; ``included_only`` drops both, leaving what the rankings count.
    ``candidate_systems`` and ``candidate_types`` are JSON texts.
    """
    excluded = excluded_annotators(campaign.id)
    judgments = Judgment.objects.filter(task__campaign=campaign)
    if task_id is not None:
        judgments = judgments.filter(task_id=task_id)
    if included_only:
        judgments = judgments.filter(excluded=False).exclude(annotator_id__in=excluded)
    rows = (
        judgments.annotate(
            candidate_systems=_candidate_field("systems"),
            candidate_types=_candidate_field("type"),
        )
        .order_by("id")
        .values(
            "id",
            "annotator_id",
            "task_id",
            "task_type",
            "is_repeat",
            "score",
            "fluency",
            "preference",
            "ranks",
            "candidate_scores",
            "post_edit",
            "hter",
            "edits",
            "post_edit_length",
            "served_at",
            "submitted_at",
            "duration_ms",
            "excluded",
            "candidate_systems",
            "candidate_types",
            username=F("annotator__username"),
            item_number=F("item__external_id"),
            item_kind=F("item__item_type"),
            system_name=F("item__system__name"),
            segment_index=F("item__segment__index"),
            document=F("item__segment__document__external_id"),
        )
    )
    # Inside a transaction the server-side cursor needs no WITH HOLD, which would make
    # PostgreSQL compute and store every row before sending the first.
    with transaction.atomic():
        for values in rows.iterator(chunk_size=CHUNK):
            row = cast(dict[str, Any], values)
            row["excluded"] = row["excluded"] or row["annotator_id"] in excluded
            yield row
