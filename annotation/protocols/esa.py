"""Error Span Annotation (Kocmi et al., 2024): minor and major error spans, then a score
from 0 to 100."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.spans import (
    SPAN_EXPORT_COLUMNS,
    SPAN_QUALITY_CONTROL,
    SPAN_RESULTS,
    SPAN_SCRIPT,
    SPAN_SETTINGS,
    SPAN_TEMPLATE,
    esa_answer,
)

PROTOCOL = Protocol(
    task_type=TaskType.ESA,
    answer=esa_answer,
    settings=SPAN_SETTINGS,
    quality_control=SPAN_QUALITY_CONTROL,
    template=SPAN_TEMPLATE,
    script=SPAN_SCRIPT,
    results_section=SPAN_RESULTS,
    export_columns=("score", *SPAN_EXPORT_COLUMNS),
    spans=True,
)
