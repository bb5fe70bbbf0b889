"""Adaptive collection (annotation/services/adaptive.py): what the claim reads to choose a
system, and the notices that tell the organiser a task settled."""

from __future__ import annotations

from django.db import models

from annotation.models.tasks import SettledReason, Task


class SystemPriority(models.Model):
    """One system (a stratum of the task's batches) of an adaptive task: the priority the
    refresh job computed and the judgments it counted then, and the slots claimed since
    (``pending``, added by the claim). The claim discounts the priority by the judgments
    claimed since (``(judged / (judged + pending))^2``: one more judgment's gain falls as
    1 / n^2), so annotators claiming between two refreshes spread over the systems."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+", db_index=False)
    stratum = models.BigIntegerField()
    priority = models.FloatField(default=0.0)
    judged = models.PositiveIntegerField(default=0)
    pending = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "stratum"], name="one_priority_per_stratum")
        ]


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
