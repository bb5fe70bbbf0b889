"""A source segment's image, audio or video file (issue 22 §3); the translation stays text."""

from __future__ import annotations

from django.db import models

from annotation.models.campaigns import Campaign, Segment


class MediaKind(models.TextChoices):
    IMAGE = "image"
    AUDIO = "audio"
    VIDEO = "video"


class SourceMedia(models.Model):
    """The file shown as (or with) a segment's source; stored under ``settings.MEDIA_ROOT``."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    segment = models.OneToOneField(Segment, on_delete=models.CASCADE, related_name="media")
    kind = models.CharField(max_length=5, choices=MediaKind.choices)
    mime_type = models.CharField(max_length=40)
    # Relative to MEDIA_ROOT: "<campaign id>/<sha256><suffix>", named by content.
    path = models.CharField(max_length=120)
    size = models.PositiveBigIntegerField()
    filename = models.CharField(max_length=255)  # its path in the uploaded zip
    transcript = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.kind} {self.filename}"
