"""Reads of the judgments that mark one output's error spans (ESA, ESA^AI, MQM: the
protocols' ``one_output_spans``): one record per judgment with its spans, streamed in chunks
for exports and results."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch

from annotation.models import Campaign, ErrorSpan, Judgment, Segment
from annotation.protocols import task_types_where
from annotation.selectors.human.loading import exclusions
from metrics.spans import Span

CHUNK = 2000


@dataclass(frozen=True)
class SpanJudgment:
    """One judgment of an error-span task, with what the exports and results need."""

    judgment_id: int
    task_id: int
    task_type: str
    annotator_id: int
    username: str
    item_id: int  # the campaign's item number
    appraise_item_id: object  # Appraise's itemID when imported from Appraise, else None
    imported_segment: str | None  # the seg_id of an imported MQM TSV
    imported_doc_id: str | None  # the doc_id of an imported MQM TSV
    item_type: str
    system: str
    document: str
    domain: str  # the document's domain, "" when none was given
    segment_index: int  # 0-based line of the source file
    position_in_document: int  # 1-based
    source: str
    target: str
    score: int | None
    served_at: datetime
    submitted_at: datetime
    excluded: bool
    spans: tuple[Span, ...]
    seconds: float | None = None  # the judgment's active time (a page's segment: its own)


def document_positions(campaign: Campaign) -> dict[int, int]:
    """Segment index → the segment's 1-based position in its document."""
    seen: dict[int, int] = {}
    positions: dict[int, int] = {}
    for index, document in (
        Segment.objects.filter(campaign=campaign)
        .order_by("index")
        .values_list("index", "document_id")
    ):
        seen[document] = seen.get(document, 0) + 1
        positions[index] = seen[document]
    return positions


def span_judgments(
    *, campaign: Campaign, task_id: int | None = None, included_only: bool = False
) -> Iterator[SpanJudgment]:
    """The campaign's span judgments in item order, each with its spans (a few queries per
    chunk of judgments). ``excluded`` is true for judgments excluded one by one and for those
    of annotators an organiser left out; ``included_only`` drops both (what rankings count)."""
    left_out = exclusions(campaign.id)
    # The judgments of one output's spans (the span formats' rows), as the protocols declare.
    one_output = task_types_where(lambda protocol: protocol.one_output_spans)
    judgments = Judgment.objects.filter(task__campaign=campaign, task_type__in=one_output)
    if task_id is not None:
        judgments = judgments.filter(task_id=task_id)
    if included_only:
        judgments = left_out.counted(judgments)
    judgments = (
        judgments.select_related("annotator", "item__segment__document", "item__system")
        .prefetch_related(Prefetch("spans", queryset=ErrorSpan.objects.order_by("id")))
        .order_by("item__external_id", "annotator_id", "id")
    )
    positions = document_positions(campaign)
    for judgment in judgments.iterator(chunk_size=CHUNK):
        item = judgment.item
        yield SpanJudgment(
            judgment_id=judgment.id,
            task_id=judgment.task_id,
            task_type=judgment.task_type,
            annotator_id=judgment.annotator_id,
            username=judgment.annotator.username,
            item_id=item.external_id,
            appraise_item_id=item.source_meta.get("itemID"),
            imported_segment=item.source_meta.get("seg_id"),
            imported_doc_id=item.source_meta.get("doc_id"),
            item_type="REPEAT" if judgment.is_repeat else item.item_type,
            system=item.system.name if item.system else "+".join(item.candidates[0]["systems"]),
            document=item.segment.document.external_id,
            domain=item.segment.document.domain,
            segment_index=item.segment.index,
            position_in_document=positions[item.segment.index],
            source=item.segment.source,
            target=item.candidates[0]["text"],
            score=judgment.score,
            served_at=judgment.served_at,
            submitted_at=judgment.submitted_at,
            excluded=judgment.excluded
            or left_out.excludes(judgment.annotator_id, judgment.task_id),
            spans=tuple(
                Span(
                    row.start,
                    row.end,
                    row.severity,
                    row.category or None,
                    row.prefilled,
                    row.side,  # type: ignore[arg-type]
                )
                for row in judgment.spans.all()
            ),
            # A file imported without times stores one moment for both (span_imports): no time.
            seconds=None
            if judgment.served_at == judgment.submitted_at
            else judgment.duration_ms / 1000.0,
        )
