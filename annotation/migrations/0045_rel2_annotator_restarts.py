"""A manager lets an invited annotator who failed start again (issue 24 §4): the restarts,
and the loop's SQL (sql/0045_rel2_assignment.sql: their quota grows with each restart)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0045_rel2_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0037_adaptive_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0044_snap_snapshot_variants"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AnnotatorRestart",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("attempt", models.PositiveSmallIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="restarts",
                        to="annotation.task",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("task", "annotator", "attempt"), name="one_restart_per_attempt"
                    )
                ],
            },
        ),
        migrations.RunPython(_install, _previous),
    ]
