"""Contrastive screens: one row per output (per system) judged on a screen of several."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models.campaigns import System
from annotation.models.slots import Judgment, Slot
from annotation.models.tasks import Item, Task


class OutputJudgment(models.Model):
    """One output's judgment on a contrastive screen (cESA, contrastive MQM or DA).

    The loop records one ``Judgment`` per screen (its slot: the lease, the timing, the
    retry guard, and ``candidate_scores`` in screen order, from which the pairwise
    rankings are read); in the same transaction every output of the screen gets a row
    here, per system that produced it (identical outputs are shown once and scored for each
    of their systems). Rows of one screen share ``judgment`` (and its ``slot`` and
    ``item``), so paired statistics pair "same annotator, same screen". ``position`` is the
    candidate's place on the screen (0: left, or top on a phone), the index into
    ``item.candidates``; its spans are the judgment's ``ErrorSpan`` rows of that
    ``candidate``. ``score``: 0-100 (ESA, DA); null for MQM, computed from the spans.
    """

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="outputs")
    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="+", db_index=False)
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    # Null: a candidate no system produced (a human reference or an attention check).
    system = models.ForeignKey(System, on_delete=models.CASCADE, null=True, related_name="+")
    position = models.PositiveSmallIntegerField()
    candidate_type = models.CharField(max_length=3, default="TGT")
    score = models.SmallIntegerField(null=True)
    is_repeat = models.BooleanField(default=False)

    class Meta:
        ordering = ["judgment", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["judgment", "position", "system"],
                nulls_distinct=False,
                name="one_output_judgment_per_system",
            ),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=0, score__lte=100),
                name="output_score_in_range",
            ),
        ]
        indexes = [models.Index(fields=["task", "system"], name="output_task_system_idx")]
