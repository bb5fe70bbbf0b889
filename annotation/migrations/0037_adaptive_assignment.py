"""Adaptive assignment (issue 23): a task's assignment, cold start and judgments budget, when
and why it settled and whether the organiser continued it; each adaptive batch's system
(stratum); the priorities table the claim reads and the notices that told the organiser;
the loop's SQL (sql/0037_adaptive_assignment.sql: the adaptive claim and the stop)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0037_adaptive_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0036_tutorial_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(
        "DROP FUNCTION IF EXISTS evalsite_adaptive_batch(bigint, bigint, integer, integer)"
    )
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0036_tutorial_tutorials"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SystemPriority",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("stratum", models.BigIntegerField()),
                ("priority", models.FloatField(default=0.0)),
                ("judged", models.PositiveIntegerField(default=0)),
                ("pending", models.PositiveIntegerField(default=0)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
        ),
        migrations.CreateModel(
            name="TaskNotice",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "reason",
                    models.CharField(
                        choices=[
                            ("resolved", "the ranking is settled"),
                            ("budget", "the judgment budget is spent"),
                        ],
                        max_length=10,
                    ),
                ),
                ("message", models.CharField(max_length=500)),
                ("figures", models.JSONField(default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.AddField(
            model_name="batch",
            name="stratum",
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="task",
            name="assignment",
            field=models.CharField(
                choices=[
                    ("planned", "Planned (batches in launch order)"),
                    ("adaptive", "Adaptive (judge where the ranking is still open)"),
                ],
                default="planned",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="task",
            name="cold_start",
            field=models.PositiveIntegerField(default=10),
        ),
        migrations.AddField(
            model_name="task",
            name="continued_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="task",
            name="judgment_budget",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="task",
            name="settled_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="task",
            name="settled_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("resolved", "the ranking is settled"),
                    ("budget", "the judgment budget is spent"),
                ],
                default="",
                max_length=10,
            ),
        ),
        migrations.AddIndex(
            model_name="batch",
            index=models.Index(
                condition=models.Q(("state", "open"), models.Q(("stratum", 0), _negated=True)),
                fields=["task", "stratum", "number"],
                name="batch_open_stratum_idx",
            ),
        ),
        migrations.AddField(
            model_name="systempriority",
            name="task",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="annotation.task",
            ),
        ),
        migrations.AddField(
            model_name="tasknotice",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="notices",
                to="annotation.task",
            ),
        ),
        migrations.AddConstraint(
            model_name="systempriority",
            constraint=models.UniqueConstraint(
                fields=("task", "stratum"), name="one_priority_per_stratum"
            ),
        ),
        migrations.AlterField(
            model_name="job",
            name="kind",
            field=models.CharField(
                choices=[
                    ("run_metrics", "Automatic metrics of a system run"),
                    ("ping", "Round trip through the worker (health checks and tests)"),
                    ("refresh_priorities", "Adaptive task: priorities and stopping rule"),
                ],
                max_length=32,
            ),
        ),
        migrations.RunPython(_install, _previous),
    ]
