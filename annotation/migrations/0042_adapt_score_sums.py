"""Adaptive refresh made incremental (issue 23): each adaptive task's running sums of its
observations (``ScoreSums``), how far they counted (``SumsCursor``), and the triggers that
mark them stale when recorded judgments or spans change (sql/0042_adapt_sums_stale.sql)."""

from pathlib import Path

import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

STALE_SQL = Path(__file__).with_name("sql") / "0042_adapt_sums_stale.sql"
DROP_STALE_SQL = """
DROP TRIGGER IF EXISTS adaptive_sums_judgments_updated ON annotation_judgment;
DROP TRIGGER IF EXISTS adaptive_sums_judgments_deleted ON annotation_judgment;
DROP TRIGGER IF EXISTS adaptive_sums_spans_updated ON annotation_errorspan;
DROP TRIGGER IF EXISTS adaptive_sums_spans_deleted ON annotation_errorspan;
DROP FUNCTION IF EXISTS adaptive_sums_judgments_changed();
DROP FUNCTION IF EXISTS adaptive_sums_spans_changed();
"""


def _install(apps, schema_editor):
    schema_editor.execute(STALE_SQL.read_text(encoding="utf-8"))


def _remove(apps, schema_editor):
    schema_editor.execute(DROP_STALE_SQL)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0041_job_kinds_priorities_and_snapshots"),
    ]

    operations = [
        migrations.CreateModel(
            name="SumsCursor",
            fields=[
                (
                    "task",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="annotation.task",
                    ),
                ),
                ("counted_to", models.BigIntegerField(default=0)),
                (
                    "carried",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.BigIntegerField(), default=list
                    ),
                ),
                ("candidate", models.BigIntegerField(null=True)),
                (
                    "candidate_xids",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.BigIntegerField(), default=list
                    ),
                ),
                ("fingerprint", models.CharField(default="", max_length=64)),
                ("stale", models.BooleanField(default=False)),
                ("judgments", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="ScoreSums",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("measure", models.CharField(max_length=20)),
                ("label", models.CharField(max_length=500)),
                ("annotator_id", models.BigIntegerField()),
                ("stratum", models.BigIntegerField()),
                ("count", models.BigIntegerField(default=0)),
                ("total", models.FloatField(default=0.0)),
                ("squares", models.FloatField(default=0.0)),
                (
                    "task",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotation.task",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("task", "measure", "label", "annotator_id"), name="one_sum_per_key"
                    )
                ],
            },
        ),
        migrations.RunPython(_install, _remove),
    ]
