"""Batches: the unit an annotator claims (annotation/services/assignment.py).

Existing slots are put in batches so that nothing judged or planned is lost: each
annotator's slots (judged, held, reserved repeats) become one batch of theirs, and the open
slots are cut, per replica, into batches of 100 in their old order, each its own group
(the claim passes over a batch holding an item the annotator has had). The claim function
is installed as it was then, from its frozen copy sql/0012_assignment.sql.
"""

import importlib
from datetime import timedelta
from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

CLAIM_SQL = Path(__file__).with_name("sql") / "0012_assignment.sql"
LEGACY_BATCH = 100


def _claim_function(apps, schema_editor):
    schema_editor.execute(CLAIM_SQL.read_text(encoding="utf-8"))


def _previous_claim_function(apps, schema_editor):
    previous = importlib.import_module("annotation.migrations.0006_claim_slot_function")
    schema_editor.execute(previous.CLAIM_FUNCTION)


def _legacy_batches(apps, schema_editor):
    task_model = apps.get_model("annotation", "Task")
    slot_model = apps.get_model("annotation", "Slot")
    batch_model = apps.get_model("annotation", "Batch")
    now = timezone.now()
    for task in task_model.objects.filter(slots__isnull=False).distinct():
        lease = timedelta(seconds=task.lease_seconds)
        slots = list(slot_model.objects.filter(task=task).order_by("position", "id"))
        held: dict[int, list] = {}
        open_slots = []
        for slot in slots:
            if slot.annotator_id is None:
                open_slots.append(slot)
            else:
                held.setdefault(slot.annotator_id, []).append(slot)
        plans = []  # (annotator, slots in order)
        rank = {"done": 0, "leased": 1, "reserved": 2}
        for annotator_id, mine in held.items():
            mine.sort(key=lambda s: (rank.get(s.state, 3), s.due_after or 0, s.position))
            plans.append((annotator_id, mine))
        # Open slots per replica, so that a batch never holds two replicas of an item.
        by_replica: dict[int, list] = {}
        for slot in open_slots:
            by_replica.setdefault(slot.replica, []).append(slot)
        for replica in sorted(by_replica):
            pool = by_replica[replica]
            for start in range(0, len(pool), LEGACY_BATCH):
                plans.append((None, pool[start : start + LEGACY_BATCH]))
        for number, (annotator_id, planned) in enumerate(plans):
            pending = any(slot.state != "done" for slot in planned)
            state = "open" if annotator_id is None else "leased" if pending else "done"
            batch = batch_model.objects.create(
                task=task,
                number=number,
                group=number,
                size=len(planned),
                state=state,
                annotator_id=annotator_id,
                leased_until=now + lease if state == "leased" else None,
            )
            for position, slot in enumerate(planned):
                slot.batch = batch
                slot.position = position
                if slot.state == "reserved":
                    slot.state = "leased"
            slot_model.objects.bulk_update(planned, ["batch", "position", "state"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0011_hter_percent"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Batch",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("group", models.PositiveIntegerField()),
                ("size", models.PositiveIntegerField()),
                (
                    "state",
                    models.CharField(
                        choices=[("open", "Open"), ("leased", "Leased"), ("done", "Done")],
                        default="open",
                        max_length=10,
                    ),
                ),
                ("leased_until", models.DateTimeField(null=True)),
                (
                    "annotator",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="batches",
                        to="annotation.task",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        condition=models.Q(("state", "open")),
                        fields=["task", "number"],
                        name="batch_open_idx",
                    ),
                    models.Index(
                        condition=models.Q(("state", "leased")),
                        fields=["task", "leased_until"],
                        name="batch_lease_idx",
                    ),
                    models.Index(fields=["task", "annotator", "state"], name="batch_annotator_idx"),
                ],
                "constraints": [
                    models.UniqueConstraint(fields=("task", "number"), name="one_batch_per_number")
                ],
            },
        ),
        migrations.AddField(
            model_name="task",
            name="batch_size",
            field=models.PositiveIntegerField(default=100),
        ),
        migrations.AddConstraint(
            model_name="task",
            constraint=models.CheckConstraint(
                condition=models.Q(("batch_size__gte", 1)), name="task_batch_positive"
            ),
        ),
        migrations.AddField(
            model_name="slot",
            name="batch",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="slots",
                to="annotation.batch",
            ),
        ),
        migrations.RunPython(_legacy_batches, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="slot",
            name="batch",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="slots",
                to="annotation.batch",
            ),
        ),
        migrations.AddConstraint(
            model_name="slot",
            constraint=models.UniqueConstraint(
                fields=("batch", "position"), name="one_slot_per_position"
            ),
        ),
        migrations.RemoveIndex(model_name="slot", name="slot_open_idx"),
        migrations.RemoveIndex(model_name="slot", name="slot_lease_idx"),
        migrations.RemoveField(model_name="slot", name="due_after"),
        migrations.RemoveField(model_name="slot", name="leased_until"),
        migrations.AlterField(
            model_name="slot",
            name="state",
            field=models.CharField(
                choices=[("open", "Open"), ("leased", "Leased"), ("done", "Done")],
                default="open",
                max_length=10,
            ),
        ),
        # Replaces the function of 0006 (same signature); going back restores it.
        migrations.RunPython(_claim_function, _previous_claim_function),
    ]
