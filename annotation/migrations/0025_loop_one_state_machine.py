"""The annotator loop in one place (sql/0025_loop_assignment.sql): one writer of a judgment
for every task type, its sibling for a skip (which cancels the skipped item's repeat and bad
references), the quota (crowd included) and batch closing each defined once, progress that
counts skips apart. Installed as the file is at this migration; a later change copies it to
a file of its own."""

from pathlib import Path

from django.db import migrations

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0025_loop_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0023_assignment.sql"
NEW_FUNCTIONS = (
    "evalsite_judge_and_claim(bigint, bigint, bigint, timestamptz, boolean, text, smallint,"
    " smallint, varchar, smallint[], smallint[], text, double precision, double precision,"
    " double precision)",
    "evalsite_skip(bigint, bigint, bigint, timestamptz, varchar, varchar)",
    "evalsite_slot_refusal(bigint, bigint, bigint)",
    "evalsite_annotator_progress(bigint, bigint)",
    "evalsite_claim_slot(bigint, bigint, timestamptz)",
    "evalsite_batch_after_slot(bigint, bigint, timestamptz, integer)",
    "evalsite_annotator_quota(bigint, bigint)",
    "evalsite_batch_is_new_to(bigint, bigint, bigint)",
)


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    for signature in NEW_FUNCTIONS:
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {signature}")
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0024_lean_write_indexes")]

    operations = [migrations.RunPython(_install, _previous)]
