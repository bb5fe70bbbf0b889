"""The page-score download (``pages.csv``, ``pages.jsonl``): every score of a document page
as a whole, a row per output of a contrastive page (``selectors.page_scores``), kept apart
from the judgments download, which has one row per segment judged."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

from django.http import StreamingHttpResponse

from annotation.exports import batched, csv_stream, pseudonym, streaming_response
from annotation.models import Campaign, Task
from annotation.selectors.exports import judgment_annotators
from annotation.selectors.page_scores import PAGE_SCORE_COLUMNS, page_score_rows

PAGE_FORMATS = frozenset({"pages.csv", "pages.jsonl"})


def page_scores_download(
    *,
    campaign: Campaign,
    fmt: str,
    task: Task | None,
    included_only: bool,
    pseudonymise: bool,
) -> StreamingHttpResponse:
    """The page scores as CSV (a header, then a row per score) or JSON Lines (an object per
    score), named as the judgments downloads are."""
    names = judgment_annotators(campaign)
    if pseudonymise:
        names = {i: pseudonym(i) for i in names}
    rows = page_score_rows(
        campaign=campaign,
        names=names,
        task_id=task.id if task else None,
        included_only=included_only,
    )
    name = (
        f"evalsite-{campaign.id}"
        + (f"-task{task.id}" if task else "")
        + ("-included" if included_only else "")
        + ("-pseudonymised" if pseudonymise else "-identified")
        + "-page-scores"
    )
    if fmt == "pages.jsonl":
        lines: Iterator[str] = (
            json.dumps({k: row[k] for k in PAGE_SCORE_COLUMNS}, ensure_ascii=False) + "\n"
            for row in rows
        )
        return streaming_response(batched(lines), filename=f"{name}.jsonl")
    table: Iterator[list[Any]] = ([row[column] for column in PAGE_SCORE_COLUMNS] for row in rows)
    return streaming_response(
        csv_stream(itertools.chain([PAGE_SCORE_COLUMNS], table)), filename=f"{name}.csv"
    )
