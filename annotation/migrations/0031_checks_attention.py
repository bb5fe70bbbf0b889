"""Attention checks in every protocol: their outcomes (CheckOutcome), a check's damage on its
item (check_span), a task's loud or silent checks, HOTW rate and failure code or URL, and a
crowd participant's attempts, which the loop's quota reads (sql/0031_checks_assignment.sql:
also, a skip cancels every check made from the item)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0031_checks_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0029_docpage_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0030_contrastive_protocols"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="CheckOutcome",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("bad_reference", "Bad reference"),
                            ("repeat", "Repeat"),
                            ("hotw", "HOTW error"),
                            ("contrastive", "Shuffled candidate"),
                        ],
                        max_length=16,
                    ),
                ),
                ("passed", models.BooleanField()),
                ("loud", models.BooleanField(default=False)),
                ("warned", models.BooleanField(default=False)),
                ("passed_again", models.BooleanField(null=True)),
                ("attempt", models.PositiveSmallIntegerField(default=1)),
                ("reason", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AddField(
            model_name="crowdparticipant",
            name="restarted_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="crowdparticipant",
            name="attempts",
            field=models.PositiveSmallIntegerField(db_default=1, default=1),
        ),
        migrations.AddField(
            model_name="item",
            name="check_span",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="task",
            name="check_feedback",
            field=models.CharField(
                choices=[
                    ("silent", "Silent: recorded only"),
                    ("loud", "Loud: the annotator is warned and answers again"),
                ],
                default="silent",
                max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="task",
            name="failure_code",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="task",
            name="failure_url",
            field=models.URLField(blank=True, max_length=500),
        ),
        migrations.AddField(
            model_name="task",
            name="hotw_rate",
            field=models.FloatField(default=0.0),
        ),
        migrations.AddConstraint(
            model_name="task",
            constraint=models.CheckConstraint(
                condition=models.Q(("hotw_rate__gte", 0), ("hotw_rate__lte", 1)),
                name="task_hotw_rate_is_share",
            ),
        ),
        migrations.AddField(
            model_name="checkoutcome",
            name="annotator",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="checkoutcome",
            name="slot",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="check_outcome",
                to="annotation.slot",
            ),
        ),
        migrations.AddField(
            model_name="checkoutcome",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="check_outcomes",
                to="annotation.task",
            ),
        ),
        migrations.AddIndex(
            model_name="checkoutcome",
            index=models.Index(fields=["task", "annotator"], name="check_task_annotator_idx"),
        ),
        migrations.RunPython(_install, _previous),
    ]
