"""The judgment downloads, one list for the page and the API: each format, what it holds, and
the one function that writes it (``annotation.exports``, ``annotation.span_exports``)."""

from __future__ import annotations

from django.http import StreamingHttpResponse

from annotation.errors import ApplicationError
from annotation.exports import judgments_download
from annotation.models import Campaign, Task
from annotation.page_exports import PAGE_FORMATS, page_scores_download
from annotation.protocols import protocol_for
from annotation.selectors.pearmut import pearmut_output_lines
from annotation.selectors.spans import span_judgments
from annotation.span_exports import (
    appraise_esa_lines,
    mqm_tsv_lines,
    span_download,
    spans_jsonl_lines,
)

JUDGMENT_FORMATS = {
    "csv": "every judgment, a row per system judged, with a header",
    "jsonl": "JSON Lines, one object per judgment",
    "appraise": "Appraise's headerless score CSV (judgments with an absolute score)",
    "wmt": "the WMT 5-way ranking CSV of a pairwise or ranking task (?task=)",
    "esa.csv": "ESA / MQM: Appraise's ESA score CSV with the error spans",
    "mqm.tsv": "ESA / MQM: Google's MQM TSV, one line per error",
    "spans.jsonl": "ESA / MQM: JSON Lines, one object per judged item with its spans",
    "pearmut.jsonl": "Pearmut's results JSONL, a line per annotator and document (?task=)",
    "pages.csv": "document pages: every page score, a row per output of a contrastive page",
    "pages.jsonl": "document pages: JSON Lines, one object per page score (per output)",
}
SPAN_FORMATS = frozenset({"esa.csv", "mqm.tsv", "spans.jsonl"})


def judgments_file(
    *,
    campaign: Campaign,
    fmt: str,
    task: Task | None,
    included_only: bool,
    pseudonymise: bool,
) -> StreamingHttpResponse:
    """The download of ``fmt`` (a key of ``JUDGMENT_FORMATS``: the caller checks)."""
    if fmt == "wmt" and (task is None or not protocol_for(task.task_type).wmt_ranking):
        raise ApplicationError("the WMT ranking CSV needs ?task= a pairwise or ranking task")
    if fmt == "pearmut.jsonl":
        if task is None:
            raise ApplicationError("Pearmut's results JSONL needs ?task= one task")
        name = f"evalsite-{campaign.id}-task{task.id}"
        lines = pearmut_output_lines(
            task=task, included_only=included_only, pseudonymise=pseudonymise
        )
        return span_download(lines, fmt=fmt, name=name)
    if fmt in PAGE_FORMATS:
        return page_scores_download(
            campaign=campaign,
            fmt=fmt,
            task=task,
            included_only=included_only,
            pseudonymise=pseudonymise,
        )
    if fmt not in SPAN_FORMATS:
        return judgments_download(
            campaign=campaign,
            fmt=fmt,
            task=task,
            included_only=included_only,
            pseudonymise=pseudonymise,
        )
    rows = span_judgments(
        campaign=campaign, task_id=task.id if task else None, included_only=included_only
    )
    if fmt == "esa.csv":
        lines = appraise_esa_lines(
            rows,
            source_language=campaign.source_language,
            target_language=campaign.target_language,
            pseudonymise=pseudonymise,
        )
    elif fmt == "mqm.tsv":
        lines = mqm_tsv_lines(rows, pseudonymise=pseudonymise)
    else:
        lines = spans_jsonl_lines(rows, pseudonymise=pseudonymise)
    name = f"evalsite-{campaign.id}" + (f"-task{task.id}" if task else "")
    return span_download(lines, fmt=fmt, name=name)


def unknown_format_message() -> str:
    return "judgments download as " + ", ".join(f".{fmt}" for fmt in JUDGMENT_FORMATS)
