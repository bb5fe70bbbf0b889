"""Contrastive ESA (cESA, WMT26): several translations of one segment side by side, each
with its error spans and a score from 0 to 100."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.contrastive import (
    CONTRASTIVE_DEFAULTS,
    CONTRASTIVE_EXPORT_COLUMNS,
    CONTRASTIVE_QUALITY_CONTROL,
    CONTRASTIVE_SCORE_RANGE,
    CONTRASTIVE_SCRIPTS,
    CONTRASTIVE_SETTINGS,
    CONTRASTIVE_TEMPLATE,
    IDENTICAL_OUTPUTS,
    contrastive_form,
    contrastive_scores,
)
from annotation.protocols.simulated import each_output, esa_simulated
from annotation.protocols.spans import SPAN_EXPORT_COLUMNS

INSTRUCTIONS = (
    "You see one source and several translations of it side by side. In each translation, "
    "highlight the errors: a minor error is a problem of style, grammar or word choice "
    "that does not change the meaning; a major error changes the meaning or makes the "
    "text hard to understand. Mark missing content as well. Then score each translation "
    "from 0 to 100 (0 no meaning preserved, 33 some, 66 most with few grammar mistakes, "
    "100 perfect meaning and grammar); the marks on each slider show the scores you gave "
    "the others, so that better translations get higher scores." + IDENTICAL_OUTPUTS
)

PROTOCOL = Protocol(
    task_type=TaskType.CONTRASTIVE_ESA,
    instructions=INSTRUCTIONS,
    answer=contrastive_scores,
    settings=CONTRASTIVE_SETTINGS,
    defaults=CONTRASTIVE_DEFAULTS,
    quality_control=CONTRASTIVE_QUALITY_CONTROL,
    parse_form=contrastive_form,
    template=CONTRASTIVE_TEMPLATE,
    scripts=CONTRASTIVE_SCRIPTS,
    export_columns=(*CONTRASTIVE_EXPORT_COLUMNS, *SPAN_EXPORT_COLUMNS),
    spans=True,
    contrastive=True,
    several_outputs=True,
    scored=True,
    score_range=CONTRASTIVE_SCORE_RANGE,
    lettered=True,
    appraise=(("ContrastiveDocument", "esa"),),
    pearmut=("cESA",),
    ranked_as="esa",
    simulate=each_output(esa_simulated),
)
