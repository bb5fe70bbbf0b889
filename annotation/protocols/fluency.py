"""Fluency: how well one output reads in the target language, without the source (so
without context, the reference or a monolingual variant)."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol, never, posted
from annotation.protocols.likert import (
    LIKERT_EXPORT_COLUMNS,
    LIKERT_QUALITY_CONTROL,
    LIKERT_TEMPLATE,
    likert_answer,
)
from annotation.protocols.settings import ADAPTIVE_SETTINGS
from annotation.protocols.simulated import likert_simulated

INSTRUCTIONS = (
    "Read the text below and rate it by how much you agree that: the text is fluent "
    "in the target language (grammatical, natural, easy to read)."
)

PROTOCOL = Protocol(
    task_type=TaskType.FLUENCY,
    instructions=INSTRUCTIONS,
    answer=likert_answer("score"),
    parse_form=posted("score"),
    needs_item=never,
    settings=frozenset({"scale", "equivalence_margin"}) | ADAPTIVE_SETTINGS,
    quality_control=LIKERT_QUALITY_CONTROL,
    scored=True,
    template=LIKERT_TEMPLATE,
    export_columns=LIKERT_EXPORT_COLUMNS,
    source_shown=False,
    ranked_as="da",
    measures={"fluency": "score"},
    pearmut=("DA fluency",),
    simulate=likert_simulated("score"),
)
