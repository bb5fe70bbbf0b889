"""Error spans of ESA and MQM judgments: one row per span (see metrics/spans/span.py)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from annotation.models.slots import Judgment


class ErrorSpan(models.Model):
    """One error marked in a judgment: character offsets into the text as shown, end exclusive.

    Both offsets null is the missing-content marker. ``prefilled``: the span came with the
    item (ESA^AI); ``changed``: the annotator edited it (severity, category or extent). A
    pre-filled span the annotator deleted has no row: the item's ``prefilled_spans`` keep it.
    """

    class Side(models.TextChoices):
        TARGET = "target", "Translation"
        SOURCE = "source", "Source"

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="spans")
    start = models.PositiveIntegerField(null=True)
    end = models.PositiveIntegerField(null=True)
    severity = models.CharField(max_length=20)
    category = models.CharField(max_length=100, blank=True)
    side = models.CharField(max_length=6, choices=Side.choices, default=Side.TARGET)
    prefilled = models.BooleanField(default=False)
    changed = models.BooleanField(default=False)
    # Contrastive screens: the candidate (its position on the screen) the span marks; null
    # on a screen of one output.
    candidate = models.PositiveSmallIntegerField(null=True)
    # The pre-filled span as it came (span_to_dict form) when the annotator changed it.
    origin = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["judgment", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(start__isnull=True) & Q(end__isnull=True))
                | (
                    # Spelled out: a comparison with NULL passes a CHECK.
                    Q(start__isnull=False, end__isnull=False)
                    & Q(start__gte=0)
                    & Q(end__gte=models.F("start"))
                ),
                name="span_offsets_ordered",
            ),
            models.CheckConstraint(condition=~Q(severity=""), name="span_has_severity"),
            models.CheckConstraint(
                condition=Q(prefilled=True) | Q(changed=False), name="span_changed_if_prefilled"
            ),
        ]
