"""Default instructions per task type (declared by each protocol, in the wording WMT's
evaluation campaigns used; a monolingual task's where it differs); a task's own
``instructions`` replace them, and its instructions for the campaign's target language
(``TutorialInstructions``, Appraise #193) replace both."""

from __future__ import annotations

from annotation.models import Task
from annotation.protocols import protocol_for
from annotation.selectors.tutorials import instructions_variant


def task_instructions(task: Task) -> str:
    """What the annotators of this task read before the first item and behind "?"."""
    variant = instructions_variant(task=task)
    if variant:
        return variant
    if task.instructions.strip():
        return task.instructions
    protocol = protocol_for(task.task_type)
    if task.monolingual and protocol.monolingual_instructions:
        return protocol.monolingual_instructions
    return protocol.instructions
