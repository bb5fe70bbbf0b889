"""Tutorials: items with expected answers that an annotator answers before a task's real work
(``annotation.services.tutorials`` writes them, ``annotation.selectors.tutorials`` reads them).

The annotator loop refuses a task's real items to anyone without a passed attempt while the
task has tutorial items (``evalsite_tutorial_passed`` in ``sql/0050_cperf2_assignment.sql``).
Items and instructions may be written per target language (``language``: "" is the default).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.tasks import Task

# A share of the graded tutorial items answered as expected passes an attempt.
DEFAULT_PASS_SHARE = 0.8
DEFAULT_ATTEMPTS = 3
# The stored answer of a skippable tutorial item the annotator skipped.
SKIPPED = {"skipped": True}


class Tutorial(models.Model):
    """A task's tutorial rules: the share of graded items to answer as expected, and how many
    attempts an annotator has (0: as many as they need)."""

    task = models.OneToOneField(Task, on_delete=models.CASCADE, related_name="tutorial")
    pass_share = models.FloatField(default=DEFAULT_PASS_SHARE)
    attempts = models.PositiveSmallIntegerField(default=DEFAULT_ATTEMPTS)


class TutorialItem(models.Model):
    """One tutorial screen. ``candidates``: ``[{"name", "text", "prefilled"?: [span]}]`` in
    the order shown; ``expected``: per candidate name ``{"score"?: [low, high], "spans"?:
    [{"start": [low, high], "end": [low, high] (exclusive), "severity"?, "category"?} or
    {"missing": true, "severity"?}], "above"?: other name}``; none: a practice screen, not
    graded. ``explanation`` (the manager's words) is shown after the answer. ``skippable``:
    the annotator may skip it, unanswered and not counted (Pearmut's ``allow_skip``)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="tutorial_items")
    language = models.CharField(max_length=35, blank=True, default="")
    position = models.PositiveIntegerField()
    external_id = models.CharField(max_length=200, blank=True, default="")
    instructions = models.TextField(blank=True, default="")
    source = models.TextField(blank=True, default="")
    reference = models.TextField(blank=True, default="")
    candidates = models.JSONField(default=list)
    expected = models.JSONField(default=dict)
    explanation = models.TextField(blank=True, default="")
    skippable = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "language", "position"], name="tutorial_item_position_unique"
            )
        ]
        ordering = ["task", "language", "position"]

    @property
    def graded(self) -> bool:
        return bool(self.expected)


class TutorialInstructions(models.Model):
    """A task's instructions for one target language (Appraise #193): shown instead of the
    task's own when the campaign's target language is ``language``."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="instruction_variants")
    language = models.CharField(max_length=35)
    text = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "language"], name="tutorial_instructions_language_unique"
            )
        ]


class TutorialAttempt(models.Model):
    """One run through the tutorial. ``passed``: None while it runs; ``correct`` of
    ``graded`` answers were as expected."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="tutorial_attempts")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    number = models.PositiveSmallIntegerField()
    language = models.CharField(max_length=35, blank=True, default="")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    passed = models.BooleanField(null=True)
    correct = models.PositiveIntegerField(default=0)
    graded = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "annotator", "number"], name="tutorial_attempt_number_unique"
            )
        ]
        # The loop's gate (evalsite_tutorial_passed) probes this.
        indexes = [models.Index(fields=["task", "annotator"], name="tutorial_attempt_idx")]


class TutorialAnswer(models.Model):
    """An annotator's answer to one tutorial item in one attempt, and whether it was as
    expected (``passed``: None for a practice screen or a skipped item, whose ``answer`` is
    ``SKIPPED``); ``failures`` say what was not."""

    attempt = models.ForeignKey(TutorialAttempt, on_delete=models.CASCADE, related_name="answers")
    # Kept (the outcome counts) when the manager replaces the tutorial's items.
    item = models.ForeignKey(TutorialItem, on_delete=models.SET_NULL, null=True, related_name="+")
    answer = models.JSONField()
    passed = models.BooleanField(null=True)
    failures = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["attempt", "item"], name="tutorial_answer_unique")
        ]
