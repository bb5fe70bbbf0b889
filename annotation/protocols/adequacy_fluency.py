"""Adequacy and fluency of one output, two scores on the same scale."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.likert import (
    LIKERT_EXPORT_COLUMNS,
    LIKERT_QUALITY_CONTROL,
    LIKERT_SETTINGS,
    LIKERT_TEMPLATE,
    likert_answer,
)

INSTRUCTIONS = (
    "Rate the candidate translation twice: how much of the meaning of the source it "
    "conveys (adequacy), and how fluent it reads in the target language (fluency)."
)

PROTOCOL = Protocol(
    task_type=TaskType.ADEQUACY_FLUENCY,
    instructions=INSTRUCTIONS,
    answer=likert_answer("score", "fluency"),
    settings=LIKERT_SETTINGS,
    quality_control=LIKERT_QUALITY_CONTROL,
    template=LIKERT_TEMPLATE,
    export_columns=(*LIKERT_EXPORT_COLUMNS, "fluency"),
)
