"""Adequacy: how much of the source's (or, monolingual, the reference's) meaning one output
keeps, on a Likert scale or 0-100 (Direct Assessment is this protocol on ``da100``)."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.likert import (
    LIKERT_EXPORT_COLUMNS,
    LIKERT_QUALITY_CONTROL,
    LIKERT_SETTINGS,
    likert_answer,
)

PROTOCOL = Protocol(
    task_type=TaskType.ADEQUACY,
    answer=likert_answer("score"),
    settings=LIKERT_SETTINGS,
    quality_control=LIKERT_QUALITY_CONTROL,
    export_columns=LIKERT_EXPORT_COLUMNS,
)
