"""Contrastive DA: several translations of one segment side by side, each scored from 0 to
100 (no spans); each slider shows the scores given to the others."""

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
from annotation.protocols.simulated import each_output, score_simulated

INSTRUCTIONS = (
    "You see one source and several translations of it side by side. How accurately does "
    "each translation convey the meaning of the source? Score each from 0 (no meaning "
    "preserved) to 100 (all meaning preserved); the marks on each slider show the scores "
    "you gave the others." + IDENTICAL_OUTPUTS
)

PROTOCOL = Protocol(
    task_type=TaskType.CONTRASTIVE_DA,
    instructions=INSTRUCTIONS,
    answer=contrastive_scores,
    settings=CONTRASTIVE_SETTINGS,
    defaults=CONTRASTIVE_DEFAULTS,
    quality_control=CONTRASTIVE_QUALITY_CONTROL,
    parse_form=contrastive_form,
    template=CONTRASTIVE_TEMPLATE,
    scripts=CONTRASTIVE_SCRIPTS,
    export_columns=CONTRASTIVE_EXPORT_COLUMNS,
    contrastive=True,
    several_outputs=True,
    scored=True,
    score_range=CONTRASTIVE_SCORE_RANGE,
    lettered=True,
    appraise=(("ContrastiveDocument", None),),
    ranked_as="cda",
    simulate=each_output(score_simulated),
)
