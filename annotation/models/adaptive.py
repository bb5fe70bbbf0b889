"""Adaptive collection (annotation/services/adaptive.py): what the claim reads to choose a
system, and the notices that tell the organiser a task settled."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from annotation.models.tasks import SettledReason, Task


class SystemPriority(models.Model):
    """One system (a stratum of the task's batches; in a contrastive task, a set of systems)
    of an adaptive task: the priority the
    refresh job computed and the judgments it counted then, and the slots claimed since
    (``pending``, added by the claim). The claim discounts the priority by the judgments
    claimed since (``(judged / (judged + pending))^2``: one more judgment's gain falls as
    1 / n^2), so annotators claiming between two refreshes spread over the systems."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+", db_index=False)
    stratum = models.BigIntegerField()
    priority = models.FloatField(default=0.0)
    judged = models.PositiveIntegerField(default=0)
    pending = models.PositiveIntegerField(default=0)
    # Judgments (screens) this stratum is served first; null: the task's cold start. A
    # contrastive set's (annotation/services/contrastive_adaptive.py).
    cold_start = models.PositiveIntegerField(null=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "stratum"], name="one_priority_per_stratum")
        ]


class ScoreSums(models.Model):
    """Running sums of an adaptive task's observations (the ranking status's statistic,
    ``selectors.human.status_scores``) per measure, system and annotator: what its refresh
    job adds the new judgments to instead of reading them all again
    (``selectors.adaptive``). Per annotator, so that DA's per-annotator z-scores and the
    annotators left out are exact at every refresh; ``label`` is the system's name as the
    ranking status names it, ``stratum`` its batches' (the priorities' key)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+", db_index=False)
    measure = models.CharField(max_length=20)
    label = models.CharField(max_length=500)
    annotator_id = models.BigIntegerField()
    stratum = models.BigIntegerField()
    count = models.BigIntegerField(default=0)
    total = models.FloatField(default=0.0)
    squares = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "measure", "label", "annotator_id"], name="one_sum_per_key"
            )
        ]


class SumsCursor(models.Model):
    """How far an adaptive task's ``ScoreSums`` have counted its judgments.

    ``counted_to``: every judgment of the task with an id up to it is in the sums (or will
    never exist); ``carried``: ids above it counted already (the rest of a document page
    that straddled the bound). ``candidate`` and ``candidate_xids``: a judgment id read from
    the sequence and the transactions in flight then, which may still commit judgments with
    lower ids; once they all ended, ids up to the candidate are final and counted.
    ``stale`` (set by a trigger when a judgment or span is updated or deleted) and
    ``fingerprint`` (the settings the scores depend on: MQM weights) make the next refresh
    count from the start."""

    task = models.OneToOneField(Task, on_delete=models.CASCADE, related_name="+", primary_key=True)
    counted_to = models.BigIntegerField(default=0)
    carried = ArrayField(models.BigIntegerField(), default=list)
    candidate = models.BigIntegerField(null=True)
    candidate_xids = ArrayField(models.BigIntegerField(), default=list)
    fingerprint = models.CharField(max_length=64, default="")
    stale = models.BooleanField(default=False)
    judgments = models.BigIntegerField(default=0)


class TaskNotice(models.Model):
    """The organiser was told that an adaptive task settled: why, when, and the figures the
    stopping rule used (pairs resolved, equivalent and open, judgments)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="notices")
    reason = models.CharField(max_length=10, choices=SettledReason.choices)
    message = models.CharField(max_length=500)
    figures = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
