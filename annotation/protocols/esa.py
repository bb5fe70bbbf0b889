"""Error Span Annotation (Kocmi et al., 2024): minor and major error spans, then a score
from 0 to 100."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.settings import ADAPTIVE_SETTINGS, DOCUMENT_SETTINGS
from annotation.protocols.simulated import esa_simulated
from annotation.protocols.spans import (
    ESA_SCORE_RANGE,
    SPAN_EXPORT_COLUMNS,
    SPAN_QUALITY_CONTROL,
    SPAN_RESULTS,
    SPAN_SCRIPTS,
    SPAN_SETTINGS,
    SPAN_TEMPLATE,
    esa_answer,
    span_form,
)

# Error Span Annotation (Kocmi et al., 2024), as WMT24 worded it.
INSTRUCTIONS = (
    "Highlight the errors in the translation: a minor error is a problem of style, "
    "grammar or word choice that does not change the meaning; a major error changes the "
    "meaning or makes the text hard to understand. Mark missing content as well. Then "
    "score the translation from 0 to 100: 0 no meaning preserved, 33 some meaning "
    "preserved, 66 most meaning preserved with few grammar mistakes, 100 perfect meaning "
    "and grammar."
)

PROTOCOL = Protocol(
    task_type=TaskType.ESA,
    instructions=INSTRUCTIONS,
    answer=esa_answer,
    parse_form=span_form,
    settings=DOCUMENT_SETTINGS | SPAN_SETTINGS | ADAPTIVE_SETTINGS,
    quality_control=SPAN_QUALITY_CONTROL,
    template=SPAN_TEMPLATE,
    scripts=SPAN_SCRIPTS,
    results_section=SPAN_RESULTS,
    export_columns=("score", *SPAN_EXPORT_COLUMNS),
    spans=True,
    scored=True,
    score_range=ESA_SCORE_RANGE,
    appraise=(("Direct", "esa"), ("Document", "esa")),
    ranked_as="esa",
    pearmut=("ESA",),
    simulate=esa_simulated,
)
