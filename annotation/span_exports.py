"""Downloads of error-span judgments, streamed: Appraise's ESA score CSV, Google's MQM TSV and
JSON Lines per judged item with its spans (formats and their conversions: metrics/spans).

Segment numbers follow each format's own convention:

* ESA CSV ``itemId``: the rule of every Appraise file the site writes
  (``annotation.selectors.exports.appraise_item_id``): Appraise's own itemID when the item came
  from Appraise, else the segment's number from 1.
* MQM TSV, as Google's files: ``doc`` the document's name, ``doc_id`` the segment's position
  in its document from 1, ``seg_id`` the segment's number in the test set from 1 (an imported
  file's own ``doc_id`` and ``seg_id`` are kept).
* spans JSON Lines ``segment``: the 0-based line of the source, as the pre-filled spans upload
  (``POST .../prefill``) reads it.

Every text cell of the CSV and TSV goes through the site's one formula guard
(``annotation.lib.spreadsheet``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse

from annotation.exports import batched, pseudonym, streaming_response
from annotation.lib.spreadsheet import spreadsheet_safe, spreadsheet_safe_tsv_line
from annotation.models import Task
from annotation.protocols import protocol_for
from annotation.selectors.exports import appraise_item_id
from annotation.selectors.spans import SpanJudgment
from annotation.services.spans import task_mqm_weights
from metrics.spans import (
    AppraiseScore,
    MqmRating,
    MqmWeights,
    SpanItem,
    write_appraise_esa,
    write_ratings,
    write_spans_jsonl,
)


def _who(row: SpanJudgment, pseudonymise: bool) -> str:
    return pseudonym(row.annotator_id) if pseudonymise else row.username


def _epoch(row_time) -> str:
    """Seconds since 1970 as Appraise writes them: to the millisecond, Python's float repr
    (``1717485889.37``, not ``.370``)."""
    return repr(round(row_time.timestamp(), 3))


def _appraise_document(row: SpanJudgment) -> str:
    """Appraise's ``documentId#system`` field. An item from Appraise keeps its documentID,
    which Appraise wrote with the system already (``doc#system``, ``doc#system#bad1``)."""
    if row.appraise_item_id is not None:
        return row.document
    return f"{row.document}#{row.system}"


# Decimals of an MQM score written in the score column: weights such as 0.1 add up to
# 0.30000000000000004 in floating point.
MQM_SCORE_DECIMALS = 4


def _appraise_score(row: SpanJudgment, weights: dict[int, MqmWeights]) -> float:
    """The score column. An MQM judgment has no annotator score (Appraise writes 0, which
    reads as the worst ESA score): it gets its computed MQM score, negated so that higher is
    better as for ESA (mt-metrics-eval's sign), with the task's weights."""
    if not protocol_for(row.task_type).penalty_scored:
        return row.score if row.score is not None else 0
    if row.task_id not in weights:
        weights[row.task_id] = task_mqm_weights(task=Task.objects.get(id=row.task_id))
    errors = ((span.severity, span.category) for span in row.spans)
    return -round(weights[row.task_id].score(errors), MQM_SCORE_DECIMALS)


def appraise_esa_lines(
    rows: Iterable[SpanJudgment], *, source_language: str, target_language: str, pseudonymise: bool
) -> Iterator[str]:
    """Appraise's ESA score layout (itemId: ``appraise_item_id``), text cells guarded."""
    weights: dict[int, MqmWeights] = {}
    return write_appraise_esa(
        AppraiseScore(
            login=spreadsheet_safe(_who(row, pseudonymise)),
            system=spreadsheet_safe(row.system),
            item_id=appraise_item_id(row.appraise_item_id, row.segment_index),
            item_type=row.item_type,
            source_language=source_language,
            target_language=target_language,
            score=_appraise_score(row, weights),
            document=spreadsheet_safe(_appraise_document(row)),
            is_complete_document=False,
            spans=tuple(span for span in row.spans if span.side == "target"),
            time_start=_epoch(row.served_at),
            time_end=_epoch(row.submitted_at),
        )
        for row in rows
    )


def mqm_tsv_lines(rows: Iterable[SpanJudgment], *, pseudonymise: bool) -> Iterator[str]:
    """Google's MQM TSV: one line per error (the span marked <v>…</v>), No-error when clean;
    every field guarded after the spans are marked, so the marks stay on their words."""
    lines = write_ratings(
        MqmRating(
            system=row.system,
            doc=row.document,
            doc_id=row.imported_doc_id or str(row.position_in_document),
            seg_id=row.imported_segment or str(row.segment_index + 1),
            rater=_who(row, pseudonymise),
            source=row.source,
            target=row.target,
            spans=row.spans,
        )
        for row in rows
    )
    return map(spreadsheet_safe_tsv_line, lines)


def spans_jsonl_lines(rows: Iterable[SpanJudgment], *, pseudonymise: bool) -> Iterator[str]:
    """One JSON line per judged item: its ids, texts, score and spans (end exclusive)."""
    return write_spans_jsonl(
        SpanItem(
            fields={
                "item": row.item_id,
                "task_type": row.task_type,
                "annotator": _who(row, pseudonymise),
                "system": row.system,
                "document": row.document,
                "domain": row.domain,
                "segment": row.segment_index,
                "item_type": row.item_type,
                "source": row.source,
                "target": row.target,
                "score": row.score,
                "excluded": row.excluded,
            },
            spans=row.spans,
        )
        for row in rows
    )


def span_download(lines: Iterable[str], *, fmt: str, name: str) -> StreamingHttpResponse:
    return streaming_response(batched(lines), filename=f"{name}-{fmt}")
