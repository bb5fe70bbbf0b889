"""Uploads per-segment scores of a metric computed elsewhere:

manage.py upload_metric_scores CAMPAIGN_ID FILE --name COMET-22 [--lower-is-better]
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.services.metric_uploads import (
    MetricUploadError,
    decode_scores,
    metric_scores_upload,
)


class Command(BaseCommand):
    help = "Upload per-segment scores (TSV system/segment/score, or mt-metrics-eval .seg.score)."

    def add_arguments(self, parser):
        parser.add_argument("campaign_id", type=int)
        parser.add_argument("file", type=Path)
        parser.add_argument("--name", required=True, help="the metric's name, e.g. COMET-22")
        parser.add_argument("--lower-is-better", action="store_true")

    def handle(self, *args, campaign_id: int, file: Path, name: str, lower_is_better: bool, **kw):
        campaign = Campaign.objects.filter(id=campaign_id).first()
        if campaign is None:
            raise CommandError(f"no campaign {campaign_id}")
        try:
            text = decode_scores(data=file.read_bytes())
            result = metric_scores_upload(
                campaign=campaign, name=name, higher_is_better=not lower_is_better, text=text
            )
        except OSError as error:
            raise CommandError(f"cannot read {file}: {error.strerror}") from None
        except MetricUploadError as error:
            raise CommandError(f"nothing stored: {error}") from None
        self.stdout.write(
            f"{result.metric}: {len(result.systems)} systems × {result.segments} segments "
            f"({result.layout})"
        )
