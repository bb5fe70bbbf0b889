"""Shared tasks: campaigns (one per language pair) whose results are read together."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.campaigns import Campaign


class SharedTask(models.Model):
    """A WMT-style shared task: its pages show each pair's ranking, a global table across
    pairs, per-domain tables and AutoRank; each reader sees the pairs whose results their
    campaign role lets them see (annotation/permissions.py)."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # The metrics AutoRank averages (comma-separated names); blank: every metric that scored
    # the pair's systems.
    autorank_metrics = models.CharField(max_length=500, blank=True)
    campaigns = models.ManyToManyField(
        Campaign, through="SharedTaskCampaign", related_name="shared_tasks"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class SharedTaskCampaign(models.Model):
    """One language pair of a shared task: the campaign that evaluates it."""

    shared_task = models.ForeignKey(SharedTask, on_delete=models.CASCADE, related_name="pairs")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    # The WMT procedure that ranks this pair (annotation.selectors.shared_tasks
    # .PAIR_PROCEDURES, by the pair's protocol); blank: the protocol's default.
    procedure = models.CharField(max_length=10, blank=True, default="")
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["shared_task", "campaign"], name="campaign_once_per_shared_task"
            )
        ]
