"""Adaptive contrastive screens (issues 22 and 23): a stratum's own cold start
(``SystemPriority.cold_start``, a contrastive set of systems' in screens), read by the
adaptive claim (sql/0047_ccl_assignment.sql)."""

from pathlib import Path

from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0047_ccl_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0045_rel2_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0046_adapt2_status_tuning"),
    ]

    operations = [
        migrations.AddField(
            model_name="systempriority",
            name="cold_start",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.RunPython(_install, _previous),
    ]
