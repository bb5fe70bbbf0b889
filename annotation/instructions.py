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
    # Error Span Annotation (Kocmi et al., 2024), as WMT24 worded it.
    TaskType.ESA: (
        "Highlight the errors in the translation: a minor error is a problem of style, "
        "grammar or word choice that does not change the meaning; a major error changes the "
        "meaning or makes the text hard to understand. Mark missing content as well. Then "
        "score the translation from 0 to 100: 0 no meaning preserved, 33 some meaning "
        "preserved, 66 most meaning preserved with few grammar mistakes, 100 perfect meaning "
        "and grammar."
    ),
    TaskType.ESA_PREFILLED: (
        "The translation comes with errors marked by an automatic system: keep the ones that "
        "are right, change the severity of those that are wrong, remove the ones that are not "
        "errors, and mark what it missed (minor: style, grammar or word choice that does not "
        "change the meaning; major: changes the meaning or makes it hard to understand). Then "
        "score the translation from 0 to 100 as in ESA."
    ),
    # Google's MQM rater guidelines (Freitag et al., 2021).
    TaskType.MQM: (
        "Identify all errors in the translation, given the source and its context. For each "
        "error, mark the span, choose its category (accuracy, fluency, terminology, style, "
        "locale convention, other) and its severity: major if it may mislead or confuse the "
        "reader, minor if it does not. A translation that is not a translation of the "
        "source at all is one Non-translation error over the whole segment. The score is "
        "computed from the errors."
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
