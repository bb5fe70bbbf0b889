"""Results snapshots (annotation/selectors/results_snapshots.py): the computed results of a
campaign stored with the version of their inputs, and the triggers that keep that version
(sql/0040_scale_results_version.sql) for the writes outside the annotator loop."""

from pathlib import Path

import django.db.models.deletion
from django.db import migrations, models

VERSION_SQL = Path(__file__).with_name("sql") / "0040_scale_results_version.sql"

# Table -> (trigger function suffix, events). Judgment and span inserts are left out: they
# come with the loop's batch counters (or an import's), which the version reads instead.
# A judgment's UPDATE counts only when a column results read changed (the loop sets
# durations): its function compares the rows before and after.
TRIGGERS = {
    "annotation_annotatorexclusion": ("campaign_id", ("INSERT", "UPDATE", "DELETE")),
    "annotation_task": ("campaign_id", ("INSERT", "UPDATE", "DELETE")),
    "annotation_system": ("campaign_id", ("INSERT", "UPDATE", "DELETE")),
    "annotation_systemrun": ("campaign_id", ("INSERT", "UPDATE", "DELETE")),
    "annotation_document": ("campaign_id", ("UPDATE", "DELETE")),
    "annotation_campaign": ("campaign", ("UPDATE",)),
    "annotation_runscore": ("run", ("INSERT", "UPDATE", "DELETE")),
    "annotation_runstatistics": ("run", ("INSERT", "UPDATE", "DELETE")),
    "annotation_judgment": ("task", ("DELETE",)),
    "annotation_outputjudgment": ("task", ("UPDATE", "DELETE")),
    "annotation_errorspan": ("judgment", ("UPDATE", "DELETE")),
}
FUNCTIONS = ("campaign_id", "campaign", "run", "task", "judgment", "judgment_update")
JUDGMENT_UPDATE = (
    "CREATE TRIGGER annotation_judgment_results_update AFTER UPDATE ON annotation_judgment "
    "REFERENCING OLD TABLE AS before_change NEW TABLE AS changed FOR EACH STATEMENT "
    "EXECUTE FUNCTION evalsite_results_changed_judgment_update()"
)


def _trigger_name(table: str, event: str) -> str:
    return f"{table}_results_{event.split()[0].lower()}"


def _create_triggers() -> str:
    statements = []
    for table, (function, events) in TRIGGERS.items():
        for event in events:
            rows = "OLD" if event == "DELETE" else "NEW"
            statements.append(
                f"CREATE TRIGGER {_trigger_name(table, event)} AFTER {event} ON {table} "
                f"REFERENCING {rows} TABLE AS changed FOR EACH STATEMENT "
                f"EXECUTE FUNCTION evalsite_results_changed_{function}()"
            )
    return ";\n".join([*statements, JUDGMENT_UPDATE])


def _drop_triggers() -> str:
    drops = [
        f"DROP TRIGGER IF EXISTS {_trigger_name(table, event)} ON {table}"
        for table, (_, events) in TRIGGERS.items()
        for event in events
    ] + ["DROP TRIGGER IF EXISTS annotation_judgment_results_update ON annotation_judgment"]
    functions = [f"DROP FUNCTION IF EXISTS evalsite_results_changed_{f}()" for f in FUNCTIONS]
    bump = "DROP FUNCTION IF EXISTS evalsite_results_bump(bigint[])"
    return ";\n".join([*drops, *functions, bump])


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0039_metaeval_pair_procedure"),
    ]

    operations = [
        migrations.CreateModel(
            name="ResultsVersion",
            fields=[
                (
                    "campaign",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        serialize=False,
                        to="annotation.campaign",
                    ),
                ),
                ("version", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.AlterField(
            model_name="job",
            name="kind",
            field=models.CharField(
                choices=[
                    ("run_metrics", "Automatic metrics of a system run"),
                    ("results_snapshot", "Human results of a campaign, computed ahead"),
                    ("ping", "Round trip through the worker (health checks and tests)"),
                ],
                max_length=32,
            ),
        ),
        migrations.CreateModel(
            name="ResultsSnapshot",
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
                            ("human", "The campaign's human results page"),
                            ("pair", "The campaign as a shared-task pair"),
                        ],
                        max_length=16,
                    ),
                ),
                ("version", models.CharField(max_length=64)),
                ("judgments", models.BigIntegerField()),
                ("started_at", models.DateTimeField()),
                ("computed_at", models.DateTimeField()),
                ("seconds", models.FloatField()),
                ("payload", models.BinaryField()),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotation.campaign",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("campaign", "kind"), name="one_snapshot_per_kind"
                    )
                ],
            },
        ),
        migrations.RunSQL(VERSION_SQL.read_text(encoding="utf-8"), migrations.RunSQL.noop),
        migrations.RunSQL(_create_triggers(), _drop_triggers()),
    ]
