"""A cheaper first screen (issue 22's contrastive open loop, sql/0050_cperf2_assignment.sql):
a batch claimed is written once, its lease with it; the batches an annotator had are
counted only against a quota; ``evalsite_claim_with_progress`` claims and reads the progress
in one statement (GET next and the annotate page made two, in a transaction of their own)."""

from pathlib import Path

from django.db import migrations

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0050_cperf2_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0048_perf_assignment.sql"


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    schema_editor.execute(
        "DROP FUNCTION IF EXISTS evalsite_claim_with_progress(bigint, bigint, timestamptz)"
    )
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0049_rel3_check_outcome_without_slot"),
    ]

    operations = [
        migrations.RunPython(_install, _previous),
    ]
