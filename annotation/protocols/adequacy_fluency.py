"""Adequacy and fluency of one output, two scores on the same scale."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol, never, posted
from annotation.protocols.likert import (
    LIKERT_QUALITY_CONTROL,
    LIKERT_SETTINGS,
    LIKERT_TEMPLATE,
    likert_answer,
)
from annotation.protocols.simulated import likert_simulated

QUESTIONS = ("score", "fluency")

INSTRUCTIONS = (
    "Rate the candidate translation twice: how much of the meaning of the source it "
    "conveys (adequacy), and how fluent it reads in the target language (fluency)."
)

PROTOCOL = Protocol(
    task_type=TaskType.ADEQUACY_FLUENCY,
    instructions=INSTRUCTIONS,
    answer=likert_answer(*QUESTIONS),
    parse_form=posted(*QUESTIONS),
    needs_item=never,
    settings=LIKERT_SETTINGS,
    quality_control=LIKERT_QUALITY_CONTROL,
    scored=True,
    template=LIKERT_TEMPLATE,
    export_columns=QUESTIONS,
    ranked_as="da",
    measures={"adequacy": "score", "fluency": "fluency"},
    pearmut=("DA adequacy+fluency",),
    simulate=likert_simulated(*QUESTIONS),
)
