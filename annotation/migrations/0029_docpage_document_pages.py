"""Document-level annotation: a task's unit (segment or a document page), its page size
and page score; a slot's page; the page scores; and the loop's claim serving a page's slots
together (sql/0029_docpage_assignment.sql)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0029_docpage_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0028_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0028_loop_counters"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="slot",
            name="page",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.AddField(
            model_name="task",
            name="document_score",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="task",
            name="page_size",
            field=models.PositiveSmallIntegerField(default=20),
        ),
        migrations.AddField(
            model_name="task",
            name="unit",
            field=models.CharField(
                choices=[("segment", "Segment"), ("document", "Document (paged)")],
                default="segment",
                max_length=10,
            ),
        ),
        migrations.CreateModel(
            name="PageScore",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "item_type",
                    models.CharField(
                        choices=[
                            ("TGT", "System output"),
                            ("BAD", "Bad reference"),
                            ("REF", "Human reference"),
                            ("CHK", "Check"),
                        ],
                        default="TGT",
                        max_length=3,
                    ),
                ),
                ("is_repeat", models.BooleanField(default=False)),
                ("segments", models.PositiveSmallIntegerField()),
                ("score", models.SmallIntegerField()),
                ("submitted_at", models.DateTimeField()),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="page_scores",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotation.document",
                    ),
                ),
                (
                    "slot",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="page_score",
                        to="annotation.slot",
                    ),
                ),
                (
                    "system",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotation.system",
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="page_scores",
                        to="annotation.task",
                    ),
                ),
            ],
        ),
        migrations.RunPython(_install, _previous),
    ]
