"""Computed results kept between requests: a campaign's human results and its shared-task
pair table, each stored with the version of the data it was computed from.

``ResultsVersion`` counts the writes that change results without passing through the
annotator loop (exclusions, edits of judgments or spans, systems, metric scores, task
settings), bumped by triggers (migration 0040_scale_results_snapshots); new judgments are
counted by the loop's own batch counters (``Batch.judged``/``skipped``), so the annotator
path writes nothing more.
"""

from __future__ import annotations

from django.db import models

from annotation.models.campaigns import Campaign


class ResultsVersion(models.Model):
    """Written only by the triggers: one row per campaign whose results inputs changed. No
    foreign key: a campaign's deletion fires the triggers of its rows as they go."""

    campaign = models.OneToOneField(
        Campaign, on_delete=models.DO_NOTHING, primary_key=True, db_constraint=False
    )
    version = models.BigIntegerField(default=0)


class ResultsSnapshot(models.Model):
    class Kind(models.TextChoices):
        HUMAN = "human", "The campaign's human results page"
        PAIR = "pair", "The campaign as a shared-task pair"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # Which of the kind's query choices it holds (annotation.selectors.results_snapshots:
    # "" the page as first shown, else e.g. "procedure=wmt24&passing=1"; a pair: the WMT
    # procedure its shared task chose).
    variant = models.CharField(max_length=64, default="", blank=True)
    # Digest of what it was computed from (annotation.selectors.results_snapshots.Version).
    version = models.CharField(max_length=64)
    judgments = models.BigIntegerField()  # the loop's count when computed: "as of N judgments"
    started_at = models.DateTimeField()  # when its computation read the data
    computed_at = models.DateTimeField()
    seconds = models.FloatField()  # how long the computation took
    payload = models.BinaryField()  # empty: asked for, not computed yet
    # When a reader last asked for this variant to be brought current: the refresh job keeps
    # the page as first shown and the shared tasks' pairs current, and other variants only
    # when asked since their last computation.
    asked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "kind", "variant"], name="one_snapshot_per_variant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} results of campaign {self.campaign_id} ({self.judgments} judgments)"
