"""Adequacy and fluency of one output, two scores on the same scale."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.likert import (
    LIKERT_EXPORT_COLUMNS,
    LIKERT_QUALITY_CONTROL,
    LIKERT_SETTINGS,
    likert_answer,
)

PROTOCOL = Protocol(
    task_type=TaskType.ADEQUACY_FLUENCY,
    answer=likert_answer("score", "fluency"),
    settings=LIKERT_SETTINGS,
    quality_control=LIKERT_QUALITY_CONTROL,
    export_columns=(*LIKERT_EXPORT_COLUMNS, "fluency"),
)
