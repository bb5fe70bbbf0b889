"""Adequacy: how much of the source's (or, monolingual, the reference's) meaning one output
keeps, on a Likert scale or 0-100 (Direct Assessment is this protocol on ``da100``)."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol, never, posted
from annotation.protocols.likert import (
    LIKERT_EXPORT_COLUMNS,
    LIKERT_QUALITY_CONTROL,
    LIKERT_SETTINGS,
    LIKERT_TEMPLATE,
    likert_answer,
)
from annotation.protocols.settings import DOCUMENT_SETTINGS
from annotation.protocols.simulated import likert_simulated

INSTRUCTIONS = (
    "Below you see a sentence in the source language and a candidate translation. "
    "How accurately does the candidate text convey the original semantics of the "
    "source text? Score it from 'no meaning preserved' to 'all meaning preserved'."
)
# A monolingual task shows the reference instead of the source.
MONOLINGUAL_INSTRUCTIONS = (
    "Below you see a human reference translation and a candidate translation. How "
    "accurately does the candidate text convey the semantics of the reference text?"
)

PROTOCOL = Protocol(
    task_type=TaskType.ADEQUACY,
    instructions=INSTRUCTIONS,
    monolingual_instructions=MONOLINGUAL_INSTRUCTIONS,
    answer=likert_answer("score"),
    parse_form=posted("score"),
    needs_item=never,
    settings=DOCUMENT_SETTINGS | LIKERT_SETTINGS,
    quality_control=LIKERT_QUALITY_CONTROL,
    scored=True,
    template=LIKERT_TEMPLATE,
    export_columns=LIKERT_EXPORT_COLUMNS,
    appraise=(("Direct", None), ("Document", None)),
    ranked_as="da",
    measures={"adequacy": "score"},
    pearmut=("DA",),
    simulate=likert_simulated("score"),
)
