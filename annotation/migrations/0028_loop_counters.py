"""A judgment that costs the same at any batch position and after any history
(sql/0028_assignment.sql): the batch keeps its slots judged and skipped and the position
its next slot is looked for from, written by the update that renews its lease (pending,
progress and the next slot read no other slot of it), and the batches an annotator had are
counted as batches (a batch taken over is marked, for its earlier holder's count)."""

from pathlib import Path

from django.db import migrations, models

ASSIGNMENT_SQL = Path(__file__).with_name("sql") / "0028_assignment.sql"
PREVIOUS_SQL = Path(__file__).with_name("sql") / "0025_loop_assignment.sql"
NEW_FUNCTIONS = (
    "evalsite_batch_after_slot(bigint, bigint, timestamptz, integer, integer, integer, integer)",
    "evalsite_batches_had(bigint, bigint)",
)

# The figures of the batches there are: slots done (skipped apart), the first position left,
# and whether someone other than the holder has slots in it (it was taken over from them).
BACKFILL = """
UPDATE annotation_batch b
   SET judged = f.done - f.skips, skipped = f.skips, next_position = f.first_left,
       taken_over = f.others
  FROM (SELECT s.batch_id,
               count(*) FILTER (WHERE s.state = 'done') AS done,
               count(k.id) AS skips,
               COALESCE(min(s.position) FILTER (WHERE s.state <> 'done'), 0) AS first_left,
               COALESCE(bool_or(s.annotator_id IS NOT NULL
                                AND s.annotator_id IS DISTINCT FROM sb.annotator_id), false)
                   AS others
          FROM annotation_slot s
          JOIN annotation_batch sb ON sb.id = s.batch_id
          LEFT JOIN annotation_skip k ON k.slot_id = s.id
         GROUP BY s.batch_id) f
 WHERE b.id = f.batch_id
"""


def _install(apps, schema_editor):
    schema_editor.execute(ASSIGNMENT_SQL.read_text(encoding="utf-8"))


def _previous(apps, schema_editor):
    for signature in NEW_FUNCTIONS:
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {signature}")
    schema_editor.execute(PREVIOUS_SQL.read_text(encoding="utf-8"))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0027_task_name_seed")]

    operations = [
        migrations.AddField(
            model_name="batch",
            name="judged",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="batch",
            name="next_position",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="batch",
            name="skipped",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="batch",
            name="taken_over",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddIndex(
            model_name="batch",
            index=models.Index(
                condition=models.Q(("taken_over", True)),
                fields=["task"],
                name="batch_taken_over_idx",
            ),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.RunPython(_install, _previous),
    ]
