"""Stored HTER moves from fractions (0.25) to percent (25.0), the unit of sacrebleu's TER and
of metrics.postedit, so that old and new judgments mean the same."""

from django.db import migrations
from django.db.models import F


def to_percent(apps, schema_editor):
    judgments = apps.get_model("annotation", "Judgment")
    judgments.objects.filter(hter__isnull=False).update(hter=F("hter") * 100)


def to_fraction(apps, schema_editor):
    judgments = apps.get_model("annotation", "Judgment")
    judgments.objects.filter(hter__isnull=False).update(hter=F("hter") / 100)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0010_document_ids"),
    ]

    operations = [migrations.RunPython(to_percent, to_fraction)]
