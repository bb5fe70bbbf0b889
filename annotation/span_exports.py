"""Downloads of error-span judgments, streamed: Appraise's ESA score CSV, Google's MQM TSV and
JSON Lines per judged item with its spans (formats and their conversions: metrics/spans)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse

from annotation.exports import pseudonym
from annotation.models import Task, TaskType
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

SPAN_FORMATS = {
    "esa.csv": "text/csv; charset=utf-8",
    "mqm.tsv": "text/tab-separated-values; charset=utf-8",
    "spans.jsonl": "application/x-ndjson; charset=utf-8",
}
LINES_PER_CHUNK = 500


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
    if row.task_type != TaskType.MQM:
        return row.score if row.score is not None else 0
    if row.task_id not in weights:
        weights[row.task_id] = task_mqm_weights(task=Task.objects.get(id=row.task_id))
    errors = ((span.severity, span.category) for span in row.spans)
    return -round(weights[row.task_id].score(errors), MQM_SCORE_DECIMALS)


def appraise_esa_lines(
    rows: Iterable[SpanJudgment], *, source_language: str, target_language: str, pseudonymise: bool
) -> Iterator[str]:
    """Appraise's ESA score layout; itemId is Appraise's when the item came from it."""
    weights: dict[int, MqmWeights] = {}
    return write_appraise_esa(
        AppraiseScore(
            login=_who(row, pseudonymise),
            system=row.system,
            item_id=row.appraise_item_id if row.appraise_item_id is not None else row.item_id,
            item_type=row.item_type,
            source_language=source_language,
            target_language=target_language,
            score=_appraise_score(row, weights),
            document=_appraise_document(row),
            is_complete_document=False,
            spans=tuple(span for span in row.spans if span.side == "target"),
            time_start=_epoch(row.served_at),
            time_end=_epoch(row.submitted_at),
        )
        for row in rows
    )


def mqm_tsv_lines(rows: Iterable[SpanJudgment], *, pseudonymise: bool) -> Iterator[str]:
    """Google's MQM TSV: one line per error (the span marked <v>…</v>), No-error when clean."""
    return write_ratings(
        MqmRating(
            system=row.system,
            doc=row.document,
            doc_id=str(row.segment_index),  # not used by readers; kept unique per segment
            seg_id=row.imported_segment or str(row.segment_index + 1),
            rater=_who(row, pseudonymise),
            source=row.source,
            target=row.target,
            spans=row.spans,
        )
        for row in rows
    )


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


def _chunked(lines: Iterable[str]) -> Iterator[str]:
    chunk: list[str] = []
    for line in lines:
        chunk.append(line)
        if len(chunk) >= LINES_PER_CHUNK:
            yield "".join(chunk)
            chunk = []
    if chunk:
        yield "".join(chunk)


def span_download(lines: Iterable[str], *, fmt: str, name: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(_chunked(lines), content_type=SPAN_FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{name}-{fmt}"'
    return response
