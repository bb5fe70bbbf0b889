"""Organisers' decisions on human results: annotators left out of the rankings."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.campaigns import Campaign


class AnnotatorExclusion(models.Model):
    """An annotator whose judgments the rankings and agreement leave out: in every task of
    the campaign (``task`` NULL) or in one task.

    Reversible: deleting the row brings the judgments back; nothing else is changed.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    task = models.ForeignKey(
        "annotation.Task", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "annotator"],
                condition=models.Q(task__isnull=True),
                name="one_exclusion_per_annotator",
            ),
            models.UniqueConstraint(
                fields=["task", "annotator"],
                condition=models.Q(task__isnull=False),
                name="one_task_exclusion_per_annotator",
            ),
        ]
