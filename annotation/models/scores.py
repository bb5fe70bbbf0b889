"""Automatic metric results: per-segment statistics, corpus scores and pairwise tests."""

from __future__ import annotations

from django.db import models

from annotation.models.campaigns import Campaign, System, SystemRun


class RunStatistics(models.Model):
    """Per-segment sufficient statistics of one run for one metric, extracted once.

    ``data`` holds a C-ordered float64 matrix of ``rows`` × ``columns``; corpus scores,
    resamples and paired tests are computed from it without tokenising the text again.
    """

    run = models.ForeignKey(SystemRun, on_delete=models.CASCADE, related_name="statistics")
    metric = models.CharField(max_length=80)  # external keys: ext-lower:NAME
    references = models.CharField(max_length=200)
    rows = models.PositiveIntegerField()
    columns = models.PositiveSmallIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "metric", "references"], name="one_statistics_per_metric"
            )
        ]


class RunScore(models.Model):
    run = models.ForeignKey(SystemRun, on_delete=models.CASCADE, related_name="scores")
    metric = models.CharField(max_length=80)  # external keys: ext-lower:NAME
    references = models.CharField(max_length=200)
    score = models.FloatField()
    ci_low = models.FloatField()
    ci_high = models.FloatField()
    signature = models.CharField(max_length=300)
    samples = models.PositiveIntegerField()
    seed = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "metric", "references"], name="one_score_per_metric"
            )
        ]


class PairSignificance(models.Model):
    """A paired test of system ``a`` against ``b`` (a.id < b.id) on one metric."""

    class Method(models.TextChoices):
        BOOTSTRAP = "bs", "Paired bootstrap resampling"
        RANDOMIZATION = "ar", "Paired approximate randomization"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    metric = models.CharField(max_length=80)  # external keys: ext-lower:NAME
    method = models.CharField(max_length=2, choices=Method.choices)
    system_a = models.ForeignKey(System, on_delete=models.CASCADE, related_name="+")
    system_b = models.ForeignKey(System, on_delete=models.CASCADE, related_name="+")
    p_value = models.FloatField()
    win_a = models.FloatField()
    win_b = models.FloatField()
    tie = models.FloatField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "metric", "method", "system_a", "system_b"],
                name="one_test_per_pair",
            ),
            models.CheckConstraint(
                condition=models.Q(system_a__lt=models.F("system_b")), name="pair_is_ordered"
            ),
        ]
