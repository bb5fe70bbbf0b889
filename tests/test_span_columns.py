"""A span row's columns are filled in one place (``services.spans.SPAN_COLUMNS``): the
annotator's prepared insert and the imports' ORM rows store the same values, and a column
the model gains without an entry there fails here."""

import pytest

from annotation.models import ErrorSpan, Judgment
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from annotation.services.spans import (
    SPAN_COLUMNS,
    CheckedSpan,
    error_span_row,
    error_spans_create,
)
from metrics.spans import Span

pytestmark = pytest.mark.django_db

OWN = ("id", "judgment")
STORED = [field for field in ErrorSpan._meta.concrete_fields if field.name not in OWN]


def test_every_column_of_a_span_row_is_filled_by_the_one_definition():
    assert [column.field for column in SPAN_COLUMNS] == [field.name for field in STORED]


def _values(row: ErrorSpan) -> tuple:
    return tuple(getattr(row, field.attname) for field in STORED)


def test_the_prepared_insert_and_the_orm_row_store_the_same_span(
    launched, loaded_campaign, make_annotator
):
    task = launched("esa")
    annotator = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    recorded = judgment_record(
        task_id=task.id, slot_id=slot.id, annotator_id=annotator.id, answer={"score": 40}
    )
    judgment = Judgment.objects.get(id=recorded.judgment_id)
    spans = [
        CheckedSpan(Span(0, 3, "minor")),
        CheckedSpan(Span(1, 4, "major", "Accuracy", True), changed=True, origin={"start": 0}),
        CheckedSpan(Span(None, None, "major"), candidate=2),
        CheckedSpan(Span(2, 5, "minor", side="source")),
    ]
    assert error_spans_create(judgment_id=judgment.id, spans=spans) == len(spans)
    prepared = [_values(row) for row in ErrorSpan.objects.filter(judgment=judgment)]
    ErrorSpan.objects.filter(judgment=judgment).delete()
    ErrorSpan.objects.bulk_create(
        error_span_row(
            judgment=judgment,
            span=checked.span,
            changed=checked.changed,
            origin=checked.origin,
            candidate=checked.candidate,
        )
        for checked in spans
    )
    assert [_values(row) for row in ErrorSpan.objects.filter(judgment=judgment)] == prepared
    assert prepared[1][-1] == {"start": 0} and prepared[0][3] == ""  # origin JSON, no category
