"""ESA^AI: ESA with spans pre-filled by an automatic system (uploaded after launch) that
annotators keep, change or remove."""

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

INSTRUCTIONS = (
    "The translation comes with errors marked by an automatic system: keep the ones that "
    "are right, change the severity of those that are wrong, remove the ones that are not "
    "errors, and mark what it missed (minor: style, grammar or word choice that does not "
    "change the meaning; major: changes the meaning or makes it hard to understand). Then "
    "score the translation from 0 to 100 as in ESA."
)

PROTOCOL = Protocol(
    task_type=TaskType.ESA_PREFILLED,
    instructions=INSTRUCTIONS,
    answer=esa_answer,
    parse_form=span_form,
    settings=DOCUMENT_SETTINGS | SPAN_SETTINGS | ADAPTIVE_SETTINGS,
    quality_control=SPAN_QUALITY_CONTROL,
    template=SPAN_TEMPLATE,
    scripts=SPAN_SCRIPTS,
    results_section=SPAN_RESULTS,
    export_columns=("score", *SPAN_EXPORT_COLUMNS, "spans.prefilled"),
    spans=True,
    prefilled_spans=True,
    scored=True,
    score_range=ESA_SCORE_RANGE,
    variant_of=TaskType.ESA,
    ranked_as="esa",
    pearmut=("ESA prefilled",),
    simulate=esa_simulated,
)
