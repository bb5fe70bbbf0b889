"""Default instructions per task type (declared by each protocol, in the wording WMT's
evaluation campaigns used); a task's own ``instructions`` replace them, and its instructions
for the campaign's target language (``TutorialInstructions``, Appraise #193) replace both."""

from __future__ import annotations

from annotation.models import Task, TaskType
from annotation.protocols import PROTOCOLS
from annotation.selectors.tutorials import instructions_variant

# Each protocol's wording lives in its module (annotation/protocols).
DEFAULT_INSTRUCTIONS = {
    task_type: protocol.instructions for task_type, protocol in PROTOCOLS.items()
}
MONOLINGUAL_ADEQUACY = (
    "Below you see a human reference translation and a candidate translation. How "
    "accurately does the candidate text convey the semantics of the reference text?"
)


def task_instructions(task: Task) -> str:
    """What the annotators of this task read before the first item and behind "?"."""
    variant = instructions_variant(task=task)
    if variant:
        return variant
    if task.instructions.strip():
        return task.instructions
    if task.monolingual and task.task_type == TaskType.ADEQUACY:
        return MONOLINGUAL_ADEQUACY
    return DEFAULT_INSTRUCTIONS.get(task.task_type, "")
