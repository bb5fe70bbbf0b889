"""The loop's helpers in PL/pgSQL (sql/0048_perf_assignment.sql): an SQL function whose
body holds a subquery is never inlined, so it was planned anew on every call (the batches an
annotator had, counted on every judgment for their progress: about 0.3 ms of the database's
CPU per judgment); a PL/pgSQL function keeps its plans from call to call."""

from pathlib import Path

from django.db import migrations

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0048_perf_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0047_ccl_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0047_ccl_contrastive_strata"),
    ]

    operations = [
        migrations.RunPython(_install, _previous),
    ]
