"""Contrastive MQM: several translations of one segment side by side, each with its MQM
error spans (category and severity); each one's score is computed from its spans."""

from annotation.models import TaskType
from annotation.protocols.base import Protocol
from annotation.protocols.contrastive import (
    CONTRASTIVE_DEFAULTS,
    CONTRASTIVE_QUALITY_CONTROL,
    CONTRASTIVE_SCORE_RANGE,
    CONTRASTIVE_SCRIPTS,
    CONTRASTIVE_SETTINGS,
    CONTRASTIVE_TEMPLATE,
    IDENTICAL_OUTPUTS,
    contrastive_form,
    contrastive_unscored,
)
from annotation.protocols.simulated import each_output, mqm_simulated
from annotation.protocols.spans import SPAN_EXPORT_COLUMNS, SPAN_RESULTS

INSTRUCTIONS = (
    "You see one source and several translations of it side by side. Identify all errors "
    "in each translation: mark the span, choose its category and its severity (major if it "
    "may mislead or confuse the reader, minor if it does not). Compare the translations: "
    "the same error gets the same category and severity in each. The scores are computed "
    "from the errors." + IDENTICAL_OUTPUTS
)

PROTOCOL = Protocol(
    task_type=TaskType.CONTRASTIVE_MQM,
    instructions=INSTRUCTIONS,
    answer=contrastive_unscored,
    settings=CONTRASTIVE_SETTINGS | {"mqm_categories", "mqm_weights"},
    defaults=CONTRASTIVE_DEFAULTS,
    quality_control=CONTRASTIVE_QUALITY_CONTROL,
    parse_form=contrastive_form,
    template=CONTRASTIVE_TEMPLATE,
    scripts=CONTRASTIVE_SCRIPTS,
    results_section=SPAN_RESULTS,  # its outputs' MQM scores, ranked as MQM
    export_columns=SPAN_EXPORT_COLUMNS,
    spans=True,
    contrastive=True,
    several_outputs=True,
    score_range=CONTRASTIVE_SCORE_RANGE,
    lettered=True,
    appraise=(("ContrastiveDocument", "mqm"),),
    ranked_as="mqm",
    simulate=each_output(mqm_simulated),
)
