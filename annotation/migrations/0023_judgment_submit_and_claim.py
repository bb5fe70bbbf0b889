"""Installs ``evalsite_judge_and_claim`` (a judgment and the next claim in one round trip)
and ``evalsite_annotator_progress`` (an annotator's progress, which it returns too)
as they were then, from their frozen copy sql/0023_assignment.sql (the claim function in
it is replaced by the same text)."""

from pathlib import Path

from django.db import migrations

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0023_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _uninstall(apps, schema_editor):
    schema_editor.execute(
        "DROP FUNCTION IF EXISTS evalsite_judge_and_claim("
        "bigint, bigint, bigint, timestamptz, integer, integer, integer, smallint, smallint,"
        " varchar)"
    )
    schema_editor.execute("DROP FUNCTION IF EXISTS evalsite_annotator_progress(bigint, bigint)")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0022_document_domain")]

    operations = [migrations.RunPython(_install, _uninstall)]
