"""Tutorials (issue 24 §1): tutorial items with expected answers, a task's pass rule and
attempts, instructions per target language, attempts and answers; and the loop's gate
(sql/0036_tutorial_assignment.sql: no new batch before the tutorial is passed)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0036_tutorial_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0031_checks_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))
    schema_editor.execute("DROP FUNCTION IF EXISTS evalsite_tutorial_passed(bigint, bigint)")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0035_cdoc_page_score_outputs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Tutorial",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("pass_share", models.FloatField(default=0.8)),
                ("attempts", models.PositiveSmallIntegerField(default=3)),
                (
                    "task",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tutorial",
                        to="annotation.task",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="TutorialAttempt",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveSmallIntegerField()),
                ("language", models.CharField(blank=True, default="", max_length=35)),
                ("started_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("passed", models.BooleanField(null=True)),
                ("correct", models.PositiveIntegerField(default=0)),
                ("graded", models.PositiveIntegerField(default=0)),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tutorial_attempts",
                        to="annotation.task",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="TutorialInstructions",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("language", models.CharField(max_length=35)),
                ("text", models.TextField()),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="instruction_variants",
                        to="annotation.task",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="TutorialItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("language", models.CharField(blank=True, default="", max_length=35)),
                ("position", models.PositiveIntegerField()),
                ("external_id", models.CharField(blank=True, default="", max_length=200)),
                ("instructions", models.TextField(blank=True, default="")),
                ("source", models.TextField(blank=True, default="")),
                ("reference", models.TextField(blank=True, default="")),
                ("candidates", models.JSONField(default=list)),
                ("expected", models.JSONField(default=dict)),
                ("explanation", models.TextField(blank=True, default="")),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tutorial_items",
                        to="annotation.task",
                    ),
                ),
            ],
            options={
                "ordering": ["task", "language", "position"],
            },
        ),
        migrations.CreateModel(
            name="TutorialAnswer",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("answer", models.JSONField()),
                ("passed", models.BooleanField(null=True)),
                ("failures", models.JSONField(default=list)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "attempt",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="answers",
                        to="annotation.tutorialattempt",
                    ),
                ),
                (
                    "item",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="annotation.tutorialitem",
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="tutorialattempt",
            index=models.Index(fields=["task", "annotator"], name="tutorial_attempt_idx"),
        ),
        migrations.AddConstraint(
            model_name="tutorialattempt",
            constraint=models.UniqueConstraint(
                fields=("task", "annotator", "number"), name="tutorial_attempt_number_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="tutorialinstructions",
            constraint=models.UniqueConstraint(
                fields=("task", "language"), name="tutorial_instructions_language_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="tutorialitem",
            constraint=models.UniqueConstraint(
                fields=("task", "language", "position"), name="tutorial_item_position_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="tutorialanswer",
            constraint=models.UniqueConstraint(
                fields=("attempt", "item"), name="tutorial_answer_unique"
            ),
        ),
        migrations.RunPython(_install, _previous),
    ]
