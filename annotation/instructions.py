"""Default instructions per task type, in the wording WMT's evaluation campaigns used; a
task's own ``instructions`` replace them."""

from __future__ import annotations

from annotation.models import Task, TaskType

DEFAULT_INSTRUCTIONS = {
    TaskType.ADEQUACY: (
        "Below you see a sentence in the source language and a candidate translation. "
        "How accurately does the candidate text convey the original semantics of the "
        "source text? Score it from 'no meaning preserved' to 'all meaning preserved'."
    ),
    TaskType.FLUENCY: (
        "Read the text below and rate it by how much you agree that: the text is fluent "
        "in the target language (grammatical, natural, easy to read)."
    ),
    TaskType.ADEQUACY_FLUENCY: (
        "Rate the candidate translation twice: how much of the meaning of the source it "
        "conveys (adequacy), and how fluent it reads in the target language (fluency)."
    ),
    TaskType.PAIRWISE: (
        "You are shown a source sentence followed by two candidate translations. Which of "
        "the two translations is better? Choose a tie only when they are equally good."
    ),
    TaskType.RANKING: (
        "You are shown a source sentence followed by several candidate translations. Your "
        "task is to rank the translations from best to worst (ties are allowed)."
    ),
    TaskType.POSTEDIT: (
        "Correct the machine translation so that it is an accurate and fluent translation "
        "of the source, changing as little as possible."
    ),
}
MONOLINGUAL_ADEQUACY = (
    "Below you see a human reference translation and a candidate translation. How "
    "accurately does the candidate text convey the semantics of the reference text?"
)


def task_instructions(task: Task) -> str:
    """What the annotators of this task read before the first item and behind "?"."""
    if task.instructions.strip():
        return task.instructions
    if task.monolingual and task.task_type == TaskType.ADEQUACY:
        return MONOLINGUAL_ADEQUACY
    return DEFAULT_INSTRUCTIONS.get(task.task_type, "")
