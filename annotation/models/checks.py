"""Attention-check outcomes: one row per check an annotator answered (a bad reference, a
repeat, a HOTW error, a shuffled candidate), written with the judgment by
``annotation.services.checks`` and read through ``annotation.selectors.checks``."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.slots import Slot
from annotation.models.tasks import Task


class CheckKind(models.TextChoices):
    BAD_REFERENCE = "bad_reference", "Bad reference"
    REPEAT = "repeat", "Repeat"
    HOTW = "hotw", "HOTW error"
    CONTRASTIVE = "contrastive", "Shuffled candidate"


class CheckOutcome(models.Model):
    """Whether an annotator passed one attention check.

    ``passed``: their first answer passed; ``warned``: it failed on a loud task, so they
    were warned and answered again (``passed_again``: that answer passed, None while they
    have not). ``attempt``: the annotator's attempt (a manager may let them start again).
    ``reason``: why it failed, in words for the organiser. ``slot``: the one the check was
    answered on; none for an imported check no rating came with (an Anthea rating made of
    HOTW rows only: ``services.span_imports``).
    """

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="check_outcomes")
    slot = models.OneToOneField(
        Slot, on_delete=models.CASCADE, null=True, related_name="check_outcome"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=CheckKind.choices)
    passed = models.BooleanField()
    loud = models.BooleanField(default=False)
    warned = models.BooleanField(default=False)
    passed_again = models.BooleanField(null=True)
    attempt = models.PositiveSmallIntegerField(default=1)
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["task", "annotator"], name="check_task_annotator_idx")]


class AnnotatorRestart(models.Model):
    """A manager let an invited annotator of the task start again after they failed its
    tutorial or its checks (Appraise #54, Pearmut #253; a crowd participant's restarts are
    counted on ``CrowdParticipant.attempts``). ``attempt``: the attempt it opens (2, 3, …).
    Their earlier judgments are kept, marked excluded; their check outcomes keep the
    earlier attempt's number, their tutorial attempts started before ``created_at``; each
    restart also gives them another ``items_per_annotator`` (the loop's quota)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="restarts")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    attempt = models.PositiveSmallIntegerField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Also the index the quota (evalsite_annotator_quota) probes.
            models.UniqueConstraint(
                fields=["task", "annotator", "attempt"], name="one_restart_per_attempt"
            )
        ]
